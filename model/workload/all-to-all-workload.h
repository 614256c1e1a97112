/*
 * AllToAllWorkload: every rank writes MessageBytes to every other rank, all
 * at once (4,032 transfers on 64 hosts), as an all-to-all collective does;
 * the collective completes when the last write does. Iterations run back to
 * back. Bus bandwidth follows nccl-tests: size = MessageBytes x ranks per
 * rank, algorithm bandwidth = size / time, bus bandwidth = algbw x (n-1)/n.
 */
#ifndef METAROCE_ALL_TO_ALL_WORKLOAD_H
#define METAROCE_ALL_TO_ALL_WORKLOAD_H

#include "rdma-workload.h"

#include <set>

namespace ns3
{

class AllToAllWorkload : public RdmaWorkload
{
  public:
    static TypeId GetTypeId();

    /** Ranks: hosts 0..n-1 (0: every host of the pool). */
    void Install(Ptr<RdmaConnectionPool> pool) override;
    void Start() override;

    void StopPosting() override
    {
        m_stopped = true;
    }

    bool IsFinished() const override;
    /** Every rank sends and receives. */
    std::vector<uint32_t> GetSenders() const override;

  private:
    void StartIteration();
    void Completed(const RdmaCompletion& c);

    uint32_t m_messageBytes;
    uint32_t m_iterations;
    uint32_t m_ranks;
    std::vector<std::vector<Ptr<RdmaConnection>>> m_senders; //!< [src][dst]
    std::set<RdmaConnection*> m_listened;
    uint32_t m_iteration = 0;
    uint64_t m_pending = 0;
    Time m_iterationStart;
    bool m_stopped = false;
    bool m_done = false;
};

} // namespace ns3

#endif
