/*
 * FabricPort and FabricChannel on a bare link: exact timing, tail drop,
 * RED ECN marking, receive-side random loss, class priority, and the lazy
 * departure scheme against the eager one.
 */
#include "fabric-address.h"
#include "fabric-channel.h"
#include "fabric-frame.h"
#include "fabric-port.h"
#include "fabric-test-header.h"
#include "test-fabric-util.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/error-model.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

using namespace ns3;

namespace
{
using test::RecordingSink;

/** Two nodes, one link: tx --channel--> rx. */
struct Link
{
    Ptr<FabricPort> tx = CreateObject<FabricPort>();
    Ptr<FabricPort> rx = CreateObject<FabricPort>();
    Ptr<FabricChannel> channel = CreateObject<FabricChannel>();
    RecordingSink txSink;
    RecordingSink rxSink;

    explicit Link(const std::string& rate = "100Gbps", Time delay = MicroSeconds(1))
    {
        tx->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
        rx->SetAttribute("DataRate", DataRateValue(DataRate(rate)));
        channel->SetAttribute("Delay", TimeValue(delay));
        CreateObject<Node>()->AddDevice(tx);
        CreateObject<Node>()->AddDevice(rx);
        tx->Attach(channel);
        rx->Attach(channel);
        tx->SetPacketSink(&txSink);
        rx->SetPacketSink(&rxSink);
    }

    /** A frame with \p payload UDP payload bytes, source port \p sport. */
    static Ptr<Packet> Frame(uint32_t payload,
                             uint16_t sport,
                             Ecn ecn,
                             uint8_t dscp,
                             FrameInfo& info)
    {
        Ptr<Packet> p = Create<Packet>(payload);
        FrameAddress a;
        a.srcHost = 1;
        a.dstHost = 2;
        a.srcPort = sport;
        a.dstPort = 4791;
        a.ecn = ecn;
        a.dscp = dscp;
        BuildFrame(p, a);
        REQUIRE(ParseFrame(*p, info));
        return p;
    }

    bool Send(uint32_t payload, uint16_t sport = 1000, Ecn ecn = Ecn::NotEct, uint8_t dscp = 0)
    {
        FrameInfo info;
        Ptr<Packet> p = Frame(payload, sport, ecn, dscp, info);
        return tx->Enqueue(p, info);
    }
};
} // namespace

TEST_CASE("FabricPort: serialisation plus propagation is exact to the nanosecond", "[port]")
{
    // A 1000-byte payload makes a 1042-byte frame (14 + 20 + 8 headers), 1066
    // bytes on the line with FCS (4), preamble+SFD (8) and gap (12). At
    // 100 Gb/s a byte takes 80 ps: 85,280 ps per frame. Events round the
    // exact picosecond timeline up to the next nanosecond, and the timeline
    // itself never drifts: frame k ends at k x 85,280 ps.
    Link link;
    for (int i = 0; i < 3; ++i)
    {
        REQUIRE(link.Send(1000));
    }
    Simulator::Run();
    REQUIRE(link.rxSink.arrivals.size() == 3);
    CHECK(link.tx->TransmissionPs(1042) == 85280);
    CHECK(link.rxSink.arrivals[0] == NanoSeconds(86 + 1000));  // ceil(85.28 ns) + 1 us
    CHECK(link.rxSink.arrivals[1] == NanoSeconds(171 + 1000)); // ceil(170.56)
    CHECK(link.rxSink.arrivals[2] == NanoSeconds(256 + 1000)); // ceil(255.84)

    // Short frames are padded to the 60-byte Ethernet minimum: a 10-byte
    // payload (52-byte frame) costs 60 + 4 + 20 = 84 line bytes, 6,720 ps.
    CHECK(link.tx->TransmissionPs(52) == 84 * 80);
    // A rate that does not divide 8e12: 3 Gb/s, 1066 line bytes = 2,842,666 ps (truncated).
    link.tx->SetAttribute("DataRate", DataRateValue(DataRate("3Gbps")));
    CHECK(link.tx->TransmissionPs(1042) == 2842666);
}

