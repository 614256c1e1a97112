#include "fabric-simulator-impl.h"

#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <condition_variable>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);

FabricSimulatorImpl* FabricSimulatorImpl::s_running = nullptr;
thread_local FabricSimulatorImpl::Lane* FabricSimulatorImpl::t_lane = nullptr;

namespace
{

/** One pause of a spin-wait (x86's PAUSE; elsewhere a yield). */
inline void
CpuRelax()
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
}

/**
 * The helper threads that run lanes 1..n-1, shared by every simulation of
 * the process and never joined: a pooled object a lane's thread freed stays
 * in that thread's pool, which must outlive the simulation (the pools are
 * never destroyed, see FabricChannel), so the threads live until the process
 * ends. Each helper has its own job count: a job wakes only the helpers it
 * needs (one that ran more lanes in an earlier simulation sleeps, and a
 * window never waits for a thread the OS has put aside), each runs its lane
 * and reports the job done; a helper spins a little before sleeping, as
 * windows follow each other within microseconds.
 */
class LaneThreads
{
  public:
    static LaneThreads& Get()
    {
        static auto* threads = new LaneThreads(); // never destroyed (see above)
        return *threads;
    }

    /** Runs job(1..n-1) on the helper threads and job(0) here; returns when all are done. */
    void Run(uint32_t n, const std::function<void(uint32_t)>& job)
    {
        while (m_helpers.size() + 1 < n)
        {
            m_helpers.push_back(std::make_unique<Helper>());
            Helper* h = m_helpers.back().get();
            const uint32_t index = static_cast<uint32_t>(m_helpers.size());
            std::thread([this, h, index] { Loop(*h, index); }).detach();
        }
        m_job = &job;
        for (uint32_t i = 1; i < n; ++i)
        {
            Helper& h = *m_helpers[i - 1];
            {
                std::lock_guard<std::mutex> lock(h.mutex);
                h.posted.fetch_add(1, std::memory_order_release); // publishes m_job
            }
            h.wake.notify_one();
        }
        job(0);
        // A helper reads the job until it reports it done.
        for (uint32_t i = 1; i < n; ++i)
        {
            const Helper& h = *m_helpers[i - 1];
            const uint64_t posted = h.posted.load(std::memory_order_relaxed);
            for (uint32_t spins = 0; h.done.load(std::memory_order_acquire) != posted; ++spins)
            {
                if (spins > 4096)
                {
                    std::this_thread::yield();
                }
                else
                {
                    CpuRelax();
                }
            }
        }
        m_job = nullptr;
    }

  private:
    struct Helper
    {
        std::atomic<uint64_t> posted{0}; //!< jobs given (written by the caller)
        std::atomic<uint64_t> done{0};   //!< jobs finished (written by the helper)
        std::mutex mutex;
        std::condition_variable wake;
    };

    void Loop(Helper& h, uint32_t index)
    {
        uint64_t seen = 0;
        while (true)
        {
            uint64_t now = seen;
            for (uint32_t spins = 0; spins < 200000 && now == seen; ++spins)
            {
                now = h.posted.load(std::memory_order_acquire);
                if (now == seen)
                {
                    CpuRelax();
                }
            }
            if (now == seen)
            {
                std::unique_lock<std::mutex> lock(h.mutex);
                h.wake.wait(lock, [&] { return h.posted.load(std::memory_order_acquire) != seen; });
                now = h.posted.load(std::memory_order_acquire);
            }
            seen = now;
            (*m_job)(index);
            h.done.store(seen, std::memory_order_release);
        }
    }

    std::vector<std::unique_ptr<Helper>> m_helpers;
    const std::function<void(uint32_t)>* m_job = nullptr;
};

} // namespace

TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<FabricSimulatorImpl>()
                            .AddAttribute(
                                "EventOrder",
                                "How events of one time are ordered: Insertion (ns-3's, by "
                                "the global insertion count; identical to "
                                "DefaultSimulatorImpl) or Keyed (by who scheduled them: "
                                "results independent of the number of lanes, which may then "
                                "run windows as long as a link's delay; needs "
                                "TimingWheelScheduler). A model choice: ties broken "
                                "differently give slightly different results.",
                                EnumValue(INSERTION),
                                MakeEnumAccessor(&FabricSimulatorImpl::SetEventOrder,
                                                 &FabricSimulatorImpl::GetEventOrder),
                                MakeEnumChecker(INSERTION, "Insertion", KEYED, "Keyed"));
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
    if (s_running == this)
    {
        s_running = nullptr; // disposed from inside an event (never, but never dangle)
    }
    TakeForeignEvents();
    while (m_events && !m_events->IsEmpty())
    {
        m_events->RemoveNext().impl->Unref();
    }
    m_events = nullptr;
    for (auto& lane : m_lanes)
    {
        for (const Insertion& in : lane->late)
        {
            in.impl->Unref();
        }
        for (auto& boxes : lane->out)
        {
            for (auto& box : boxes)
            {
                for (const Entry& e : box)
                {
                    e.impl->Unref();
                }
                box.clear();
            }
        }
        while (lane->events && !lane->events->IsEmpty())
        {
            lane->events->RemoveNext().impl->Unref();
        }
    }
    m_lanes.clear();
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
    NS_ABORT_MSG_IF(!m_lanes.empty(), "FabricSimulatorImpl: SetScheduler after SetLanes");
    m_schedulerFactory = schedulerFactory;
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_keyed)
    {
        Ptr<TimingWheelScheduler> wheel = DynamicCast<TimingWheelScheduler>(scheduler);
        NS_ABORT_MSG_IF(wheel == nullptr,
                        "FabricSimulatorImpl: EventOrder Keyed needs ns3::TimingWheelScheduler");
        wheel->SetKeyed();
        if (m_events)
        {
            auto* old = static_cast<TimingWheelScheduler*>(PeekPointer(m_events));
            Entry e;
            while (old->PopBefore(std::numeric_limits<uint64_t>::max(), 0, e))
            {
                wheel->InsertEntry(e);
            }
        }
        m_events = scheduler;
        return;
    }
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
    if (m_stop)
    {
        return true;
    }
    for (const auto& lane : m_lanes)
    {
        if (!lane->events->IsEmpty() || !lane->late.empty())
        {
            return false;
        }
    }
    return m_events->IsEmpty();
}

