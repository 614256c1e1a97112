#include "rdma-workload.h"

#include "ns3/simulator.h"

#include <set>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaWorkload);

TypeId
RdmaWorkload::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaWorkload")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddAttribute("StartTime",
                                          "When the workload posts its first work",
                                          TimeValue(Seconds(0)),
                                          MakeTimeAccessor(&RdmaWorkload::m_startTime),
                                          MakeTimeChecker(Seconds(0)))
                            .AddTraceSource("Message",
                                            "A message completed at its sender",
                                            MakeTraceSourceAccessor(&RdmaWorkload::m_messageTrace),
                                            "ns3::RdmaWorkload::MessageTracedCallback");
    return tid;
}

void
RdmaWorkload::DoDispose()
{
    m_pool = nullptr;
    m_finished = Callback<void>();
    Object::DoDispose();
}

void
RdmaWorkload::Schedule()
{
    Simulator::Schedule(m_startTime - Simulator::Now(), &RdmaWorkload::Start, this);
}

void
RdmaWorkload::Record(uint32_t src, uint32_t dst, const RdmaCompletion& c)
{
    RdmaMessageRecord r;
    r.src = src;
    r.dst = dst;
    r.bytes = c.bytes;
    r.posted = c.posted;
    r.completed = c.completed;
    r.status = c.status;
    m_messages.push_back(r);
    m_messageTrace(r);
}

std::vector<uint32_t>
RdmaWorkload::GetSenders() const
{
    std::set<uint32_t> hosts;
    if (m_pool)
    {
        for (const auto& e : m_pool->GetEndpoints())
        {
            hosts.insert(e->GetLocalHost());
        }
    }
    return {hosts.begin(), hosts.end()};
}

void
RdmaWorkload::CheckFinished()
{
    if (!m_finishedReported && IsFinished())
    {
        m_finishedReported = true;
        if (!m_finished.IsNull())
        {
            m_finished();
        }
    }
}

} // namespace ns3
