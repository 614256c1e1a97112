/*
 * RoceV2QueuePair: one reliable-connection (RC) queue pair of the RoCEv2
 * baseline. It holds what both directions share (the QP numbers, the one
 * path, the settings and the recovery policy) and hands the work to its two
 * roles:
 * - RoceV2Requester, the send side: PSN order, pacing, ACK/NAK handling,
 *   timers;
 * - RoceV2Responder, the receive side: placement, ACK coalescing, NAKs, RNR,
 *   CNPs.
 * How losses are recovered, on both sides, is the RoceV2Recovery policy's:
 * RoceV2GoBackN (RoCEv2 NICs) or RoceV2SelectiveRepeat (IRN).
 *
 * One path: a fixed UDP source port chosen once, so ECMP pins the QP to one
 * route, and one NIC port (plane). The NIC scheduler pulls the QP's data
 * packets from its requester.
 */
#ifndef METAROCE_ROCEV2_QUEUE_PAIR_H
#define METAROCE_ROCEV2_QUEUE_PAIR_H

#include "rocev2-recovery.h"
#include "rocev2-requester.h"
#include "rocev2-responder.h"

namespace ns3
{

class RoceV2Connection;
class RoceV2Transport;

class RoceV2QueuePair
{
  public:
    /**
     * \param owner the connection whose work and completions this QP carries
     * \param transport the host's transport (scheduler, NIC, control packets)
     * \param qpn this QP's number
     * \param plane the NIC port it sends on
     * \param srcPort its UDP source port (its one path)
     * \param config the connection's settings
     * \param recovery this QP's own recovery policy instance
     * \param cc the connection's congestion policy
     * \param connCc the connection's congestion state
     */
    RoceV2QueuePair(RoceV2Connection* owner,
                    Ptr<RoceV2Transport> transport,
                    uint32_t qpn,
                    uint32_t plane,
                    uint16_t srcPort,
                    const RoceV2QpConfig& config,
                    Ptr<RoceV2Recovery> recovery,
                    Ptr<RdmaCongestionOps> cc,
                    RdmaConnectionCc* connCc);
    ~RoceV2QueuePair();

    void SetPeer(uint32_t peerQpn)
    {
        m_peerQpn = peerQpn;
    }

    uint32_t GetQpn() const
    {
        return m_qpn;
    }

    /** The peer QP's number (the destination of everything this QP sends). */
    uint32_t GetPeer() const
    {
        return m_peerQpn;
    }

    uint32_t GetPlane() const
    {
        return m_plane;
    }

    uint16_t GetSourcePort() const
    {
        return m_srcPort;
    }

    RoceV2Connection* GetConnection() const
    {
        return m_owner;
    }

    /** Null once disposed. */
    const Ptr<RoceV2Transport>& GetTransport() const
    {
        return m_transport;
    }

    const RoceV2QpConfig& GetConfig() const
    {
        return m_config;
    }

    RoceV2Recovery& GetRecovery() const
    {
        return *m_recovery;
    }

    RoceV2Requester& GetRequester()
    {
        return m_requester;
    }

    const RoceV2Requester& GetRequester() const
    {
        return m_requester;
    }

    RoceV2Responder& GetResponder()
    {
        return m_responder;
    }

    const RoceV2Responder& GetResponder() const
    {
        return m_responder;
    }

    /** Both roles' counters. */
    RoceV2QpStats GetStats() const;

    uint64_t GetRateBps() const
    {
        return m_requester.GetRateBps();
    }

    const RdmaFlowCc& GetFlowCc() const
    {
        return m_requester.GetFlowCc();
    }

    /** Packets sent and not yet acknowledged. */
    uint32_t GetInFlight() const
    {
        return m_requester.GetInFlight();
    }

    uint32_t GetMaxInFlight() const
    {
        return m_requester.GetMaxInFlight();
    }

    void PostSegment(const RoceV2Requester::Segment& seg)
    {
        m_requester.PostSegment(seg);
    }

    void PostRecv(const RdmaRecvRequest& rr)
    {
        m_responder.PostRecv(rr);
    }

    /** Receives posted and not yet completed. */
    uint64_t GetPostedReceives() const
    {
        return m_responder.GetPostedReceives();
    }

    /** From the transport: packets for this QP (BTH removed; payload, pad and ICRC left). */
    void ReceiveData(const RoceBthHeader& bth, const Ptr<Packet>& packet, bool ce)
    {
        m_responder.ReceiveData(bth, packet, ce);
    }

    void ReceiveAck(const RoceBthHeader& bth, const RoceAethHeader& aeth)
    {
        m_requester.ReceiveAck(bth, aeth);
    }

    void ReceiveCnp()
    {
        m_requester.ReceiveCnp();
    }

    void Dispose();

  private:
    RoceV2Connection* m_owner;
    Ptr<RoceV2Transport> m_transport;
    uint32_t m_qpn;
    uint32_t m_peerQpn = 0;
    uint32_t m_plane;
    uint16_t m_srcPort;
    RoceV2QpConfig m_config;
    Ptr<RoceV2Recovery> m_recovery;
    RoceV2Requester m_requester;
    RoceV2Responder m_responder;
};

} // namespace ns3

#endif
