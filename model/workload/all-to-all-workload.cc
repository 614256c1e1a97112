#include "all-to-all-workload.h"

#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AllToAllWorkload);

TypeId
AllToAllWorkload::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AllToAllWorkload")
                            .SetParent<RdmaWorkload>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<AllToAllWorkload>()
                            .AddAttribute("MessageBytes",
                                          "Bytes each rank writes to each other rank",
                                          UintegerValue(1 << 20),
                                          MakeUintegerAccessor(&AllToAllWorkload::m_messageBytes),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("Iterations",
                                          "All-to-all operations run back to back",
                                          UintegerValue(1),
                                          MakeUintegerAccessor(&AllToAllWorkload::m_iterations),
                                          MakeUintegerChecker<uint32_t>(1))
                            .AddAttribute("Ranks",
                                          "Hosts taking part, 0..Ranks-1 (0: all)",
                                          UintegerValue(0),
                                          MakeUintegerAccessor(&AllToAllWorkload::m_ranks),
                                          MakeUintegerChecker<uint32_t>());
    return tid;
}

void
AllToAllWorkload::Install(Ptr<RdmaConnectionPool> pool)
{
    m_pool = pool;
    if (m_ranks == 0 || m_ranks > pool->GetNHosts())
    {
        m_ranks = pool->GetNHosts();
    }
    m_senders.assign(m_ranks, std::vector<Ptr<RdmaConnection>>(m_ranks));
    for (uint32_t i = 0; i < m_ranks; ++i)
    {
        for (uint32_t j = 0; j < m_ranks; ++j)
        {
            if (i == j)
            {
                continue;
            }
            Ptr<RdmaConnection> s = pool->Get(i, j).first;
            m_senders[i][j] = s;
            if (m_listened.insert(PeekPointer(s)).second)
            {
                pool->Listen(s, MakeCallback(&AllToAllWorkload::Completed, this));
            }
        }
    }
}

void
AllToAllWorkload::Start()
{
    StartIteration();
}

void
AllToAllWorkload::StartIteration()
{
    m_iterationStart = Simulator::Now();
    m_pending = uint64_t(m_ranks) * (m_ranks - 1);
    for (uint32_t i = 0; i < m_ranks; ++i)
    {
        for (uint32_t j = 0; j < m_ranks; ++j)
        {
            if (i == j)
            {
                continue;
            }
            // wrId: iteration, source, destination.
            const uint64_t wrId = (uint64_t(m_iteration) << 40) | (uint64_t(i) << 20) | j;
            // Each source writes its own slot of the destination's buffer.
            m_senders[i][j]->PostWrite(0,
                                       wrId,
                                       uint64_t(i) * m_messageBytes,
                                       m_pool->RegionKey(j),
                                       m_messageBytes);
            CountPost();
        }
    }
}

void
AllToAllWorkload::Completed(const RdmaCompletion& c)
{
    if (c.opcode == RdmaOpcode::Recv)
    {
        return;
    }
    const uint32_t src = uint32_t((c.wrId >> 20) & 0xFFFFF);
    const uint32_t dst = uint32_t(c.wrId & 0xFFFFF);
    Record(src, dst, c);
    if (--m_pending > 0)
    {
        return;
    }
    RdmaCollectiveRecord r;
    r.name = "all_to_all";
    r.ranks = m_ranks;
    r.bytes = uint64_t(m_messageBytes) * m_ranks;
    r.start = m_iterationStart;
    r.end = Simulator::Now();
    const double t = (r.end - r.start).GetSeconds();
    r.busBandwidthBps = t > 0 ? double(r.bytes) * 8 / t * (m_ranks - 1) / m_ranks : 0;
    RecordCollective(r);
    if (++m_iteration < m_iterations && !m_stopped)
    {
        StartIteration();
        return;
    }
    m_done = true;
    CheckFinished();
}

bool
AllToAllWorkload::IsFinished() const
{
    return m_done;
}

std::vector<uint32_t>
AllToAllWorkload::GetSenders() const
{
    std::vector<uint32_t> ranks(m_ranks);
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        ranks[r] = r;
    }
    return ranks;
}

} // namespace ns3
