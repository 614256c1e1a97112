#include "fabric-graph.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>

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
    std::string lower = tier == LinkTier::HostLeaf ? VertexName(a) : "l" + std::to_string(m_graph[a].index);
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
/** Edge filter: only links that are up. */
struct UpLinks
{
    const FabricGraph::Graph* g = nullptr;
    const std::vector<bool>* up = nullptr;

    bool operator()(FabricGraph::Graph::edge_descriptor e) const { return (*up)[(*g)[e].link]; }
};

/** Vertex filter: switches, and the one host we route towards. */
struct SwitchesAndDestination
{
    const FabricGraph::Graph* g = nullptr;
    uint32_t destination = 0;

    bool operator()(FabricGraph::Graph::vertex_descriptor v) const
    {
        return (*g)[v].kind != FabricNodeKind::Host || v == destination;
    }
};
} // namespace

std::vector<std::vector<std::vector<uint32_t>>>
FabricGraph::ComputeNextHops(const std::vector<bool>& linkUp) const
{
    const std::size_t n = NumVertices();
    const uint32_t hosts = m_spec.Hosts();
    constexpr uint32_t kUnreached = std::numeric_limits<uint32_t>::max();
    std::vector<std::vector<std::vector<uint32_t>>> result(n);
    for (uint32_t v = hosts; v < n; ++v)
    {
        result[v].resize(hosts);
    }
    std::vector<uint32_t> dist(n);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        UpLinks ef{&m_graph, &linkUp};
        SwitchesAndDestination vf{&m_graph, HostVertex(h)};
        boost::filtered_graph<Graph, UpLinks, SwitchesAndDestination> fg(m_graph, ef, vf);
        std::fill(dist.begin(), dist.end(), kUnreached);
        dist[HostVertex(h)] = 0;
        boost::breadth_first_search(
            fg,
            HostVertex(h),
            boost::visitor(boost::make_bfs_visitor(
                boost::record_distances(dist.data(), boost::on_tree_edge()))));
        for (uint32_t v = hosts; v < n; ++v)
        {
            if (dist[v] == kUnreached)
            {
                continue;
            }
            for (auto [e, end] = boost::out_edges(v, fg); e != end; ++e)
            {
                uint32_t next = boost::target(*e, fg);
                if (dist[next] != kUnreached && dist[next] + 1 == dist[v])
                {
                    result[v][h].push_back(m_graph[*e].link);
                }
            }
            std::sort(result[v][h].begin(), result[v][h].end());
        }
    }
    return result;
}

} // namespace ns3
