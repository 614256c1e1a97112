/*
 * Priority Flow Control (IEEE 802.1Qbb): the PAUSE frame's bytes, a port
 * obeying pauses exactly (lazy departures agree with an event per dequeue),
 * switch ingress accounting in a 16-to-1 incast with and without PFC, head-
 * of-line blocking of a victim flow, the pause-storm detector and tshark's
 * reading of captured PAUSE frames. docs/fabric-model.md, "PFC".
 */
#include "fabric-address.h"
#include "fabric-channel.h"
#include "fabric-frame.h"
#include "fabric-pfc-monitor.h"
#include "fabric-port.h"
#include "fabric-stats.h"
#include "fabric-test-header.h"
#include "fabric-traffic-sink.h"
#include "fabric-traffic-source.h"
#include "nic-scheduler.h"
#include "pfc-pause-header.h"
#include "test-fabric-util.h"

#include "ns3/boolean.h"
#include "ns3/integer.h"
#include "ns3/node.h"
#include "ns3/pcap-file.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t kDataDscp = 26; // AF31: the data class (anything but ControlDscp 48)
constexpr uint8_t kLossless = 3;  // DataPriority default

using test::RecordingSink;

/** tx --1 us, 100 Gb/s--> rx; rx sends the PAUSE frames tx obeys. */
struct Link
{
    Ptr<FabricPort> tx = CreateObject<FabricPort>();
    Ptr<FabricPort> rx = CreateObject<FabricPort>();
    Ptr<FabricChannel> channel = CreateObject<FabricChannel>();
    RecordingSink txSink;
    RecordingSink rxSink;

    explicit Link(bool pfc = true, bool eager = false)
    {
        for (auto& p : {tx, rx})
        {
            p->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
            p->SetAttribute("PfcEnabled", BooleanValue(pfc));
            p->SetAttribute("EventPerDequeue", BooleanValue(eager));
            CreateObject<Node>()->AddDevice(p);
            p->SetAddress(Mac48Address::Allocate());
        }
        channel->SetAttribute("Delay", TimeValue(MicroSeconds(1)));
        tx->Attach(channel);
        rx->Attach(channel);
        tx->SetPacketSink(&txSink);
        rx->SetPacketSink(&rxSink);
    }

    /** Queues a frame on tx at \p at: \p payload bytes, source port \p sport. */
    void SendAt(Time at, uint32_t payload, uint16_t sport, uint8_t dscp)
    {
        Simulator::Schedule(at, [this, payload, sport, dscp]() {
            Ptr<Packet> p = Create<Packet>(payload);
            FrameAddress a;
            a.srcHost = 1;
            a.dstHost = 2;
            a.srcPort = sport;
            a.dstPort = 4791;
            a.dscp = dscp;
            const FrameInfo info = BuildFrame(p, a);
            REQUIRE(tx->Enqueue(p, info));
        });
    }

    void PauseAt(Time at, uint16_t quanta)
    {
        Simulator::Schedule(at, [this, quanta]() { rx->SendPfc(kLossless, quanta); });
    }
};

Ptr<FabricTrafficSource>
AddSource(Ptr<Fabric> fabric, uint32_t from, uint32_t to, const std::string& rate, uint64_t packets)
{
    Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
    src->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
    src->SetAttribute("PacketSize", UintegerValue(4096));
    src->SetAttribute("DestinationHost", UintegerValue(to));
    src->SetAttribute("Plane", IntegerValue(0));
    src->SetAttribute("SourcePort", UintegerValue(20000 + 100 * from + to));
    src->SetAttribute("Dscp", UintegerValue(kDataDscp));
    src->SetAttribute("EcnCapable", BooleanValue(false)); // isolate PFC from marking
    src->SetAttribute("MaxPackets", UintegerValue(packets));
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

using test::OneLeafSpec;

} // namespace

