/*
 * Whole-fabric scenarios: end-to-end timing through a switch, conservation of
 * packets, link failure and recovery of routes, and pcap captures that decode
 * as Ethernet/IPv4/UDP with ns-3's own header classes and with tshark.
 */
#include "fabric-address.h"
#include "fabric-stats.h"
#include "fabric-traffic-helper.h"
#include "test-fabric-util.h"

#include "ns3/error-model.h"
#include "ns3/ethernet-header.h"
#include "ns3/integer.h"
#include "ns3/ipv4-header.h"
#include "ns3/pcap-file.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

using namespace ns3;

namespace
{
Ptr<FabricTrafficSource>
AddSource(Ptr<Fabric> fabric,
          uint32_t from,
          uint32_t to,
          const std::string& rate,
          uint32_t payload,
          uint32_t plane,
          uint16_t ports,
          uint64_t maxPackets = 0)
{
    Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
    src->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
    src->SetAttribute("PacketSize", UintegerValue(payload));
    src->SetAttribute("DestinationHost", UintegerValue(to));
    src->SetAttribute("Plane", IntegerValue(plane));
    src->SetAttribute("SourcePort", UintegerValue(20000 + 100 * from));
    src->SetAttribute("SourcePortCount", UintegerValue(ports));
    src->SetAttribute("MaxPackets", UintegerValue(maxPackets));
    fabric->GetHost(from)->AddApplication(src);
    return src;
}

Ptr<FabricTrafficSink>
AddSink(Ptr<Fabric> fabric, uint32_t host)
{
    Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
    fabric->GetHost(host)->AddApplication(sink);
    return sink;
}
} // namespace

TEST_CASE("Fabric: one packet through a switch takes two store-and-forward hops", "[fabric]")
{
    // single-switch-2p: host 0 -> leaf -> host 1, 100 Gb/s, 1 us links. A
    // 1000-byte UDP payload is a 1042-byte frame, 1066 line bytes, 85,280 ps.
    // Hop 1 ends at ceil(85.28) = 86 ns and arrives at 1,086 ns; the leaf
    // starts at once and its last bit leaves at 1,086,000 + 85,280 ps, so
    // it arrives at ceil(1171.28) + 1000 = 2,172 ns.
    FabricBuilder builder(test::LoadTopology("single-switch-2p"));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricTrafficSink> sink = AddSink(fabric, 1);
    AddSource(fabric, 0, 1, "10Gbps", 1000, 0, 1, 1);
    Simulator::Run();
    REQUIRE(sink->GetReceivedPackets() == 1);
    CHECK(sink->GetMaxDelay() == NanoSeconds(2172));
    CHECK(fabric->GetPacketHops() == 2);
}

TEST_CASE("Fabric: every packet sent is delivered or dropped with a reason", "[fabric]")
{
    // A 3-to-1 incast on both planes of tiny-2p at line rate, with 1% random
    // loss on every port and small switch port buffers so tail drops happen
    // too. After the sources stop and the fabric drains, sent = delivered +
    // dropped (all reasons): the fabric neither creates nor loses packets.
    FabricSpec spec = test::TinySpec(
        {{"switch", {{"port_buffer_bytes", 200000}, {"ecn", {{"kmax_bytes", 200000}}}}}});
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    fabric->AssignStreams(11);
    int64_t stream = 100;
    for (const auto& port : fabric->GetAllPorts())
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(0.01);
        em->AssignStreams(stream++);
        port->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
    Ptr<FabricTrafficSink> sink = AddSink(fabric, 0);
    std::vector<Ptr<FabricTrafficSource>> sources;
    for (uint32_t h = 1; h < 4; ++h)
    {
        for (uint32_t p = 0; p < 2; ++p)
        {
            auto src = AddSource(fabric, h, 0, "100Gbps", 4096, p, 16);
            src->SetStopTime(MicroSeconds(200));
            sources.push_back(src);
        }
    }
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    uint64_t sent = 0;
    for (const auto& s : sources)
    {
        sent += s->GetSentPackets();
    }
    FabricStats stats = CollectFabricStats(*fabric, MilliSeconds(2));
    CHECK(stats.drops[size_t(DropReason::Buffer)] > 0);
    CHECK(stats.drops[size_t(DropReason::ErrorModel)] > 0);
    CHECK(sent == sink->GetReceivedPackets() + stats.TotalDrops());
    for (const auto& port : fabric->GetAllPorts())
    {
        CHECK(port->GetQueueBytes() == 0);
    }
}

