/*
 * RoceV2Requester: the send side of a RoCEv2 RC queue pair. It gives the
 * QP's work PSNs in post order, builds the data packets when the NIC
 * scheduler pulls them (it is the QP's NicTxClient), paced at the rate of
 * the congestion policy (DCQCN by default), and handles what comes back:
 * ACKs, NAKs, RNR NAKs, CNPs and the retransmission timeout. What a loss
 * rewinds or releases for resending, the in-flight cap and the timeout's
 * length are the recovery policy's (RoceV2Recovery); RetryLimit timeouts
 * in a row without progress fail the outstanding work (IB's retry_cnt).
 *
 * Deviation from a real RC QP, for experiments' sake: a remote access or
 * length error fails that request only; the QP carries on (a real QP enters
 * the error state and flushes every later request).
 */
#ifndef METAROCE_ROCEV2_REQUESTER_H
#define METAROCE_ROCEV2_REQUESTER_H

#include "nic-scheduler.h"
#include "rdma-congestion-ops.h"
#include "rdma-connection.h"
#include "ring-buffer.h"
#include "rocev2-qp-types.h"

#include "ns3/event-id.h"

namespace ns3
{

class RoceV2QueuePair;

class RoceV2Requester : public NicTxClient
{
  public:
    /** Part of a work request given to this QP (a whole message, or a stripe of a write). */
    struct Segment
    {
        uint64_t message = 0; //!< connection-wide message index
        RdmaOpcode opcode = RdmaOpcode::Write;
        uint32_t length = 0;
        uint64_t localAddress = 0;
        uint32_t lkey = 0;
        uint64_t remoteAddress = 0;
        uint32_t rkey = 0;
        uint32_t firstPsn = 0;
        uint32_t packets = 0;
        uint32_t recvSeq = 0; //!< Send: the receive it fills (out-of-order placement's header)
        RdmaStatus status = RdmaStatus::Success;
    };

    /**
     * \param qp the queue pair this is the send side of (its identity, settings, policy)
     * \param cc the connection's congestion policy
     * \param connCc the connection's congestion state
     */
    RoceV2Requester(RoceV2QueuePair& qp, Ptr<RdmaCongestionOps> cc, RdmaConnectionCc* connCc);

    /** Cancels the timers and drops the congestion policy. */
    void Dispose();

    /** Queues \p seg behind the QP's other work and assigns its PSNs. */
    void PostSegment(const Segment& seg);
    // NicTxClient: the NIC scheduler pulls the QP's data packets from here.
    FramePayload PullPacket(uint32_t plane,
                            int64_t nowPs,
                            FrameAddress& addr,
                            int64_t& notBeforePs) override;
    /** An ACK or NAK for this QP (BTH and AETH removed). */
    void ReceiveAck(const RoceBthHeader& bth, const RoceAethHeader& aeth);
    /** A CNP for this QP (DCQCN's reaction point). */
    void ReceiveCnp();

    const RoceV2RequesterStats& GetStats() const
    {
        return m_stats;
    }

    uint64_t GetRateBps() const
    {
        return m_cc.rateBps;
    }

    const RdmaFlowCc& GetFlowCc() const
    {
        return m_cc;
    }

    /** Packets sent and not yet acknowledged. */
    uint32_t GetInFlight() const
    {
        return m_nxt - m_una;
    }

    uint32_t GetMaxInFlight() const
    {
        return m_maxInFlight;
    }

    // For the recovery policy

    /** Oldest unacknowledged PSN. */
    uint32_t GetUna() const
    {
        return m_una;
    }

    /** Next new PSN to send. */
    uint32_t GetNxt() const
    {
        return m_nxt;
    }

    /** Everything below \p una is acknowledged: completes what it covers, re-arms the RTO. */
    void AdvanceUna(uint32_t una);
    /** Resend from \p psn (not below the oldest unacknowledged one). */
    void GoBack(uint32_t psn);
    /** Tells the congestion policy that \p packets were lost. */
    void NotifyLost(uint32_t packets);

    /** Counters the policy adds to. */
    RoceV2RequesterStats& GetStats()
    {
        return m_stats;
    }

  private:
    Ptr<Packet> BuildDataPacket(uint32_t psn, FrameAddress& addr);
    Segment* SegmentOf(uint32_t psn);
    void FailOutstanding();
    void ArmRto();
    void RtoExpired();
    void ArmCcTimer();
    void CcTimer();
    void Kick();

    RoceV2QueuePair& m_qp;
    Ptr<RdmaCongestionOps> m_ccOps;
    RdmaConnectionCc* m_connCc;
    RdmaFlowCc m_cc;
    uint32_t m_schedulerIndex = 0;
    uint32_t m_inFlightCap; //!< the recovery policy's
    uint64_t m_lineBps = 0;

    RingBuffer<Segment> m_segments; //!< in PSN order, oldest not fully acknowledged first
    uint32_t m_una = 0;             //!< oldest unacknowledged PSN (unwrapped)
    uint32_t m_nxt = 0;             //!< next PSN to send
    uint32_t m_end = 0;             //!< first PSN not yet assigned
    uint32_t m_highestSent = 0;     //!< one past the highest PSN ever sent
    uint32_t m_maxInFlight = 0;
    size_t m_cursor = 0; //!< index of the segment holding m_nxt
    uint32_t m_retries = 0;
    uint32_t m_sendSeq = 0; //!< next send's receive sequence number
    int64_t m_rnrUntilPs = 0;
    int64_t m_nextSendPs = 0;
    int64_t m_rtoDeadlinePs = 0;
    EventId m_rtoEvent;
    EventId m_ccTimer;

    RoceV2RequesterStats m_stats;
};

} // namespace ns3

#endif
