/*
 * FabricSimulatorImpl: ns-3's event loop without its per-event overheads.
 *
 * The same contract as ns3::DefaultSimulatorImpl, to the event: events run in
 * (time, uid) order, uids are given out in the same sequence (so a scheduler
 * orders ties exactly as under the default implementation and every result
 * is identical), Stop, destroy events, Remove/Cancel/IsExpired and events
 * scheduled with a context from another thread behave the same. What it
 * leaves out is what ns-3 3.37's DefaultSimulatorImpl does per event and a
 * packet-level fabric pays about once per packet-hop (issue 6): an EventId
 * built for PreEventHook (which the default hook ignores), a log check and a
 * thread-id comparison per Schedule, and a look at the cross-thread queue
 * through a non-inlined call after every event. Together these were ~9 % of
 * the instructions of the MetaRoCE all-to-all benchmark (docs/performance.md).
 *
 * Select it with the global value SimulatorImplementationType
 * ("ns3::FabricSimulatorImpl") before the first Simulator call; the
 * experiment runner and the benchmarks do.
 *
 * Running() and FastNow() let the model's per-packet code skip the static
 * Simulator API (which finds the implementation through an out-of-line
 * call, ~25 instructions, then a virtual one) while this implementation is
 * running the simulation; under any other implementation, or outside Run,
 * they fall back to the Simulator API, with the same result.
 *
 * Lanes (SetLanes): the events of each node context can run on one of
 * several threads ("lanes"), with the same results as on one. A
 * conservative window scheme (every event one lane schedules on another is
 * at least a lookahead ahead, checked) lets the lanes run [T, T + lookahead)
 * at once; at the barrier after each window the lanes' logs of what each
 * event scheduled are merged in (time, uid) order, which gives every event
 * scheduled during the window the uid it would have had on one thread, and
 * the events for later windows are queued with those uids. Events without a
 * lane (no context, or a context not given one) run alone at a barrier, in
 * their place in that order. docs/performance.md, "Lanes", has the proof
 * sketch and what a model must respect.
 */
#ifndef METAROCE_FABRIC_SIMULATOR_IMPL_H
#define METAROCE_FABRIC_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/event-impl.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <memory>
#include <thread>
#include <vector>

namespace ns3
{

class TimingWheelScheduler;

class FabricSimulatorImpl : public SimulatorImpl
{
  public:
    static TypeId GetTypeId();
    FabricSimulatorImpl();
    ~FabricSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /** The implementation inside Simulator::Run now, if it is this class; else null. */
    static FabricSimulatorImpl* Running() { return s_running; }
    /** Simulator::Now of the running implementation. */
    Time NowTime() const { return TimeStep(t_lane ? t_lane->ts : m_currentTs); }
    /**
     * ScheduleWithContext from the simulation's own thread (an event of the
     * running loop): the same event, time, context and uid.
     */
    void ScheduleWithContextHere(uint32_t context, const Time& delay, EventImpl* event)
    {
        const uint64_t step = static_cast<uint64_t>(delay.GetTimeStep());
        if (Lane* lane = t_lane)
        {
            LaneInsert(*lane, lane->ts + step, context, event);
            return;
        }
        Insert(m_currentTs + step, context, event);
    }

    /**
     * Runs the events of node context c on lane \p laneOf[c] (lanes 0 ..
     * \p lanes - 1, one thread each; the caller's thread runs lane 0) from
     * the next Run on. Contexts beyond laneOf, those mapped to kNoLane and
     * Simulator::NO_CONTEXT have no lane: their events run alone, between
     * windows. \p lookahead: the least delay of an event scheduled from one
     * lane to another (a run aborts on a shorter one). Call before the first
     * event is scheduled, with TimingWheelScheduler as the scheduler.
     * \p lanes <= 1 runs everything on the caller's thread, as without.
     */
    void SetLanes(uint32_t lanes, const std::vector<uint32_t>& laneOf, Time lookahead);
    uint32_t GetLanes() const { return m_lanes.empty() ? 1 : m_lanes.size(); }
    /** Whether contexts \p a and \p b run on different lanes. */
    bool CrossLane(uint32_t a, uint32_t b) const
    {
        return !m_laneOf.empty() && LaneOf(a) != LaneOf(b);
    }
    /**
     * Schedules \p event for node \p context (its lane) at the time and
     * with the uid of the event scheduled just before (by this thread, for
     * another lane), to run just before it in the event order and not be
     * counted as an event: the part of one event that acts on a node of the
     * scheduling lane (FabricChannel: the sender's catch-up at an arrival).
     */
    void ScheduleTwinOfLast(uint32_t context, EventImpl* event);
    static constexpr uint32_t kNoLane = 0xffffffffu;