TEST_CASE("PfcPauseHeader: 802.1Qbb bytes, and foreign or short input is rejected", "[pfc]")
{
    // 01:80:C2:00:00:01, src, 0x8808, opcode 0x0101, class-enable vector,
    // eight 2-byte pause times, zero padding to the 60-byte minimum frame.
    PfcPauseHeader h;
    h.SetSource(Mac48Address("02:00:00:00:00:07"));
    h.SetPause(3, 0xffff);
    h.SetPause(5, 0);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    REQUIRE(p->GetSize() == 60);
    uint8_t b[60];
    p->CopyData(b, 60);
    const uint8_t head[] = {0x01,
                            0x80,
                            0xc2,
                            0x00,
                            0x00,
                            0x01,
                            0x02,
                            0x00,
                            0x00,
                            0x00,
                            0x00,
                            0x07,
                            0x88,
                            0x08,
                            0x01,
                            0x01,
                            0x00,
                            0x28};
    CHECK(std::vector<uint8_t>(b, b + 18) == std::vector<uint8_t>(head, head + 18));
    CHECK(b[18 + 2 * 3] == 0xff); // priority 3's quanta, big-endian
    CHECK(b[18 + 2 * 3 + 1] == 0xff);
    for (uint32_t i = 34; i < 60; ++i)
    {
        CHECK(b[i] == 0);
    }
    PfcPauseHeader back;
    REQUIRE(PfcPauseHeader::Peek(*p, &back));
    CHECK(back.GetSource() == Mac48Address("02:00:00:00:00:07"));
    CHECK(back.GetClassEnableVector() == 0x28);
    CHECK(back.GetQuanta(3) == 0xffff);
    CHECK(back.IsEnabled(5));
    CHECK(back.GetQuanta(5) == 0);
    CHECK_FALSE(back.IsEnabled(0));

    // Short, another EtherType, another opcode, reserved enable bits, and a
    // 60-byte IPv4 frame: none is a PFC frame, and Deserialize consumes nothing.
    auto mutated = [&b](uint32_t offset, uint8_t value) {
        uint8_t c[60];
        std::copy(b, b + 60, c);
        c[offset] = value;
        return Create<Packet>(c, 60);
    };
    CHECK_FALSE(PfcPauseHeader::Peek(*Create<Packet>(b, 59)));
    CHECK(Create<Packet>(b, 40)->PeekHeader(back) == 0);
    CHECK_FALSE(PfcPauseHeader::Peek(*mutated(13, 0x00))); // EtherType 0x8800
    CHECK_FALSE(PfcPauseHeader::Peek(*mutated(14, 0x00))); // opcode 0x0001 (802.3x PAUSE)
    CHECK_FALSE(PfcPauseHeader::Peek(*mutated(16, 0x01))); // reserved high byte of the vector
    CHECK_FALSE(PfcPauseHeader::Peek(*mutated(5, 0x02)));  // another destination
    Ptr<Packet> udp = Create<Packet>(18);
    BuildFrame(udp, FrameAddress{});
    REQUIRE(udp->GetSize() == 60);
    CHECK_FALSE(PfcPauseHeader::Peek(*udp));
}

