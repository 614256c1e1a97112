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
#include <mutex>
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

  protected:
    void DoDispose() override;

  private:
    /** Inserts \p event at absolute time \p ts with \p context and the next uid. */
    void Insert(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        m_events->Insert(ev);
    }
    /** Moves the events other threads scheduled into the queue (as the default does). */
    void TakeForeignEvents();

    struct ForeignEvent
    {
        uint32_t context;
        uint64_t delay; //!< time steps from the moment it is taken in
        EventImpl* event;
    };

    Ptr<Scheduler> m_events;
    uint64_t m_currentTs = 0;
    uint32_t m_currentUid;
    uint32_t m_currentContext;
    uint32_t m_uid;
    bool m_stop = false;
    uint64_t m_unscheduledEvents = 0;
    uint64_t m_eventCount = 0;
    std::deque<EventId> m_destroyEvents;

    std::thread::id m_mainThreadId;
    std::atomic<bool> m_hasForeign{false};
    std::mutex m_foreignMutex;
    std::vector<ForeignEvent> m_foreign;
};

} // namespace ns3

#endif
