#include "fabric-graph.h"

#include <algorithm>
#include <limits>

namespace ns3
{

FabricGraph::FabricGraph(const FabricSpec& spec)
    : m_spec(spec)
{
    const uint32_t hosts = spec.Hosts();
    for (uint32_t h = 0; h < hosts; ++h)
    {
        boost::add_vertex(FabricVertex{FabricNodeKind::Host, 0, h}, m_graph);
    }
    for (uint32_t p = 0; p < spec.planes; ++p)
    {
        for (uint32_t l = 0; l < spec.leavesPerPlane; ++l)
        {
            boost::add_vertex(FabricVertex{FabricNodeKind::Leaf, p, l}, m_graph);
        }
        for (uint32_t s = 0; s < spec.spinesPerPlane; ++s)
        {
            boost::add_vertex(FabricVertex{FabricNodeKind::Spine, p, s}, m_graph);
        }
    }
    for (uint32_t p = 0; p < spec.planes; ++p)
    {
        for (uint32_t h = 0; h < hosts; ++h)
        {
            AddLink(HostVertex(h), LeafVertex(p, h / spec.hostsPerLeaf), p, LinkTier::HostLeaf, 0);
        }
        for (uint32_t l = 0; l < spec.leavesPerPlane; ++l)
        {
            for (uint32_t s = 0; s < spec.spinesPerPlane; ++s)
            {
                for (uint32_t k = 0; k < spec.linksPerLeafSpine; ++k)
                {
                    AddLink(LeafVertex(p, l), SpineVertex(p, s), p, LinkTier::LeafSpine, k);
                }
            }
        }
    }
}

uint32_t
FabricGraph::LeafVertex(uint32_t plane, uint32_t leaf) const
{
    return m_spec.Hosts() + plane * m_spec.SwitchesPerPlane() + leaf;
}

uint32_t
FabricGraph::SpineVertex(uint32_t plane, uint32_t spine) const
{
    return m_spec.Hosts() + plane * m_spec.SwitchesPerPlane() + m_spec.leavesPerPlane + spine;
}

std::vector<uint32_t>
FabricGraph::SwitchVertices() const
{
    std::vector<uint32_t> v;
    for (uint32_t i = m_spec.Hosts(); i < NumVertices(); ++i)
    {
        v.push_back(i);
    }
    return v;
}

std::string
FabricGraph::VertexName(uint32_t v) const
{
    const FabricVertex& fv = m_graph[v];
    switch (fv.kind)
    {
    case FabricNodeKind::Host:
        return "h" + std::to_string(fv.index);
    case FabricNodeKind::Leaf:
        return "p" + std::to_string(fv.plane) + "/l" + std::to_string(fv.index);
    case FabricNodeKind::Spine:
        return "p" + std::to_string(fv.plane) + "/s" + std::to_string(fv.index);
    }
    return "?";
}

uint32_t
FabricGraph::AddLink(uint32_t a, uint32_t b, uint32_t plane, LinkTier tier, uint32_t parallel)
{
    const uint32_t id = m_links.size();
    boost::add_edge(a, b, FabricEdge{id}, m_graph);
    FabricLinkDesc d;
    d.plane = plane;
    d.tier = tier;
    d.a = a;
    d.b = b;
    d.parallel = parallel;
    // Hosts are named without a plane ("h3"), switches with one ("p0/l1").
    std::string lower =
        tier == LinkTier::HostLeaf ? VertexName(a) : "l" + std::to_string(m_graph[a].index);
    d.name = "p" + std::to_string(plane) + "/" + lower + "-" +
             (tier == LinkTier::HostLeaf ? "l" : "s") + std::to_string(m_graph[b].index);
    if (tier == LinkTier::LeafSpine)
    {
        d.name += "#" + std::to_string(parallel);
    }
    m_links.push_back(d);
    return id;
}

namespace
{
constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();

uint32_t
Tier(FabricNodeKind kind)
{
    return kind == FabricNodeKind::Host ? 0 : kind == FabricNodeKind::Leaf ? 1 : 2;
}
} // namespace

void
FabricGraph::DownDistances(uint32_t host,
                           const std::vector<bool>& linkUp,
                           std::vector<uint32_t>& down) const
{
    std::fill(down.begin(), down.end(), kUnreached);
    down[HostVertex(host)] = 0;
    std::vector<uint32_t> frontier(1, HostVertex(host));
    std::vector<uint32_t> next;
    for (uint32_t d = 1; !frontier.empty(); ++d)
    {
        next.clear();
        for (uint32_t x : frontier)
        {
            for (auto [e, end] = boost::out_edges(x, m_graph); e != end; ++e)
            {
                const uint32_t y = boost::target(*e, m_graph);
                if (linkUp[m_graph[*e].link] && down[y] == kUnreached &&
                    Tier(m_graph[y].kind) > Tier(m_graph[x].kind))
                {
                    down[y] = d;
                    next.push_back(y);
                }
            }
        }
        frontier.swap(next);
    }
}

void
FabricGraph::BestDistances(const std::vector<uint32_t>& byTierDesc,
                           const std::vector<bool>& linkUp,
                           const std::vector<uint32_t>& down,
                           std::vector<uint32_t>& best) const
{
    for (uint32_t v : byTierDesc)
    {
        best[v] = down[v];
        for (auto [e, end] = boost::out_edges(v, m_graph); e != end; ++e)
        {
            const uint32_t u = boost::target(*e, m_graph);
            if (linkUp[m_graph[*e].link] && Tier(m_graph[u].kind) > Tier(m_graph[v].kind) &&
                best[u] != kUnreached)
            {
                best[v] = std::min(best[v], best[u] + 1);
            }
        }
    }
}

std::vector<uint32_t>
FabricGraph::NextHops(uint32_t v,
                      const std::vector<bool>& linkUp,
                      const std::vector<uint32_t>& down,
                      const std::vector<uint32_t>& best) const
{
    std::vector<uint32_t> group;
    for (auto [e, end] = boost::out_edges(v, m_graph); e != end; ++e)
    {
        if (!linkUp[m_graph[*e].link])
        {
            continue;
        }
        const uint32_t y = boost::target(*e, m_graph);
        const bool up = Tier(m_graph[y].kind) > Tier(m_graph[v].kind);
        const uint32_t via = up ? best[y] : down[y];
        if (via != kUnreached && via + 1 == best[v])
        {
            group.push_back(m_graph[*e].link);
        }
    }
    std::sort(group.begin(), group.end());
    return group;
}

std::vector<std::vector<std::vector<uint32_t>>>
FabricGraph::ComputeNextHops(const std::vector<bool>& linkUp) const
{
    // Valley-free shortest paths (up some tiers, then down; never down then
    // up again), as eBGP Clos designs enforce (RFC 7938: spines share an AS,
    // so a spine never learns a route through a leaf from another spine).
    // down[v]: hops from v to the host going only down (a breadth-first
    // search from the host that only climbs); best[v]: hops on the best
    // valley-free path, min(down[v], 1 + best[u]) over v's upper neighbours u.
    const std::size_t n = NumVertices();
    const uint32_t hosts = m_spec.Hosts();
    std::vector<std::vector<std::vector<uint32_t>>> result(n);
    for (uint32_t v = hosts; v < n; ++v)
    {
        result[v].resize(hosts);
    }
    // Switches from the top tier down, so best[] of upper neighbours is final.
    std::vector<uint32_t> byTierDesc = SwitchVertices();
    std::stable_sort(byTierDesc.begin(), byTierDesc.end(), [this](uint32_t a, uint32_t b) {
        return Tier(m_graph[a].kind) > Tier(m_graph[b].kind);
    });
    std::vector<uint32_t> down(n);
    std::vector<uint32_t> best(n);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        DownDistances(h, linkUp, down);
        BestDistances(byTierDesc, linkUp, down, best);
        for (uint32_t v : byTierDesc)
        {
            if (best[v] != kUnreached)
            {
                result[v][h] = NextHops(v, linkUp, down, best);
            }
        }
    }
    return result;
}

} // namespace ns3
