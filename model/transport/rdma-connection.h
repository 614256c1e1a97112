/*
 * RdmaConnection: one endpoint of a reliable connection between two hosts,
 * the verbs-like API every transport implements (MetaRoCE, RoCEv2). Workloads
 * use only this class, so they run unchanged on either transport.
 *
 * - Work requests are posted on a stream: Write (remote address + key), Send
 *   (consumes the peer's next receive posted on the same stream) and Recv.
 * - Each request produces exactly one completion. Completions of a stream are
 *   delivered in post order: a later message whose data arrived first waits
 *   for the earlier ones (the send side and the receive side each keep this
 *   order). Failed requests complete with an error status; their data is not
 *   placed.
 * - With a local key (lkey != 0) the payload is read from / written to a
 *   registered region of the local host: in payload-integrity mode packets
 *   then carry those bytes. Without one the payload is virtual.
 */
#ifndef METAROCE_RDMA_CONNECTION_H
#define METAROCE_RDMA_CONNECTION_H

#include "rdma-memory.h"
#include "rdma-verbs.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>

namespace ns3
{

/** A Write or Send work request. */
struct RdmaWorkRequest
{
    uint64_t wrId = 0;
    RdmaOpcode opcode = RdmaOpcode::Write;
    uint16_t stream = 0;
    uint32_t length = 0;
    uint64_t localAddress = 0; //!< source buffer (used when lkey != 0)
    uint32_t lkey = 0;
    uint64_t remoteAddress = 0; //!< Write only
    uint32_t rkey = 0;          //!< Write only
};

/** A posted receive. */
struct RdmaRecvRequest
{
    uint64_t wrId = 0;
    uint16_t stream = 0;
    uint64_t address = 0;
    uint32_t lkey = 0; //!< region the received bytes are placed in (0: virtual)
    uint32_t length = 0;
};

/** The completion of Write or Send \p wr, posted at \p posted, delivered now. */
RdmaCompletion CompletionOf(const RdmaWorkRequest& wr, RdmaStatus status, Time posted);
/** The completion of receive \p rr, posted at \p posted, with \p bytes received, delivered now. */
RdmaCompletion CompletionOf(const RdmaRecvRequest& rr,
                            RdmaStatus status,
                            uint32_t bytes,
                            Time posted);

class RdmaConnection : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaConnection();
    ~RdmaConnection() override;

    typedef Callback<void, const RdmaCompletion&> CompletionCallback;
    typedef void (*CompletionTracedCallback)(const RdmaCompletion& completion);

    /** Posts a Write or Send. Invalid requests (length 0, opcode Recv) abort. */
    virtual void Post(const RdmaWorkRequest& wr) = 0;
    /** Posts a receive buffer for the next Send on \p rr.stream. */
    virtual void PostRecv(const RdmaRecvRequest& rr) = 0;

    void PostWrite(uint16_t stream,
                   uint64_t wrId,
                   uint64_t remoteAddress,
                   uint32_t rkey,
                   uint32_t length,
                   uint64_t localAddress = 0,
                   uint32_t lkey = 0);
    void PostSend(uint16_t stream,
                  uint64_t wrId,
                  uint32_t length,
                  uint64_t localAddress = 0,
                  uint32_t lkey = 0);
    void PostRecv(uint16_t stream, uint64_t wrId, uint64_t address, uint32_t lkey, uint32_t length);

    /** Called for every completion (in addition to the Completion trace). */
    void SetCompletionCallback(CompletionCallback cb)
    {
        m_completionCallback = cb;
    }

    uint32_t GetLocalHost() const
    {
        return m_localHost;
    }

    uint32_t GetRemoteHost() const
    {
        return m_remoteHost;
    }

    Ptr<RdmaMemory> GetLocalMemory() const
    {
        return m_memory;
    }

    /** Work requests (Write, Send, Recv) posted and not yet completed. */
    uint64_t GetOutstanding() const
    {
        return m_posted - m_completed;
    }

    uint64_t GetCompletedCount() const
    {
        return m_completed;
    }

    /** Bytes of successfully completed Writes and Sends (the sender's goodput). */
    uint64_t GetCompletedBytes() const
    {
        return m_completedBytes;
    }

    /**
     * Invariant bookkeeping (docs/hardening.md). Always: counters per side
     * (Write/Send, Recv) and the completions that found nothing of their side
     * outstanding. With tracking on (RdmaTransport::SetTrackWorkRequests, set
     * by the helper when Fabric::s_checkInvariantsOnDispose is): per request
     * (opcode, stream, wrId), posts and completions, so that a completion of
     * a request never posted, or of one already completed, is caught.
     */
    struct WorkRequestAudit
    {
        uint64_t posted = 0;             //!< Write, Send and Recv requests posted
        uint64_t postedRecvs = 0;        //!< of which Recv
        uint64_t completed = 0;          //!< completions delivered
        uint64_t completedRecvs = 0;     //!< of which Recv
        uint64_t unmatched = 0;          //!< completions when nothing of their side was outstanding
        bool tracked = false;            //!< per-request tracking on
        uint64_t unknown = 0;            //!< tracked: completions of a request never posted
        uint64_t duplicates = 0;         //!< tracked: completions of a request already completed
        uint64_t trackedOutstanding = 0; //!< tracked: sum over requests of posts - completions
        std::string firstViolation;      //!< tracked: the first unknown or duplicate completion
        int64_t held = -1;               //!< GetHeldWorkRequests (-1: not reported)
    };

    WorkRequestAudit GetWorkRequestAudit() const;
    /** Turns per-request tracking on; only before anything is posted (RdmaTransport::Connect). */
    void EnableWorkRequestTracking();

    /**
     * Work requests the transport still holds, by its own data structures:
     * posted and not completed (queued, in flight, or waiting to complete in
     * order). -1 if the transport does not report it.
     */
    virtual int64_t GetHeldWorkRequests() const
    {
        return -1;
    }

    /** Payload bytes placed at this endpoint by its peer, duplicates excluded. */
    virtual uint64_t GetDeliveredBytes() const = 0;
    /** Data packets this endpoint sent, retransmissions included. */
    virtual uint64_t GetSentPackets() const = 0;
    /** Data packets this endpoint sent again (any recovery scheme). */
    virtual uint64_t GetRetransmittedPackets() const = 0;

  protected:
    void DoDispose() override;
    void SetEndpoints(uint32_t localHost, uint32_t remoteHost, Ptr<RdmaMemory> memory);
    /** Counts a posted Write or Send (for GetOutstanding and the invariant checks). */
    void CountPosted(const RdmaWorkRequest& wr);
    /** Counts a posted receive. */
    void CountPosted(const RdmaRecvRequest& rr);
    /** Delivers one completion: callback, trace, counters. */
    void Complete(const RdmaCompletion& c);

  private:
    uint32_t m_localHost = 0;
    uint32_t m_remoteHost = 0;
    Ptr<RdmaMemory> m_memory;
    uint64_t m_posted = 0;
    uint64_t m_completed = 0;
    uint64_t m_completedBytes = 0;
    uint64_t m_postedRecvs = 0;
    uint64_t m_completedRecvs = 0;
    uint64_t m_unmatched = 0;
    /** Per-request tracking state (rdma-connection.cc); null unless enabled. */
    struct Tracker;
    std::unique_ptr<Tracker> m_tracker;
    void TrackCompletion(const RdmaCompletion& c);
    CompletionCallback m_completionCallback;
    TracedCallback<const RdmaCompletion&> m_completionTrace;
};

} // namespace ns3

#endif
