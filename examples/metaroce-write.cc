/*
 * metaroce-write: two hosts writing over a 2-plane fabric with MetaRoCE.
 *
 * Topology: topologies/tiny-2p.json (4 hosts, 2 planes; per plane 2 leaves
 * and 2 spines; 100 Gb/s per plane port, so 200 Gb/s per NIC; 1 us links).
 * Host 0 (leaf 0) writes to host 3 (leaf 1), so every packet crosses a spine:
 *
 *        s0   s1        s0   s1
 *        | \ / |        | \ / |
 *        l0   l1        l0   l1       plane 0 | plane 1
 *       /  \ /  \      /  \ /  \
 *     h0  h1 h2  h3  (each host has one port on each plane)
 *
 * Traffic: --outstanding writes of --size bytes are kept posted on one
 * stream for --duration (a new write is posted as each one completes).
 * --loss applies random loss at every NIC's receive ports, so each data
 * packet and each ACK is lost with that probability end to end.
 *
 * --pcap=PREFIX captures the writer's NIC ports (data out, ACKs in); open
 * them with analysis/metaroce.lua to decode the MetaRoCE headers:
 *   tshark -X lua_script:analysis/metaroce.lua -r PREFIX-0-1.pcap
 *
 * Output: goodput (payload bytes of completed writes per second), normalised
 * to the NIC's line rate, packets and retransmissions, and a per-path table
 * (plane, UDP source port, packets, retransmissions, timeouts, repaths,
 * window, smoothed RTT).
 *
 * What to expect (docs/metaroce-model.md, "Validation"):
 *   metaroce-write                  normalised goodput ~0.92 (0.95 rate-hint
 *                                   target x 4096/4210 payload share of a
 *                                   frame), no retransmissions
 *   metaroce-write --loss=0.01      every write completes; retransmissions
 *                                   ~1-2 % of packets; goodput a few points
 *                                   lower
 */
#include "fabric-builder.h"
#include "fabric-spec.h"
#include "metaroce-connection.h"
#include "metaroce-transport.h"
#include "rdma-transport-helper.h"
#include "run-metrics.h"

#include "ns3/core-module.h"
#include "ns3/error-model.h"

#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{
struct Writer
{
    Ptr<RdmaConnection> conn;
    uint32_t rkey = 0;
    uint32_t size = 0;
    uint64_t next = 0;
    uint64_t completedBytes = 0;
    uint64_t completed = 0;
    Time stopPosting;

    void PostOne()
    {
        conn->PostWrite(0, next++, 0, rkey, size);
    }

    void Done(const RdmaCompletion& c)
    {
        NS_ABORT_MSG_IF(c.status != RdmaStatus::Success, "write failed: " << c);
        completedBytes += c.bytes;
        ++completed;
        if (Simulator::Now() < stopPosting)
        {
            PostOne();
        }
    }
};
} // namespace