TEST_CASE("Fabric: a failed uplink is avoided after detection, and fabric-wide after convergence",
          "[fabric][failure]")
{
    // tiny-2p, plane 0: hosts 0,1 under leaf 0, hosts 2,3 under leaf 1, spines
    // 0 and 1. Traffic 0 -> 2 and 2 -> 0 sprayed over 64 source ports, well
    // below line rate. Link p0/l0-s0#0 fails at 100 us.
    //  - Leaf 0 keeps hashing onto the dead uplink until it detects the
    //    failure (DetectionDelay 10 us): link_down drops only in [100, 110] us.
    //  - Spine 0 loses its only way to leaf 0 at once; from 110 us it has no
    //    route (no_route drops) until the control plane reconverges
    //    (convergence 300 us after the failure), when leaf 1 stops sending
    //    traffic for leaf 0's hosts to spine 0.
    //  - After 400 us: no drops at all, and every packet arrives.
    FabricSpec spec = test::TinySpec({{"routing", {{"convergence_delay", "300us"}}}});
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricTrafficSink> sink0 = AddSink(fabric, 0);
    Ptr<FabricTrafficSink> sink2 = AddSink(fabric, 2);
    auto a = AddSource(fabric, 0, 2, "20Gbps", 1000, 0, 64);
    auto b = AddSource(fabric, 2, 0, "20Gbps", 1000, 0, 64);
    const int32_t link = fabric->FindLink("p0/l0-s0#0");
    REQUIRE(link >= 0);
    fabric->ScheduleLinkUp(MicroSeconds(100), link, false);

    std::vector<std::pair<Time, DropReason>> drops;
    for (const auto& port : fabric->GetAllPorts())
    {
        port->TraceConnectWithoutContext(
            "Drop",
            MakeBoundCallback(
                +[](std::vector<std::pair<Time, DropReason>>* d, Ptr<const Packet>, DropReason r) {
                    d->emplace_back(Simulator::Now(), r);
                },
                &drops));
    }
    uint64_t sentAt400 = 0;
    uint64_t receivedAt400 = 0;
    Simulator::Schedule(MicroSeconds(400), [&]() {
        sentAt400 = a->GetSentPackets() + b->GetSentPackets();
        receivedAt400 = sink0->GetReceivedPackets() + sink2->GetReceivedPackets();
    });
    Simulator::Stop(MicroSeconds(800));
    Simulator::Run();

    uint32_t linkDown = 0;
    uint32_t noRoute = 0;
    for (const auto& [t, reason] : drops)
    {
        CAPTURE(t.GetNanoSeconds(), DropReasonName(reason));
        CHECK(t >= MicroSeconds(100));
        if (reason == DropReason::LinkDown)
        {
            ++linkDown;
            // Queued and in-flight frames die at 100 us (in flight: by their
            // arrival, within one frame time + 1 us); new ones until detection.
            CHECK(t <= MicroSeconds(110));
        }
        else
        {
            REQUIRE(reason == DropReason::NoRoute);
            ++noRoute;
            CHECK(t >= MicroSeconds(110));
            CHECK(t <= MicroSeconds(400) + MicroSeconds(2));
        }
    }
    CHECK(linkDown > 0);
    CHECK(noRoute > 0);
    CHECK(fabric->GetLeaf(0, 0)->GetLiveGroup(2).size() == 1);
    CHECK(fabric->GetLeaf(0, 1)->GetLiveGroup(0).size() == 1);
    CHECK(fabric->GetSpine(0, 0)->GetLiveGroup(0).empty());
    // From 400 us on, everything sent arrives (allowing the ~3 us in flight).
    const uint64_t sentAfter = a->GetSentPackets() + b->GetSentPackets() - sentAt400;
    const uint64_t receivedAfter =
        sink0->GetReceivedPackets() + sink2->GetReceivedPackets() - receivedAt400;
    CHECK(sentAfter > 1000);
    CHECK(std::llabs(int64_t(sentAfter) - int64_t(receivedAfter)) <= 20);

    SECTION("and the link coming back is used again")
    {
        // (Runs on the state above: bring it up at 800 us, converge by 1.1 ms.)
        fabric->ScheduleLinkUp(MicroSeconds(800), link, true);
        Simulator::Stop(MicroSeconds(1200));
        Simulator::Run();
        CHECK(fabric->GetLeaf(0, 0)->GetLiveGroup(2).size() == 2);
        CHECK(fabric->GetLeaf(0, 1)->GetLiveGroup(0).size() == 2);
        CHECK(fabric->GetSpine(0, 0)->GetLiveGroup(0).size() == 1);
    }
}

