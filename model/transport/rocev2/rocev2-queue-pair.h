/*
 * RoceV2QueuePair: one reliable-connection (RC) queue pair of the RoCEv2
 * baseline, both directions: a requester that sends its work in PSN order on
 * one path, and a responder that accepts packets only in PSN order.
 *
 * - One path: a fixed UDP source port chosen once, so ECMP pins the QP to one
 *   route, and one NIC port (plane).
 * - Responder: an out-of-sequence packet is discarded and answered with one
 *   NAK (PSN sequence error) per gap; a duplicate is discarded and re-ACKed;
 *   in-order packets are placed (RETH on the first packet of a write names
 *   the address; a send fills the next posted receive) and acknowledged every
 *   AckInterval packets and on every packet with the AckReq bit (the last of
 *   each message), as NICs coalesce ACKs. A send with no receive posted gets
 *   an RNR NAK and is retried after RnrDelay. A CE-marked packet makes the
 *   responder send a CNP, at most one per CnpInterval (DCQCN's notification
 *   point, in RoceV2Transport).
 * - Requester: go-back-N. A NAK rewinds to the NAK'ed PSN; a timeout
 *   (4.096 us x 2^TimeoutExponent, the IB formula) rewinds to the oldest
 *   unacknowledged PSN; RetryLimit timeouts in a row without progress fail
 *   the outstanding work (IB's retry_cnt). Its rate comes from the
 *   congestion policy (DCQCN by default).
 *
 * Selective repeat (Config::selectiveRepeat, IRN: Mittal et al., "Revisiting
 * Network Support for RDMA", SIGCOMM 2018): the responder places
 * out-of-order packets (every packet carries a RETH naming where it goes; a
 * send's carries the receive's sequence number and offset, IRN's header
 * extension) and answers each with a NACK carrying the cumulative PSN (BTH)
 * and the PSN it selectively acknowledges (in the AETH's MSN field); the
 * requester keeps a SACK bitmap, retransmits one lost packet per ACK/NACK in
 * recovery, caps its in-flight packets at the bandwidth-delay product
 * (BDP-FC) and uses IRN's two timeouts (RTO_low with at most three packets in
 * flight, RTO_high otherwise). Meant to run without PFC.
 *
 * Deviation from a real RC QP, for experiments' sake: a remote access or
 * length error fails that request only; the QP carries on (a real QP enters
 * the error state and flushes every later request).
 */
#ifndef METAROCE_ROCEV2_QUEUE_PAIR_H
#define METAROCE_ROCEV2_QUEUE_PAIR_H

#include "nic-scheduler.h"
#include "rdma-congestion-ops.h"
#include "rdma-connection.h"
#include "ring-buffer.h"
#include "roce-headers.h"

#include "ns3/event-id.h"

namespace ns3
{

class RoceV2Connection;
class RoceV2Transport;

/** Counters of one queue pair. */
struct RoceV2QpStats
{
    uint64_t packets = 0;       //!< data packets sent, retransmissions included
    uint64_t payloadBytes = 0;
    uint64_t retransmitted = 0; //!< data packets sent again (go-back-N)
    uint64_t timeouts = 0;
    uint64_t naksReceived = 0;
    uint64_t rewoundPackets = 0; //!< sum over NAKs of the packets in flight past the NAK'ed PSN
    uint64_t rnrReceived = 0;
    uint64_t cnpsReceived = 0;
    uint64_t acksReceived = 0;
    // responder
    uint64_t received = 0;      //!< data packets arrived
    uint64_t outOfOrder = 0;    //!< discarded: ahead of the expected PSN
    uint64_t duplicates = 0;    //!< discarded: behind it
    uint64_t placedBytes = 0;
    uint64_t naksSent = 0;
    uint64_t acksSent = 0;
    uint64_t cnpsSent = 0;
};

class RoceV2QueuePair : public NicTxClient
{
  public:
    /** Settings shared by the QPs of a connection (RoceV2Connection's attributes). */
    struct Config
    {
        uint32_t payloadSize = 4096;
        uint32_t ackInterval = 4;
        uint32_t timeoutExponent = 8;
        uint32_t retryLimit = 7;
        Time rnrDelay;
        uint32_t maxInflightPackets = 0;
        bool ecnCapable = true;
        bool payloadIntegrity = false;
        // Selective repeat (IRN, Mittal et al., SIGCOMM 2018)
        bool selectiveRepeat = false;
        uint32_t bdpCapPackets = 0; //!< in-flight cap (IRN's BDP-FC); 0: none
        Time rtoLow;                //!< IRN's timeout with few packets in flight
        Time rtoHigh;               //!< IRN's timeout otherwise
        uint32_t rtoLowThreshold = 3;
    };

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
        uint32_t recvSeq = 0; //!< Send: the receive it fills (selective repeat's header)
        RdmaStatus status = RdmaStatus::Success;
    };

    RoceV2QueuePair(RoceV2Connection* owner, Ptr<RoceV2Transport> transport, uint32_t qpn,
                    uint32_t plane, uint16_t srcPort, const Config& config,
                    Ptr<RdmaCongestionOps> cc, RdmaConnectionCc* connCc);
    ~RoceV2QueuePair() override;

