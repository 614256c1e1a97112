/*
 * metaroce-fabric-bench: how fast the fabric model forwards packets.
 *
 * Saturates the 64-host 8-plane Clos (topologies/clos-64h-8p.json) with test
 * traffic, no transport: every host sends a random permutation at line rate on
 * all 8 planes, each flow sprayed over 8 UDP source ports, 4 KiB payloads.
 * Prints one JSON line:
 *   {"scenario", "sim_seconds", "wall_seconds", "events", "packet_hops",
 *    "packet_hops_per_s", "events_per_s", "events_per_hop", "peak_rss_mb"}
 * A figure of merit, never a pass/fail test: the machine is noisy, compare
 * ratios within one run (docs/performance.md).
 */
#include "fabric-builder.h"
#include "fabric-traffic-helper.h"
#include "run-metrics.h"

#include "ns3/core-module.h"

#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string topology = std::string(METAROCE_SOURCE_DIR) + "/topologies/clos-64h-8p.json";
    Time duration = MicroSeconds(200);
    double load = 1.0;
    uint32_t spray = 8;
    uint32_t payload = 4096;
    std::string scheduler = "ns3::TimingWheelScheduler";

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "Fabric JSON file", topology);
    cmd.AddValue("duration", "Simulated time", duration);
    cmd.AddValue("load", "Offered load per host port, fraction of line rate", load);
    cmd.AddValue("spray", "UDP source ports per flow", spray);
    cmd.AddValue("payload", "UDP payload bytes per packet", payload);
    cmd.AddValue("scheduler", "ns-3 scheduler TypeId", scheduler);
    cmd.Parse(argc, argv);

    ObjectFactory sched;
    sched.SetTypeId(scheduler);
    Simulator::SetScheduler(sched);

    FabricSpec spec = LoadFabricSpec(topology);
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    fabric->AssignStreams(1);

    FabricTrafficHelper traffic(fabric);
    traffic.SetSourceAttribute("SourcePortCount", UintegerValue(spray));
    traffic.SetSourceAttribute("PacketSize", UintegerValue(payload));
    traffic.InstallSinks(Time(0), duration);
    traffic.InstallPattern(FabricTrafficHelper::RandomDerangement(spec.Hosts(), 1),
                           load,
                           Time(0),
                           duration);

    RunMetrics metrics;
    Simulator::Stop(duration);
    Simulator::Run();
    const double wall = metrics.WallSeconds();
    const uint64_t hops = fabric->GetPacketHops();
    const uint64_t events = metrics.Events();

    nlohmann::json j;
    j["scenario"] = "fabric-saturated-" + spec.name;
    j["scheduler"] = scheduler;
    j["sim_seconds"] = duration.GetSeconds();
    j["wall_seconds"] = wall;
    j["events"] = events;
    j["packet_hops"] = hops;
    j["packet_hops_per_s"] = double(hops) / wall;
    j["events_per_s"] = double(events) / wall;
    j["events_per_hop"] = hops ? double(events) / double(hops) : 0.0;
    j["peak_rss_mb"] = RunMetrics::PeakRssMb();
    j["hosts"] = spec.Hosts();
    j["planes"] = spec.planes;
    std::cout << j.dump() << std::endl;
    Simulator::Destroy();
    return 0;
}