void
FabricSimulatorImpl::Run()
{
    m_mainThreadId = std::this_thread::get_id();
    TakeForeignEvents();
    m_stop = false;
    if (!m_lanes.empty())
    {
        RunLanes();
        return;
    }
    if (m_keyed)
    {
        RunKeyed();
        return;
    }
    s_running = this;
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
    s_running = nullptr;
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
FabricSimulatorImpl::Stop()
{
    NS_ABORT_MSG_IF(t_lane != nullptr,
                    "FabricSimulatorImpl: Simulator::Stop() from an event of a node on lane "
                        << t_lane->index
                        << ": with lanes, stop from an event without a context (e.g. "
                           "Simulator::Stop(delay) before Run), or run with one lane");
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
    if (Lane* lane = t_lane)
    {
        const uint64_t ts = lane->ts + static_cast<uint64_t>(delay.GetTimeStep());
        const uint32_t uid = LaneInsert(*lane, ts, lane->context, event);
        return EventId(event, ts, lane->context, uid);
    }
    const uint64_t ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    const uint32_t uid = Insert(ts, m_currentContext, event);
    return EventId(event, ts, m_currentContext, uid);
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (t_lane != nullptr || std::this_thread::get_id() == m_mainThreadId)
    {
        ScheduleWithContextHere(context, delay, event);
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
    NS_ABORT_MSG_IF(t_lane != nullptr,
                    "FabricSimulatorImpl: Simulator::ScheduleDestroy from an event on a lane");
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::UID::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid;
    return id;
}

Time
FabricSimulatorImpl::Now() const
{
    return NowTime();
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - NowTime().GetTimeStep());
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
    if (!m_lanes.empty())
    {
        RemoveFromLanes(id);
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
    if (m_lanes.empty() && !m_keyed)
    {
        return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
               (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
               id.PeekEventImpl()->IsCancelled();
    }
    // Lanes: an EventId may carry the uid its event had before its window was
    // merged (keyed order: uids say nothing of the order), so "already run" at
    // this very time is "no longer queued".
    if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
    {
        return true;
    }
    const Lane* here = t_lane;
    const uint64_t now = here ? here->ts : m_currentTs;
    if (id.GetTs() != now)
    {
        return id.GetTs() < now;
    }
    const EventImpl* impl = id.PeekEventImpl();
    if (impl == (here ? here->current : m_current))
    {
        return true;
    }
    const Lane* lane = LaneOfEvent(id);
    if (lane == nullptr)
    {
        return !static_cast<const TimingWheelScheduler*>(PeekPointer(m_events))->Contains(now, impl);
    }
    if (lane->events->Contains(now, impl))
    {
        return false;
    }
    for (const Insertion& in : lane->late)
    {
        if (in.impl == impl)
        {
            return false;
        }
    }
    return true;
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return t_lane ? t_lane->context : m_currentContext;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    uint64_t n = m_eventCount;
    for (const auto& lane : m_lanes)
    {
        n += lane->eventCount;
    }
    return n;
}

void
FabricSimulatorImpl::WindowLog::Clear(uint32_t lanes)
{
    exec.clear();
    ins.clear();
    base.clear();
    final.clear();
    deferred.clear();
    global.clear();
    minTo.assign(lanes, std::numeric_limits<uint64_t>::max());
}

void
FabricSimulatorImpl::SetLanes(uint32_t lanes, const std::vector<uint32_t>& laneOf, Time lookahead)
{
    NS_ABORT_MSG_IF(s_running == this, "FabricSimulatorImpl::SetLanes during Run");
    NS_ABORT_MSG_IF(!m_lanes.empty(), "FabricSimulatorImpl::SetLanes: lanes are already set");
    if (lanes <= 1)
    {
        return;
    }
    NS_ABORT_MSG_IF(lookahead.GetTimeStep() <= 0,
                    "FabricSimulatorImpl::SetLanes: the lookahead must be positive, got "
                        << lookahead);
    NS_ABORT_MSG_IF(lanes > kMaxLanes,
                    "FabricSimulatorImpl::SetLanes: at most " << kMaxLanes << " lanes, got "
                                                             << lanes);
    NS_ABORT_MSG_IF(DynamicCast<TimingWheelScheduler>(m_events) == nullptr,
                    "FabricSimulatorImpl::SetLanes: lanes need ns3::TimingWheelScheduler");
    for (uint32_t l : laneOf)
    {
        NS_ABORT_MSG_IF(l != kNoLane && l >= lanes,
                        "FabricSimulatorImpl::SetLanes: lane " << l << " of " << lanes);
    }
    m_laneOf = laneOf;
    m_lookahead = static_cast<uint64_t>(lookahead.GetTimeStep());
    m_mergeIns.assign(lanes, {});
    if (m_keyed)
    {
        // One cache line per key source: lanes count their nodes' keys.
        std::vector<uint64_t> counters((laneOf.size() + 2) * 8, 0);
        for (size_t src = 0; src * m_counterStride < m_counters.size(); ++src)
        {
            if (src < laneOf.size() + 2)
            {
                counters[src * 8] = m_counters[src * m_counterStride];
            }
        }
        NS_ABORT_MSG_IF(m_counters.size() / m_counterStride > laneOf.size() + 2,
                        "FabricSimulatorImpl::SetLanes: events were scheduled by a context "
                        "beyond the lanes' map");
        m_counters = std::move(counters);
        m_counterStride = 8;
    }
    for (uint32_t i = 0; i < lanes; ++i)
    {
        auto lane = std::make_unique<Lane>();
        lane->index = i;
        lane->events = DynamicCast<TimingWheelScheduler>(m_schedulerFactory.Create<Scheduler>());
        lane->context = Simulator::NO_CONTEXT;
        lane->uid = EventId::UID::INVALID;
        lane->log[0].Clear(lanes);
        lane->log[1].Clear(lanes);
        lane->pending = std::numeric_limits<uint64_t>::max();
        for (auto& mins : lane->outMin)
        {
            std::fill(std::begin(mins), std::end(mins), std::numeric_limits<uint64_t>::max());
        }
        if (m_keyed)
        {
            lane->events->SetKeyed();
        }
        m_lanes.push_back(std::move(lane));
    }
    // Events already queued move to their lanes, in order.
    Ptr<Scheduler> all = m_events;
    m_events = m_schedulerFactory.Create<Scheduler>();
    m_unscheduledEvents = 0;
    if (m_keyed)
    {
        static_cast<TimingWheelScheduler*>(PeekPointer(m_events))->SetKeyed();
        auto* old = static_cast<TimingWheelScheduler*>(PeekPointer(all));
        Entry e;
        while (old->PopBefore(std::numeric_limits<uint64_t>::max(), 0, e))
        {
            InsertKeyed(e.ts, e.context, e.impl, e.order);
        }
        return;
    }
    while (!all->IsEmpty())
    {
        const Scheduler::Event ev = all->RemoveNext();
        RouteInsert(Insertion{ev.impl,
                              ev.key.m_ts,
                              ev.key.m_context,
                              LaneOf(ev.key.m_context),
                              ev.key.m_uid,
                              0});
    }
}

void
FabricSimulatorImpl::ScheduleTwinOfLast(uint32_t context, EventImpl* event)
{
    NS_ASSERT(context != Simulator::NO_CONTEXT && (context & kTwinBit) == 0);
    if (Lane* lane = t_lane)
    {
        WindowLog& log = *lane->now;
        NS_ASSERT(!log.ins.empty());
        const Insertion& of = log.ins.back();
        Insertion in{event, of.ts, context | kTwinBit, LaneOf(context), of.parent, of.offset};
        NS_ABORT_MSG_IF(in.ts < lane->end || in.target == kNoLane || of.target == kImmediate,
                        "FabricSimulatorImpl::ScheduleTwinOfLast: inside the window or no lane");
        ++log.exec.back().all;
        log.minTo[in.target] = std::min(log.minTo[in.target], in.ts);
        log.ins.push_back(in);
        return;
    }
    Insertion in = m_lastRouted;
    NS_ASSERT(in.impl != nullptr);
    in.impl = event;
    in.context = context | kTwinBit;
    in.target = LaneOf(context);
    RouteInsert(in);
}

void
FabricSimulatorImpl::RouteInsert(const Insertion& in)
{
    m_lastRouted = in;
    if (m_merging)
    {
        CheckAfterWindow(in.ts);
        if (in.target != kNoLane)
        {
            m_mergeIns[in.target].push_back(in);
            return;
        }
    }
    if (in.target == kNoLane)
    {
        Scheduler::Event ev;
        ev.impl = in.impl;
        ev.key.m_ts = in.ts;
        ev.key.m_uid = in.parent;
        ev.key.m_context = in.context;
        ++m_unscheduledEvents;
        m_events->Insert(ev);
        return;
    }
    Lane& lane = *m_lanes[in.target];
    lane.late.push_back(in);
    lane.lateTs = std::min(lane.lateTs, in.ts);
}

void
FabricSimulatorImpl::CheckAfterWindow(uint64_t ts) const
{
    NS_ABORT_MSG_IF(ts < m_windowEnd,
                    "FabricSimulatorImpl: work run in order at a barrier (InOrder) scheduled "
                    "an event at "
                        << TimeStep(ts).As(Time::NS) << ", before the window's end ("
                        << TimeStep(m_windowEnd).As(Time::NS)
                        << "), which the lanes have run past; run with one lane");
}

void
FabricSimulatorImpl::ShortLookahead(const Lane& lane, const Insertion& in) const
{
    if (in.target == kNoLane)
    {
        NS_FATAL_ERROR("FabricSimulatorImpl: an event of context "
                       << lane.context << " on lane " << lane.index << " at "
                       << TimeStep(lane.ts).As(Time::NS)
                       << " scheduled an event without a lane (context " << in.context << ") at "
                       << TimeStep(in.ts).As(Time::NS)
                       << ", inside the window: with lanes, events without a node context "
                          "(Simulator::Stop, a run's end) cannot be scheduled from a node's "
                          "event so soon; run with one lane");
    }
    NS_FATAL_ERROR("FabricSimulatorImpl: an event of context "
                   << lane.context << " on lane " << lane.index << " at "
                   << TimeStep(lane.ts).As(Time::NS) << " scheduled one for context "
                   << (in.context & ~kTwinBit) << " on lane " << in.target << " at "
                   << TimeStep(in.ts).As(Time::NS) << ", less than the lookahead ("
                   << TimeStep(m_lookahead).As(Time::NS)
                   << ") ahead: the lanes' lookahead must not exceed the least time between an "
                      "event and what it schedules on another lane");
}

void
FabricSimulatorImpl::TakeIncoming(Lane& lane)
{
    // What the merged window scheduled for this lane, from every lane's log
    // (each lists its insertions in increasing final uid) and from InOrder
    // work: queued in uid order, so that a bucket keeps ns-3's order.
    const uint32_t me = lane.index;
    const uint32_t prev = m_parity ^ 1;
    const size_t n = m_lanes.size();
    constexpr uint32_t kDone = std::numeric_limits<uint32_t>::max(); // after every uid
    struct Source
    {
        const WindowLog* log;
        const Insertion* at;
        const Insertion* end;
        uint32_t k;
        uint32_t uid; //!< the next entry's, kDone when none is left
    };
    Source src[kMaxLanes];
    size_t sources = 0;
    for (size_t s = 0; s < n; ++s)
    {
        const WindowLog& log = m_lanes[s]->log[prev];
        if (log.minTo[me] != std::numeric_limits<uint64_t>::max())
        {
            src[sources++] =
                Source{&log, log.ins.data(), log.ins.data() + log.ins.size(), 0, kDone};
        }
    }
    auto advance = [me](Source& x) {
        while (x.at != x.end && x.at->target != me)
        {
            ++x.at;
            ++x.k;
        }
        x.uid = x.at != x.end ? FinalOf(*x.log, x.k) : kDone;
    };
    for (size_t s = 0; s < sources; ++s)
    {
        advance(src[s]);
    }
    std::vector<Insertion>& extra = m_mergeIns[me];
    size_t e = 0;
    TimingWheelScheduler& events = *lane.events;
    while (true)
    {
        size_t best = 0;
        for (size_t s = 1; s < sources; ++s)
        {
            if (src[s].uid < src[best].uid)
            {
                best = s;
            }
        }
        const uint32_t bestUid = sources > 0 ? src[best].uid : kDone;
        if (e < extra.size() && extra[e].parent < bestUid)
        {
            const Insertion& in = extra[e++];
            events.Insert(Scheduler::Event{in.impl, Scheduler::EventKey{in.ts, in.parent, in.context}});
            continue;
        }
        if (bestUid == kDone)
        {
            break;
        }
        Source& from = src[best];
        const Insertion& in = *from.at;
        events.Insert(Scheduler::Event{in.impl, Scheduler::EventKey{in.ts, bestUid, in.context}});
        ++from.at;
        ++from.k;
        advance(from);
    }
    extra.clear();
    QueueLate(lane);
}

void
FabricSimulatorImpl::QueueLate(Lane& lane)
{
    // Scheduled from outside the lanes since the last window (a global
    // event, set-up): their uids come after every insertion queued so far.
    for (const Insertion& in : lane.late)
    {
        lane.events->Insert(
            Scheduler::Event{in.impl, Scheduler::EventKey{in.ts, in.parent, in.context}});
    }
    lane.late.clear();
    lane.lateTs = std::numeric_limits<uint64_t>::max();
}

void
FabricSimulatorImpl::RunWindow(Lane& lane)
{
    TimingWheelScheduler& events = *lane.events;
    WindowLog& log = *lane.now;
    Entry next;
    while (events.PopBefore(lane.end, lane.endOrder, next))
    {
        uint32_t context = next.context;
        uint32_t twin = 0;
        if (IsTwin(context))
        {
            context &= ~kTwinBit; // a twin: part of another lane's event, not counted
            twin = 1;
        }
        else
        {
            ++lane.eventCount;
        }
        const uint32_t uid = static_cast<uint32_t>(next.order);
        lane.ts = next.ts;
        lane.context = context;
        lane.uid = uid;
        lane.current = next.impl;
        log.exec.push_back(Executed{next.ts, uid, 0, 0, twin});
        next.impl->Invoke();
        next.impl->Unref();
    }
    lane.current = nullptr;
}

void
FabricSimulatorImpl::RunDeferred(WindowLog& log,
                                 Lane& lane,
                                 uint32_t exec,
                                 uint32_t k,
                                 uint64_t ts,
                                 uint32_t uid)
{
    while (lane.dpos < log.deferred.size() && log.deferred[lane.dpos].exec == exec &&
           log.deferred[lane.dpos].insPos == k)
    {
        Deferred& d = log.deferred[lane.dpos++];
        m_currentTs = ts;
        m_currentUid = uid;
        m_currentContext = d.context;
        d.fn();
        d.fn = nullptr;
    }
}

void
FabricSimulatorImpl::Merge()
{
    // Every event the lanes ran in this window, in (time, uid) order: the
    // order one thread would have run them in. The insertions of each get
    // the uids one thread would have given them (consecutive, from the
    // event's base); an event a lane scheduled for itself within the window
    // ran under a provisional uid (the window's base plus its index), whose
    // final value is known once its parent has been walked, earlier in this
    // walk. Only the events are walked here; each lane queues its incoming
    // insertions itself (TakeIncoming).
    const uint32_t base = m_windowUid;
    const uint64_t savedTs = m_currentTs;
    const uint32_t savedContext = m_currentContext;
    m_merging = true;
    for (auto& lane : m_lanes)
    {
        WindowLog& log = *lane->now;
        log.base.resize(log.exec.size());
        lane->pos = 0;
        lane->dpos = 0;
        lane->cursor = 0;
    }
    uint64_t lastTs = savedTs;
    const size_t n = m_lanes.size();
    while (true)
    {
        Lane* best = nullptr;
        uint64_t bestTs = 0;
        uint32_t bestUid = 0;
        uint32_t bestTwin = 0;
        for (size_t i = 0; i < n; ++i)
        {
            Lane& lane = *m_lanes[i];
            const WindowLog& log = *lane.now;
            if (lane.pos >= log.exec.size())
            {
                continue;
            }
            const Executed& x = log.exec[lane.pos];
            const uint32_t uid = x.uid < base ? x.uid : FinalOf(log, x.uid - base);
            // A twin shares its event's (time, uid) on another lane and runs first.
            if (best == nullptr || x.ts < bestTs ||
                (x.ts == bestTs && (uid < bestUid || (uid == bestUid && x.twin > bestTwin))))
            {
                best = &lane;
                bestTs = x.ts;
                bestUid = uid;
                bestTwin = x.twin;
            }
        }
        if (best == nullptr)
        {
            break;
        }
        WindowLog& log = *best->now;
        const uint32_t pos = best->pos++;
        const Executed& x = log.exec[pos];
        if (best->dpos < log.deferred.size() && log.deferred[best->dpos].exec == pos)
        {
            // InOrder work runs between this event's insertions: uids one by one.
            log.base[pos] = kExplicit;
            log.final.resize(log.ins.size());
            const uint32_t first = best->cursor;
            for (uint32_t k = first; k < first + x.all; ++k)
            {
                RunDeferred(log, *best, pos, k, bestTs, bestUid);
                log.final[k] = IsTwin(log.ins[k].context) ? log.final[k - 1] : m_uid++;
            }
            RunDeferred(log, *best, pos, first + x.all, bestTs, bestUid);
        }
        else
        {
            log.base[pos] = m_uid;
            m_uid += x.counted;
        }
        best->cursor += x.all;
        lastTs = bestTs;
    }
    m_merging = false;
    m_currentTs = std::max(savedTs, lastTs);
    m_currentContext = savedContext;
    NS_ABORT_MSG_IF(m_uid >= 0xf0000000u,
                    "FabricSimulatorImpl: more than 4e9 events scheduled (ns-3's 32-bit uids)");
    // Events for no lane (rare): into the global queue, in uid order.
    std::vector<Scheduler::Event> global;
    for (auto& lane : m_lanes)
    {
        WindowLog& log = *lane->now;
        for (uint32_t k : log.global)
        {
            if (log.ins[k].target == kNoLane)
            {
                const Insertion& in = log.ins[k];
                global.push_back(
                    Scheduler::Event{in.impl, Scheduler::EventKey{in.ts, FinalOf(log, k), in.context}});
            }
        }
    }
    std::sort(global.begin(), global.end(), [](const Scheduler::Event& a, const Scheduler::Event& b) {
        return a.key.m_uid < b.key.m_uid;
    });
    for (const Scheduler::Event& ev : global)
    {
        ++m_unscheduledEvents;
        m_events->Insert(ev);
    }
}

void
FabricSimulatorImpl::RunGlobal(const Scheduler::Event& next)
{
    --m_unscheduledEvents;
    ++m_eventCount;
    m_currentTs = next.key.m_ts;
    m_currentContext = next.key.m_context;
    m_currentUid = next.key.m_uid;
    m_current = next.impl;
    next.impl->Invoke();
    next.impl->Unref();
    m_current = nullptr;
    TakeForeignEvents();
}

uint64_t
FabricSimulatorImpl::LanesNextTime(bool queued) const
{
    // The earliest event of any lane, including what the last window
    // scheduled for lanes and has not queued there yet.
    uint64_t t = std::numeric_limits<uint64_t>::max();
    const uint32_t prev = m_parity ^ 1;
    for (const auto& lane : m_lanes)
    {
        if (!lane->events->IsEmpty())
        {
            t = std::min(t, lane->events->PeekEntry().ts);
        }
        if (!queued)
        {
            for (const auto& from : m_lanes)
            {
                t = std::min(t,
                             m_keyed ? from->outMin[prev][lane->index]
                                     : from->log[prev].minTo[lane->index]);
            }
        }
        if (m_keyed)
        {
            // A port between lanes may start a frame without an event; its
            // arrival is at least a link's delay later.
            t = std::min(t, lane->pending);
            continue;
        }
        t = std::min(t, lane->lateTs);
        for (const Insertion& in : m_mergeIns[lane->index])
        {
            t = std::min(t, in.ts);
        }
    }
    return t;
}

void
FabricSimulatorImpl::RunLanes()
{
    constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
    s_running = this;
    const uint32_t n = static_cast<uint32_t>(m_lanes.size());
    auto* global = static_cast<TimingWheelScheduler*>(PeekPointer(m_events));
    bool queued = true; // the last window's insertions are queued at their lanes
    for (auto& lane : m_lanes)
    {
        // Keyed: set-up may have queued frames at a port between lanes.
        lane->pending = m_flush.empty() ? kNever : m_currentTs;
    }
    auto take = [this](Lane& lane) {
        if (m_keyed)
        {
            TakeKeyedIncoming(lane, m_parity ^ 1);
        }
        else
        {
            TakeIncoming(lane);
        }
    };
    const std::function<void(uint32_t)> job = [this, &queued, &take](uint32_t i) {
        Lane& lane = *m_lanes[i];
        t_lane = &lane;
        if (!queued)
        {
            take(lane);
        }
        else if (!lane.late.empty())
        {
            // What a global event scheduled after the last window was queued
            // (queueAll): it may fall inside this window.
            QueueLate(lane);
        }
        if (m_keyed)
        {
            RunKeyedWindow(lane);
            lane.pending = kNever;
            if (!m_flush.empty())
            {
                // Only frames may be sent here (their keys are the ports').
                lane.context = Simulator::NO_CONTEXT;
                lane.pending = m_flush[i](lane.end);
                NS_ASSERT(lane.pending >= lane.end);
            }
        }
        else
        {
            lane.now = &lane.log[m_parity];
            lane.now->Clear(static_cast<uint32_t>(m_lanes.size()));
            RunWindow(lane);
        }
        t_lane = nullptr;
    };
    auto queueAll = [&] {
        if (!queued)
        {
            for (auto& lane : m_lanes)
            {
                take(*lane);
            }
            queued = true;
        }
    };
    while (!m_stop)
    {
        const uint64_t laneMin = LanesNextTime(queued);
        const bool hasGlobal = !global->IsEmpty();
        if (laneMin == kNever && !hasGlobal)
        {
            break;
        }
        uint64_t end = laneMin > kNever - m_lookahead ? kNever : laneMin + m_lookahead;
        uint64_t endOrder = 0; // the global event's key (uid) if it ends the window
        if (hasGlobal)
        {
            const Entry g = global->PeekEntry();
            if (g.ts <= end)
            {
                end = g.ts;
                endOrder = g.order;
                NS_ASSERT(endOrder != 0);
            }
        }
        if (laneMin < end || (laneMin == end && endOrder != 0))
        {
            m_windowUid = m_uid;
            m_windowEnd = end;
            for (auto& lane : m_lanes)
            {
                lane->end = end;
                lane->endOrder = endOrder;
            }
            LaneThreads::Get().Run(n, job);
            if (m_keyed)
            {
                KeyedBarrier(m_parity);
            }
            else
            {
                Merge();
            }
            queued = false;
            m_parity ^= 1;
            ++m_windows;
        }
        if (endOrder != 0)
        {
            // The window stopped at the global event: it runs alone, with the
            // lanes' queues complete (it may look at them).
            queueAll();
            RunGlobal(m_events->RemoveNext());
            for (auto& lane : m_lanes)
            {
                // It may have queued frames at a port between lanes (keyed).
                lane->pending = std::min(lane->pending, m_flush.empty() ? kNever : m_currentTs);
            }
        }
    }
    queueAll();
    s_running = nullptr;
    if (!m_stop)
    {
        for (auto& lane : m_lanes)
        {
            m_currentTs = std::max(m_currentTs, lane->ts);
        }
    }
}

FabricSimulatorImpl::Lane*
FabricSimulatorImpl::LaneOfEvent(const EventId& id) const
{
    const uint32_t l = LaneOf(id.GetContext());
    return l == kNoLane ? nullptr : m_lanes[l].get();
}

void
FabricSimulatorImpl::RemoveFromLanes(const EventId& id)
{
    EventImpl* impl = id.PeekEventImpl();
    const uint64_t ts = id.GetTs();
    Scheduler::Event ev;
    ev.impl = impl;
    ev.key.m_ts = ts;
    ev.key.m_uid = id.GetUid();
    ev.key.m_context = id.GetContext();
    Lane* lane = LaneOfEvent(id);
    bool found = false;
    if (lane == nullptr)
    {
        m_events->Remove(ev);
        --m_unscheduledEvents;
        found = true;
    }
    else if (lane->events->Contains(ts, impl))
    {
        lane->events->Remove(ev);
        found = true;
    }
    else
    {
        for (auto i = lane->late.begin(); !found && i != lane->late.end(); ++i)
        {
            if (i->impl == impl)
            {
                lane->late.erase(i);
                found = true;
                break;
            }
        }
        if (m_keyed && t_lane != nullptr)
        {
            // Scheduled this window for another lane (at least the lookahead ahead).
            for (auto& box : t_lane->out[m_parity])
            {
                for (auto i = box.begin(); !found && i != box.end(); ++i)
                {
                    if (i->impl == impl)
                    {
                        box.erase(i);
                        found = true;
                        break;
                    }
                }
            }
        }
        if (t_lane == lane && !m_keyed)
        {
            auto& ins = lane->now->ins;
            for (auto i = ins.rbegin(); !found && i != ins.rend(); ++i)
            {
                if (i->impl == impl && i->target != kImmediate && i->target != kRemoved)
                {
                    i->target = kRemoved;
                    found = true;
                }
            }
        }
    }
    NS_ABORT_MSG_IF(!found, "FabricSimulatorImpl::Remove: the event is not queued");
    impl->Cancel();
    impl->Unref(); // the queue's reference
}

void
FabricSimulatorImpl::InOrder(std::function<void()> fn)
{
    Lane* lane = t_lane;
    FabricSimulatorImpl* sim = s_running;
    if (lane == nullptr || sim == nullptr)
    {
        if (sim != nullptr && sim->m_keyed && !sim->m_inOrderWork)
        {
            // Its events take InOrder's key source, as when lanes defer it.
            sim->m_inOrderWork = true;
            fn();
            sim->m_inOrderWork = false;
            return;
        }
        fn();
        return;
    }
    if (sim->m_keyed)
    {
        lane->kdeferred.push_back(KeyedDeferred{lane->ts,
                                                lane->group,
                                                static_cast<uint32_t>(lane->kdeferred.size()),
                                                lane->context,
                                                std::move(fn)});
        return;
    }
    WindowLog& log = *lane->now;
    NS_ASSERT(!log.exec.empty());
    log.deferred.push_back(Deferred{static_cast<uint32_t>(log.exec.size() - 1),
                                    static_cast<uint32_t>(log.ins.size()),
                                    lane->context,
                                    std::move(fn)});
}

FabricSimulatorImpl::ContextScope::ContextScope(uint32_t context)
{
    if (t_lane != nullptr)
    {
        return; // a node's event: it has its context
    }
    m_sim = s_running;
    if (m_sim == nullptr)
    {
        m_sim = PeekPointer(DynamicCast<FabricSimulatorImpl>(Simulator::GetImplementation()));
    }
    NS_ABORT_MSG_IF(m_sim != nullptr && m_sim->m_merging,
                    "FabricSimulatorImpl: work posted to node "
                        << context
                        << " from InOrder work (a workload's completion callback) while lanes "
                           "run: its node's lane has run past that time; this workload needs "
                           "one lane (\"threads\": 1)");
    if (m_sim != nullptr)
    {
        m_saved = m_sim->m_currentContext;
        m_sim->m_currentContext = context;
    }
}

FabricSimulatorImpl::ContextScope::~ContextScope()
{
    if (m_sim != nullptr)
    {
        m_sim->m_currentContext = m_saved;
    }
}


// Keyed order ----------------------------------------------------------------

void
FabricSimulatorImpl::SetEventOrder(EventOrder order)
{
    NS_ABORT_MSG_IF(s_running == this, "FabricSimulatorImpl::SetEventOrder during Run");
    NS_ABORT_MSG_IF(!m_lanes.empty(), "FabricSimulatorImpl::SetEventOrder after SetLanes");
    if ((order == KEYED) == m_keyed)
    {
        return;
    }
    if (order == INSERTION)
    {
        NS_ABORT_MSG_IF(m_events && !m_events->IsEmpty(),
                        "FabricSimulatorImpl::SetEventOrder(Insertion) with events queued");
        m_keyed = false;
        if (m_events)
        {
            m_events = m_schedulerFactory.Create<Scheduler>();
        }
        return;
    }
    m_keyed = true;
    // Events queued so far keep their order: their uid is their key (source
    // 0, whose count goes on from there).
    m_counterStride = 1;
    m_counters.assign(2, 0);
    m_counters[0] = m_uid;
    if (m_events)
    {
        Ptr<Scheduler> old = m_events;
        NS_ABORT_MSG_IF(DynamicCast<TimingWheelScheduler>(old) == nullptr,
                        "FabricSimulatorImpl: EventOrder Keyed needs ns3::TimingWheelScheduler");
        Ptr<TimingWheelScheduler> wheel =
            DynamicCast<TimingWheelScheduler>(m_schedulerFactory.Create<Scheduler>());
        wheel->SetKeyed();
        while (!old->IsEmpty())
        {
            const Scheduler::Event ev = old->RemoveNext();
            wheel->InsertEntry(Entry{ev.impl, ev.key.m_ts, ev.key.m_uid, ev.key.m_context});
        }
        m_events = wheel;
    }
}

void
FabricSimulatorImpl::SetLaneFlush(std::vector<std::function<uint64_t(uint64_t)>> flush)
{
    NS_ABORT_MSG_IF(!m_keyed || flush.size() != m_lanes.size(),
                    "FabricSimulatorImpl::SetLaneFlush: keyed order and one flush per lane");
    m_flush = std::move(flush);
}

uint32_t
FabricSimulatorImpl::MainSource()
{
    const uint32_t src = m_inOrderWork                                ? 1
                         : m_currentContext == Simulator::NO_CONTEXT ? 0
                                                                      : m_currentContext + 2;
    NS_ABORT_MSG_IF(src >= kPortSource,
                    "FabricSimulatorImpl: keyed order takes contexts below " << kPortSource - 2);
    if ((size_t(src) + 1) * m_counterStride > m_counters.size())
    {
        m_counters.resize((size_t(src) + 1) * m_counterStride, 0);
    }
    return src;
}

uint32_t
FabricSimulatorImpl::InsertKeyed(uint64_t ts, uint32_t context, EventImpl* event, uint64_t order)
{
    const Entry e{event, ts, order, context};
    const uint32_t l = m_lanes.empty() ? kNoLane : LaneOf(context);
    if (l == kNoLane)
    {
        ++m_unscheduledEvents;
        static_cast<TimingWheelScheduler*>(PeekPointer(m_events))->InsertEntry(e);
        return KeyUid(order);
    }
    if (m_merging)
    {
        CheckAfterWindow(ts);
    }
    m_lanes[l]->events->InsertEntry(e);
    return KeyUid(order);
}

uint32_t
FabricSimulatorImpl::LaneInsertKeyed(Lane& lane,
                                     uint64_t ts,
                                     uint32_t context,
                                     EventImpl* event,
                                     uint64_t order)
{
    const uint32_t target = LaneOf(context);
    if (target == lane.index)
    {
        lane.events->InsertEntry(Entry{event, ts, order, context});
        return KeyUid(order);
    }
    // Another lane (or none) has run up to the window's end: at or after it.
    if (ts < lane.end || (ts == lane.end && lane.endOrder != 0 && order < lane.endOrder))
    {
        ShortLookahead(lane, Insertion{event, ts, context, target, 0, 0});
    }
    const uint32_t box = target == kNoLane ? kMaxLanes : target;
    lane.out[m_parity][box].push_back(Entry{event, ts, order, context});
    lane.outMin[m_parity][box] = std::min(lane.outMin[m_parity][box], ts);
    return KeyUid(order);
}

void
FabricSimulatorImpl::RunKeyed()
{
    auto* events = static_cast<TimingWheelScheduler*>(PeekPointer(m_events));
    s_running = this;
    Entry e;
    while (!m_stop && events->PopBefore(std::numeric_limits<uint64_t>::max(), 0, e))
    {
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = e.ts;
        m_currentContext = e.context;
        m_currentUid = KeyUid(e.order);
        m_current = e.impl;
        e.impl->Invoke();
        e.impl->Unref();
        TakeForeignEvents();
    }
    m_current = nullptr;
    s_running = nullptr;
}

void
FabricSimulatorImpl::RunKeyedWindow(Lane& lane)
{
    TimingWheelScheduler& events = *lane.events;
    Entry e;
    while (events.PopBefore(lane.end, lane.endOrder, e))
    {
        ++lane.eventCount;
        lane.ts = e.ts;
        lane.context = e.context;
        lane.current = e.impl;
        // An event scheduled for the time it is run at with a smaller key
        // runs right after its parent, before larger keys: events of one time
        // run in groups (an event not so scheduled and what it so schedules),
        // each on one lane and ordered by its first event's key, the largest
        // key run so far at that time.
        lane.group = e.ts == lane.groupTs ? std::max(lane.group, e.order) : e.order;
        lane.groupTs = e.ts;
        e.impl->Invoke();
        e.impl->Unref();
    }
    lane.current = nullptr;
}

void
FabricSimulatorImpl::TakeKeyedIncoming(Lane& lane, uint32_t parity)
{
    // Keys are final: the wheel orders them whatever the insertion order.
    for (const auto& from : m_lanes)
    {
        auto& box = from->out[parity][lane.index];
        for (const Entry& e : box)
        {
            lane.events->InsertEntry(e);
        }
        box.clear();
        from->outMin[parity][lane.index] = std::numeric_limits<uint64_t>::max();
    }
}

void
FabricSimulatorImpl::KeyedBarrier(uint32_t parity)
{
    auto* global = static_cast<TimingWheelScheduler*>(PeekPointer(m_events));
    std::vector<KeyedDeferred*> work;
    for (auto& lane : m_lanes)
    {
        auto& box = lane->out[parity][kMaxLanes];
        for (const Entry& e : box)
        {
            ++m_unscheduledEvents;
            global->InsertEntry(e);
        }
        box.clear();
        lane->outMin[parity][kMaxLanes] = std::numeric_limits<uint64_t>::max();
        for (KeyedDeferred& d : lane->kdeferred)
        {
            work.push_back(&d);
        }
    }
    if (work.empty())
    {
        return;
    }
    // InOrder work in the order of the events that handed it over: by time,
    // group (RunKeyedWindow), then as the group's lane ran it.
    std::sort(work.begin(), work.end(), [](const KeyedDeferred* a, const KeyedDeferred* b) {
        return a->ts != b->ts ? a->ts < b->ts : a->group != b->group ? a->group < b->group : a->seq < b->seq;
    });
    const uint64_t savedTs = m_currentTs;
    const uint32_t savedContext = m_currentContext;
    m_merging = true;
    m_inOrderWork = true;
    for (KeyedDeferred* d : work)
    {
        m_currentTs = d->ts;
        m_currentContext = d->context;
        d->fn();
    }
    m_inOrderWork = false;
    m_merging = false;
    m_currentTs = savedTs;
    m_currentContext = savedContext;
    for (auto& lane : m_lanes)
    {
        lane->kdeferred.clear();
    }
}

} // namespace ns3
