/*
 * fabric-demo: test traffic across a multi-plane Clos fabric, no transport.
 *
 * Topology: any fabric JSON (default topologies/clos-64h-4p.json: 64 hosts,
 * 4 planes, per plane 8 leaves x 8 hosts and 8 spines, 100 Gb/s links):
 *
 *      s0 ... s7        s0 ... s7            (one spine row per plane)
 *      |  \  / |   ...  |  \  / |
 *      l0 ... l7        l0 ... l7            (one leaf row per plane)
 *       \\\\  plane 0  ////  plane 3 ...
 *      h0 h1 ...                   h63       (every host has a port on every plane)
 *
 * Traffic: a random permutation (each host sends to one other host, none
 * receives twice), on every plane at --load times the host link rate, each
 * (host, plane) flow sprayed over --spray UDP source ports (ECMP entropy).
 *
 * Knobs: --topology --load --spray --duration --seed --loss (random loss on
 * every switch and NIC receive port) --fail-link=NAME --fail-at=TIME
 * --pcap (captures host 0's ports) --out=DIR.
 *
 * Output: a per-plane table of utilisation per tier direction (line bytes
 * sent over line capacity), drops by reason and ECN marks; with --out,
 * DIR/fabric-demo.json (tools/main.sh plots it to DIR/utilisation.png).
 *
 * What to expect with the defaults (load 0.9, spray 8, seed 1, no loss;
 * measured, see docs/fabric-model.md): host_to_leaf exactly 0.900 (the
 * sources' rate); leaf_to_spine ~0.76-0.78, i.e. 0.9 x 56/63 = 0.80 (the share
 * of a random derangement that leaves its leaf) minus what still sits in
 * queues; spine_to_leaf and leaf_to_host a little lower again, because
 * per-flow ECMP hashing collides (8 hashed sub-flows per host and plane are
 * not a perfect spread), so some spine-to-leaf ports are offered more than
 * 100 Gb/s and build queues: ~90,000 ECN marks and no drops in 500 us. This
 * imbalance is what path-aware transports (MetaRoCE) exist to avoid.
 */
#include "fabric-builder.h"
#include "fabric-spec.h"
#include "fabric-stats.h"
#include "fabric-traffic-helper.h"
#include "run-metrics.h"

#include "ns3/core-module.h"
#include "ns3/error-model.h"

