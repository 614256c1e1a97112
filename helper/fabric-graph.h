/*
 * FabricGraph: the fabric as a Boost.Graph, and the ECMP next-hop sets
 * derived from it.
 *
 * One vertex per host (shared by all planes: a host has one port per plane)
 * and per switch; one edge per physical link, parallel edges for parallel
 * leaf-spine links. Link ids are dense and deterministic (docs/fabric-format.md):
 * per plane, host-leaf links by host, then leaf-spine links by (leaf, spine,
 * parallel index).
 *
 * Next hops are all shortest valley-free paths over links that are up: up
 * zero or more tiers, then down, never down then up again (RFC 7938 eBGP
 * Clos routing), and never through a host (hosts do not forward). A switch's
 * next hops towards host h are its links to neighbours one hop closer to h on
 * such a path.
 */
#ifndef METAROCE_FABRIC_GRAPH_H
#define METAROCE_FABRIC_GRAPH_H

#include "fabric-spec.h"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

enum class FabricNodeKind : uint8_t
{
    Host,
    Leaf,
    Spine,
};

enum class LinkTier : uint8_t
{
    HostLeaf,
    LeafSpine,
};

struct FabricVertex
{
    FabricNodeKind kind = FabricNodeKind::Host;
    uint32_t plane = 0; //!< unused for hosts
    uint32_t index = 0; //!< host index, or switch index within its tier and plane
};

struct FabricEdge
{
    uint32_t link = 0; //!< id into FabricGraph::Links()
};

/** One physical link; side a is the lower tier (host or leaf), side b the upper. */
struct FabricLinkDesc
{
    std::string name; //!< e.g. "p1/h12-l1", "p0/l3-s5#0"
    uint32_t plane = 0;
    LinkTier tier = LinkTier::HostLeaf;
    uint32_t a = 0; //!< vertex of the lower end
    uint32_t b = 0; //!< vertex of the upper end
    uint32_t parallel = 0;
};

class FabricGraph
{
  public:
    using Graph = boost::
        adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, FabricVertex, FabricEdge>;

    explicit FabricGraph(const FabricSpec& spec);

    const Graph& GetGraph() const
    {
        return m_graph;
    }

    const std::vector<FabricLinkDesc>& Links() const
    {
        return m_links;
    }

    std::size_t NumVertices() const
    {
        return boost::num_vertices(m_graph);
    }

    std::size_t NumEdges() const
    {
        return boost::num_edges(m_graph);
    }

    uint32_t HostVertex(uint32_t host) const
    {
        return host;
    }

    uint32_t LeafVertex(uint32_t plane, uint32_t leaf) const;
    uint32_t SpineVertex(uint32_t plane, uint32_t spine) const;

    const FabricVertex& Vertex(uint32_t v) const
    {
        return m_graph[v];
    }

    /** Every switch vertex, plane by plane, leaves before spines. */
    std::vector<uint32_t> SwitchVertices() const;
    /** "h12", "p0/l3", "p1/s0". */
    std::string VertexName(uint32_t v) const;

    /**
     * Equal-cost next hops of every switch towards every host.
     * \param linkUp up state per link id (size Links().size())
     * \return result[v][h] = link ids leaving switch vertex v towards host h
     *         (empty for host vertices and unreachable hosts), sorted.
     */
    std::vector<std::vector<std::vector<uint32_t>>> ComputeNextHops(
        const std::vector<bool>& linkUp) const;

  private:
    uint32_t AddLink(uint32_t a, uint32_t b, uint32_t plane, LinkTier tier, uint32_t parallel);
    /**
     * down[v] = hops from vertex v to \p host going only down over links that
     * are up (a breadth-first search from the host that only climbs).
     */
    void DownDistances(uint32_t host,
                       const std::vector<bool>& linkUp,
                       std::vector<uint32_t>& down) const;
    /**
     * best[v] = hops on the best valley-free path from v, min(down[v], 1 +
     * best[u]) over its upper neighbours u; \p byTierDesc lists the switches
     * from the top tier down, so best[u] is final when v is reached.
     */
    void BestDistances(const std::vector<uint32_t>& byTierDesc,
                       const std::vector<bool>& linkUp,
                       const std::vector<uint32_t>& down,
                       std::vector<uint32_t>& best) const;
    /** The links (sorted) leaving switch vertex v on a best valley-free path. */
    std::vector<uint32_t> NextHops(uint32_t v,
                                   const std::vector<bool>& linkUp,
                                   const std::vector<uint32_t>& down,
                                   const std::vector<uint32_t>& best) const;

    const FabricSpec m_spec;
    Graph m_graph;
    std::vector<FabricLinkDesc> m_links;
};

} // namespace ns3

#endif
