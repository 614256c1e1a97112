#include "bulk-workload.h"

#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BulkWorkload);

TypeId
BulkWorkload::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BulkWorkload")
            .SetParent<RdmaWorkload>()
            .SetGroupName("MetaRoce")
            .AddConstructor<BulkWorkload>()
            .AddAttribute("MessageBytes",
                          "Bytes per write",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&BulkWorkload::m_messageBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Outstanding",
                          "Writes each flow keeps posted",
                          UintegerValue(4),
                          MakeUintegerAccessor(&BulkWorkload::m_outstanding),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MessagesPerFlow",
                          "Writes per flow (0: continuous until the workload stops posting)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&BulkWorkload::m_messagesPerFlow),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

void
BulkWorkload::AddFlow(uint32_t src, uint32_t dst)
{
    m_flows.push_back(Flow{src, dst, nullptr});
}

void
BulkWorkload::Install(Ptr<RdmaConnectionPool> pool)
{
    m_pool = pool;
    for (auto& f : m_flows)
    {
        f.sender = pool->Get(f.src, f.dst).first;
        if (m_listened.insert(PeekPointer(f.sender)).second)
        {
            pool->Listen(f.sender, MakeCallback(&BulkWorkload::Completed, this));
        }
    }
}

void
BulkWorkload::Start()
{
    m_started = true;
    m_posting = true;
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        for (uint32_t k = 0; k < m_outstanding; ++k)
        {
            if (m_messagesPerFlow > 0 && m_flows[i].posted >= m_messagesPerFlow)
            {
                break;
            }
            PostOne(i);
        }
    }
    CheckFinished();
}

void
BulkWorkload::PostOne(uint32_t i)
{
    Flow& f = m_flows[i];
    const uint64_t wrId = (uint64_t(i) << 32) | f.posted;
    f.sender->PostWrite(0, wrId, f.offset, m_pool->RegionKey(f.dst), m_messageBytes);
    f.offset = (f.offset + m_messageBytes) % (RdmaConnectionPool::kRegionBytes - m_messageBytes);
    ++f.posted;
    CountPost();
}

void
BulkWorkload::Completed(const RdmaCompletion& c)
{
    if (c.opcode == RdmaOpcode::Recv)
    {
        return;
    }
    const uint32_t i = uint32_t(c.wrId >> 32);
    if (i >= m_flows.size())
    {
        return;
    }
    Flow& f = m_flows[i];
    ++f.completed;
    Record(f.src, f.dst, c);
    if (m_posting && (m_messagesPerFlow == 0 || f.posted < m_messagesPerFlow))
    {
        PostOne(i);
    }
    CheckFinished();
}

void
BulkWorkload::StopPosting()
{
    m_posting = false;
    CheckFinished();
}

bool
BulkWorkload::IsFinished() const
{
    if (!m_started || (m_messagesPerFlow == 0 && m_posting))
    {
        return false;
    }
    for (const auto& f : m_flows)
    {
        if (f.completed < f.posted || (m_messagesPerFlow > 0 && f.posted < m_messagesPerFlow))
        {
            return false;
        }
    }
    return true;
}

std::vector<uint32_t>
BulkWorkload::GetSenders() const
{
    std::set<uint32_t> hosts;
    for (const Flow& f : m_flows)
    {
        hosts.insert(f.src);
    }
    return {hosts.begin(), hosts.end()};
}

std::vector<uint32_t>
BulkWorkload::GetReceivers() const
{
    std::set<uint32_t> hosts;
    for (const Flow& f : m_flows)
    {
        hosts.insert(f.dst);
    }
    return {hosts.begin(), hosts.end()};
}

} // namespace ns3