TEST_CASE("Fabric: pcap captures decode as Ethernet/IPv4/UDP", "[fabric][pcap]")
{
    // Five 500-byte test packets from host 0 to host 1 (plane 0, ECT(0)),
    // captured on host 0's transmit side and host 1's receive side.
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("metaroce-pcap-" + std::to_string(getpid()));
    fs::create_directories(dir);
    FabricBuilder builder(test::LoadTopology("single-switch-2p"));
    Ptr<Fabric> fabric = builder.Build();
    builder.EnablePcap((dir / "cap").string(), fabric->GetNic(0)->GetPort(0));
    builder.EnablePcap((dir / "cap").string(), fabric->GetNic(1)->GetPort(0));
    AddSink(fabric, 1);
    AddSource(fabric, 0, 1, "10Gbps", 500, 0, 1, 5);
    Simulator::Run();
    const std::string txFile =
        (dir / ("cap-" + std::to_string(fabric->GetHost(0)->GetId()) + "-0.pcap")).string();
    // The capture files close when the last reference to the ports goes.
    Simulator::Destroy();
    fabric->Dispose();
    fabric = nullptr;

    PcapFile pcap;
    pcap.Open(txFile, std::ios::in);
    REQUIRE_FALSE(pcap.Fail());
    CHECK(pcap.GetDataLinkType() == 1); // DLT_EN10MB
    uint32_t records = 0;
    uint8_t data[2048];
    uint32_t tsSec, tsUsec, inclLen, origLen, readLen;
    while (true)
    {
        pcap.Read(data, sizeof(data), tsSec, tsUsec, inclLen, origLen, readLen);
        if (pcap.Eof() || pcap.Fail())
        {
            break;
        }
        ++records;
        REQUIRE(inclLen == 542); // 14 + 20 + 8 + 500
        // Decode with ns-3's own header classes: the bytes must be theirs.
        Ptr<Packet> p = Create<Packet>(data, inclLen);
        EthernetHeader eth(false);
        Ipv4Header ip;
        ip.EnableChecksum();
        UdpHeader udp;
        p->RemoveHeader(eth);
        p->RemoveHeader(ip);
        p->RemoveHeader(udp);
        CHECK(eth.GetLengthType() == 0x0800);
        CHECK(eth.GetSource() == FabricAddress::HostMac(0, 0));
        CHECK(eth.GetDestination() == FabricAddress::HostMac(0, 1));
        CHECK(ip.IsChecksumOk());
        CHECK(ip.GetSource() == FabricAddress::HostIp(0, 0));
        CHECK(ip.GetDestination() == FabricAddress::HostIp(0, 1));
        CHECK(ip.GetProtocol() == 17);
        CHECK(ip.GetPayloadSize() == 508);
        CHECK(ip.GetEcn() == Ipv4Header::ECN_ECT0);
        CHECK(udp.GetSourcePort() == 20000);
        CHECK(udp.GetDestinationPort() == FabricTrafficSource::kDefaultPort);
        CHECK(p->GetSize() == 500);
    }
    CHECK(records == 5);
    pcap.Close();

    if (std::system("command -v tshark >/dev/null 2>&1") == 0)
    {
        // tshark's own dissectors: five UDP datagrams 10.0.0.0 -> 10.0.0.1 with
        // a valid IPv4 header checksum.
        const std::string out = (dir / "tshark.txt").string();
        const std::string cmd = "tshark -o ip.check_checksum:TRUE -r " + txFile +
                                " -T fields -e ip.src -e ip.dst -e udp.length "
                                "-e ip.checksum.status > " +
                                out + " 2>/dev/null";
        REQUIRE(std::system(cmd.c_str()) == 0);
        std::FILE* f = std::fopen(out.c_str(), "r");
        REQUIRE(f);
        char src[32], dst[32];
        unsigned udpLen, status;
        uint32_t lines = 0;
        while (std::fscanf(f, "%31s %31s %u %u", src, dst, &udpLen, &status) == 4)
        {
            ++lines;
            CHECK(std::string(src) == "10.0.0.0");
            CHECK(std::string(dst) == "10.0.0.1");
            CHECK(udpLen == 508);
            CHECK(status == 1); // PROTO_CHECKSUM_E_GOOD (0 bad, 2 unverified)
        }
        std::fclose(f);
        CHECK(lines == 5);
    }
    else
    {
        WARN("tshark not installed: decoded with ns-3 headers only");
    }
    fs::remove_all(dir);
}

