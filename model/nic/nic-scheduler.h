/*
 * NicScheduler: the transmit arbiter of an RDMA NIC. Each plane's port pulls
 * its next data packet, round robin over the endpoints (connections, queue
 * pairs) that have something eligible to send on that plane, at the moment
 * the port finishes its previous frame. The NIC queue therefore stays empty
 * (no hidden host-side queueing, as in a real NIC that fetches work queue
 * entries on demand), and each packet costs one scheduler event.
 *
 * An endpoint that has nothing eligible when pulled (window full, nothing
 * posted) is dropped from the plane's ring and calls Activate again when that
 * changes; one that is only waiting for a time (pacing) stays in the ring and
 * the plane's next wake-up is set to the earliest such time. If its waits
 * are firm (NicTxClient::HasFirmWaits) it is skipped until then without
 * being pulled, which saves reading its state at every other packet of the
 * plane. Control packets (ACKs, CNPs) do not go through the
 * scheduler: endpoints hand them to the NIC directly, and the port's strict
 * priority puts them ahead of data.
 *
 * PFC: a paused port reports itself idle no earlier than the pause expiry
 * (FabricPort::GetIdlePs), so the scheduler does not pile packets into it;
 * when the pause ends early (a resume) the NIC tells the scheduler, which
 * re-arms that plane at once.
 */
#ifndef METAROCE_NIC_SCHEDULER_H
#define METAROCE_NIC_SCHEDULER_H

#include "rdma-nic.h"
#include "ring-buffer.h"

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

/** What the scheduler pulls packets from. */
class NicTxClient
{
  public:
    virtual ~NicTxClient() = default;
    /**
     * The port of \p plane is free. \return the next payload (transport
     * headers on, fabric headers off) with its frame address in \p addr, or
     * nothing if nothing is eligible on this plane now. A payload of zeros
     * whose transport header is in \p addr.innerBytes goes out as a compact
     * frame (no Packet). A client that has a
     * packet but may not send it yet (pacing, a receiver-not-ready wait) sets
     * \p notBeforePs to the time it may: it stays in the ring and the
     * scheduler wakes the plane then, so pacing costs no event of its own.
     * \p nowPs is the current simulation time.
     */
    virtual FramePayload PullPacket(uint32_t plane,
                                    int64_t nowPs,
                                    FrameAddress& addr,
                                    int64_t& notBeforePs) = 0;

    /**
     * Whether the waits this client reports are firm: after a pull of a
     * plane answered "not before T", every pull of that plane before T would
     * answer the same and change nothing (its pacing check comes first and
     * only a sending pull moves T). The scheduler then skips the client
     * until T without pulling it, which saves touching the client's state
     * once per packet of every other client on the plane.
     */
    virtual bool HasFirmWaits() const
    {
        return false;
    }
};

class NicScheduler : public Object
{
  public:
    static TypeId GetTypeId();

    void SetNic(Ptr<RdmaNic> nic);

    Ptr<RdmaNic> GetNic() const
    {
        return m_nic;
    }

    /** Registers a client; \return its index for Activate. */
    uint32_t AddClient(NicTxClient* client);
    /** Client \p index may have something to send on \p plane. */
    void Activate(uint32_t index, uint32_t plane);
    /** Activate on every plane, in plane order (those it is already in cost nothing). */
    void ActivateAll(uint32_t index);

    uint64_t GetSentPackets() const
    {
        return m_sent;
    }

  protected:
    void DoDispose() override;

  private:
    class WakeEvent;

    struct Plane
    {
        RingBuffer<uint32_t, true> ring; //!< client indices with (maybe) eligible packets
        std::vector<int64_t> firmWaitPs; //!< by client index: the last firm wait it reported
        Ptr<EventImpl> wakeEvent;        //!< a WakeEvent, reused by every wake-up (none cancelled)
        EventId wake;
        bool wakePending = false; //!< cheaper than asking the simulator about `wake`
    };

    void ArmWake(uint32_t plane);
    /** ArmWake when the caller knows the current time \p nowPs. */
    void ArmWakeAt(uint32_t plane, int64_t nowPs);
    void Wake(uint32_t plane);
    void LinkChanged(uint32_t plane, bool up);
    void Resumed(uint32_t plane);

    Ptr<RdmaNic> m_nic;
    std::vector<NicTxClient*> m_clients;
    /**
     * By client index: bit p set while the client is in plane p's ring. One
     * word per client, so an ACK that makes a connection eligible on every
     * plane reads one cache line, not one per plane.
     */
    std::vector<uint64_t> m_inRing;
    std::vector<Plane> m_planes;
    uint64_t m_sent = 0;
};

} // namespace ns3

#endif
