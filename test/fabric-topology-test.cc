/*
 * Topology graph and ECMP: sizes of the shipped fabrics, next-hop group sizes
 * against Clos arithmetic, and how evenly the hash spreads flows.
 */
#include "ecmp-hash.h"
#include "fabric-address.h"
#include "fabric-graph.h"
#include "test-fabric-util.h"

#include <array>
#include <catch2/catch.hpp>
#include <cmath>

using namespace ns3;

TEST_CASE("FabricGraph: shipped fabrics have the Clos sizes their descriptions state", "[topology]")
{
    struct Expect
    {
        const char* name;
        uint32_t planes;
        uint32_t hosts;
        uint32_t switchesPerPlane;
    };

    // Vertices: hosts (shared by planes) + planes x (leaves + spines).
    // Edges: planes x (hosts + leaves x spines x parallel links).
    for (const Expect& e : {Expect{"clos-64h-4p", 4, 64, 16},
                            Expect{"clos-64h-8p", 8, 64, 16},
                            Expect{"tiny-2p", 2, 4, 4},
                            Expect{"single-switch-2p", 2, 4, 1}})
    {
        CAPTURE(e.name);
        FabricSpec spec = test::LoadTopology(e.name);
        FabricGraph g(spec);
        CHECK(spec.planes == e.planes);
        CHECK(spec.Hosts() == e.hosts);
        CHECK(g.NumVertices() == e.hosts + e.planes * e.switchesPerPlane);
        CHECK(g.NumEdges() == e.planes * (e.hosts + spec.leavesPerPlane * spec.spinesPerPlane *
                                                        spec.linksPerLeafSpine));
        CHECK(g.Links().size() == g.NumEdges());
    }
    FabricGraph g8(test::LoadTopology("clos-64h-8p"));
    CHECK(g8.NumVertices() == 192);
    CHECK(g8.NumEdges() == 1024);
}

TEST_CASE("FabricGraph: ECMP groups are all shortest paths of a 2-tier Clos", "[topology]")
{
    FabricSpec spec = test::LoadTopology("clos-64h-4p");
    FabricGraph g(spec);
    std::vector<bool> up(g.Links().size(), true);
    auto hops = g.ComputeNextHops(up);
    for (uint32_t p = 0; p < spec.planes; ++p)
    {
        for (uint32_t h = 0; h < spec.Hosts(); ++h)
        {
            const uint32_t hostLeaf = h / spec.hostsPerLeaf;
            for (uint32_t l = 0; l < spec.leavesPerPlane; ++l)
            {
                // The host's own leaf: one port (the host link). Any other leaf:
                // one uplink per spine per parallel link (8 here).
                const auto& group = hops[g.LeafVertex(p, l)][h];
                REQUIRE(group.size() ==
                        (l == hostLeaf ? 1u : spec.spinesPerPlane * spec.linksPerLeafSpine));
                for (uint32_t link : group)
                {
                    CHECK(g.Links()[link].plane == p);
                }
            }
            for (uint32_t s = 0; s < spec.spinesPerPlane; ++s)
            {
                // A spine reaches a host only through that host's leaf.
                REQUIRE(hops[g.SpineVertex(p, s)][h].size() == spec.linksPerLeafSpine);
            }
        }
    }
}

TEST_CASE("FabricGraph: a dead uplink leaves the group and a switch cut off loses the route",
          "[topology]")
{
    FabricSpec spec = test::TinySpec({{"clos", {{"links_per_leaf_spine", 2}}}});
    FabricGraph g(spec);
    std::vector<bool> up(g.Links().size(), true);
    // Leaf 0 of plane 0 to host 2 (under leaf 1): 2 spines x 2 parallel links.
    CHECK(g.ComputeNextHops(up)[g.LeafVertex(0, 0)][2].size() == 4);
    // Kill both parallel links leaf1-spine0 of plane 0: spine 0 cannot reach
    // host 2, so leaf 0 must stop using spine 0 for it (2 links left).
    for (uint32_t i = 0; i < g.Links().size(); ++i)
    {
        const auto& d = g.Links()[i];
        if (d.plane == 0 && d.tier == LinkTier::LeafSpine && g.Vertex(d.a).index == 1 &&
            g.Vertex(d.b).index == 0)
        {
            up[i] = false;
        }
    }
    auto hops = g.ComputeNextHops(up);
    CHECK(hops[g.LeafVertex(0, 0)][2].size() == 2);
    CHECK(hops[g.SpineVertex(0, 0)][2].empty());
    // Plane 1 is untouched.
    CHECK(hops[g.LeafVertex(1, 0)][2].size() == 4);
}

namespace
{
/** Chi-square statistic of counts against a uniform expectation. */
double
ChiSquare(const std::vector<uint32_t>& counts, double expected)
{
    double chi = 0;
    for (uint32_t c : counts)
    {
        chi += (c - expected) * (c - expected) / expected;
    }
    return chi;
}
} // namespace

TEST_CASE("EcmpHash: source ports spread evenly over a group, independently per switch",
          "[topology][hash]")
{
    // 16,000 flows (distinct UDP source ports) over a group of 8: each member
    // expects 2,000. The chi-square statistic has 7 degrees of freedom; its
    // 99.9th percentile is 24.32, so a fair hash fails this 1 time in 1000 per
    // seed, and a biased one (e.g. a hash that ignores the low port bits)
    // lands in the thousands.
    const uint32_t flows = 16000;
    const uint32_t members = 8;
    FrameInfo f;
    f.srcIp = FabricAddress::HostIp(0, 3).Get();
    f.dstIp = FabricAddress::HostIp(0, 41).Get();
    f.dstPort = 4791;
    std::vector<uint32_t> tier1(members, 0);
    // Second tier: for flows that took member 0 at tier 1, the choice at a
    // switch with another seed must again be uniform (no polarisation).
    std::vector<uint32_t> tier2(members, 0);
    uint32_t firstTierZero = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        f.srcPort = static_cast<uint16_t>(49152 + i);
        uint32_t a = EcmpIndex(EcmpHash(f, 0x1234), members);
        ++tier1[a];
        if (a == 0)
        {
            ++firstTierZero;
            ++tier2[EcmpIndex(EcmpHash(f, 0xbeef), members)];
        }
    }
    CHECK(ChiSquare(tier1, double(flows) / members) < 24.32);
    CHECK(ChiSquare(tier2, double(firstTierZero) / members) < 24.32);
}