TEST_CASE("FabricPort: the traces a hop checks fire once connected, by name or by path",
          "[port][trace]")
{
    // A port tests one flag before reading these traces' callback
    // lists, and the flag is raised by connecting. So nothing may be missed
    // after a connection made either way: by name on the object (first
    // link), or by a Config path with its context (second link, nothing else
    // connected). Three 1000-byte frames back to back: each is enqueued,
    // dequeued and received once; the sniffer sees it leave the sender and
    // reach the receiver; the queue-bytes trace moves twice per frame (in,
    // out) on the sender.
    {
        Link link;
        uint32_t enq = 0, deq = 0, sniff = 0, macRx = 0, qBytes = 0;
        REQUIRE(
            link.tx->TraceConnectWithoutContext("Enqueue",
                                                MakeBoundCallback(
                                                    +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                                    &enq)));
        REQUIRE(
            link.tx->TraceConnectWithoutContext("QueueBytes",
                                                MakeBoundCallback(
                                                    +[](uint32_t* n, uint32_t, uint32_t) { ++*n; },
                                                    &qBytes)));
        REQUIRE(
            link.rx->TraceConnectWithoutContext("MacRx",
                                                MakeBoundCallback(
                                                    +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                                    &macRx)));
        for (const auto& port : {link.tx, link.rx})
        {
            REQUIRE(
                port->TraceConnectWithoutContext("Sniffer",
                                                 MakeBoundCallback(
                                                     +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                                     &sniff)));
        }
        REQUIRE(
            link.tx->TraceConnectWithoutContext("Dequeue",
                                                MakeBoundCallback(
                                                    +[](uint32_t* n, Ptr<const Packet>) { ++*n; },
                                                    &deq)));
        for (int i = 0; i < 3; ++i)
        {
            REQUIRE(link.Send(1000));
        }
        Simulator::Run();
        Simulator::Destroy();
        CHECK(enq == 3);
        CHECK(deq == 3);
        CHECK(macRx == 3);
        CHECK(sniff == 6);
        CHECK(qBytes == 6);
    }
    {
        Link link;
        uint32_t deq = 0, macRx = 0;
        // Both ports are device 0 of their own node; only the tx port sends
        // and only the rx port receives.
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricPort/Dequeue",
                        MakeBoundCallback(
                            +[](uint32_t* n, std::string, Ptr<const Packet>) { ++*n; },
                            &deq));
        Config::Connect("/NodeList/*/DeviceList/*/$ns3::FabricPort/MacRx",
                        MakeBoundCallback(
                            +[](uint32_t* n, std::string, Ptr<const Packet>) { ++*n; },
                            &macRx));
        for (int i = 0; i < 3; ++i)
        {
            REQUIRE(link.Send(1000));
        }
        Simulator::Run();
        Simulator::Destroy();
        CHECK(deq == 3);
        CHECK(macRx == 3);
    }
}

TEST_CASE("FabricPort: tail drop at the port limit and at the shared buffer", "[port]")
{
    // 1 Gb/s so nothing but the first frame leaves during the burst. The first
    // frame starts at once (it never waits in the queue), then exactly
    // floor(limit / frame) frames fit; the rest are tail-dropped.
    const uint32_t frame = 1042;
    SECTION("port limit")
    {
        Link link("1Gbps");
        link.tx->SetAttribute("MaxQueueBytes", UintegerValue(10 * frame));
        uint32_t accepted = 0;
        for (int i = 0; i < 15; ++i)
        {
            accepted += link.Send(1000);
        }
        CHECK(accepted == 11);
        CHECK(link.tx->GetStats().drops[size_t(DropReason::Buffer)] == 4);
        CHECK(link.tx->GetQueueBytes() == 10 * frame);
        Simulator::Run();
        CHECK(link.rxSink.arrivals.size() == 11);
    }
    SECTION("shared buffer smaller than the port limit")
    {
        Link link("1Gbps");
        link.tx->SetAttribute("MaxQueueBytes", UintegerValue(10 * frame));
        Ptr<SharedBuffer> buffer = Create<SharedBuffer>(5 * frame + 100);
        link.tx->SetSharedBuffer(buffer);
        uint32_t accepted = 0;
        for (int i = 0; i < 15; ++i)
        {
            accepted += link.Send(1000);
        }
        CHECK(accepted == 6); // 1 on the wire + 5 in the buffer
        CHECK(buffer->Used() == 5 * frame);
        Simulator::Run();
        CHECK(buffer->Used() == 0); // every reservation released
    }
}

