/*
 * RingAllReduceWorkload: ring all-reduce as NCCL and RCCL run it. Each of the
 * n ranks (hosts 0..n-1, in a ring) holds Bytes; the buffer is cut into n
 * chunks; reduce-scatter takes n-1 steps, all-gather n-1 more, and in every
 * step each rank sends one chunk to its successor. A chunk travels in Slices
 * slices, slice j on stream j of the connection (NCCL's channels: with as many
 * slices as planes, RoCEv2's per-stream queue pairs use every plane). A rank
 * forwards slice j of step k+1 only once it has received slice j of step k
 * (the data it depends on), by two-sided Send/Recv so the receiver knows.
 * The reduction's arithmetic is not modelled: data moves on as it arrives.
 *
 * Bus bandwidth (nccl-tests): algbw = Bytes / time, busbw = algbw x 2(n-1)/n.
 */
#ifndef METAROCE_RING_ALL_REDUCE_WORKLOAD_H
#define METAROCE_RING_ALL_REDUCE_WORKLOAD_H

#include "rdma-workload.h"

#include <set>

namespace ns3
{

class RingAllReduceWorkload : public RdmaWorkload
{
  public:
    static TypeId GetTypeId();

    void Install(Ptr<RdmaConnectionPool> pool) override;
    void Start() override;

    void StopPosting() override
    {
        m_stopped = true;
    }

    bool IsFinished() const override
    {
        return m_done;
    }

    /** Every rank sends and receives. */
    std::vector<uint32_t> GetSenders() const override;

    /** Bytes one slice carries (Bytes / ranks / Slices, at least 1). */
    uint32_t GetSliceBytes() const
    {
        return m_sliceBytes;
    }

  private:
    void StartIteration();
    void Completed(const RdmaCompletion& c);
    void SendSlice(uint32_t rank, uint32_t index);

    uint64_t m_bytes;
    uint32_t m_slices;
    uint32_t m_iterations;
    uint32_t m_ranks;
    uint32_t m_sliceBytes = 0;
    uint32_t m_perRank = 0; //!< slices each rank receives per iteration: 2 (n-1) x Slices
    std::vector<Ptr<RdmaConnection>> m_toNext;   //!< rank r's endpoint towards r+1
    std::vector<Ptr<RdmaConnection>> m_fromPrev; //!< rank r's endpoint towards r-1
    std::vector<uint32_t> m_received;
    std::set<RdmaConnection*> m_listened;
    uint32_t m_iteration = 0;
    uint64_t m_pendingRanks = 0;
    Time m_iterationStart;
    bool m_stopped = false;
    bool m_done = false;
};

} // namespace ns3

#endif
