/*
 * FabricSwitch: a layer-3 switch of one plane. It forwards each frame to one
 * member of the ECMP group of its destination host, chosen by EcmpHash with
 * the switch's own seed, so a flow (fixed 4-tuple) always takes one route and
 * different UDP source ports spread over the group. Egress ports share the
 * switch's buffer (SharedBuffer), each within its own limit.
 *
 * Routes come from the control plane (FabricRouting, via the topology graph).
 * When a port's link goes down the switch itself stops using that port after
 * DetectionDelay (loss-of-signal detection and hardware group update); the
 * fabric-wide recomputation that also steers other switches away comes later,
 * after the routing convergence delay.
 */
#ifndef METAROCE_FABRIC_SWITCH_H
#define METAROCE_FABRIC_SWITCH_H

#include "fabric-port.h"
#include "shared-buffer.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

class FabricSwitch : public Object, public FabricPacketSink
{
  public:
    static TypeId GetTypeId();
    FabricSwitch();

    /** Adds an egress/ingress port; returns its index in this switch. */
    uint32_t AddPort(Ptr<FabricPort> port);
    uint32_t GetNPorts() const { return m_ports.size(); }
    Ptr<FabricPort> GetPort(uint32_t i) const { return m_ports[i]; }

    /**
     * Installs the forwarding table: for every destination host index, the
     * port indices of its equal-cost next hops (empty: unreachable).
     */
    void SetRoutes(std::vector<std::vector<uint16_t>> routes);
    /** Next hops in use now for \p host (installed routes minus ports detected down). */
    const std::vector<uint16_t>& GetLiveGroup(uint32_t host) const;

    /** The egress port index a frame with these headers takes (or -1: no route). */
    int32_t SelectPort(const FrameInfo& info) const;

    uint32_t GetPlane() const { return m_plane; }
    Ptr<SharedBuffer> GetBuffer() const { return m_buffer; }

    // FabricPacketSink
    void ReceiveFromPort(FabricPort* port, Ptr<Packet> frame) override;
    void PortLinkChanged(FabricPort* port, bool up) override;
    void SyncPorts() override;

  protected:
    void DoDispose() override;

  private:
    void DetectLinkState(uint32_t portIndex);
    void RebuildLiveGroups();

    uint32_t m_plane;
    uint32_t m_seed;
    uint64_t m_bufferBytes;
    Time m_detectionDelay;

    Ptr<SharedBuffer> m_buffer;
    std::vector<Ptr<FabricPort>> m_ports;
    std::vector<bool> m_portUsable;               //!< as the switch believes (after detection)
    std::vector<std::vector<uint16_t>> m_routes;  //!< installed by the control plane
    std::vector<std::vector<uint16_t>> m_live;    //!< m_routes restricted to usable ports
};

} // namespace ns3

#endif