    void SetPeer(uint32_t peerQpn) { m_peerQpn = peerQpn; }
    uint32_t GetQpn() const { return m_qpn; }
    uint32_t GetPlane() const { return m_plane; }
    uint16_t GetSourcePort() const { return m_srcPort; }
    const RoceV2QpStats& GetStats() const { return m_stats; }
    uint64_t GetRateBps() const { return m_cc.rateBps; }
    const RdmaFlowCc& GetFlowCc() const { return m_cc; }
    /** Packets sent and not yet acknowledged. */
    uint32_t GetInFlight() const { return m_nxt - m_una; }
    uint32_t GetMaxInFlight() const { return m_maxInFlight; }

    void PostSegment(const Segment& seg);
    void PostRecv(const RdmaRecvRequest& rr);
    /** Receives posted and not yet completed. */
    uint64_t GetPostedReceives() const { return m_rq.size(); }

    // NicTxClient
    FramePayload PullPacket(uint32_t plane,
                           int64_t nowPs,
                           FrameAddress& addr,
                           int64_t& notBeforePs) override;

    /** From the transport: packets for this QP (BTH removed; payload, pad and ICRC left). */
    void ReceiveData(const RoceBthHeader& bth, Ptr<Packet> packet, bool ce);
    void ReceiveAck(const RoceBthHeader& bth, const RoceAethHeader& aeth);
    void ReceiveCnp();
    void Dispose();

  private:
    struct Ahead
    {
        bool received = false;
        bool lastOfSend = false;
        RdmaStatus status = RdmaStatus::Success;
        uint32_t sendBytes = 0;
    };
    uint32_t Unwrap(uint32_t wirePsn, uint32_t reference) const;
    Ptr<Packet> BuildDataPacket(uint32_t psn, FrameAddress& addr);
    void SelectiveAck(uint32_t cumulative, int64_t sacked);
    void QueueNextLost();
    void ReceiveInOrderOrPlaced(const RoceBthHeader& bth, Ptr<Packet> packet, uint32_t psn);
    void ApplyInOrder(const Ahead& a);
    Segment* SegmentOf(uint32_t psn);
    void AdvanceUna(uint32_t una);
    void GoBack(uint32_t psn);
    void ArmRto();
    void RtoExpired();
    void ArmCcTimer();
    void CcTimer();
    void Kick();
    /** \p msn < 0: the QP's MSN; otherwise (IRN NACK) the selectively acknowledged PSN. */
    void SendAckOrNak(uint8_t syndrome, uint32_t psn, int64_t msn = -1);

    RoceV2Connection* m_owner;
    Ptr<RoceV2Transport> m_transport;
    uint32_t m_qpn;
    uint32_t m_peerQpn = 0;
    uint32_t m_plane;
    uint16_t m_srcPort;
    Config m_config;
    Ptr<RdmaCongestionOps> m_ccOps;
    RdmaConnectionCc* m_connCc;
    RdmaFlowCc m_cc;
    uint32_t m_schedulerIndex = 0;
    uint64_t m_lineBps = 0;

    // Requester
    RingBuffer<Segment> m_segments; //!< in PSN order, oldest not fully acknowledged first
    uint32_t m_una = 0;             //!< oldest unacknowledged PSN (unwrapped)
    uint32_t m_nxt = 0;             //!< next PSN to send
    uint32_t m_end = 0;             //!< first PSN not yet assigned
    uint32_t m_highestSent = 0;     //!< one past the highest PSN ever sent
    uint32_t m_maxInFlight = 0;
    size_t m_cursor = 0;            //!< index of the segment holding m_nxt
    uint32_t m_retries = 0;
    // Selective repeat (requester)
    RingBuffer<uint8_t> m_txFlags; //!< per PSN in [una, nxt): kSacked | kRetransmitted
    RingBuffer<uint32_t> m_retxQueue;
    bool m_inRecovery = false;
    uint32_t m_recoveryPoint = 0;
    uint32_t m_highestSacked = 0;
    int64_t m_rnrUntilPs = 0;
    int64_t m_nextSendPs = 0;
    int64_t m_rtoDeadlinePs = 0;
    EventId m_rtoEvent;
    EventId m_ccTimer;

    // Responder
    struct PostedRecv
    {
        RdmaRecvRequest rr;
        Time posted;
        RdmaStatus status = RdmaStatus::Success;
    };
    struct Context
    {
        bool active = false;
        bool isWrite = true;
        RdmaStatus status = RdmaStatus::Success;
        uint64_t address = 0;
        uint32_t key = 0;
        uint32_t length = 0; //!< write: RETH length; send: the receive's length
        uint32_t offset = 0;
    };
    uint32_t m_ePsn = 0;
    bool m_nakSent = false;
    uint32_t m_sinceAck = 0;
    uint32_t m_msn = 0;
    int64_t m_lastCnpPs = INT64_MIN / 2;
    Context m_ctx;
    RingBuffer<PostedRecv> m_rq;
    // Selective repeat (responder): per PSN from m_ePsn, what arrived ahead
    RingBuffer<Ahead> m_ahead; //!< index i: PSN m_ePsn + i
    uint32_t m_recvSeq = 0;    //!< receive sequence number of m_rq.front()
    uint32_t m_sendSeq = 0;    //!< requester: next send's receive sequence number

    RoceV2QpStats m_stats;
};

} // namespace ns3

#endif
