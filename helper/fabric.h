/*
 * Fabric: a multi-plane Clos fabric instantiated by FabricBuilder: its nodes,
 * NICs, switches, links and ports, the topology graph, and the routing control
 * plane. The control plane recomputes every switch's ECMP groups from the
 * graph (all shortest paths over links that are up) RoutingConvergenceDelay
 * after any link changes state; switches meanwhile stop using their own dead
 * ports after their DetectionDelay.
 *
 * Failures are driven here: a link, a switch (all its links) or a whole plane,
 * now or at a scheduled time.
 */
#ifndef METAROCE_FABRIC_H
#define METAROCE_FABRIC_H

#include "fabric-channel.h"
#include "fabric-graph.h"
#include "fabric-invariants.h"
#include "fabric-port.h"
#include "fabric-spec.h"
#include "fabric-switch.h"
#include "rdma-nic.h"

#include "ns3/node-container.h"
#include "ns3/object.h"

#include <string>
#include <vector>

namespace ns3
{

class FabricPfcMonitor;

/** A link as instantiated: the graph's description plus the ns-3 objects. */
struct FabricLink
{
    FabricLinkDesc desc;
    Ptr<FabricChannel> channel;
    Ptr<FabricPort> lower;        //!< port on the host (HostLeaf) or leaf (LeafSpine)
    Ptr<FabricPort> upper;        //!< port on the leaf (HostLeaf) or spine (LeafSpine)
    int32_t lowerSwitchPort = -1; //!< index of `lower` in its switch (-1 on a host)
    int32_t upperSwitchPort = -1; //!< index of `upper` in its switch
};

class Fabric : public Object
{
  public:
    static TypeId GetTypeId();
    Fabric();

    const FabricSpec& GetSpec() const
    {
        return m_spec;
    }

    const FabricGraph& GetGraph() const
    {
        return *m_graph;
    }

    uint32_t GetNHosts() const
    {
        return m_hosts.GetN();
    }

    uint32_t GetNPlanes() const
    {
        return m_spec.planes;
    }

    NodeContainer GetHosts() const
    {
        return m_hosts;
    }

    Ptr<Node> GetHost(uint32_t host) const
    {
        return m_hosts.Get(host);
    }

    Ptr<RdmaNic> GetNic(uint32_t host) const
    {
        return m_nics[host];
    }

    Ptr<FabricSwitch> GetLeaf(uint32_t plane, uint32_t leaf) const;
    Ptr<FabricSwitch> GetSpine(uint32_t plane, uint32_t spine) const;

    /** Switch at a graph vertex (nullptr for hosts). */
    Ptr<FabricSwitch> GetSwitchAt(uint32_t vertex) const
    {
        return m_switchAt[vertex];
    }

    NodeContainer GetSwitchNodes() const
    {
        return m_switchNodes;
    }

    const std::vector<FabricLink>& GetLinks() const
    {
        return m_links;
    }

    /** Link id by name ("p0/l3-s5#0"); -1 if none. */
    int32_t FindLink(const std::string& name) const;

    /** Every port of the fabric (NIC ports and switch ports). */
    std::vector<Ptr<FabricPort>> GetAllPorts() const;
    /** Brings every port's lazy departures up to now (FabricPort::Sync). */
    void SyncPorts() const;
    /**
     * Name of one end of a link: the link's name and the port's owner,
     * e.g. "p0/l0-s1#0@l0" (leaf 0's port) or "p0/h3-l0@h3" (host 3's NIC).
     */
    std::string GetPortName(uint32_t link, bool upper) const;
    /** GetPortName of \p port ("" if it is not in this fabric). */
    std::string GetPortName(const Ptr<FabricPort>& port) const;

    /** The PFC pause-storm and deadlock detector (nullptr when PFC is off). */
    Ptr<FabricPfcMonitor> GetPfcMonitor() const;

    // Failures
    void SetLinkUp(uint32_t link, bool up);
    /** All links of a switch (graph vertex). */
    void SetSwitchUp(uint32_t vertex, bool up);
    /** All links of a plane (host links and fabric links). */
    void SetPlaneUp(uint32_t plane, bool up);
    void ScheduleLinkUp(Time at, uint32_t link, bool up);
    void ScheduleSwitchUp(Time at, uint32_t vertex, bool up);
    void SchedulePlaneUp(Time at, uint32_t plane, bool up);

    /** Recomputes and installs every switch's ECMP groups from the current link states. */
    void RecomputeRoutes();

    uint32_t GetRouteComputations() const
    {
        return m_routeComputations;
    }

    /** Frames put on any wire so far (each transmission is one packet-hop). */
    uint64_t GetPacketHops() const;

    /**
     * Checks the fabric's invariants now (after bringing every port up to
     * date): every frame a NIC sent (plus every PAUSE frame a port sent) was
     * delivered to an endpoint, consumed as a PAUSE, dropped with a reason,
     * is queued, or is on a wire; no switch buffer holds more than its
     * capacity; queue counters, buffer charges and the shared pool agree
     * (CheckBufferInvariants); the PFC state of every switch ingress and
     * every port is consistent, with its accounting and with its peer
     * (CheckPfcInvariants); every completion of the transports on its hosts
     * matched exactly one posted request (CheckTransportInvariants).
     * docs/hardening.md lists each check and why it holds.
     * \return the violations (empty: none).
     */
    std::vector<std::string> CheckInvariants();

    /** The PFC frame log (attached by the builder when s_checkInvariantsOnDispose; else null). */
    const FabricPfcLog* GetPfcLog() const
    {
        return PeekPointer(m_pfcLog);
    }

    /**
     * When true, every fabric checks its invariants when it is disposed (at
     * Simulator::Destroy) and aborts on a violation. The test suite sets it,
     * so that every test simulation ends with the check.
     */
    static bool s_checkInvariantsOnDispose;

    /** Fixes every random stream of the fabric; returns the number used. */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    friend class FabricBuilder;

    void LinkStateChanged(bool up);

    FabricSpec m_spec;
    std::unique_ptr<FabricGraph> m_graph;
    NodeContainer m_hosts;
    NodeContainer m_switchNodes;
    std::vector<Ptr<RdmaNic>> m_nics;
    std::vector<Ptr<FabricSwitch>> m_switchAt; //!< by graph vertex
    std::vector<FabricLink> m_links;
    Time m_convergenceDelay;
    uint32_t m_routeComputations = 0;
    Ptr<Object> m_pfcMonitor;   //!< a FabricPfcMonitor (held as Object: no include cycle)
    Ptr<FabricPfcLog> m_pfcLog; //!< last PFC frames per port (invariant checks only)
};

} // namespace ns3

#endif
