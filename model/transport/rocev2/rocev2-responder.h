/*
 * RoceV2Responder: the receive side of a RoCEv2 RC queue pair.
 * - Every arriving data packet is counted and, if CE-marked, answered with a
 *   CNP, at most one per CnpInterval (DCQCN's notification point); then the
 *   recovery policy decides what the packet's PSN means (RoceV2Recovery::
 *   ReceiveData).
 * - In-order placement (the RC responder, used by go-back-N): the RETH on the
 *   first packet of a write names the address, a send fills the next posted
 *   receive; a send with no receive posted gets an RNR NAK and later packets
 *   are dropped quietly until the retry. An out-of-sequence packet is
 *   discarded and answered with one NAK (PSN sequence error) per gap; a
 *   duplicate is discarded and re-ACKed.
 * - ACK coalescing: an ACK every AckInterval in-order packets and on every
 *   packet with the AckReq bit (the last of each message), as NICs do.
 * The placement primitives (Place, CompleteReceive, the receive queue) serve
 * a policy that places packets itself (selective repeat).
 */
#ifndef METAROCE_ROCEV2_RESPONDER_H
#define METAROCE_ROCEV2_RESPONDER_H

#include "rdma-connection.h"
#include "ring-buffer.h"
#include "rocev2-qp-types.h"

#include "ns3/packet.h"

namespace ns3
{

class RoceV2QueuePair;

class RoceV2Responder
{
  public:
    /** A posted receive, waiting for its send. */
    struct PostedRecv
    {
        RdmaRecvRequest rr;
        Time posted;
        RdmaStatus status = RdmaStatus::Success; //!< set by a policy that places sends out of order
    };

    /** \param qp the queue pair this is the receive side of */
    explicit RoceV2Responder(RoceV2QueuePair& qp);

    void PostRecv(const RdmaRecvRequest& rr);

    /** Receives posted and not yet completed. */
    uint64_t GetPostedReceives() const
    {
        return m_rq.size();
    }

    /** A data packet for this QP (BTH removed; payload, pad and ICRC left). */
    void ReceiveData(const RoceBthHeader& bth, const Ptr<Packet>& packet, bool ce);

    const RoceV2ResponderStats& GetStats() const
    {
        return m_stats;
    }

    // For the recovery policy

    const RoceV2QpConfig& GetConfig() const;
    /** The local memory packets are placed in. */
    Ptr<RdmaMemory> GetLocalMemory() const;

    /** The next PSN expected in order. */
    uint32_t GetExpectedPsn() const
    {
        return m_ePsn;
    }

    /** The expected PSN arrived (or was already placed): expect the next. */
    void AdvanceExpectedPsn()
    {
        ++m_ePsn;
    }

    /** Discards a packet ahead of the expected PSN: one NAK (PSN sequence error) per gap. */
    void DiscardOutOfSequence();
    /** Discards a packet already received and re-ACKs the expected PSN's predecessor. */
    void AcknowledgeDuplicate();
    /** Places the expected packet in its message, completes the message if it ends it, ACKs. */
    void ReceiveInOrder(const RoceBthHeader& bth, const Ptr<Packet>& packet, uint32_t psn);
    /** Counts \p len placed bytes, copies them from \p packet to \p address (key 0: count only). */
    void Place(uint32_t key, uint64_t address, const Ptr<Packet>& packet, uint32_t len);

    /** Posted receive \p i (0: the oldest). */
    PostedRecv& GetReceive(size_t i)
    {
        return m_rq[i];
    }

    /** A message is complete: counts it in the MSN. */
    void CountMessage()
    {
        ++m_msn;
    }

    /** Completes the oldest posted receive with \p status and \p bytes. */
    void CompleteReceive(RdmaStatus status, uint32_t bytes);
    /** An in-order packet: ACKs if AckInterval are due or \p now. */
    void AcknowledgeInOrder(bool now);
    /** \p msn < 0: the QP's MSN; otherwise (IRN NACK) the selectively acknowledged PSN. */
    void SendAckOrNak(uint8_t syndrome, uint32_t psn, int64_t msn = -1);

    /** Counters the policy adds to. */
    RoceV2ResponderStats& GetStats()
    {
        return m_stats;
    }

  private:
    /** The message being received in order. */
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

    void SendCnp();
    bool OpenMessage(const RoceBthHeader& bth, const RoceRethHeader& reth, uint8_t& nak);

    RoceV2QueuePair& m_qp;
    uint32_t m_ePsn = 0;
    bool m_nakSent = false;
    uint32_t m_sinceAck = 0;
    uint32_t m_msn = 0;
    int64_t m_lastCnpPs = INT64_MIN / 2;
    Context m_ctx;
    RingBuffer<PostedRecv> m_rq;

    RoceV2ResponderStats m_stats;
};

} // namespace ns3

#endif