int
main(int argc, char* argv[])
{
    std::string topology = std::string(METAROCE_SOURCE_DIR) + "/topologies/tiny-2p.json";
    uint32_t src = 0;
    uint32_t dst = 3;
    uint32_t size = 1 << 20;
    uint32_t outstanding = 4;
    Time duration = MicroSeconds(500);
    double loss = 0;
    uint32_t seed = 1;
    std::string pcap;

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "Fabric JSON", topology);
    cmd.AddValue("src", "Writing host", src);
    cmd.AddValue("dst", "Written host", dst);
    cmd.AddValue("size", "Bytes per write", size);
    cmd.AddValue("outstanding", "Writes kept posted", outstanding);
    cmd.AddValue("duration", "How long writes are posted", duration);
    cmd.AddValue("loss", "Random loss probability on every receive port", loss);
    cmd.AddValue("seed", "RNG seed", seed);
    cmd.AddValue("pcap", "Capture the writer's NIC ports to PREFIX-<node>-<dev>.pcap", pcap);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(seed);

    FabricBuilder builder(LoadFabricSpec(topology));
    Ptr<Fabric> fabric = builder.Build();
    fabric->AssignStreams(1000);
    if (src >= fabric->GetNHosts() || dst >= fabric->GetNHosts() || src == dst)
    {
        std::cerr << "metaroce-write: --src and --dst must be two hosts of " << topology << "\n";
        return 1;
    }
    if (loss > 0)
    {
        // Loss at the NICs' receive ports: each data packet and each ACK is
        // lost with probability --loss end to end.
        int64_t stream = 100000;
        for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
            for (uint32_t plane = 0; plane < fabric->GetNPlanes(); ++plane)
            {
                Ptr<FabricPort> port = fabric->GetNic(h)->GetPort(plane);
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(loss);
                em->AssignStreams(stream++);
                port->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
    }
    if (!pcap.empty())
    {
        for (uint32_t plane = 0; plane < fabric->GetNPlanes(); ++plane)
        {
            builder.EnablePcap(pcap, fabric->GetNic(src)->GetPort(plane));
        }
    }
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    auto [a, b] = rdma.Connect(transports[src], transports[dst]);
    Ptr<MetaRoceConnection> conn = DynamicCast<MetaRoceConnection>(a);

    Writer w;
    w.conn = a;
    w.size = size;
    w.rkey = b->GetLocalMemory()->Register(0, uint64_t(size));
    w.stopPosting = duration;
    a->SetCompletionCallback(MakeCallback(&Writer::Done, &w));
    for (uint32_t i = 0; i < outstanding; ++i)
    {
        w.PostOne();
    }

    RunMetrics metrics;
    Simulator::Stop(duration);
    Simulator::Run();

    double lineBps = 0;
    for (uint32_t p = 0; p < fabric->GetNPlanes(); ++p)
    {
        lineBps += fabric->GetNic(src)->GetPort(p)->GetDataRate().GetBitRate();
    }
    // Goodput: payload bytes placed at the receiver (duplicates excluded).
    const double goodput = DynamicCast<MetaRoceConnection>(b)->GetReceiverStats().placedBytes *
                           8.0 / duration.GetSeconds();
    const auto& st = conn->GetStats();
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "metaroce-write: host " << src << " -> " << dst << ", " << size << " B writes x "
              << outstanding << " outstanding, loss " << loss << ", " << duration.As(Time::US)
              << "\n"
              << "  completed writes       " << w.completed << "\n"
              << "  goodput                " << goodput / 1e9 << " Gb/s\n"
              << "  normalised goodput     " << goodput / lineBps << " (of " << lineBps / 1e9
              << " Gb/s line rate)\n"
              << "  data packets sent      " << st.dataPackets << "\n"
              << "  retransmissions        " << st.retransmissions << " (same path), " << st.resent
              << " moved after path failures\n"
              << "  ACKs received          " << st.acks << "\n"
              << "  wall time              " << metrics.WallSeconds() << " s, " << metrics.Events()
              << " events\n";
    std::cout << "  path plane port   sent  retx  rto  fail  cwnd  srtt_us\n";
    for (uint32_t i = 0; i < conn->GetNPaths(); ++i)
    {
        const auto& ps = conn->GetPathStats(i);
        std::cout << "  " << std::setw(4) << i << std::setw(6) << conn->GetPathPlane(i)
                  << std::setw(6) << conn->GetPathSourcePort(i) << std::setw(7) << ps.sent
                  << std::setw(6) << ps.retransmitted << std::setw(5) << ps.timeouts << std::setw(6)
                  << ps.failures << std::setw(6) << std::setprecision(1) << conn->GetPathWindow(i)
                  << std::setw(9) << std::setprecision(2) << conn->GetPathSrtt(i).GetSeconds() * 1e6
                  << "\n";
    }
    Simulator::Destroy();
    fabric->Dispose(); // closes (flushes) the pcap files
    return 0;
}
