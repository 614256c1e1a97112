#include "fabric-simulator-impl.h"

#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);


TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<FabricSimulatorImpl>();
    return tid;
}

FabricSimulatorImpl::FabricSimulatorImpl()
    : m_currentUid(EventId::UID::INVALID),
      m_currentContext(Simulator::NO_CONTEXT),
      m_uid(EventId::UID::VALID),
      m_mainThreadId(std::this_thread::get_id())
{
}

FabricSimulatorImpl::~FabricSimulatorImpl() = default;

void
FabricSimulatorImpl::DoDispose()
{
    TakeForeignEvents();
    while (m_events && !m_events->IsEmpty())
    {
        m_events->RemoveNext().impl->Unref();
    }
    m_events = nullptr;
    SimulatorImpl::DoDispose();
}

void
FabricSimulatorImpl::Destroy()
{
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
FabricSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
}

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return 0;
}

void
FabricSimulatorImpl::TakeForeignEvents()
{
    if (!m_hasForeign.load(std::memory_order_acquire))
    {
        return;
    }
    std::vector<ForeignEvent> taken;
    {
        std::lock_guard<std::mutex> lock(m_foreignMutex);
        taken.swap(m_foreign);
        m_hasForeign.store(false, std::memory_order_release);
    }
    for (const ForeignEvent& e : taken)
    {
        Insert(m_currentTs + e.delay, e.context, e.event);
    }
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

void
FabricSimulatorImpl::Run()
{
    m_mainThreadId = std::this_thread::get_id();
    TakeForeignEvents();
    m_stop = false;
    while (!m_events->IsEmpty() && !m_stop)
    {
        const Scheduler::Event next = m_events->RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
        TakeForeignEvents();
    }
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
FabricSimulatorImpl::Stop()
{
    m_stop = true;
}

void
FabricSimulatorImpl::Stop(const Time& delay)
{
    Simulator::Schedule(delay, &Simulator::Stop);
}

EventId
FabricSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.IsPositive(), "FabricSimulatorImpl::Schedule: negative delay");
    const uint64_t ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    const uint32_t uid = m_uid;
    Insert(ts, m_currentContext, event);
    return EventId(event, ts, m_currentContext, uid);
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (std::this_thread::get_id() == m_mainThreadId)
    {
        Insert(m_currentTs + static_cast<uint64_t>(delay.GetTimeStep()), context, event);
        return;
    }
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    m_foreign.push_back(
        ForeignEvent{context, static_cast<uint64_t>(delay.GetTimeStep()), event});
    m_hasForeign.store(true, std::memory_order_release);
}

EventId
FabricSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
FabricSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
FabricSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
FabricSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    event.impl->Unref(); // the queue's reference
    --m_unscheduledEvents;
}

void
FabricSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::UID::DESTROY)
    {
        if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& e : m_destroyEvents)
        {
            if (e == id)
            {
                return false;
            }
        }
        return true;
    }
    return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
           id.PeekEventImpl()->IsCancelled();
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