TEST_CASE("FabricPort: ECN marks follow the RED formula on queued bytes", "[port][ecn]")
{
    // Kmin 10 KB, Kmax 50 KB, Pmax 0.5: p(q) = 0.5 (q - Kmin) / (Kmax - Kmin)
    // between them, 0 below, 1 at and above Kmax.
    Link link("1Gbps");
    link.tx->SetAttribute("EcnKmin", UintegerValue(10000));
    link.tx->SetAttribute("EcnKmax", UintegerValue(50000));
    link.tx->SetAttribute("EcnPmax", DoubleValue(0.5));
    link.tx->SetAttribute("MaxQueueBytes", UintegerValue(1 << 20));
    link.tx->AssignStreams(7);
    CHECK(link.tx->EcnMarkProbability(9999) == 0.0);
    CHECK(link.tx->EcnMarkProbability(30000) == Approx(0.25));
    CHECK(link.tx->EcnMarkProbability(50000) == 1.0);

    // 300 rounds of a 60-frame burst (queue sweeps 0 to ~60 KB); the link is
    // bounced between rounds, which flushes the queue. The total number of
    // marks is a sum of Bernoulli trials with known p: it must land within
    // 4 standard deviations of its mean; the deterministic regions are exact.
    double expected = 0;
    double variance = 0;
    uint64_t belowKmin = 0;
    uint64_t atKmax = 0;
    uint64_t mustMark = 0;
    uint64_t marks = 0;
    link.tx->TraceConnectWithoutContext("EcnMark",
                                        MakeBoundCallback(
                                            +[](uint64_t* n, Ptr<const Packet>) { ++*n; },
                                            &marks));
    for (int round = 0; round < 300; ++round)
    {
        for (int i = 0; i < 60; ++i)
        {
            const uint32_t q = link.tx->GetQueueBytes();
            const double p = link.tx->EcnMarkProbability(q);
            const uint64_t before = marks;
            REQUIRE(link.Send(1000, 1000, Ecn::Ect0));
            const bool marked = marks != before;
            if (q < 10000)
            {
                belowKmin += marked;
            }
            else if (q >= 50000)
            {
                atKmax += marked;
                ++mustMark;
            }
            expected += p;
            variance += p * (1 - p);
        }
        link.channel->SetLinkUp(false);
        link.channel->SetLinkUp(true);
    }
    CHECK(belowKmin == 0);
    CHECK(atKmax == mustMark);
    CHECK(mustMark > 0);
    CHECK(std::abs(double(marks) - expected) < 4 * std::sqrt(variance));

    // Not-ECT frames are never marked, whatever the queue.
    const uint64_t before = marks;
    for (int i = 0; i < 80; ++i)
    {
        link.Send(1000, 1000, Ecn::NotEct);
    }
    CHECK(marks == before);
}

TEST_CASE("FabricPort: a 1% receive error model drops 1% within a binomial bound", "[port][loss]")
{
    // n = 100,000 frames, p = 0.01: mean 1,000, sigma = sqrt(n p (1-p)) = 31.5.
    // Accept mean +- 4 sigma: [874, 1126].
    Link link;
    link.tx->SetAttribute("MaxQueueBytes", UintegerValue(200u << 20));
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(0.01);
    em->AssignStreams(3);
    link.rx->SetAttribute("ReceiveErrorModel", PointerValue(em));
    const uint32_t n = 100000;
    for (uint32_t i = 0; i < n; ++i)
    {
        REQUIRE(link.Send(1000));
    }
    Simulator::Run();
    const uint64_t dropped = link.rx->GetStats().drops[size_t(DropReason::ErrorModel)];
    CHECK(dropped >= 874);
    CHECK(dropped <= 1126);
    CHECK(link.rxSink.arrivals.size() + dropped == n); // nothing else lost
}

TEST_CASE("FabricPort: control frames overtake queued data, round robin alternates", "[port]")
{
    // Five data frames queued behind the one on the wire, then a control frame
    // (DSCP 48, the ControlDscp default): strict priority sends it second.
    SECTION("strict priority")
    {
        Link link("1Gbps");
        for (uint16_t i = 0; i < 6; ++i)
        {
            link.Send(1000, 100 + i);
        }
        link.Send(64, 999, Ecn::NotEct, 48);
        Simulator::Run();
        REQUIRE(link.rxSink.srcPorts.size() == 7);
        CHECK(link.rxSink.srcPorts[0] == 100);
        CHECK(link.rxSink.srcPorts[1] == 999);
        CHECK(link.rxSink.srcPorts[2] == 101);
    }
    SECTION("round robin")
    {
        Link link("1Gbps");
        link.tx->SetAttribute("StrictPriority", BooleanValue(false));
        for (uint16_t i = 0; i < 4; ++i)
        {
            link.Send(1000, 100 + i);
        }
        for (uint16_t i = 0; i < 2; ++i)
        {
            link.Send(64, 900 + i, Ecn::NotEct, 48);
        }
        Simulator::Run();
        // 100 was on the wire; then the classes alternate while both have frames.
        std::vector<uint16_t> expect = {100, 900, 101, 901, 102, 103};
        CHECK(link.rxSink.srcPorts == expect);
    }
}

