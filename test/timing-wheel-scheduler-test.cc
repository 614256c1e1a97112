// TimingWheelScheduler: the order of events must be exactly ns-3's
// (timestamp, then uid) whatever the mix of near events (wheel), far events
// (heap), same-time events, removals and wrap-arounds, and whole simulations
// must give identical results with it and with ns-3's own schedulers.
#include "test-runner-util.h"
#include "timing-wheel-scheduler.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{

using Key = std::tuple<uint64_t, uint32_t>; // (ts, uid): ns-3's order

Scheduler::Event
MakeEv(uint64_t ts, uint32_t uid)
{
    Scheduler::Event ev;
    ev.impl = nullptr;
    ev.key.m_ts = ts;
    ev.key.m_uid = uid;
    ev.key.m_context = 0;
    return ev;
}

/**
 * Drives the scheduler the way a simulator does (inserts never before the
 * time of the last removed event, uids increasing) with a random mix, and
 * checks every removal against a std::set reference.
 */
void
CheckAgainstReference(uint32_t slots, uint64_t maxAhead, uint32_t seed)
{
    auto s = CreateObject<TimingWheelScheduler>();
    s->SetAttribute("WheelSlots", UintegerValue(slots));
    std::set<Key> ref;
    std::mt19937_64 rng(seed);
    uint64_t now = 0;
    uint32_t uid = 0;
    uint64_t removals = 0;
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
            s->Insert(MakeEv(now + ahead, uid));
            ref.insert({now + ahead, uid});
            ++uid;
        }
        else if (r < 95)
        {
            REQUIRE_FALSE(s->IsEmpty());
            const Scheduler::Event peek = s->PeekNext();
            const Scheduler::Event ev = s->RemoveNext();
            const Key expected = *ref.begin();
            ref.erase(ref.begin());
            REQUIRE(Key{peek.key.m_ts, peek.key.m_uid} == expected);
            REQUIRE(Key{ev.key.m_ts, ev.key.m_uid} == expected);
            now = ev.key.m_ts;
            ++removals;
        }
        else
        {
            // Simulator::Remove of a random pending event.
            auto it = ref.begin();
            std::advance(it, rng() % std::min<size_t>(ref.size(), 64));
            s->Remove(MakeEv(std::get<0>(*it), std::get<1>(*it)));
            ref.erase(it);
        }
        REQUIRE(s->IsEmpty() == ref.empty());
    }
    while (!ref.empty())
    {
        const Scheduler::Event ev = s->RemoveNext();
        REQUIRE(Key{ev.key.m_ts, ev.key.m_uid} == *ref.begin());
        ref.erase(ref.begin());
    }
    CHECK(s->IsEmpty());
    CHECK(removals > 50000);
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
