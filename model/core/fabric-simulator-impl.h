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

#include "timing-wheel-scheduler.h"

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
    static constexpr uint32_t kMaxLanes = 8;
    /** Windows the lanes have run (each ends at a barrier). */
    uint64_t GetLaneWindows() const { return m_windows; }

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
        EventImpl* impl;
        uint64_t ts;
        uint32_t context; //!< kTwinBit set: a twin (ScheduleTwinOfLast)
        uint32_t target;  //!< lane, kNoLane (global), kImmediate (already queued), kRemoved
        uint32_t parent;  //!< the inserting event's index in the window's log
        uint32_t offset;  //!< its uid is the parent's first uid + offset (a twin: its event's)
    };
    /** An event a lane ran in the window. */
    struct Executed
    {
        uint64_t ts;
        uint32_t uid;     //!< final, or provisional (>= the window's base uid)
        uint32_t counted; //!< its insertions that take a uid (twins do not)
        uint32_t all;     //!< all its insertions
        uint32_t twin;    //!< 1: a twin, ordered just before its event
    };
    static constexpr uint32_t kTwinBit = 0x80000000u; //!< in a twin's context
    static constexpr uint32_t kExplicit = 0xffffffffu; //!< base: uids in WindowLog::final
    /** Work deferred by InOrder. */
    struct Deferred
    {
        uint32_t exec;   //!< index of the event that deferred it
        uint32_t insPos; //!< the lane's insertions before it
        uint32_t context;
        std::function<void()> fn;
    };
    static constexpr uint32_t kImmediate = 0xfffffffeu;
    static constexpr uint32_t kRemoved = 0xfffffffdu;

    /** What one lane did in one window; two per lane, by window parity. */
    struct WindowLog
    {
        std::vector<Executed> exec;
        std::vector<Insertion> ins;
        std::vector<uint32_t> base;  //!< per executed event: its first uid (merge), or kExplicit
        std::vector<uint32_t> final; //!< per insertion, where base is kExplicit
        std::vector<Deferred> deferred;
        std::vector<uint32_t> global; //!< insertions for no lane
        std::vector<uint64_t> minTo;  //!< per target lane: earliest insertion
        void Clear(uint32_t lanes);
    };

    struct Lane
    {
        uint32_t index = 0;
        Ptr<TimingWheelScheduler> events;
        uint64_t ts = 0;
        uint32_t uid = 0;
        uint32_t context = 0;
        const EventImpl* current = nullptr;
        uint64_t end = 0;    //!< window: events before (end, endUid) run
        uint32_t endUid = 0; //!< 0: only events before end
        uint64_t eventCount = 0;
        WindowLog log[2];
        WindowLog* now = &log[0];     //!< this window's
        std::vector<Insertion> late;  //!< from outside the lanes (final uids), uid order
        uint64_t lateTs = std::numeric_limits<uint64_t>::max(); //!< earliest in late
        uint32_t pos = 0;    //!< merge: next executed event
        uint32_t dpos = 0;   //!< merge: next deferred work
        uint32_t cursor = 0; //!< merge: first insertion of the next executed event
    };

    /** Inserts \p event at absolute time \p ts with \p context and the next uid. */
    uint32_t Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        if (!m_laneOf.empty())
        {
            const uint32_t uid = m_uid++;
            RouteInsert(Insertion{event, ts, context, LaneOf(context), uid, 0});
            return uid;
        }
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        m_events->Insert(ev);
        return ev.key.m_uid;
    }
    /** Insert from an event running on \p lane: queued now or at the barrier. */
    uint32_t LaneInsert(Lane& lane, uint64_t ts, uint32_t context, EventImpl* event)
    {
        WindowLog& log = *lane.now;
        const uint32_t k = static_cast<uint32_t>(log.ins.size());
        const uint32_t uid = m_windowUid + k; // provisional
        Executed& parent = log.exec.back();
        Insertion in{event,
                     ts,
                     context,
                     LaneOf(context),
                     static_cast<uint32_t>(log.exec.size() - 1),
                     parent.counted++};
        ++parent.all;
        if (ts < lane.end)
        {
            if (in.target != lane.index)
            {
                ShortLookahead(lane, in);
            }
            in.target = kImmediate;
            Scheduler::Event ev;
            ev.impl = event;
            ev.key.m_ts = ts;
            ev.key.m_context = context;
            ev.key.m_uid = uid;
            lane.events->Insert(ev);
        }
        else if (in.target != kNoLane)
        {
            log.minTo[in.target] = std::min(log.minTo[in.target], ts);
        }
        else
        {
            log.global.push_back(k);
        }
        log.ins.push_back(in);
        return uid;
    }
    /** Whether \p context is a twin's (ScheduleTwinOfLast): a node's with kTwinBit. */
    static bool IsTwin(uint32_t context)
    {
        return (context & kTwinBit) != 0 && context != Simulator::NO_CONTEXT;
    }
    uint32_t LaneOf(uint32_t context) const
    {
        if (IsTwin(context))
        {
            context &= ~kTwinBit;
        }
        return context < m_laneOf.size() ? m_laneOf[context] : kNoLane;
    }
    /** Final uid of insertion \p k of \p log (merged). */
    static uint32_t FinalOf(const WindowLog& log, uint32_t k)
    {
        const Insertion& in = log.ins[k];
        const uint32_t base = log.base[in.parent];
        return base != kExplicit ? base + in.offset : log.final[k];
    }
    /**
     * Outside the lanes (set-up, global events, merge): queues \p in (its
     * final uid in parent) at its target.
     */
    void RouteInsert(const Insertion& in);
    [[noreturn]] void ShortLookahead(const Lane& lane, const Insertion& in) const;
    /** Moves the events other threads scheduled into the queue (as the default does). */
    void TakeForeignEvents();

    void RunLanes();
    /** Runs lane \p lane's window (its thread). */
    void RunWindow(Lane& lane);
    /** Walks the lanes' logs in event order: final uids, deferred work in order. */
    void Merge();
    /** Queues at \p lane what the merged window and the global events scheduled for it. */
    void TakeIncoming(Lane& lane);
    void RunGlobal(const Scheduler::Event& next);
    Lane* LaneOfEvent(const EventId& id) const;
    void RemoveFromLanes(const EventId& id);
    /** Runs \p log's InOrder work due before the lane's insertion \p k. */
    void RunDeferred(WindowLog& log, Lane& lane, uint32_t exec, uint32_t k, uint64_t ts, uint32_t uid);

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
    uint32_t m_parity = 0;  //!< the current window's log
    uint64_t m_windows = 0;
    bool m_merging = false;
    std::vector<std::vector<Insertion>> m_mergeIns; //!< per lane: scheduled by InOrder work
    Insertion m_lastRouted{}; //!< RouteInsert's last (ScheduleTwinOfLast)

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
