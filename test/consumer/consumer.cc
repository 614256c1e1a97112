/*
 * A consumer of the installed module: one 64 KiB RDMA write between two
 * hosts of the installed 4-host fabric, over MetaRoCE. Exits 0 when the
 * write completes successfully and the receiver placed exactly its bytes.
 */
#include "fabric-builder.h"
#include "fabric-spec.h"
#include "fabric.h"
#include "rdma-connection.h"
#include "rdma-memory.h"
#include "rdma-transport-helper.h"

#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

int
main()
{
    const uint32_t bytes = 64 * 1024;
    FabricBuilder builder(
        LoadFabricSpec(std::string(METAROCE_DATA_DIR) + "/topologies/tiny-2p.json"));
    Ptr<Fabric> fabric = builder.Build();
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    auto [writer, target] = rdma.Connect(transports[0], transports[3]);
    const uint32_t rkey = target->GetLocalMemory()->Register(0, bytes);
    uint32_t completions = 0;
    bool ok = true;
    writer->SetCompletionCallback(
        Callback<void, const RdmaCompletion&>([&](const RdmaCompletion& c) {
            ++completions;
            ok = ok && c.status == RdmaStatus::Success && c.bytes == bytes;
        }));
    writer->PostWrite(0, 1, 0, rkey, bytes);
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    const uint64_t placed = target->GetDeliveredBytes();
    Simulator::Destroy();
    std::cout << "metaroce-consumer: " << completions << " completion(s), " << placed
              << " bytes placed\n";
    return ok && completions == 1 && placed == bytes ? 0 : 1;
}