    /**
     * Calls \p fn now, or, from an event running on a lane, at the barrier
     * after the window, in the event's place in (time, uid) order, with the
     * event's time and context (Simulator::Now and GetContext inside \p fn
     * read those). For work that touches state shared by nodes of several
     * lanes (a workload's counters): it runs alone, as on one thread. \p fn
     * may schedule only events at or after the window's end (checked).
     */
    static void InOrder(std::function<void()> fn);

    /**
     * While alive, events scheduled without a context by an event that has
     * none (a global event calling into a node, e.g. a workload's start
     * posting work requests) take \p context, so that they run on that
     * node's lane. Only the context changes: uids and results do not.
     */
    class ContextScope
    {
      public:
        explicit ContextScope(uint32_t context);
        ~ContextScope();
        ContextScope(const ContextScope&) = delete;
        ContextScope& operator=(const ContextScope&) = delete;

      private:
        FabricSimulatorImpl* m_sim = nullptr;
        uint32_t m_saved = 0;
    };

  protected:
    void DoDispose() override;

  private:
    /** An insertion made by an event of a lane during a window. */
    struct Insertion
    {
        Scheduler::Event ev; //!< uid: provisional (window base + index) until the merge
        uint32_t target;     //!< lane, kNoLane (global), kImmediate (already queued), kRemoved
        bool twin = false;   //!< ScheduleTwinOfLast: the previous insertion's uid
    };
    /** An event a lane ran in the window. */
    struct Executed
    {
        uint64_t ts;
        uint32_t uid;      //!< final, or provisional (>= the window's base uid)
        uint32_t insBegin; //!< its first insertion (bit 31: a twin, ScheduleTwinOfLast)
    };
    static constexpr uint32_t kTwinBit = 0x80000000u; //!< in a twin's context and Executed::insBegin
    /** Work deferred by InOrder. */
    struct Deferred
    {
        uint32_t exec;   //!< index of the event that deferred it
        uint32_t insPos; //!< insertions that event had made before
        uint32_t context;
        std::function<void()> fn;
    };
    static constexpr uint32_t kImmediate = 0xfffffffeu;
    static constexpr uint32_t kRemoved = 0xfffffffdu;

    struct Lane
    {
        uint32_t index = 0;
        Ptr<Scheduler> events;
        TimingWheelScheduler* wheel = nullptr;
        uint64_t ts = 0;
        uint32_t uid = 0;
        uint32_t context = 0;
        const EventImpl* current = nullptr;
        uint64_t end = 0;        //!< window: events before (end, endUid) run
        uint32_t endUid = 0;     //!< 0: only events before end
        uint64_t eventCount = 0;
        uint64_t unscheduled = 0;
        std::vector<Executed> exec;
        std::vector<Insertion> ins;
        std::vector<uint32_t> final; //!< final uid of each insertion (merge)
        std::vector<Deferred> deferred;
        std::vector<Scheduler::Event> incoming; //!< queued at the barrier, uid order
        std::vector<Scheduler::Event> late;     //!< scheduled by global events, uid order
        uint64_t nextTs = std::numeric_limits<uint64_t>::max(); //!< earliest of incoming, late
        uint32_t pos = 0;  //!< merge: next executed event
        uint32_t dpos = 0; //!< merge: next deferred work
    };

