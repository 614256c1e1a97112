// Workloads over the verbs-like API, on both transports (GENERATE): each
// states the volume it expects and the bound its timing must respect.
#include "all-to-all-workload.h"
#include "bulk-workload.h"
#include "ring-all-reduce-workload.h"
#include "test-metaroce-util.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

using namespace ns3;
using namespace ns3::test;

namespace
{
Ptr<RdmaConnectionPool>
MakePool(const std::string& transport, Ptr<Fabric>& fabric)
{
    FabricBuilder builder(TinySpec());
    fabric = builder.Build();
    RdmaTransportHelper rdma(transport);
    Ptr<RdmaConnectionPool> pool = CreateObject<RdmaConnectionPool>();
    pool->SetTransports(rdma.Install(fabric));
    return pool;
}

uint32_t g_finished = 0;

void
Finished()
{
    ++g_finished;
}
} // namespace

TEST_CASE("workloads: bulk flows post, complete and finish", "[workload]")
{
    const std::string transport = GENERATE("ns3::MetaRoceTransport", "ns3::RoceV2Transport");
    CAPTURE(transport);
    Ptr<Fabric> fabric;
    Ptr<RdmaConnectionPool> pool = MakePool(transport, fabric);
    Ptr<BulkWorkload> w = CreateObject<BulkWorkload>();
    w->SetAttribute("MessageBytes", UintegerValue(64 * 1024));
    w->SetAttribute("MessagesPerFlow", UintegerValue(5));
    w->SetAttribute("Outstanding", UintegerValue(2));
    w->AddFlow(0, 3);
    w->AddFlow(3, 0); // the same connection, the other way
    w->AddFlow(1, 2);
    w->Install(pool);
    g_finished = 0;
    w->SetFinishedCallback(MakeCallback(&Finished));
    w->Schedule();
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    CHECK(g_finished == 1);
    CHECK(w->IsFinished());
    CHECK(w->GetMessages().size() == 15);
    CHECK(w->GetOutstanding() == 0);
    CHECK(pool->GetNConnections() == 2);
    uint64_t delivered = 0;
    for (auto& e : pool->GetEndpoints())
    {
        delivered += e->GetDeliveredBytes();
    }
    CHECK(delivered == 15 * 64 * 1024);
}

TEST_CASE("workloads: all-to-all completes every pair and reports bus bandwidth", "[workload]")
{
    const std::string transport = GENERATE("ns3::MetaRoceTransport", "ns3::RoceV2Transport");
    CAPTURE(transport);
    Ptr<Fabric> fabric;
    Ptr<RdmaConnectionPool> pool = MakePool(transport, fabric);
    Ptr<AllToAllWorkload> w = CreateObject<AllToAllWorkload>();
    w->SetAttribute("MessageBytes", UintegerValue(256 * 1024));
    w->SetAttribute("Iterations", UintegerValue(2));
    w->Install(pool);
    w->Schedule();
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    REQUIRE(w->IsFinished());
    CHECK(w->GetMessages().size() == 2 * 12); // 4 x 3 pairs, twice
    REQUIRE(w->GetCollectives().size() == 2);
    const auto& c = w->GetCollectives()[0];
    CHECK(c.ranks == 4);
    CHECK(c.bytes == 4 * 256 * 1024);
    // Each rank sends 3 x 256 KiB through a 200 Gb/s NIC: at least 31.5 us,
    // so bus bandwidth (algbw x 3/4) cannot exceed 200 Gb/s.
    CHECK((c.end - c.start) > MicroSeconds(31));
    CHECK(c.busBandwidthBps < 200e9);
    CHECK(c.busBandwidthBps > 100e9);
    CHECK(w->GetCollectives()[1].start == c.end); // back to back
}

TEST_CASE("workloads: ring all-reduce moves 2(n-1) chunks per rank, in dependency order",
          "[workload]")
{
    const std::string transport = GENERATE("ns3::MetaRoceTransport", "ns3::RoceV2Transport");
    CAPTURE(transport);
    Ptr<Fabric> fabric;
    Ptr<RdmaConnectionPool> pool = MakePool(transport, fabric);
    Ptr<RingAllReduceWorkload> w = CreateObject<RingAllReduceWorkload>();
    w->SetAttribute("Bytes", UintegerValue(8 << 20));
    w->SetAttribute("Slices", UintegerValue(4));
    w->Install(pool);
    w->Schedule();
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    REQUIRE(w->IsFinished());
    // 4 ranks x 2 x 3 steps x 4 slices of 8 MiB / 4 / 4 = 512 KiB.
    CHECK(w->GetSliceBytes() == 512 * 1024);
    CHECK(w->GetMessages().size() == 4 * 2 * 3 * 4);
    REQUIRE(w->GetCollectives().size() == 1);
    const auto& c = w->GetCollectives()[0];
    // Each rank sends 2 x 3/4 x 8 MiB = 12 MiB through a 200 Gb/s NIC: at
    // least 503 us, so bus bandwidth stays below 200 Gb/s.
    CHECK((c.end - c.start) > MicroSeconds(503));
    CHECK(c.busBandwidthBps < 200e9);
    CHECK(c.busBandwidthBps > 100e9);
}
