// Hidden scale check (run explicitly: metaroce-tests "[.scale]"): MetaRoCE
// all-to-all on the 64-host 8-plane fabric, 4,032 connections. Prints its
// figures; asserts only what must hold at any scale.
#include "run-metrics.h"
#include "test-metaroce-util.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <iostream>

using namespace ns3;
using namespace ns3::test;

TEST_CASE("scale: all-to-all on 64 hosts x 8 planes, 4032 connections", "[.scale]")
{
    if (const char* sched = std::getenv("METAROCE_SCHEDULER"))
    {
        ObjectFactory f;
        f.SetTypeId(sched);
        Simulator::SetScheduler(f);
    }
    FabricBuilder builder(LoadTopology("clos-64h-8p"));
    Ptr<Fabric> fabric = builder.Build();
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    const uint32_t n = fabric->GetNHosts();
    std::vector<Ptr<RdmaConnection>> conns;
    const uint32_t size = 256 * 1024;
    const double rssBefore = RunMetrics::PeakRssMb();
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = i + 1; j < n; ++j)
        {
            auto [a, b] = RdmaTransport::Connect(transports[i], transports[j]);
            conns.push_back(a);
            conns.push_back(b);
        }
    }
    const double rssConnected = RunMetrics::PeakRssMb();
    for (uint32_t k = 0; k < conns.size(); k += 2)
    {
        const uint32_t rkeyB = conns[k + 1]->GetLocalMemory()->Register(uint64_t(k) << 24, size);
        const uint32_t rkeyA = conns[k]->GetLocalMemory()->Register(uint64_t(k) << 24, size);
        conns[k]->PostWrite(0, k, uint64_t(k) << 24, rkeyB, size);
        conns[k + 1]->PostWrite(0, k + 1, uint64_t(k) << 24, rkeyA, size);
    }
    RunMetrics metrics;
    Simulator::Stop(MicroSeconds(400));
    Simulator::Run();
    uint64_t completed = 0;
    uint64_t retx = 0;
    uint64_t failures = 0;
    for (auto& c : conns)
    {
        completed += c->GetCompletedCount();
        auto m = DynamicCast<MetaRoceConnection>(c);
        retx += m->GetStats().retransmissions;
        for (uint32_t p = 0; p < m->GetNPaths(); ++p)
        {
            failures += m->GetPathStats(p).failures;
        }
    }
    std::cout << "scale: connections " << conns.size() << ", completed " << completed
              << ", retransmissions " << retx << ", path failures " << failures << ", hops "
              << fabric->GetPacketHops() << ", events " << metrics.Events() << ", wall "
              << metrics.WallSeconds() << " s, hops/s "
              << fabric->GetPacketHops() / metrics.WallSeconds() << ", rss " << rssBefore << " -> "
              << rssConnected << " -> " << RunMetrics::PeakRssMb() << " MiB\n";
    CHECK(conns.size() == 4032);
}
