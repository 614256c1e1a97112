/*
 * FabricChannel: a full-duplex point-to-point link between two FabricPorts.
 * It adds propagation delay and owns the link state. Taking a link down
 * loses every frame on the wire: each transmission carries the link epoch
 * at send time and a frame whose epoch is stale when it arrives is dropped
 * (reason link_down) by the receiving port; the ports flush their queues.
 */
#ifndef METAROCE_FABRIC_CHANNEL_H
#define METAROCE_FABRIC_CHANNEL_H

#include "fabric-frame.h"

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class FabricPort;

class FabricChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    FabricChannel();

    /** Connects a port; the first call is side 0, the second side 1. */
    void Attach(Ptr<FabricPort> port);

    /**
     * Puts a frame on the wire from \p from. Its last bit leaves at
     * \p txEndPs (simulation time in picoseconds) and arrives at the other
     * port the propagation delay later, rounded up to the nanosecond.
     * \p nowPs is the current simulation time.
     */
    void Transmit(const FabricPort* from,
                  FrameRef frame,
                  const FrameInfo& info,
                  int64_t txEndPs,
                  int64_t nowPs);

    /** Brings the link up or down now; both ports are told at once. */
    void SetLinkUp(bool up);

    bool IsLinkUp() const
    {
        return m_up;
    }

    uint32_t GetEpoch() const
    {
        return m_epoch;
    }

    /** Frames on the wire now (sent, not yet arrived), both directions. */
    uint64_t GetFramesInFlight() const
    {
        return m_inFlight;
    }

    Time GetDelay() const
    {
        return m_delay;
    }

    /** Sets the one-way propagation delay (the Delay attribute). */
    void SetDelay(Time delay);
    Ptr<FabricPort> GetPort(uint32_t side) const;

    // Channel
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;

    typedef void (*LinkStateTracedCallback)(bool up);

  protected:
    void DoDispose() override;

  private:
    class FrameArrival;

    /** A frame reaches side \p to at \p nowNs: the sender catches up, the receiver receives. */
    void Deliver(uint32_t to, FrameRef frame, const FrameInfo& info, uint32_t epoch, int64_t nowNs);

    Time m_delay;
    int64_t m_delayNs = 0; //!< m_delay in nanoseconds (the arrival events' resolution)
    Ptr<FabricPort> m_ports[2];
    uint32_t m_peerContext[2] = {0, 0}; //!< node id of the port on each side, for event contexts
    uint32_t m_attached = 0;
    bool m_up = true;
    uint32_t m_epoch = 0;
    uint64_t m_inFlight = 0;
    TracedCallback<bool> m_linkStateTrace;
};

} // namespace ns3

#endif
