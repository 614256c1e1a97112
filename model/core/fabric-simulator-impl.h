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
 *
 * Keyed order (attribute EventOrder = Keyed, a model choice, off by
 * default): events of one time run in the order of a 64-bit key made of
 * who scheduled them and how many that one had scheduled before (a node's
 * events count for the node; a frame arrival is its port's n-th frame,
 * FabricChannel), not in ns-3's global insertion order. No key depends on
 * when or on which thread it was made, so the lanes need not reproduce the
 * insertion order: a port on a link between lanes catches up its departures
 * at each barrier (SetLaneFlush) and a window can be as long as that link's
 * delay. Results are identical on any number of lanes, and differ from
 * EventOrder = Insertion only in how ties are broken (docs/performance.md,
 * "Keyed order").
 */
#ifndef METAROCE_FABRIC_SIMULATOR_IMPL_H
#define METAROCE_FABRIC_SIMULATOR_IMPL_H

#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
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
    /** How events of one time are ordered (see above). */
    enum EventOrder
    {
        INSERTION, //!< ns-3's: by uid, the global insertion count
        KEYED      //!< by who scheduled them (lane-independent)
    };

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
    /**
     * Sets the order of events of one time. Keyed needs TimingWheelScheduler;
     * events already queued keep their order (their uid is their key). Before
     * SetLanes and outside Run.
     */
    void SetEventOrder(EventOrder order);
    EventOrder GetEventOrder() const { return m_keyed ? KEYED : INSERTION; }
    bool Keyed() const { return m_keyed; }
    /** First key source of frame arrivals: source kPortSource + port, see PortKey. */
    static constexpr uint32_t kPortSource = 1u << 23;
    /** The key of the \p seq-th frame port \p port (< 2^23) sent. */
    static uint64_t PortKey(uint32_t port, uint64_t seq)
    {
        return (uint64_t(kPortSource + port) << kKeyBits) | seq;
    }
    /**
     * Keyed order: schedules \p event for \p context at absolute time step
     * \p ts with key \p order, from the running loop.
     */
    void ScheduleKeyedHere(uint32_t context, uint64_t ts, EventImpl* event, uint64_t order)
    {
        if (Lane* lane = t_lane)
        {
            LaneInsertKeyed(*lane, ts, context, event, order);
            return;
        }
        InsertKeyed(ts, context, event, order);
    }
    /**
     * Keyed order with lanes: after each window lane i calls flush[i](end),
     * every event before time step end having run; it brings the lane's
     * ports on links to other lanes up to date (their departures before
     * end) and returns the earliest time step at which one of them may
     * start a frame it has not sent yet (at or after end; the largest
     * uint64_t if none).
     * The lookahead must not exceed those links' delay.
     */
    void SetLaneFlush(std::vector<std::function<uint64_t(uint64_t)>> flush);

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
    static constexpr uint32_t kKeyBits = 40; //!< a key: source << 40 | count
    using Entry = TimingWheelScheduler::Entry;
    /** InOrder work of a keyed lane, run at the barrier in (ts, group, seq) order. */
    struct KeyedDeferred
    {
        uint64_t ts;
        uint64_t group; //!< its event's group (RunKeyedWindow)
        uint32_t seq;   //!< its place in its lane's list
        uint32_t context;
        std::function<void()> fn;
    };
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
        uint64_t end = 0;      //!< window: events before (end, endOrder) run
        uint64_t endOrder = 0; //!< key (uid) of the global event ending it; 0: events before end
        uint64_t eventCount = 0;
        WindowLog log[2];
        WindowLog* now = &log[0];     //!< this window's
        std::vector<Insertion> late;  //!< from outside the lanes (final uids), uid order
        uint64_t lateTs = std::numeric_limits<uint64_t>::max(); //!< earliest in late
        uint32_t pos = 0;    //!< merge: next executed event
        uint32_t dpos = 0;   //!< merge: next deferred work
        uint32_t cursor = 0; //!< merge: first insertion of the next executed event
        // Keyed order
        uint64_t group = 0;    //!< the running event's group: the largest key run at its time
        uint64_t groupTs = std::numeric_limits<uint64_t>::max(); //!< that time
        uint64_t pending = 0;  //!< the flush's earliest unsent start
        /** By window parity, per target lane (index kMaxLanes: no lane). */
        std::vector<Entry> out[2][kMaxLanes + 1];
        uint64_t outMin[2][kMaxLanes + 1];
        std::vector<KeyedDeferred> kdeferred;
    };

    /** The key source of events scheduled now by the main thread (counters sized for it). */
    uint32_t MainSource();
    /** The next key of source \p source. */
    uint64_t NextKey(uint32_t source)
    {
        return (uint64_t(source) << kKeyBits) | ++m_counters[size_t(source) * m_counterStride];
    }
    /** EventId's uid for key \p order (never one of ns-3's reserved uids). */
    static uint32_t KeyUid(uint64_t order) { return uint32_t(order) | 0x80000000u; }
    /** Keyed: inserts from the main thread (set-up, global events, barriers). */
    uint32_t InsertKeyed(uint64_t ts, uint32_t context, EventImpl* event, uint64_t order);
    /** Keyed: inserts from an event of \p lane (its wheel now, or another lane's at the barrier). */
    uint32_t LaneInsertKeyed(Lane& lane, uint64_t ts, uint32_t context, EventImpl* event, uint64_t order);
    void RunKeyed();
    /** The earliest time a lane has an event, or (keyed) a port between lanes may send. */
    uint64_t LanesNextTime(bool queued) const;
    void RunKeyedWindow(Lane& lane);
    /** Queues at \p lane what the other lanes' last window scheduled for it. */
    void TakeKeyedIncoming(Lane& lane, uint32_t parity);
    /** At a barrier: the window's events for no lane, then its InOrder work in order. */
    void KeyedBarrier(uint32_t parity);

    /** Inserts \p event at absolute time \p ts with \p context and the next uid. */
    uint32_t Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        if (m_keyed)
        {
            return InsertKeyed(ts, context, event, NextKey(MainSource()));
        }
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
        if (m_keyed)
        {
            NS_ABORT_MSG_IF(lane.context == Simulator::NO_CONTEXT,
                            "FabricSimulatorImpl: a lane's flush may only send frames");
            return LaneInsertKeyed(lane, ts, context, event, NextKey(lane.context + 2));
        }
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
    /** Aborts if InOrder work at a barrier schedules at \p ts, before the window's end. */
    void CheckAfterWindow(uint64_t ts) const;
    /** Moves the events other threads scheduled into the queue (as the default does). */
    void TakeForeignEvents();

    void RunLanes();
    /** Runs lane \p lane's window (its thread). */
    void RunWindow(Lane& lane);
    /** Walks the lanes' logs in event order: final uids, deferred work in order. */
    void Merge();
    /** Queues at \p lane what the merged window and the global events scheduled for it. */
    void TakeIncoming(Lane& lane);
    /** Queues at \p lane what was scheduled for it from outside the lanes. */
    void QueueLate(Lane& lane);
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
    // Keyed order
    bool m_keyed = false;
    std::vector<uint64_t> m_counters; //!< per key source (0: no context, 1: InOrder, 2 + node)
    size_t m_counterStride = 1;       //!< 8 with lanes: one cache line per source
    bool m_inOrderWork = false;       //!< InOrder work runs: its events take source 1
    std::vector<std::function<uint64_t(uint64_t)>> m_flush;

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