#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string topology = "topologies/clos-64h-4p.json";
    std::string outDir;
    double load = 0.9;
    uint32_t spray = 8;
    Time duration = MicroSeconds(500);
    uint32_t seed = 1;
    double loss = 0.0;
    std::string failLink;
    Time failAt = MicroSeconds(250);
    bool pcap = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "Fabric JSON file", topology);
    cmd.AddValue("load", "Offered load per host port, fraction of line rate", load);
    cmd.AddValue("spray", "UDP source ports per (host, plane) flow", spray);
    cmd.AddValue("duration", "Simulated time", duration);
    cmd.AddValue("seed", "RNG seed (traffic matrix, ECN marking, loss)", seed);
    cmd.AddValue("loss", "Random loss probability on every receive port", loss);
    cmd.AddValue("fail-link", "Name of a link to take down (e.g. p0/l0-s0#0)", failLink);
    cmd.AddValue("fail-at", "When --fail-link goes down", failAt);
    cmd.AddValue("pcap", "Write pcap captures of host 0's ports into --out", pcap);
    cmd.AddValue("out", "Directory for fabric-demo.json (and pcaps)", outDir);
    cmd.Parse(argc, argv);

    FabricSpec spec;
    try
    {
        spec = LoadFabricSpec(topology);
    }
    catch (const std::exception& e)
    {
        std::cerr << "fabric-demo: " << e.what() << "\n";
        return 1;
    }
    if (load <= 0 || load > 1 || spray == 0 || loss < 0 || loss > 1 || spec.Hosts() < 2)
    {
        std::cerr << "fabric-demo: need 0 < load <= 1, spray >= 1, 0 <= loss <= 1, >= 2 hosts\n";
        return 1;
    }
    RngSeedManager::SetSeed(seed);

    FabricBuilder builder(spec);
    builder.SetHashSeed(seed);
    Ptr<Fabric> fabric = builder.Build();
    fabric->AssignStreams(1000);
    if (loss > 0)
    {
        int64_t stream = 1000000;
        for (const auto& port : fabric->GetAllPorts())
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(loss);
            em->AssignStreams(stream++);
            port->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
    if (!failLink.empty())
    {
        int32_t link = fabric->FindLink(failLink);
        if (link < 0)
        {
            std::cerr << "fabric-demo: --fail-link: no link named '" << failLink << "'\n";
            return 1;
        }
        fabric->ScheduleLinkUp(failAt, link, false);
    }
    if (pcap && !outDir.empty())
    {
        for (uint32_t p = 0; p < spec.planes; ++p)
        {
            builder.EnablePcap(outDir + "/fabric-demo", fabric->GetNic(0)->GetPort(p));
        }
    }

    FabricTrafficHelper traffic(fabric);
    traffic.SetSourceAttribute("SourcePortCount", UintegerValue(spray));
    ApplicationContainer sinks = traffic.InstallSinks(Time(0), duration);
    traffic.InstallPattern(FabricTrafficHelper::RandomDerangement(spec.Hosts(), seed),
                           load,
                           Time(0),
                           duration);

    RunMetrics metrics;
    Simulator::Stop(duration);
    Simulator::Run();

    FabricStats stats = CollectFabricStats(*fabric, duration);
    uint64_t delivered = 0;
    uint64_t sinkPackets = 0;
    for (uint32_t i = 0; i < sinks.GetN(); ++i)
    {
        Ptr<FabricTrafficSink> s = DynamicCast<FabricTrafficSink>(sinks.Get(i));
        delivered += s->GetReceivedBytes();
        sinkPackets += s->GetReceivedPackets();
    }
    const double goodputGbps = double(delivered) * 8 / duration.GetSeconds() / 1e9;

    std::cout << "fabric-demo: " << spec.name << " (" << spec.description << ")\n"
              << "  " << spec.Hosts() << " hosts, " << spec.planes << " planes, load " << load
              << ", spray " << spray << ", loss " << loss << ", " << duration.As(Time::US)
              << " simulated\n\n";
    std::cout << std::left << std::setw(7) << "plane";
    for (std::size_t t = 0; t < std::size_t(TierDirection::Count); ++t)
    {
        std::cout << std::setw(15) << TierDirectionName(static_cast<TierDirection>(t));
    }
    std::cout << "\n" << std::fixed << std::setprecision(3);
    for (uint32_t p = 0; p < spec.planes; ++p)
    {
        std::cout << std::setw(7) << p;
        for (const auto& u : stats.perPlane[p])
        {
            std::cout << std::setw(15) << u.utilisation;
        }
        std::cout << "\n";
    }
    std::cout << "\n  delivered " << sinkPackets << " packets, goodput " << std::setprecision(1)
              << goodputGbps << " Gb/s (UDP payload)\n  ECN marked " << stats.ecnMarked
              << ", dropped:";
    for (std::size_t r = 0; r < kDropReasonCount; ++r)
    {
        std::cout << " " << DropReasonName(static_cast<DropReason>(r)) << "=" << stats.drops[r];
    }
    std::cout << "\n  " << stats.packetHops << " packet-hops, " << metrics.Events() << " events in "
              << std::setprecision(2) << metrics.WallSeconds() << " s wall ("
              << std::setprecision(0) << stats.packetHops / metrics.WallSeconds() << " hops/s)\n";

    if (!outDir.empty())
    {
        nlohmann::json j;
        j["topology"] = spec.name;
        j["load"] = load;
        j["spray"] = spray;
        j["loss"] = loss;
        j["seed"] = seed;
        j["goodput_gbps"] = goodputGbps;
        j["delivered_packets"] = sinkPackets;
        j["fabric"] = stats.ToJson();
        j["wall_seconds"] = metrics.WallSeconds();
        j["events"] = metrics.Events();
        std::ofstream(outDir + "/fabric-demo.json") << j.dump(2) << "\n";
        std::cout << "  wrote " << outDir << "/fabric-demo.json\n";
    }
    Simulator::Destroy();
    return 0;
}
