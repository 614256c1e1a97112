// Transport state per connection, the budget being at most 4 KiB per
// connection endpoint (excluding packets in flight), measured as heap growth
// with glibc's mallinfo2() on the benchmark's scenario: MetaRoCE
// all-to-all over 64 hosts x 8 planes (clos-64h-8p), 2,016 bidirectional
// connections = 4,032 directed connections (64 x 63). A directed connection
// is the sending half of one endpoint plus the receiving half of its peer
// for that direction; each endpoint holds one of each, so the heap per
// directed connection is the heap per endpoint.
//
// The bound is 4096 bytes per directed connection, the budget above, and
// it is checked twice: right after set-up, and after every path of every
// endpoint has carried data and the fabric has drained (nothing in flight),
// which is the state a long run keeps. With PathsPerPlane = 4 on 8 planes an
// endpoint has 32 paths, so the sender and receiver state of a path must stay
// near 100 bytes together with the endpoint's fixed part (~1.4 KB: the
// connection object, its congestion policy, its planes). Measured when this
// test was written: 3.2 KB at set-up, 3.8 KB after traffic (it was 10.4 KB and
// 17.7 KB before the path state was split). A path, stream or message
// structure that grows back, or a queue allocated eagerly or never released,
// fails this test.
#include "test-metaroce-util.h"

#include <catch2/catch.hpp>
#include <iostream>
#include <malloc.h>

using namespace ns3;
using namespace ns3::test;

namespace
{

/** Heap bytes in use: arena chunks plus mmap-ed ones (large vectors). */
uint64_t
HeapInUse()
{
    const struct mallinfo2 mi = mallinfo2();
    return uint64_t(mi.uordblks) + uint64_t(mi.hblkhd);
}

/** The budget, bytes per directed connection. */
constexpr double kMaxBytesPerDirectedConnection = 4096;

} // namespace

TEST_CASE("memory: MetaRoCE state per directed connection <= 4 KiB on 64 hosts x 8 planes",
          "[metaroce][memory]")
{
    FabricBuilder builder(LoadTopology("clos-64h-8p"));
    Ptr<Fabric> fabric = builder.Build();
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    for (const auto& t : transports)
    {
        // Per-request completion tracking is the test suite's bookkeeping
        // (docs/hardening.md, "Invariants"), not transport state; the
        // always-on completion counters stay and are measured.
        t->SetTrackWorkRequests(false);
    }
    const uint32_t n = fabric->GetNHosts();
    REQUIRE(n == 64);
    REQUIRE(fabric->GetNPlanes() == 8);
    // One region per host, registered before any baseline: workload memory,
    // not transport state.
    const uint32_t size = 256 * 1024; // 64 packets: every path of an endpoint carries some
    std::vector<uint32_t> rkeys(n);
    for (uint32_t h = 0; h < n; ++h)
    {
        rkeys[h] = transports[h]->GetMemory()->Register(0, uint64_t(size) * n);
    }
    std::vector<Ptr<RdmaConnection>> conns;
    conns.reserve(2 * n * (n - 1)); // the test's own vector is not counted

    // Creates the all-to-all's 2,016 connections (4,032 endpoints); returns
    // the heap growth per directed connection.
    auto connectAll = [&]() {
        const uint64_t before = HeapInUse();
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = i + 1; j < n; ++j)
            {
                auto [a, b] = RdmaTransport::Connect(transports[i], transports[j]);
                conns.push_back(a);
                conns.push_back(b);
            }
        }
        return double(HeapInUse() - before) / (n * (n - 1));
    };
    // One Write per endpoint of the connections from \p first on, run until
    // all complete and nothing is in flight; checks every path carried data.
    auto runAll = [&](size_t first) {
        for (size_t k = first; k < conns.size(); ++k)
        {
            conns[k]->PostWrite(0,
                                k,
                                uint64_t(size) * conns[k]->GetLocalHost(),
                                rkeys[conns[k]->GetRemoteHost()],
                                size);
        }
        Simulator::Stop(MilliSeconds(5)); // all complete within 1 ms
        Simulator::Run();
        uint64_t unusedPaths = 0;
        for (size_t k = first; k < conns.size(); ++k)
        {
            auto m = DynamicCast<MetaRoceConnection>(conns[k]);
            REQUIRE(m->GetOutstanding() == 0);
            REQUIRE(m->GetInFlight() == 0);
            for (uint32_t p = 0; p < m->GetNPaths(); ++p)
            {
                unusedPaths += m->GetPathStats(p).sent == 0 ? 1 : 0;
            }
        }
        CHECK(unusedPaths == 0);
    };

    // Round 1: set-up from cold, then traffic; this also warms the
    // simulator's own pools (event scheduler, packet buffer free lists,
    // fabric queues), which are not transport state.
    const double setUpCold = connectAll();
    runAll(0);
    // Round 2: the same again on a second set of connections between the
    // same hosts, measured against the warm heap: set-up, then after every
    // path has carried data and the fabric has drained.
    const uint64_t warm = HeapInUse();
    const double setUp = connectAll();
    runAll(conns.size() / 2);
    const double idle = double(HeapInUse() - warm) / (n * (n - 1));

    std::cout << "memory: heap per directed connection: set-up " << setUpCold << " B (cold), "
              << setUp << " B (warm); after every path carried data, nothing in flight " << idle
              << " B. Per bidirectional connection: " << 2 * setUp << " / " << 2 * idle << " B\n";
    CHECK(setUpCold <= kMaxBytesPerDirectedConnection);
    CHECK(setUp <= kMaxBytesPerDirectedConnection);
    CHECK(idle <= kMaxBytesPerDirectedConnection);
}