TEST_CASE("PFC: a paused port stops its data class for exactly quanta x 512 bit times", "[pfc]")
{
    // 100 Gb/s, 1 us. rx sends PAUSE(priority 3, 1000 quanta) at 0: 84 line
    // bytes (6.72 ns), it arrives at 1,007 ns and pauses tx until
    // 1,007,000 + 1000 x 512 x 10 ps = 6,127,000 ps.
    //  - A (data, queued at 1 us) started before the PAUSE arrived: it
    //    completes (85.28 ns) and arrives at 2,086 ns.
    //  - B (data, queued behind A) would start at 1,085.28 ns: it waits.
    //  - C (control, DSCP 48, 130 line bytes, 2 us) is never paused: 3,011 ns.
    //  - D (data, 2 us) queues behind B.
    //  B starts at the exact expiry, 6,127,000 ps: arrives ceil(6,212.28) +
    //  1,000 = 7,213 ns, D at 7,298 ns. Both event modes give the same.
    const bool eager = GENERATE(false, true);
    CAPTURE(eager);
    Simulator::Destroy(); // each generated run (and section) starts at time 0
    Link link(true, eager);
    std::vector<std::pair<Time, bool>> states;
    link.tx->TraceConnectWithoutContext(
        "PfcPauseState",
        MakeBoundCallback(
            +[](std::vector<std::pair<Time, bool>>* s, uint8_t prio, bool paused) {
                CHECK(prio == kLossless);
                s->emplace_back(Simulator::Now(), paused);
            },
            &states));
    link.PauseAt(Time(0), 1000);
    link.SendAt(MicroSeconds(1), 1000, 1, kDataDscp); // A
    link.SendAt(MicroSeconds(1), 1000, 2, kDataDscp); // B
    link.SendAt(MicroSeconds(2), 64, 3, 48);          // C
    link.SendAt(MicroSeconds(2), 1000, 4, kDataDscp); // D
    int64_t idleAt1500 = 0;
    Simulator::Schedule(NanoSeconds(1500), [&]() { idleAt1500 = link.tx->GetIdlePs(); });
    Simulator::Run();

    CHECK(link.tx->PauseQuantaPs(1000) == 5'120'000);
    REQUIRE(link.rxSink.arrivals.size() == 4);
    CHECK(link.rxSink.srcPorts == std::vector<uint16_t>{1, 3, 2, 4});
    CHECK(link.rxSink.arrivals == std::vector<Time>{NanoSeconds(2086),
                                                    NanoSeconds(3011),
                                                    NanoSeconds(7213),
                                                    NanoSeconds(7298)});
    // A NIC scheduler asking at 1.5 us learns B cannot finish before
    // expiry + one frame.
    CHECK(idleAt1500 == 6'127'000 + 85'280);
    CHECK(link.tx->GetPausedTime() == NanoSeconds(5120));
    CHECK(link.tx->GetStats().pfcRxFrames == 1);
    CHECK(link.rx->GetStats().pfcTxFrames == 1);
    CHECK(link.rxSink.arrivals.size() == link.rx->GetStats().rxPackets); // PAUSE not passed on
    REQUIRE(states.size() == 2);
    CHECK(states[0] == std::make_pair(NanoSeconds(1007), true));
    CHECK(states[1] == std::make_pair(NanoSeconds(6127), false)); // the expiry wake-up
    CHECK(link.txSink.resumes == std::vector<Time>{NanoSeconds(6127)});
}

TEST_CASE("PFC: quanta 0 resumes at once, a refresh extends, PFC off ignores", "[pfc]")
{
    const bool eager = GENERATE(false, true);
    CAPTURE(eager);
    Simulator::Destroy(); // each generated run (and section) starts at time 0
    SECTION("PAUSE(0) sent at 3 us arrives at 4,007 ns and restarts the queue then")
    {
        // B: 4,007,000 + 85,280 ps -> 4,093 + 1,000 = 5,093 ns; D 5,178 ns.
        // Paused 3 us (1,007 to 4,007 ns); the owner hears of it at 4,007 ns.
        Link link(true, eager);
        link.PauseAt(Time(0), 1000);
        link.PauseAt(MicroSeconds(3), 0);
        link.SendAt(MicroSeconds(1), 1000, 1, kDataDscp);
        link.SendAt(MicroSeconds(1), 1000, 2, kDataDscp);
        link.SendAt(MicroSeconds(2), 1000, 4, kDataDscp);
        Simulator::Run();
        CHECK(link.rxSink.arrivals ==
              std::vector<Time>{NanoSeconds(2086), NanoSeconds(5093), NanoSeconds(5178)});
        CHECK(link.tx->GetPausedTime() == MicroSeconds(3));
        CHECK(link.txSink.resumes == std::vector<Time>{NanoSeconds(4007)});
    }
    SECTION("a second PAUSE(1000) at 3 us extends the pause to 9,127,000 ps")
    {
        // B arrives at ceil(9,212.28) + 1,000 = 10,213 ns; paused 8.12 us, one resume.
        Link link(true, eager);
        link.PauseAt(Time(0), 1000);
        link.PauseAt(MicroSeconds(3), 1000);
        link.SendAt(MicroSeconds(1), 1000, 1, kDataDscp);
        link.SendAt(MicroSeconds(1), 1000, 2, kDataDscp);
        Simulator::Run();
        CHECK(link.rxSink.arrivals == std::vector<Time>{NanoSeconds(2086), NanoSeconds(10213)});
        CHECK(link.tx->GetPausedTime() == NanoSeconds(8120));
        CHECK(link.txSink.resumes == std::vector<Time>{NanoSeconds(9127)});
    }
    SECTION("with PfcEnabled false the PAUSE is counted and ignored")
    {
        // B follows A back to back: 1,170.56 ns -> 2,171 ns.
        Link link(false, eager);
        link.PauseAt(Time(0), 1000);
        link.SendAt(MicroSeconds(1), 1000, 1, kDataDscp);
        link.SendAt(MicroSeconds(1), 1000, 2, kDataDscp);
        Simulator::Run();
        CHECK(link.rxSink.arrivals == std::vector<Time>{NanoSeconds(2086), NanoSeconds(2171)});
        CHECK(link.tx->GetStats().pfcRxFrames == 1);
        CHECK(link.tx->GetPausedTime() == Time(0));
    }
}

TEST_CASE("PFC: lazy departures under pauses give exactly the eager schedule", "[pfc]")
{
    // 300 mixed frames at irregular times while rx pauses and resumes tx
    // at irregular times too (short pauses, refreshes, resumes): arrival
    // times and order are identical with and without an event per dequeue.
    auto run = [](bool eager) {
        Link link(true, eager);
        for (uint32_t i = 0; i < 300; ++i)
        {
            const bool control = i % 7 == 0;
            link.SendAt(NanoSeconds(170 * (i / 2) + 31 * (i % 2)),
                        control ? 64 : 1000,
                        uint16_t(i),
                        control ? 48 : kDataDscp);
        }
        for (uint32_t k = 0; k < 40; ++k)
        {
            link.PauseAt(NanoSeconds(613 * k + 17 * (k % 5)), k % 4 == 3 ? 0 : 20 + 37 * (k % 6));
        }
        Simulator::Run();
        auto result = std::make_tuple(link.rxSink.arrivals,
                                      link.rxSink.srcPorts,
                                      link.tx->GetPausedTime().GetPicoSeconds());
        Simulator::Destroy();
        return result;
    };
    auto lazy = run(false);
    auto eager = run(true);
    REQUIRE(std::get<0>(lazy).size() == 300);
    CHECK(std::get<0>(lazy) == std::get<0>(eager));
    CHECK(std::get<1>(lazy) == std::get<1>(eager));
    CHECK(std::get<2>(lazy) == std::get<2>(eager));
    CHECK(std::get<2>(lazy) > 0);
}

namespace
{
struct IncastResult
{
    uint64_t sent = 0;
    uint64_t delivered = 0;
    FabricStats stats;
    uint64_t xoffEpisodes = 0;
    uint32_t headroomBytes = 0;
};

/** Hosts 1..16 each send 100 x 4 KiB at line rate to host 0 on a 17-host leaf. */
IncastResult
RunIncast(bool pfc, const nlohmann::json& pfcPatch = nlohmann::json::object())
{
    Simulator::Destroy();
    FabricBuilder builder(OneLeafSpec(17, pfc, pfcPatch));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricTrafficSink> sink = AddSink(fabric, 0);
    std::vector<Ptr<FabricTrafficSource>> sources;
    for (uint32_t h = 1; h <= 16; ++h)
    {
        sources.push_back(AddSource(fabric, h, 0, "100Gbps", 100));
    }
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    IncastResult r;
    for (const auto& s : sources)
    {
        r.sent += s->GetSentPackets();
    }
    r.delivered = sink->GetReceivedPackets();
    r.stats = CollectFabricStats(*fabric, MilliSeconds(1));
    r.xoffEpisodes = fabric->GetLeaf(0, 0)->GetPfcXoffCount();
    r.headroomBytes = pfc ? fabric->GetLeaf(0, 0)->GetPfcHeadroomBytes(0) : 0;
    fabric->Dispose();
    Simulator::Destroy();
    return r;
}
} // namespace

TEST_CASE("PFC: a 16-to-1 incast at line rate loses nothing with PFC and drops without", "[pfc]")
{
    // 16 x 100 packets of 4,138-byte frames arrive at 16 x 100 Gb/s for one
    // 100 Gb/s port: the queue would grow to ~1,500 frames (6 MB).
    //  - PFC off: the port's 1 MB limit (241 frames) tail-drops the excess:
    //    expect roughly 1600 - 100 - 241 (queue) - what drains meanwhile,
    //    i.e. well over 1,000 buffer drops.
    //  - PFC on: the leaf pauses each sender's link when its ingress passes
    //    XOFF (1/8 of the free pool); senders' NICs hold the rest. Nothing is
    //    dropped for any reason (headroom sized from the link, 52,158 bytes,
    //    is never exhausted), all 1,600 arrive by 1 ms (6.66 MB at
    //    100 Gb/s takes 533 us), and pauses were sent.
    // Measured: off 1,259 buffer drops and 341 delivered; on 0 drops, 96 XOFF
    // episodes (192 PFC frames), peak headroom 33,104 of 52,158 bytes.
    IncastResult lossy = RunIncast(false);
    IncastResult pfc = RunIncast(true);

    CHECK(lossy.sent == 1600);
    CHECK(lossy.stats.drops[size_t(DropReason::Buffer)] > 1000);
    CHECK(lossy.delivered + lossy.stats.TotalDrops() == lossy.sent);
    CHECK(lossy.stats.pfcFramesSent == 0);

    CHECK(pfc.sent == 1600);
    CHECK(pfc.delivered == 1600);
    CHECK(pfc.stats.TotalDrops() == 0);
    CHECK(pfc.stats.drops[size_t(DropReason::PfcHeadroom)] == 0);
    CHECK(pfc.stats.pfcFramesSent > 0);
    CHECK(pfc.stats.pfcFramesReceived == pfc.stats.pfcFramesSent); // no loss on the links
    CHECK(pfc.xoffEpisodes > 0);
    CHECK(pfc.headroomBytes == 52158); // 2 x 12,513 + 3 x 9,000 + 132
    CHECK(pfc.stats.pfcPeakHeadroomBytes > 0);
    CHECK(pfc.stats.pfcPeakHeadroomBytes <= pfc.headroomBytes);
    CHECK(pfc.stats.pfcStorms == 0);

    // A static XOFF (40,000 bytes, XON 22,000) is just as lossless.
    IncastResult st = RunIncast(true, {{"xoff", 40000}, {"alpha", nullptr}});
    CHECK(st.delivered == 1600);
    CHECK(st.stats.TotalDrops() == 0);
    CHECK(st.xoffEpisodes > 0);

    // An undersized headroom (9,000 bytes for ~33 KB in flight) loses frames,
    // and says why: pfc_headroom, never buffer (measured: 565 of 1,600).
    IncastResult small = RunIncast(true, {{"headroom_bytes", 9000}});
    CHECK(small.stats.drops[size_t(DropReason::PfcHeadroom)] > 0);
    CHECK(small.stats.drops[size_t(DropReason::Buffer)] == 0);
    CHECK(small.delivered + small.stats.TotalDrops() == 1600);
}

TEST_CASE("PFC: a victim flow sharing a paused link is slowed (head-of-line blocking)", "[pfc]")
{
    // 18-host leaf. Victim: host 1 -> host 17 at 50 Gb/s, whose destination
    // is idle. Incast: hosts 1..16 -> host 0 at 50 Gb/s each (8:1 overload),
    // so host 1's NIC port carries both flows, interleaved 1:1 in its FIFO.
    // When the leaf pauses host 1's link (its ingress holds too much for
    // host 0), the victim stops too. In steady state host 1 gets ~1/16 of
    // host 0's 100 Gb/s for its incast flow, 6.25 Gb/s, and the victim the
    // same again: ~1/8 of its 50 Gb/s. Without the incast it gets all of it.
    // Measured over the first 300 us: expect a fraction below 0.3.
    auto run = [](bool incast) {
        Simulator::Destroy();
        FabricBuilder builder(OneLeafSpec(18, true));
        Ptr<Fabric> fabric = builder.Build();
        Ptr<FabricTrafficSink> victimSink = AddSink(fabric, 17);
        AddSink(fabric, 0);
        AddSource(fabric, 1, 17, "50Gbps", 0)->SetStopTime(MicroSeconds(300));
        if (incast)
        {
            for (uint32_t h = 1; h <= 16; ++h)
            {
                AddSource(fabric, h, 0, "50Gbps", 0)->SetStopTime(MicroSeconds(300));
            }
        }
        Simulator::Stop(MicroSeconds(300));
        Simulator::Run();
        const uint64_t bytes = victimSink->GetReceivedBytes();
        const FabricStats stats = CollectFabricStats(*fabric, MicroSeconds(300));
        CHECK(stats.TotalDrops() == 0);
        fabric->Dispose();
        Simulator::Destroy();
        return std::make_pair(bytes, stats);
    };
    const auto [alone, aloneStats] = run(false);
    const auto [blocked, blockedStats] = run(true);
    const double fraction = double(blocked) / double(alone);
    // Alone: ~50 Gb/s over ~299 us (one-way delay ~2.2 us): ~1.8 MB.
    CHECK(alone > 1800000);
    CHECK(aloneStats.pfcFramesSent == 0);
    CHECK(blockedStats.pfcFramesSent > 0);
    CHECK(fraction < 0.3);
    CHECK(fraction > 0.05); // slowed, not starved: the pauses are released
}

TEST_CASE("PFC: a receiver that never drains makes the monitor report a pause storm", "[pfc]")
{
    // 3-host leaf; host 2's NIC misbehaves (test hook): it sends
    // PAUSE(priority 3, 65535 quanta = 335.5 us) every 100 us from t = 0, so
    // the leaf's port towards it is paused from 1,007 ns on, for ever.
    // Hosts 0 and 1 send 200 packets each to host 2: the leaf holds them,
    // passes XOFF and pauses hosts 0 and 1 in turn (nothing drains, so it
    // keeps refreshing). With StormThreshold 1 ms the first report is the
    // leaf's port to host 2, "p0/h2-l0@l0", at exactly 1,001,007 ns; the
    // two senders' NIC ports follow. No drops: headroom absorbs the rest.
    Simulator::Destroy();
    FabricBuilder builder(OneLeafSpec(3, true));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricPfcMonitor> monitor = fabric->GetPfcMonitor();
    REQUIRE(monitor);
    std::vector<std::string> stormPorts;
    monitor->TraceConnectWithoutContext(
        "PauseStorm",
        MakeBoundCallback(
            +[](std::vector<std::string>* v, const std::string& port, uint8_t, Time) {
                v->push_back(port);
            },
            &stormPorts));
    Ptr<FabricPort> stuck = fabric->GetNic(2)->GetPort(0);
    for (uint32_t k = 0; k < 16; ++k)
    {
        Simulator::Schedule(MicroSeconds(100 * k), [stuck]() { stuck->SendPfc(3, 0xffff); });
    }
    AddSink(fabric, 2);
    AddSource(fabric, 0, 2, "100Gbps", 200);
    AddSource(fabric, 1, 2, "100Gbps", 200);
    Simulator::Stop(MicroSeconds(1500));
    Simulator::Run();

    const auto& reports = monitor->GetStormReports();
    REQUIRE(reports.size() == 3);
    CHECK(reports[0].port == "p0/h2-l0@l0");
    CHECK(reports[0].priority == kLossless);
    CHECK(reports[0].since == NanoSeconds(1007));
    CHECK(reports[0].at == NanoSeconds(1'001'007));
    CHECK(stormPorts.front() == "p0/h2-l0@l0");
    std::vector<std::string> senders = {reports[1].port, reports[2].port};
    std::sort(senders.begin(), senders.end());
    CHECK(senders == std::vector<std::string>{"p0/h0-l0@h0", "p0/h1-l0@h1"});
    const FabricStats stats = CollectFabricStats(*fabric, MicroSeconds(1500));
    CHECK(stats.pfcStorms == 3);
    CHECK(stats.pfcDeadlocks == 0); // the chain ends at a NIC: no cycle
    CHECK(stats.TotalDrops() == 0);
}

TEST_CASE("FabricPfcMonitor: cycles of the wait-for graph are found, chains are not", "[pfc]")
{
    // 0 -> 1 -> 2 -> 0 is a cyclic buffer dependency; 3 -> 4 a chain; 5 a
    // self-loop (a port waiting on itself through a bounce); 6 -> 0 leads into
    // the cycle without being in it.
    const std::vector<std::vector<uint32_t>> g = {{1}, {2}, {0}, {4}, {}, {5}, {0}};
    const auto cycles = FabricPfcMonitor::FindCycles(g);
    CHECK(cycles == std::vector<std::vector<uint32_t>>{{0, 1, 2}, {5}});
    CHECK(FabricPfcMonitor::FindCycles({{1}, {2}, {}}).empty());
}

TEST_CASE("PFC: captured PAUSE frames decode in tshark as MAC Control CBFC", "[pfc][pcap]")
{
    // Host 1's NIC sends PAUSE(priority 3, 65535) and then PAUSE(3, 0) to the
    // leaf; the capture on that port holds two 60-byte frames that tshark
    // reads as MAC Control, opcode 0x0101 (Class Based Flow Control), class
    // enable vector 0x0008, pause times 65535 then 0.
    namespace fs = std::filesystem;
    Simulator::Destroy();
    const fs::path dir = fs::temp_directory_path() / ("metaroce-pfc-" + std::to_string(getpid()));
    fs::create_directories(dir);
    FabricBuilder builder(OneLeafSpec(2, true));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricPort> port = fabric->GetNic(1)->GetPort(0);
    const std::string file = (dir / "pfc.pcap").string();
    builder.EnablePcap(file, port, false, true);
    Simulator::Schedule(MicroSeconds(1), [port]() { port->SendPfc(3, 0xffff); });
    Simulator::Schedule(MicroSeconds(2), [port]() { port->SendPfc(3, 0); });
    Simulator::Run();
    CHECK(fabric->GetLeaf(0, 0)->GetPort(1)->GetStats().pfcRxFrames == 2);
    Simulator::Destroy();
    fabric->Dispose();
    fabric = nullptr;
    port = nullptr;

    PcapFile pcap;
    pcap.Open(file, std::ios::in);
    REQUIRE_FALSE(pcap.Fail());
    uint8_t data[128];
    uint32_t tsSec, tsUsec, inclLen, origLen, readLen;
    uint32_t records = 0;
    while (true)
    {
        pcap.Read(data, sizeof(data), tsSec, tsUsec, inclLen, origLen, readLen);
        if (pcap.Eof() || pcap.Fail())
        {
            break;
        }
        ++records;
        CHECK(inclLen == 60);
        PfcPauseHeader h;
        CHECK(PfcPauseHeader::Peek(*Create<Packet>(data, inclLen), &h));
    }
    pcap.Close();
    CHECK(records == 2);

    if (std::system("command -v tshark >/dev/null 2>&1") == 0)
    {
        const std::string out = (dir / "tshark.txt").string();
        const std::string cmd = "tshark -r " + file +
                                " -T fields -E separator=, -e frame.protocols -e macc.opcode "
                                "-e macc.cbfc.enbv -e macc.cbfc.pause_time.c3 > " +
                                out + " 2>/dev/null";
        REQUIRE(std::system(cmd.c_str()) == 0);
        std::FILE* f = std::fopen(out.c_str(), "r");
        REQUIRE(f);
        std::vector<std::string> lines;
        char line[256];
        while (std::fgets(line, sizeof(line), f))
        {
            std::string s(line);
            while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
            {
                s.pop_back();
            }
            lines.push_back(s);
        }
        std::fclose(f);
        CHECK(lines == std::vector<std::string>{"eth:ethertype:macc,0x0101,0x0008,65535",
                                                "eth:ethertype:macc,0x0101,0x0008,0"});
    }
    else
    {
        WARN("tshark not installed: PAUSE frames decoded with PfcPauseHeader only");
    }
    fs::remove_all(dir);
}

namespace
{
/** Always has a 4 KiB data packet for host 1 (a saturating transport). */
struct GreedyClient : NicTxClient
{
    Ptr<RdmaNic> nic;

    FramePayload PullPacket(uint32_t plane,
                            int64_t,
                            FrameAddress& addr,
                            int64_t& notBeforePs) override
    {
        FabricTestHeader hdr;
        hdr.SetSendTime(Simulator::Now());
        Ptr<Packet> p = Create<Packet>(4096 - FabricTestHeader::kBytes);
        p->AddHeader(hdr);
        addr = nic->AddressTo(1, plane, 30000, FabricTrafficSource::kDefaultPort);
        addr.dscp = kDataDscp;
        return p;
    }
};
} // namespace

TEST_CASE("PFC: a paused NIC neither floods its port nor stays stuck after a resume", "[pfc]")
{
    // Host 0's NicScheduler saturates its 100 Gb/s port towards host 1. The
    // leaf pauses host 0's link at 10 us (65535 quanta: 335.5 us; the PAUSE
    // arrives at 11,007 ns) and resumes it at 60 us (PAUSE(0) arrives at
    // 61,007 ns). While paused the
    // scheduler hands the port nothing (the port reports itself idle no
    // earlier than the expiry): at most the one frame it already held waits
    // in the NIC queue. The resume re-arms the scheduler at once, long before
    // the 345 us expiry: from 65 us to 95 us host 1 receives at line rate,
    // 30 us / 332.96 ns = 90 packets (+-1).
    Simulator::Destroy();
    FabricBuilder builder(OneLeafSpec(2, true));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<FabricTrafficSink> sink = AddSink(fabric, 1);
    Ptr<NicScheduler> scheduler = CreateObject<NicScheduler>();
    scheduler->SetNic(fabric->GetNic(0));
    GreedyClient client;
    client.nic = fabric->GetNic(0);
    scheduler->Activate(scheduler->AddClient(&client), 0);
    const int32_t link = fabric->FindLink("p0/h0-l0");
    REQUIRE(link >= 0);
    Ptr<FabricPort> leafPort = fabric->GetLinks()[link].upper;
    Ptr<FabricPort> nicPort = fabric->GetNic(0)->GetPort(0);
    Simulator::Schedule(MicroSeconds(10), [leafPort]() { leafPort->SendPfc(3, 0xffff); });
    Simulator::Schedule(MicroSeconds(60), [leafPort]() { leafPort->SendPfc(3, 0); });
    std::map<int, uint64_t> sent;
    std::map<int, uint64_t> received;
    std::map<int, uint32_t> queued;
    for (int us : {20, 40, 59, 65, 95})
    {
        Simulator::Schedule(MicroSeconds(us), [&, us]() {
            sent[us] = scheduler->GetSentPackets();
            received[us] = sink->GetReceivedPackets();
            queued[us] = nicPort->GetQueuePackets();
        });
    }
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    CHECK(queued[20] <= 1);
    CHECK(queued[59] <= 1);
    CHECK(sent[59] == sent[20]);         // nothing pulled while paused
    CHECK(received[59] == received[20]); // and nothing in flight
    CHECK(nicPort->GetStats().drops == DropCounters{});
    const uint64_t after = received[95] - received[65];
    CHECK(after >= 89);
    CHECK(after <= 91);
    CHECK(nicPort->GetPausedTime() == MicroSeconds(50)); // 11,007 ns to 61,007 ns
    fabric->Dispose();
}

TEST_CASE("PFC: routes with a valley close a cyclic buffer dependency, the monitor reports it",
          "[pfc]")
{
    // Valley-free routing cannot deadlock, so this test installs three routes
    // that bounce (as a routing transient could) on a 3-leaf, 2-spine plane
    // (hosts 2l and 2l+1 under leaf l), with three line-rate flows:
    //   f2: h0 -> h4   L0 -> S0 -> L1 -> S1 -> L2   (S0 sends it to L1: a valley)
    //   f3: h2 -> h5   L1 -> S1 -> L0 -> S0 -> L2   (S1 sends it to L0: a valley)
    //   f4: h3 -> h1   L1 -> S1 -> L0               (ordinary)
    // L1 -> S1 carries all three (300 Gb/s into 100): it backs up into S0 ->
    // L1 (f2), which backs up into L0 -> S0 (f2, f3), into S1 -> L0 (f3, f4)
    // and back into L1 -> S1: each of the four ring ports is paused by a
    // switch whose ingress waits for the next one. Nothing drains again (the
    // ring is closed by ~360 us), so at the first storm check, 1 ms after a
    // ring port's pause began, the monitor finds exactly that cycle. The
    // three senders' NIC ports stay paused too: 7 storms in all by 1.5 ms.
    Simulator::Destroy();
    FabricSpec spec = test::TinySpec({{"name", "ring"},
                                      {"planes", 1},
                                      {"clos", {{"leaves", 3}, {"hosts_per_leaf", 2}}},
                                      {"hosts", 6},
                                      {"switch",
                                       {{"buffer_bytes", 2000000},
                                        {"port_buffer_bytes", 1000000},
                                        {"pfc", {{"enabled", true}}}}},
                                      {"host", {{"port_buffer_bytes", 16u << 20}}}});
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    // Port of switch `atUpper ? spine : leaf` on the named leaf-spine link.
    auto port = [&fabric](const std::string& link, bool atSpine) {
        const FabricLink& l = fabric->GetLinks()[fabric->FindLink(link)];
        return uint16_t(atSpine ? l.upperSwitchPort : l.lowerSwitchPort);
    };
    auto reroute = [](Ptr<FabricSwitch> sw, const std::map<uint32_t, uint16_t>& change) {
        std::vector<std::vector<uint16_t>> routes;
        for (uint32_t h = 0; h < 6; ++h)
        {
            routes.push_back(sw->GetLiveGroup(h));
        }
        for (const auto& [host, p] : change)
        {
            routes[host] = {p};
        }
        sw->SetRoutes(routes);
    };
    Ptr<FabricSwitch> l0 = fabric->GetLeaf(0, 0);
    Ptr<FabricSwitch> l1 = fabric->GetLeaf(0, 1);
    Ptr<FabricSwitch> s0 = fabric->GetSpine(0, 0);
    Ptr<FabricSwitch> s1 = fabric->GetSpine(0, 1);
    reroute(l0, {{4, port("p0/l0-s0#0", false)}, {5, port("p0/l0-s0#0", false)}});
    reroute(s0, {{4, port("p0/l1-s0#0", true)}});
    reroute(l1,
            {{4, port("p0/l1-s1#0", false)},
             {5, port("p0/l1-s1#0", false)},
             {1, port("p0/l1-s1#0", false)}});
    reroute(s1, {{5, port("p0/l0-s1#0", true)}});
    for (uint32_t h : {1, 4, 5})
    {
        AddSink(fabric, h);
    }
    AddSource(fabric, 0, 4, "100Gbps", 1000);
    AddSource(fabric, 2, 5, "100Gbps", 1000);
    AddSource(fabric, 3, 1, "100Gbps", 1000);
    Simulator::Stop(MicroSeconds(1500));
    Simulator::Run();

    Ptr<FabricPfcMonitor> monitor = fabric->GetPfcMonitor();
    REQUIRE(monitor->GetDeadlocks() == 1);
    std::vector<std::string> cycle = monitor->GetDeadlockReports()[0];
    std::sort(cycle.begin(), cycle.end());
    CHECK(cycle == std::vector<std::string>{"p0/l0-s0#0@l0",
                                            "p0/l0-s1#0@s1",
                                            "p0/l1-s0#0@s0",
                                            "p0/l1-s1#0@l1"});
    const FabricStats stats = CollectFabricStats(*fabric, MicroSeconds(1500));
    CHECK(stats.pfcDeadlocks == 1);
    CHECK(stats.pfcStorms == 7);
    CHECK(stats.TotalDrops() == 0); // deadlocked, not lossy
    fabric->Dispose();
}
