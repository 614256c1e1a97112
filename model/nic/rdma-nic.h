/*
 * RdmaNic: a host's network interface, with one FabricPort per plane (port k
 * on plane k). It frames outgoing payloads (Ethernet/IPv4/UDP, fabric
 * addressing) and demultiplexes received frames by UDP destination port to
 * the endpoint registered for it: a transport (MetaRoCE, RoCEv2) or a test
 * traffic sink. A frame for a port nobody registered is dropped and counted
 * (reason no_handler), never silently ignored.
 */
#ifndef METAROCE_RDMA_NIC_H
#define METAROCE_RDMA_NIC_H

#include "fabric-frame.h"
#include "fabric-port.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/simulator.h"
#include "ns3/traced-callback.h"

#include <utility>
#include <vector>

namespace ns3
{

class RdmaNic : public Object, public FabricPacketSink
{
  public:
    static TypeId GetTypeId();
    RdmaNic();

    /**
     * Receives a whole frame (headers still on) for a registered UDP port,
     * with its parsed header fields and the plane it arrived on.
     */
    typedef Callback<void, Ptr<Packet>, const FrameInfo&, uint32_t> UdpHandler;
    /**
     * A UdpHandler that takes the frame as the fabric carried it (a compact
     * frame stays compact: FrameRef::CopyData reads its bytes, Share or
     * Release make a Packet when one is needed).
     */
    typedef Callback<void, FrameRef&, const FrameInfo&, uint32_t> FrameHandler;

    void SetHostIndex(uint32_t host)
    {
        m_host = host;
    }

    uint32_t GetHostIndex() const
    {
        return m_host;
    }

    /** Adds the port of the next plane; returns its plane index. */
    uint32_t AddPort(Ptr<FabricPort> port);

    uint32_t GetNPlanes() const
    {
        return m_ports.size();
    }

    Ptr<FabricPort> GetPort(uint32_t plane) const
    {
        return m_ports[plane];
    }

    /** GetPort without a reference (the NIC keeps the port alive). */
    FabricPort* PeekPort(uint32_t plane) const
    {
        return PeekPointer(m_ports[plane]);
    }

    /** Routes frames for UDP destination port \p udpPort to \p handler (aborts if taken). */
    void RegisterUdpHandler(uint16_t udpPort, UdpHandler handler);
    /** RegisterUdpHandler for a FrameHandler. */
    void RegisterFrameHandler(uint16_t udpPort, FrameHandler handler);
    void UnregisterUdpHandler(uint16_t udpPort);

    /**
     * Frames \p payload and queues it on plane \p plane's port at \p nowPs
     * (the current time; a caller that has it passes it on). Zeros with the
     * sender's header as bytes (\p addr.innerBytes) travel as a compact
     * frame (BuildCompactFrame); a Packet, or zeros under a Header object
     * (\p addr.inner), as a Packet frame.
     * \return false if the port dropped it (buffer full, link down).
     */
    bool Send(const FramePayload& payload,
              uint32_t plane,
              const FrameAddress& addr,
              int64_t nowPs = Simulator::Now().GetPicoSeconds());

    /** Frame address from this host to \p dstHost on \p plane (DSCP 0, Not-ECT). */
    FrameAddress AddressTo(uint32_t dstHost,
                           uint32_t plane,
                           uint16_t srcPort,
                           uint16_t dstPort) const;

    /** Called with (plane, up) whenever a port's link changes state. */
    typedef Callback<void, uint32_t, bool> LinkListener;

    void AddLinkListener(LinkListener listener)
    {
        m_linkListeners.push_back(listener);
    }

    bool IsPlaneUp(uint32_t plane) const
    {
        return m_ports[plane]->IsLinkUp();
    }

    /** Frames handed to the ports by Send (dropped there or not). */
    uint64_t GetFramesSent() const
    {
        return m_framesSent;
    }

    /** Frames handed to a registered endpoint. */
    uint64_t GetFramesDelivered() const
    {
        return m_framesDelivered;
    }

    /**
     * Called with the plane whose port's lossless class may send again after
     * a PFC pause (expired or resumed), so a transmit scheduler that waited
     * for the pause re-arms at once. The NIC's receive side never pauses:
     * it consumes frames at line rate (docs/fabric-model.md, "PFC").
     */
    typedef Callback<void, uint32_t> ResumeListener;

    void AddResumeListener(ResumeListener listener)
    {
        m_resumeListeners.push_back(listener);
    }

    // FabricPacketSink
    void ReceiveFromPort(FabricPort* port,
                         FrameRef frame,
                         const FrameInfo& info,
                         int64_t nowPs) override;
    void PortLinkChanged(FabricPort* port, bool up) override;
    void PortResumed(FabricPort* port) override;

  protected:
    void DoDispose() override;

  private:
    uint32_t PlaneOf(const FabricPort* port) const;

    uint32_t m_host = 0;
    std::vector<Ptr<FabricPort>> m_ports;

    struct Handler
    {
        uint16_t udpPort;
        UdpHandler packet; //!< one of the two is set
        FrameHandler frame;
    };

    std::vector<Handler> m_handlers; //!< few: a linear scan beats a map
    /** Registers \p handler (aborts if its UDP port is taken). */
    void AddHandler(const Handler& handler);
    std::vector<LinkListener> m_linkListeners;
    uint64_t m_framesSent = 0;
    uint64_t m_framesDelivered = 0;
    std::vector<ResumeListener> m_resumeListeners;
};

} // namespace ns3

#endif
