/*
 * RoceV2Connection: the RoCEv2 baseline behind the verbs-like RdmaConnection
 * API. A connection between two hosts opens QueuePairs RC queue pairs
 * (default: one per plane, QP i bound to NIC port i mod planes), each pinned
 * to one path.
 *
 * Work placement, as multi-QP RDMA libraries do (documented policy):
 * - a Write is striped: split into equal MTU-aligned parts, one per QP
 *   (fewer if it has fewer packets), posted on every QP at once, so one large
 *   transfer uses every plane (NCCL's NCCL_IB_SPLIT_DATA_ON_QPS=1 behaviour);
 * - a Send goes whole to QP (stream mod QPs), and receives posted on stream s
 *   go to the same QP, so a send always meets its own stream's receives in
 *   order.
 * Completions: a Write completes when all its parts are acknowledged; each
 * stream's completions are released in post order on both sides.
 *
 * Loss recovery is a RoceV2Recovery chosen by TypeId (Recovery: go-back-N by
 * default, or ns3::RoceV2SelectiveRepeat); each QP gets its own Fork of it.
 * SelectiveRepeat = true is shorthand for Recovery = ns3::RoceV2SelectiveRepeat
 * and wins over Recovery (experiments set it by name).
 */
#ifndef METAROCE_ROCEV2_CONNECTION_H
#define METAROCE_ROCEV2_CONNECTION_H

#include "rdma-congestion-ops.h"
#include "rdma-connection.h"
#include "ring-buffer.h"
#include "rocev2-queue-pair.h"

#include <memory>
#include <vector>

namespace ns3
{

class RoceV2Transport;

class RoceV2Connection : public RdmaConnection
{
  public:
    static TypeId GetTypeId();
    RoceV2Connection();
    ~RoceV2Connection() override;

    /** Called by RoceV2Transport when it creates the endpoint. */
    void Setup(Ptr<RoceV2Transport> transport, uint32_t remoteHost);
    /** Pairs QP i with the peer's QP i (RoceV2Transport::Bind). */
    void Bind(Ptr<RoceV2Connection> peer);

    // RdmaConnection
    void Post(const RdmaWorkRequest& wr) override;
    void PostRecv(const RdmaRecvRequest& rr) override;
    using RdmaConnection::PostRecv;

    uint64_t GetDeliveredBytes() const override
    {
        return GetStats().placedBytes;
    }

    uint64_t GetSentPackets() const override
    {
        return GetStats().packets;
    }

    uint64_t GetRetransmittedPackets() const override
    {
        return GetStats().retransmitted;
    }

    /** Messages not yet completed (per stream, in post order) plus the QPs' posted receives. */
    int64_t GetHeldWorkRequests() const override;

    uint32_t GetNQueuePairs() const
    {
        return m_qps.size();
    }

    RoceV2QueuePair& GetQueuePair(uint32_t i)
    {
        return *m_qps[i];
    }

    const RoceV2QueuePair& GetQueuePair(uint32_t i) const
    {
        return *m_qps[i];
    }

    uint32_t GetPayloadSize() const
    {
        return m_config.payloadSize;
    }

    /** Sum of the QPs' counters. */
    RoceV2QpStats GetStats() const;

    /** From a QP: a segment of message \p message finished with \p status. */
    void SegmentDone(uint64_t message, RdmaStatus status);

    /** From a QP: a receive completed (already in its stream's order). */
    void ReceiveDone(const RdmaCompletion& c)
    {
        Complete(c);
    }

  protected:
    void DoDispose() override;

  private:
    struct TxMessage
    {
        RdmaWorkRequest wr;
        uint32_t partsLeft = 0;
        RdmaStatus status = RdmaStatus::Success;
        bool done = false;
        bool released = false;
        Time posted;
    };

    void ReleaseCompletions(uint16_t stream);

    TxMessage& Message(uint64_t index)
    {
        return m_messages[index - m_messageBase];
    }

    uint32_t m_queuePairs;
    uint32_t m_payloadSize;
    uint32_t m_ackInterval;
    uint32_t m_timeoutExponent;
    uint32_t m_retryLimit;
    Time m_rnrDelay;
    uint32_t m_maxInflightPackets;
    bool m_ecnCapable;
    bool m_payloadIntegrity;
    bool m_selectiveRepeat; //!< shorthand for m_recoveryTypeId = RoceV2SelectiveRepeat
    TypeId m_recoveryTypeId;
    uint32_t m_bdpCapPackets;
    Time m_bdpRtt;
    Time m_rtoLow;
    Time m_rtoHigh;
    RoceV2QpConfig m_config; //!< the above, handed to each QP
    TypeId m_ccTypeId;
    Ptr<RdmaCongestionOps> m_ccOps;
    RdmaConnectionCc m_cc;
    std::vector<std::unique_ptr<RoceV2QueuePair>> m_qps;
    RingBuffer<TxMessage> m_messages;
    uint64_t m_messageBase = 0;
    std::vector<RingBuffer<uint64_t>> m_streamOrder; //!< per stream: messages in post order
};

} // namespace ns3

#endif