TEST_CASE("FabricPort: lazy departures give exactly the eager schedule", "[port]")
{
    // Frames enqueued at irregular times with mixed classes, once with lazy
    // departures (default) and once with an event per dequeue: arrival
    // times and order must be identical, and the lazy run needs fewer events.
    auto run = [](bool eager, uint64_t& events) {
        Link link("10Gbps", NanoSeconds(700));
        link.tx->SetAttribute("EventPerDequeue", BooleanValue(eager));
        for (uint32_t i = 0; i < 200; ++i)
        {
            // Bursts of 3 every ~2 frame times, some control frames among them.
            Simulator::Schedule(NanoSeconds(1500 * (i / 3) + 37 * (i % 3)), [&link, i]() {
                link.Send(i % 7 == 0 ? 64 : 1000, uint16_t(i), Ecn::NotEct, i % 7 == 0 ? 48 : 0);
            });
        }
        const uint64_t before = Simulator::GetEventCount();
        Simulator::Run();
        events = Simulator::GetEventCount() - before;
        auto result = std::make_pair(link.rxSink.arrivals, link.rxSink.srcPorts);
        Simulator::Destroy();
        return result;
    };
    uint64_t lazyEvents = 0;
    uint64_t eagerEvents = 0;
    auto lazy = run(false, lazyEvents);
    auto eager = run(true, eagerEvents);
    REQUIRE(lazy.first.size() == 200);
    CHECK(lazy.first == eager.first);
    CHECK(lazy.second == eager.second);
    CHECK(lazyEvents < eagerEvents);
}

TEST_CASE("Compact frames: the same bytes as a Packet frame, made into one only on demand",
          "[port][frame]")
{
    // A compact frame (FrameBytes) stands for BuildFrame(Create<Packet>(n))
    // with the sender's header as bytes: every byte must match, before and
    // after an ECN mark, or pcap, traces and receivers would see another frame.
    FabricTestHeader hdr;
    hdr.SetSequence(7);
    hdr.SetSendTime(NanoSeconds(123456));
    uint8_t hdrBytes[FabricTestHeader::kBytes];
    hdr.WriteTo(hdrBytes);
    const uint32_t payload = 300;

    FrameAddress a;
    a.plane = 2;
    a.srcHost = 5;
    a.dstHost = 9;
    a.srcPort = 49999;
    a.dstPort = 4791;
    a.dscp = 26;
    a.ecn = Ecn::Ect0;
    FrameAddress packetAddr = a;
    packetAddr.inner = &hdr;
    Ptr<Packet> reference = Create<Packet>(payload);
    const FrameInfo refInfo = BuildFrame(reference, packetAddr);

    FrameAddress compactAddr = a;
    compactAddr.innerBytes = hdrBytes;
    compactAddr.innerSize = FabricTestHeader::kBytes;
    FrameRef frame;
    const FrameInfo info = BuildCompactFrame(frame, payload, compactAddr);
    REQUIRE(frame.IsCompact());
    CHECK(info.bytes == refInfo.bytes);
    CHECK(info.bytes == kFrameHeaderBytes + FabricTestHeader::kBytes + payload);
    CHECK(info.srcIp == refInfo.srcIp);
    CHECK(info.dstIp == refInfo.dstIp);
    CHECK(info.srcPort == refInfo.srcPort);
    CHECK(info.dscp == refInfo.dscp);
    CHECK(info.ecn == refInfo.ecn);

    auto bytesOf = [](const Packet& p) {
        std::vector<uint8_t> v(p.GetSize());
        p.CopyData(v.data(), v.size());
        return v;
    };
    // CopyData of a compact frame: header bytes, then zeros.
    std::vector<uint8_t> copied(info.bytes + 10, 0xaa);
    CHECK(frame.CopyData(copied.data(), copied.size()) == info.bytes);
    copied.resize(info.bytes);
    CHECK(copied == bytesOf(*reference));
    CHECK(frame.IsCompact()); // reading the bytes made no Packet

    // An ECN mark rewrites TOS and checksum exactly as SetFrameEcn does.
    frame.SetEcn(Ecn::Ce);
    SetFrameEcn(reference, Ecn::Ce);
    frame.CopyData(copied.data(), copied.size());
    CHECK(copied == bytesOf(*reference));
    FrameInfo parsed;
    REQUIRE(ParseFrame(*reference, parsed));
    CHECK(parsed.ecn == Ecn::Ce);

    // A Packet is made once, on demand, with the same bytes; later calls share it.
    Ptr<Packet> shared = frame.Share();
    CHECK_FALSE(frame.IsCompact());
    CHECK(bytesOf(*shared) == bytesOf(*reference));
    CHECK(PeekPointer(frame.Share()) == PeekPointer(shared));
    Ptr<Packet> released = frame.Release();
    CHECK(PeekPointer(released) == PeekPointer(shared));
    CHECK_FALSE(bool(frame));
}
