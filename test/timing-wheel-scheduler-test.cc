// TimingWheelScheduler: the order of events must be exactly ns-3's
// (timestamp, then uid) whatever the mix of near events (wheel), far events
// (heap), same-time events, removals and wrap-arounds, and whole simulations
// must give identical results with it and with ns-3's own schedulers. Keyed
// (FabricSimulatorImpl's EventOrder Keyed): ties by a key given in any order.
#include "test-runner-util.h"
#include "timing-wheel-scheduler.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>

#include <limits>
#include <map>
#include <random>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{

using Key = std::tuple<uint64_t, uint64_t>; // (ts, uid or key)

/** A distinct (never dereferenced, only prefetched) event object per event. */
EventImpl*
ImplOf(uint64_t id)
{
    // Remove and Contains find an event by its object.
    return reinterpret_cast<EventImpl*>(uintptr_t(id + 1) * 64);
}

Scheduler::Event
MakeEv(uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    ev.impl = ImplOf(uid);
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = 0;
    return ev;
}

/**
 * Drives the scheduler the way a simulator does (inserts never before the
 * time of the last removed event; uids increasing, or, \p keyed, random keys)
 * with a random mix, and checks every removal against a std::set reference.
 */
void
CheckAgainstReference(uint32_t slots, uint64_t maxAhead, uint32_t seed, bool keyed = false)
{
    auto s = CreateObject<TimingWheelScheduler>();
    s->SetAttribute("WheelSlots", UintegerValue(slots));
    if (keyed)
    {
        s->SetKeyed();
    }
    std::set<Key> ref;
    std::map<Key, uint64_t> idOf; // keyed: the event object of each key
    std::mt19937_64 rng(seed);
    uint64_t now = 0;
    uint32_t uid = 0;
    uint64_t removals = 0;
    uint64_t bounded = 0;
    auto popped = [&](uint64_t ts, uint64_t order) {
        const Key expected = *ref.begin();
        REQUIRE(Key{ts, order} == expected);
        ref.erase(ref.begin());
        now = ts;
        ++removals;
    };
    for (int step = 0; step < 200000; ++step)
    {
        const uint32_t r = rng() % 100;
        if (r < 55 || ref.empty())
        {
            // Same-time events, near ones inside the window, far ones beyond it.
            uint64_t ahead = 0;
            const uint32_t kind = rng() % 10;
            if (kind == 0)
            {
                ahead = 0;
            }
            else if (kind < 8)
            {
                ahead = rng() % (slots + 1);
            }
            else
            {
                ahead = rng() % maxAhead;
            }
            if (keyed)
            {
                // Unique, in no particular order, few distinct times: many ties.
                const uint64_t key = ((rng() % 1000) << 32) + uid + 1;
                const uint64_t ts = now + ahead % 8;
                s->InsertEntry(TimingWheelScheduler::Entry{ImplOf(uid), ts, key, 0});
                ref.insert({ts, key});
                idOf[{ts, key}] = uid;
            }
            else
            {
                s->Insert(MakeEv(now + ahead, uid));
                ref.insert({now + ahead, uid});
            }
            ++uid;
        }
        else if (r < 95)
        {
            REQUIRE_FALSE(s->IsEmpty());
            if (keyed)
            {
                const TimingWheelScheduler::Entry peek = s->PeekEntry();
                REQUIRE(Key{peek.ts, peek.order} == *ref.begin());
                // A bound at a random queued key: only what is before it comes out.
                auto at = ref.begin();
                std::advance(at, rng() % std::min<size_t>(ref.size(), 4));
                TimingWheelScheduler::Entry e;
                const bool before = at != ref.begin();
                REQUIRE(s->PopBefore(std::get<0>(*at), std::get<1>(*at), e) == before);
                if (before)
                {
                    popped(e.ts, e.order);
                    ++bounded;
                }
                else
                {
                    REQUIRE(s->PopBefore(std::numeric_limits<uint64_t>::max(), 0, e));
                    popped(e.ts, e.order);
                }
                continue;
            }
            const Scheduler::Event peek = s->PeekNext();
            const Scheduler::Event ev = s->RemoveNext();
            REQUIRE(Key{peek.key.m_ts, peek.key.m_uid} == *ref.begin());
            popped(ev.key.m_ts, ev.key.m_uid);
        }
        else
        {
            // Simulator::Remove of a random pending event.
            auto it = ref.begin();
            std::advance(it, rng() % std::min<size_t>(ref.size(), 64));
            const uint64_t id = keyed ? idOf[*it] : std::get<1>(*it);
            Scheduler::Event gone = MakeEv(std::get<0>(*it), static_cast<uint32_t>(id));
            REQUIRE(s->Contains(gone.key.m_ts, gone.impl));
            s->Remove(gone);
            REQUIRE_FALSE(s->Contains(gone.key.m_ts, gone.impl));
            ref.erase(it);
        }
        REQUIRE(s->IsEmpty() == ref.empty());
    }
    while (!ref.empty())
    {
        if (keyed)
        {
            TimingWheelScheduler::Entry e;
            REQUIRE(s->PopBefore(std::numeric_limits<uint64_t>::max(), 0, e));
            popped(e.ts, e.order);
            continue;
        }
        const Scheduler::Event ev = s->RemoveNext();
        popped(ev.key.m_ts, ev.key.m_uid);
    }
    CHECK(s->IsEmpty());
    CHECK(removals > 50000);
    if (keyed)
    {
        CHECK(bounded > 10000);
    }
}

} // namespace

TEST_CASE("timing wheel: removal order is ns-3's (timestamp, uid) for any mix of events",
          "[scheduler]")
{
    // 64 slots: constant wrap-around and many events in the heap; 16384
    // (the default): nearly everything in the wheel. Far events up to 100x
    // the window exercise the heap/wheel merge at equal timestamps.
    CheckAgainstReference(64, 6400, 1);
    CheckAgainstReference(1024, 4096, 2);
    CheckAgainstReference(1u << 14, 1u << 20, 3);
}

TEST_CASE("timing wheel: keyed, removal order is (timestamp, key) whatever the insertion order",
          "[scheduler]")
{
    // Keys arrive in random order with ~8 distinct times in play, so buckets
    // hold many ties to sort, including events joining the bucket being
    // consumed; a bound (PopBefore) at a queued key releases only the events
    // before it.
    CheckAgainstReference(64, 6400, 4, true);
    CheckAgainstReference(1u << 14, 1u << 20, 5, true);
}

TEST_CASE("timing wheel: a MetaRoCE experiment gives identical results with ns-3's schedulers",
          "[scheduler]")
{
    // Same seed, same model: only the data structure holding events differs,
    // so every figure (other than wall-clock ones) must be equal.
    auto run = [](const std::string& scheduler) { return test::RunWith("scheduler", scheduler); };
    const nlohmann::json wheel = run("ns3::TimingWheelScheduler");
    CHECK(wheel["summary"]["completed_messages"].get<uint64_t>() > 0);
    CHECK(wheel["summary"]["retransmitted_packets"].get<uint64_t>() > 0);
    CHECK(wheel == run("ns3::PriorityQueueScheduler"));
    CHECK(wheel == run("ns3::MapScheduler"));
}
