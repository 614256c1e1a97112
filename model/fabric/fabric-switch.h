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
 *
 * PFC (PfcEnabled, docs/fabric-model.md "PFC"): every lossless frame queued
 * at an egress port is charged to its (ingress port, priority) until it
 * starts transmission. It is charged to the shared pool while that ingress
 * stays within XOFF (PfcXoffBytes, or PfcAlpha x free pool when dynamic),
 * otherwise to the ingress's headroom (PfcHeadroomBytes, or sized from the
 * link: 2 x rate x (delay + 1 ns) + 3 x MTU + 132 bytes), reserved out of the
 * buffer; only a full headroom drops it (DropReason::PfcHeadroom). The first
 * frame in headroom makes the switch send PAUSE(PfcPauseQuanta) out of that
 * ingress port, refreshed at half its duration while the ingress stays above
 * XON (= XOFF - PfcXonDeltaBytes), and PAUSE(0) once the headroom is empty
 * and the pool bytes are at or below XON. While any ingress is in XOFF the
 * switch's ports track departures with an event per frame, so XON is seen
 * within a nanosecond of the frame that crosses it.
 */
#ifndef METAROCE_FABRIC_SWITCH_H
#define METAROCE_FABRIC_SWITCH_H

#include "fabric-port.h"
#include "shared-buffer.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <array>
#include <vector>

namespace ns3
{

/**
 * PFC headroom for one (ingress port, lossless priority) on a link of \p bps
 * and one-way \p delay with frames up to \p mtu bytes:
 * 2 x rate x (delay + 1 ns) + 3 x mtu + 132 bytes (derivation in
 * FabricSwitch::AutoHeadroomBytes and docs/fabric-model.md, "PFC").
 */
inline uint32_t
PfcAutoHeadroomBytes(uint64_t bps, Time delay, uint32_t mtu)
{
    const uint64_t delayPs = uint64_t(std::max<int64_t>(0, delay.GetPicoSeconds()));
    const unsigned __int128 bits = static_cast<unsigned __int128>(bps) * (delayPs + 1000);
    constexpr uint64_t kBitPsPerByte = 8'000'000'000'000ULL; // bits x ps per byte at 1 s
    const uint64_t bdpBytes = uint64_t((bits + kBitPsPerByte - 1) / kBitPsPerByte);
    const uint64_t bytes = 2 * bdpBytes + 3 * uint64_t(mtu) +
                           2 * (kEthernetFcsBytes + kEthernetPreambleIfgBytes) +
                           WireBytes(kEthernetMinFrameBytes);
    return static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
}

class FabricSwitch : public Object, public FabricPacketSink
{
  public:
    static TypeId GetTypeId();
    FabricSwitch();

    /** Adds an egress/ingress port; returns its index in this switch. */
    uint32_t AddPort(Ptr<FabricPort> port);

    uint32_t GetNPorts() const
    {
        return m_ports.size();
    }

    Ptr<FabricPort> GetPort(uint32_t i) const
    {
        return m_ports[i];
    }

    /**
     * Installs the forwarding table: for every destination host index, the
     * port indices of its equal-cost next hops (empty: unreachable).
     */
    void SetRoutes(std::vector<std::vector<uint16_t>> routes);
    /** Next hops in use now for \p host (installed routes minus ports detected down). */
    const std::vector<uint16_t>& GetLiveGroup(uint32_t host) const;

    /** The egress port index a frame with these headers takes (or -1: no route). */
    int32_t SelectPort(const FrameInfo& info) const;

    uint32_t GetPlane() const
    {
        return m_plane;
    }

    Ptr<SharedBuffer> GetBuffer() const
    {
        return m_buffer;
    }

    // PFC
    bool IsPfcEnabled() const
    {
        return m_pfcEnabled;
    }

    /** XOFF now, in bytes per (ingress, priority): static, or alpha x free shared pool. */
    uint64_t GetPfcXoffBytes() const;

    /** Headroom of ingress port \p port (bytes per lossless priority). */
    uint32_t GetPfcHeadroomBytes(uint32_t port) const
    {
        return m_pfc.at(port).headroomCap;
    }

    /** Whether the switch holds \p port's upstream in XOFF for \p priority. */
    bool IsPfcXoff(uint32_t port, uint8_t priority) const
    {
        return m_pfc.at(port).xoff[priority];
    }

    /** Lossless bytes charged to (ingress \p port, \p priority): shared pool + headroom. */
    uint64_t GetPfcIngressBytes(uint32_t port, uint8_t priority) const;

    /** Largest headroom use of any ingress so far (bytes). */
    uint32_t GetPfcPeakHeadroomBytes() const
    {
        return m_pfcPeakHeadroom;
    }

    /** XOFF episodes started (PAUSE frames sent for a new XOFF, not refreshes). */
    uint64_t GetPfcXoffCount() const
    {
        return m_pfcXoffEpisodes;
    }

