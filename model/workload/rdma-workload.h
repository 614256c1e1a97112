/*
 * RdmaWorkload: traffic expressed only through the verbs-like RdmaConnection
 * API (so it runs on MetaRoCE or RoCEv2 unchanged), with a completion record
 * per message and per collective. Subclasses: BulkWorkload (fixed or
 * continuous transfers over a list of flows: permutation, N-to-1 incast),
 * AllToAllWorkload, RingAllReduceWorkload.
 */
#ifndef METAROCE_RDMA_WORKLOAD_H
#define METAROCE_RDMA_WORKLOAD_H

#include "rdma-connection-pool.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <string>
#include <vector>

namespace ns3
{

/** One completed (or failed) message, seen by its sender. */
struct RdmaMessageRecord
{
    uint32_t src = 0;
    uint32_t dst = 0;
    uint64_t bytes = 0;
    Time posted;
    Time completed;
    RdmaStatus status = RdmaStatus::Success;
};

/** One completed collective operation. */
struct RdmaCollectiveRecord
{
    std::string name; //!< "all_reduce", "all_to_all"
    uint32_t ranks = 0;
    uint64_t bytes = 0; //!< NCCL's "size": the buffer each rank contributes
    Time start;
    Time end;
    /** NCCL's bus bandwidth (bit/s): algorithm bandwidth times the collective's factor. */
    double busBandwidthBps = 0;
};

class RdmaWorkload : public Object
{
  public:
    static TypeId GetTypeId();

    typedef void (*MessageTracedCallback)(const RdmaMessageRecord& record);

    /** Creates the connections it needs and hooks their completions. */
    virtual void Install(Ptr<RdmaConnectionPool> pool) = 0;
    /** Posts the first work (scheduled at StartTime by Schedule()). */
    virtual void Start() = 0;

    /** Continuous workloads stop posting new work (what is posted still completes). */
    virtual void StopPosting()
    {
    }

    /** True once every piece of work the workload will ever post has completed. */
    virtual bool IsFinished() const = 0;
    /**
     * Hosts that send data, ascending (after Install): what bounds the
     * workload's offered load. By default every host with a connection
     * endpoint in the pool.
     */
    virtual std::vector<uint32_t> GetSenders() const;

    /** Hosts that receive data, ascending (after Install); by default GetSenders(). */
    virtual std::vector<uint32_t> GetReceivers() const
    {
        return GetSenders();
    }

    /** Schedules Start() at the StartTime attribute. */
    void Schedule();

    /** Called once when IsFinished() becomes true. */
    void SetFinishedCallback(Callback<void> cb)
    {
        m_finished = cb;
    }

    const std::vector<RdmaMessageRecord>& GetMessages() const
    {
        return m_messages;
    }

    const std::vector<RdmaCollectiveRecord>& GetCollectives() const
    {
        return m_collectives;
    }

    /** Messages posted and not completed. */
    uint64_t GetOutstanding() const
    {
        return m_posted - m_messages.size();
    }

    uint64_t GetPosted() const
    {
        return m_posted;
    }

  protected:
    void DoDispose() override;

    /** Counts a message the workload posted. */
    void CountPost()
    {
        ++m_posted;
    }

    /** Records a sender-side completion. */
    void Record(uint32_t src, uint32_t dst, const RdmaCompletion& c);

    void RecordCollective(const RdmaCollectiveRecord& r)
    {
        m_collectives.push_back(r);
    }

    /** Call when the workload may have finished. */
    void CheckFinished();

    Ptr<RdmaConnectionPool> m_pool;
    Time m_startTime;

  private:
    std::vector<RdmaMessageRecord> m_messages;
    std::vector<RdmaCollectiveRecord> m_collectives;
    uint64_t m_posted = 0;
    bool m_finishedReported = false;
    Callback<void> m_finished;
    TracedCallback<const RdmaMessageRecord&> m_messageTrace;
};

} // namespace ns3

#endif
