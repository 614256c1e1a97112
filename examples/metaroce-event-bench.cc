/*
 * metaroce-event-bench: the cost of a bare ns-3 event on this machine, the
 * yardstick for the packet-hop figures of metaroce-fabric-bench and
 * analysis/bench.py (docs/performance.md).
 *
 * Keeps --pending events in flight, like a fabric with that many frames on
 * the wire: each event, when it runs, schedules one more at a pseudo-random
 * delay of 0.3 to 2.3 us (a serialisation plus a propagation delay), until
 * --events have run. Nothing else happens, so events_per_s is the
 * simulator's own ceiling (scheduler + event allocation + dispatch).
 * Prints one JSON line: {"scheduler", "events", "pending", "wall_seconds",
 * "events_per_s"}. A figure of merit on a noisy machine: compare ratios
 * within one run.
 */
#include "run-metrics.h"

#include "ns3/core-module.h"

#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

uint64_t g_left = 0;
uint64_t g_state = 88172645463325252ULL;

void
Tick()
{
    if (g_left == 0)
    {
        return;
    }
    --g_left;
    // xorshift64: cheap and deterministic, so every scheduler sees the same events.
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    Simulator::Schedule(NanoSeconds(300 + g_state % 2000), &Tick);
}

} // namespace

int
main(int argc, char* argv[])
{
    uint64_t events = 4'000'000;
    uint32_t pending = 10'000;
    std::string scheduler = "ns3::TimingWheelScheduler";
    std::string simulator = "ns3::DefaultSimulatorImpl"; // the yardstick: ns-3's own loop
    CommandLine cmd(__FILE__);
    cmd.AddValue("events", "Events to run", events);
    cmd.AddValue("pending", "Events kept in flight", pending);
    cmd.AddValue("scheduler", "ns-3 scheduler TypeId", scheduler);
    cmd.AddValue("simulator", "ns-3 simulator implementation TypeId", simulator);
    cmd.Parse(argc, argv);
    GlobalValue::Bind("SimulatorImplementationType", StringValue(simulator));

    ObjectFactory sched;
    sched.SetTypeId(scheduler);
    Simulator::SetScheduler(sched);
    g_left = events;
    for (uint32_t i = 0; i < pending; ++i)
    {
        Simulator::Schedule(NanoSeconds(i % 2000), &Tick);
    }
    RunMetrics metrics;
    Simulator::Run();
    const double wall = metrics.WallSeconds();
    nlohmann::json j;
    j["scheduler"] = scheduler;
    j["simulator"] = simulator;
    j["events"] = metrics.Events();
    j["pending"] = pending;
    j["wall_seconds"] = wall;
    j["events_per_s"] = double(metrics.Events()) / wall;
    std::cout << j.dump() << std::endl;
    Simulator::Destroy();
    return 0;
}