    /** Inserts \p event at absolute time \p ts with \p context and the next uid. */
    uint32_t Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        if (!m_laneOf.empty())
        {
            RouteInsert(ev);
            return ev.key.m_uid;
        }
        ++m_unscheduledEvents;
        m_events->Insert(ev);
        return ev.key.m_uid;
    }
    /** Insert from an event running on \p lane: queued now or at the barrier. */
    uint32_t LaneInsert(Lane& lane, uint64_t ts, uint32_t context, EventImpl* event)
    {
        const uint32_t index = static_cast<uint32_t>(lane.ins.size());
        Insertion in;
        in.ev.impl = event;
        in.ev.key.m_ts = ts;
        in.ev.key.m_context = context;
        in.ev.key.m_uid = m_windowUid + index;
        in.target = LaneOf(context);
        if (in.target == lane.index && ts < lane.end)
        {
            in.target = kImmediate;
            ++lane.unscheduled;
            lane.events->Insert(in.ev);
        }
        else if (ts < lane.end)
        {
            ShortLookahead(lane, in);
        }
        lane.ins.push_back(in);
        return in.ev.key.m_uid;
    }
    uint32_t LaneOf(uint32_t context) const
    {
        if (context != Simulator::NO_CONTEXT)
        {
            context &= ~kTwinBit;
        }
        return context < m_laneOf.size() ? m_laneOf[context] : kNoLane;
    }
    /** Outside the lanes (set-up, global events, merge): queue with a final uid. */
    void RouteInsert(const Scheduler::Event& ev);
    [[noreturn]] void ShortLookahead(const Lane& lane, const Insertion& in) const;
    /** Moves the events other threads scheduled into the queue (as the default does). */
    void TakeForeignEvents();

    void RunLanes();
    /** Runs lane \p lane's window (its thread). */
    void RunWindow(Lane& lane);
    /** Merges the lanes' logs: final uids, deferred work in order. */
    void Merge();
    /** Queues a lane's incoming events for the next window. */
    void TakeIncoming(Lane& lane);
    void RunGlobal(const Scheduler::Event& next);
    Lane* LaneOfEvent(const EventId& id) const;
    void RemoveFromLanes(const EventId& id);
    /** Runs lane \p lane's InOrder work due before its insertion \p k of event \p exec. */
    void RunDeferred(Lane& lane, uint32_t exec, uint32_t k, uint64_t ts, uint32_t uid);

    struct ForeignEvent
    {
        uint32_t context;
        uint64_t delay; //!< time steps from the moment it is taken in
        EventImpl* event;
    };

    Ptr<Scheduler> m_events; //!< with lanes: the events without a lane
    uint64_t m_currentTs = 0;
    uint32_t m_currentUid;
    uint32_t m_currentContext;
    uint32_t m_uid;
    bool m_stop = false;
    uint64_t m_unscheduledEvents = 0;
    uint64_t m_eventCount = 0;
    std::deque<EventId> m_destroyEvents;
    ObjectFactory m_schedulerFactory;
    const EventImpl* m_current = nullptr; //!< the global event running (lanes)

    // Lanes
    std::vector<std::unique_ptr<Lane>> m_lanes;
    std::vector<uint32_t> m_laneOf;
    uint64_t m_lookahead = 0;
    uint32_t m_windowUid = 0; //!< first uid of the current window
    uint64_t m_windowEnd = 0;
    bool m_merging = false;
    std::vector<Insertion> m_mergeIns; //!< scheduled by deferred work during the merge
    Scheduler::Event m_lastRouted{};   //!< RouteInsert's last event (ScheduleTwinOfLast)

    static FabricSimulatorImpl* s_running; //!< set by Run while it runs
    // initial-exec: one load per access from the model's per-packet code
    static thread_local Lane* t_lane __attribute__((tls_model("initial-exec"))); //!< this thread's lane now

    std::thread::id m_mainThreadId;
    std::atomic<bool> m_hasForeign{false};
    std::mutex m_foreignMutex;
    std::vector<ForeignEvent> m_foreign;
};

/** Simulator::Now(), without the static API's dispatch when FabricSimulatorImpl runs. */
inline Time
FastNow()
{
    const FabricSimulatorImpl* sim = FabricSimulatorImpl::Running();
    return sim ? sim->NowTime() : Simulator::Now();
}

} // namespace ns3

#endif
