#include "ring-all-reduce-workload.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingAllReduceWorkload);

namespace
{
constexpr uint64_t kSendTag = uint64_t(1) << 62;
}

TypeId
RingAllReduceWorkload::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RingAllReduceWorkload")
            .SetParent<RdmaWorkload>()
            .SetGroupName("MetaRoce")
            .AddConstructor<RingAllReduceWorkload>()
            .AddAttribute("Bytes",
                          "Buffer each rank all-reduces (NCCL's size)",
                          UintegerValue(64 << 20),
                          MakeUintegerAccessor(&RingAllReduceWorkload::m_bytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Slices",
                          "Slices per chunk, slice j on stream j (NCCL channels); 8 covers "
                          "the planes of an 8-plane fabric",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RingAllReduceWorkload::m_slices),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("Iterations",
                          "All-reduce operations run back to back",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RingAllReduceWorkload::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Ranks",
                          "Hosts in the ring, 0..Ranks-1 (0: all)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RingAllReduceWorkload::m_ranks),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

void
RingAllReduceWorkload::Install(Ptr<RdmaConnectionPool> pool)
{
    m_pool = pool;
    if (m_ranks == 0 || m_ranks > pool->GetNHosts())
    {
        m_ranks = pool->GetNHosts();
    }
    NS_ABORT_MSG_IF(m_ranks < 2, "RingAllReduceWorkload: needs at least 2 ranks");
    m_sliceBytes = uint32_t(std::max<uint64_t>(1, m_bytes / m_ranks / m_slices));
    m_perRank = 2 * (m_ranks - 1) * m_slices;
    m_toNext.resize(m_ranks);
    m_fromPrev.resize(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        const uint32_t next = (r + 1) % m_ranks;
        auto ends = pool->Get(r, next);
        m_toNext[r] = ends.first;
        m_fromPrev[next] = ends.second;
        for (auto& e : {ends.first, ends.second})
        {
            if (m_listened.insert(PeekPointer(e)).second)
            {
                pool->Listen(e, MakeCallback(&RingAllReduceWorkload::Completed, this));
            }
        }
    }
}

void
RingAllReduceWorkload::Start()
{
    StartIteration();
}

void
RingAllReduceWorkload::StartIteration()
{
    m_iterationStart = Simulator::Now();
    m_received.assign(m_ranks, 0);
    m_pendingRanks = m_ranks;
    // Every receive first, so no send meets an empty receive queue.
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t m = 0; m < m_perRank; ++m)
        {
            const uint64_t wrId = (uint64_t(r) << 32) | m;
            m_fromPrev[r]->PostRecv(m % m_slices, wrId, 0, 0, m_sliceBytes);
        }
    }
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (uint32_t j = 0; j < m_slices; ++j)
        {
            SendSlice(r, j); // step 0 depends on nothing
        }
    }
}

void
RingAllReduceWorkload::SendSlice(uint32_t rank, uint32_t index)
{
    const uint64_t wrId = kSendTag | (uint64_t(rank) << 32) | index;
    m_toNext[rank]->PostSend(index % m_slices, wrId, m_sliceBytes);
    CountPost();
}

void
RingAllReduceWorkload::Completed(const RdmaCompletion& c)
{
    const uint32_t rank = uint32_t((c.wrId >> 32) & 0x3FFFFFFF);
    const uint32_t index = uint32_t(c.wrId & 0xFFFFFFFF);
    if (c.opcode != RdmaOpcode::Recv)
    {
        Record(rank, (rank + 1) % m_ranks, c);
        return;
    }
    // Slice `index` (step index / Slices) arrived at `rank`: the same slice of
    // the next step can leave for the successor.
    ++m_received[rank];
    if (index + m_slices < m_perRank)
    {
        SendSlice(rank, index + m_slices);
    }
    if (m_received[rank] < m_perRank || --m_pendingRanks > 0)
    {
        return;
    }
    RdmaCollectiveRecord r;
    r.name = "all_reduce";
    r.ranks = m_ranks;
    r.bytes = m_bytes;
    r.start = m_iterationStart;
    r.end = Simulator::Now();
    const double t = (r.end - r.start).GetSeconds();
    r.busBandwidthBps = t > 0 ? double(m_bytes) * 8 / t * 2 * (m_ranks - 1) / m_ranks : 0;
    RecordCollective(r);
    if (++m_iteration < m_iterations && !m_stopped)
    {
        StartIteration();
        return;
    }
    m_done = true;
    CheckFinished();
}

std::vector<uint32_t>
RingAllReduceWorkload::GetSenders() const
{
    std::vector<uint32_t> ranks(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        ranks[r] = r;
    }
    return ranks;
}

} // namespace ns3