TEST_CASE("Fabric: the invariant check counts frames in flight and catches a frame that "
          "appears from nowhere",
          "[fabric][invariants]")
{
    // The check every test simulation ends with (test/main.cc). Stopped
    // mid-transfer, with frames queued and on the wires, the books balance;
    // a frame put into a port behind the NIC's back (never "sent") does not.
    FabricBuilder builder(test::TinySpec());
    Ptr<Fabric> fabric = builder.Build();
    AddSink(fabric, 3);
    for (uint32_t h : {0u, 1u, 2u})
    {
        AddSource(fabric, h, 3, "100Gbps", 4096, 0, 4);
    }
    Simulator::Stop(MicroSeconds(7)); // three line-rate sources into one port: a queue
    Simulator::Run();
    uint64_t onWire = 0;
    for (const auto& link : fabric->GetLinks())
    {
        onWire += link.channel->GetFramesInFlight();
    }
    CHECK(onWire > 0);
    CHECK(fabric->CheckInvariants().empty());

    Ptr<Packet> stray = Create<Packet>(100);
    const FrameInfo info =
        BuildFrame(stray,
                   fabric->GetNic(0)->AddressTo(3, 0, 1234, FabricTrafficSource::kDefaultPort));
    fabric->GetNic(0)->GetPort(0)->Enqueue(stray, info);
    const auto violations = fabric->CheckInvariants();
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].find("frames not conserved") != std::string::npos);
    Fabric::s_checkInvariantsOnDispose = false; // this one is broken on purpose
}

TEST_CASE("Fabric: a packet-hop costs one event (the frame's arrival), nothing per departure",
          "[fabric]")
{
    // The event budget: close to one event per packet-hop. On the saturated
    // 64-host 8-plane fabric (the speed benchmark's scenario, 20 us) every
    // event must be either a frame arrival (at most one per hop put on a
    // link), a source's send (one per packet) or one of a bounded number of
    // start/stop events: lazy departures schedule nothing per dequeue, and a
    // switch hop schedules nothing but the next arrival.
    ObjectFactory sched;
    sched.SetTypeId("ns3::TimingWheelScheduler");
    Simulator::SetScheduler(sched);
    FabricSpec spec = test::LoadTopology("clos-64h-8p");
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    fabric->AssignStreams(1);
    const Time duration = MicroSeconds(20);
    FabricTrafficHelper traffic(fabric);
    traffic.SetSourceAttribute("SourcePortCount", UintegerValue(8));
    ApplicationContainer sinks = traffic.InstallSinks(Time(0), duration);
    ApplicationContainer sources =
        traffic.InstallPattern(FabricTrafficHelper::RandomDerangement(spec.Hosts(), 1),
                               1.0,
                               Time(0),
                               duration);
    const uint64_t before = Simulator::GetEventCount();
    Simulator::Stop(duration);
    Simulator::Run();
    const uint64_t events = Simulator::GetEventCount() - before;
    uint64_t sent = 0;
    for (uint32_t i = 0; i < sources.GetN(); ++i)
    {
        sent += DynamicCast<FabricTrafficSource>(sources.Get(i))->GetSentPackets();
    }
    const uint64_t hops = fabric->GetPacketHops();
    const uint64_t apps = sources.GetN() + sinks.GetN();
    INFO("events " << events << ", hops " << hops << ", packets sent " << sent);
    REQUIRE(hops > 50000); // saturated: 512 host links at 100 Gb/s for 20 us
    // Starts and stops: two per application, the Stop event, slack of 16.
    CHECK(events <= hops + sent + 2 * apps + 17);
    // And the arrivals are really there: every hop but the frames still on
    // the wire arrived through one event, and every packet but each source's
    // first (sent from its start) through one send event.
    uint64_t onWire = 0;
    for (const auto& link : fabric->GetLinks())
    {
        onWire += link.channel->GetFramesInFlight();
    }
    CHECK(events + onWire + sources.GetN() >= hops + sent);
    Simulator::Destroy();
}