    /** The headroom the switch sizes for \p port from its link (PfcHeadroomBytes = 0). */
    static uint32_t AutoHeadroomBytes(const FabricPort& port);

    typedef void (*PfcIngressTracedCallback)(uint32_t port, uint8_t priority, bool xoff);

    // FabricPacketSink
    void ReceiveFromPort(FabricPort* port,
                         FrameRef frame,
                         const FrameInfo& info,
                         int64_t nowPs) override;
    void PortLinkChanged(FabricPort* port, bool up) override;
    void SyncPorts() override;
    PfcAdmission AdmitLossless(uint32_t ingress, uint8_t priority, uint32_t bytes) override;
    void ReleaseLossless(uint32_t ingress, uint8_t priority, uint32_t bytes) override;

  protected:
    void DoDispose() override;

  private:
    /** PFC state of one ingress port, per priority. */
    struct PfcIngress
    {
        std::array<uint32_t, FabricPort::kPfcPriorities> shared{};   //!< bytes in the pool
        std::array<uint32_t, FabricPort::kPfcPriorities> headroom{}; //!< bytes in headroom
        std::array<bool, FabricPort::kPfcPriorities> xoff{};         //!< upstream paused
        std::array<EventId, FabricPort::kPfcPriorities> refresh;
        uint32_t headroomCap = 0;
    };

    void DetectLinkState(uint32_t portIndex);
    void RebuildLiveGroups();
    bool TryChargeShared(uint32_t ingress, uint8_t priority, uint32_t bytes);
    bool ShouldResume(uint32_t ingress, uint8_t priority) const;
    void StartXoff(uint32_t ingress, uint8_t priority);
    void EndXoff(uint32_t ingress, uint8_t priority);
    void RefreshXoff(uint32_t ingress, uint8_t priority);
    void ScheduleRefresh(uint32_t ingress, uint8_t priority);

    uint32_t m_plane;
    uint32_t m_seed;
    uint64_t m_bufferBytes;
    Time m_detectionDelay;

    bool m_pfcEnabled;
    uint32_t m_pfcXoffBytes; //!< 0: dynamic
    double m_pfcAlpha;
    uint32_t m_pfcXonDeltaBytes;
    uint32_t m_pfcHeadroomBytes; //!< 0: from the link
    uint16_t m_pfcQuanta;
    std::vector<PfcIngress> m_pfc; //!< by port index
    uint32_t m_pfcXoffNow = 0;     //!< (ingress, priority) pairs in XOFF now
    uint64_t m_pfcXoffEpisodes = 0;
    uint32_t m_pfcPeakHeadroom = 0;
    TracedCallback<uint32_t, uint8_t, bool> m_pfcIngressTrace;

    Ptr<SharedBuffer> m_buffer;
    std::vector<Ptr<FabricPort>> m_ports;
    std::vector<bool> m_portUsable;              //!< as the switch believes (after detection)
    std::vector<std::vector<uint16_t>> m_routes; //!< installed by the control plane
    std::vector<std::vector<uint16_t>> m_live;   //!< m_routes restricted to usable ports

    /** m_live flattened for the forwarding path: one 8-byte entry per host. */
    struct LiveGroup
    {
        uint16_t count = 0;
        uint16_t port0 = 0; //!< the port, when count is 1 (no second look-up)
        uint32_t first = 0; //!< index of the group in m_livePorts
    };

    std::vector<LiveGroup> m_liveGroups;
    std::vector<uint16_t> m_livePorts;

  public:
    // Read-only views for the end-of-simulation invariant checks
    // (helper/fabric-invariants.cc).

    /** Lossless bytes of (ingress \p port, \p priority) charged to the shared pool. */
    uint32_t GetPfcSharedBytes(uint32_t port, uint8_t priority) const
    {
        return m_pfc.at(port).shared[priority];
    }

    /** Lossless bytes of (ingress \p port, \p priority) held in its headroom. */
    uint32_t GetPfcHeadroomUsedBytes(uint32_t port, uint8_t priority) const
    {
        return m_pfc.at(port).headroom[priority];
    }

    /** When the pending PAUSE refresh of (\p port, \p priority) runs (ps); -1 if none. */
    int64_t GetPfcRefreshPs(uint32_t port, uint8_t priority) const
    {
        const EventId& e = m_pfc.at(port).refresh[priority];
        return e.IsRunning() ? TimeStep(e.GetTs()).GetPicoSeconds() : -1;
    }

    /** (ingress, priority) pairs the switch counts as in XOFF now. */
    uint32_t GetPfcXoffNow() const
    {
        return m_pfcXoffNow;
    }

    /** PfcXoffBytes (0: dynamic XOFF). */
    uint32_t GetPfcStaticXoffBytes() const
    {
        return m_pfcXoffBytes;
    }

    uint32_t GetPfcXonDeltaBytes() const
    {
        return m_pfcXonDeltaBytes;
    }

    uint16_t GetPfcPauseQuanta() const
    {
        return m_pfcQuanta;
    }
};

} // namespace ns3

#endif
