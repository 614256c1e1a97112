// The MetaRoCE conformance suite (docs/conformance.md): short simulations
// with deterministic drops, delays, duplicates and failures injected at
// chosen packets, each checking what the transport must do.
#include "metaroce-aimd.h"
#include "test-metaroce-util.h"

#include "ns3/boolean.h"
#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <tuple>

using namespace ns3;
using namespace ns3::test;

namespace
{

/** Wraps a lambda as a MetaRoCE data fault injector. */
struct DataFaults
{
    std::function<MetaRoceFault(const MetaRoceDataHeader&, uint32_t)> fn;

    MetaRoceFault Call(const MetaRoceDataHeader& h, uint32_t plane)
    {
        return fn(h, plane);
    }
};

MetaRoceFault
Drop()
{
    return MetaRoceFault{MetaRoceFault::Drop, Time()};
}

MetaRoceFault
Deliver()
{
    return MetaRoceFault{};
}

/** Records the per-path events of one connection. */
struct PathEvents
{
    std::vector<std::tuple<uint32_t, uint32_t, bool>> retransmits; //!< (path, seq, timeout)
    std::vector<std::tuple<uint32_t, uint32_t, uint16_t, uint16_t, Time>> failures;
    std::map<uint32_t, std::vector<std::pair<Time, uint64_t>>> planeRates;
    std::vector<std::pair<uint32_t, uint64_t>> stalls;
    std::vector<int32_t> stalledPaths;
    std::vector<Time> stalledSince;

    void Retransmit(uint32_t path, uint32_t seq, bool timeout)
    {
        retransmits.emplace_back(path, seq, timeout);
    }

    void Failed(uint32_t path, uint32_t plane, uint16_t oldPort, uint16_t newPort)
    {
        failures.emplace_back(path, plane, oldPort, newPort, Simulator::Now());
    }

    void Rate(uint32_t plane, uint64_t bps)
    {
        planeRates[plane].emplace_back(Simulator::Now(), bps);
    }

    void Stalled(uint32_t conn, uint64_t wrId, int32_t path, Time last)
    {
        stalls.emplace_back(conn, wrId);
        stalledPaths.push_back(path);
        stalledSince.push_back(last);
    }

    void Attach(Ptr<MetaRoceConnection> c)
    {
        c->TraceConnectWithoutContext("Retransmit", MakeCallback(&PathEvents::Retransmit, this));
        c->TraceConnectWithoutContext("PathFailed", MakeCallback(&PathEvents::Failed, this));
        c->TraceConnectWithoutContext("PlaneRate", MakeCallback(&PathEvents::Rate, this));
        c->TraceConnectWithoutContext("Stalled", MakeCallback(&PathEvents::Stalled, this));
    }
};

uint8_t
Pattern(uint64_t i)
{
    return uint8_t((i * 131 + 7) >> 3);
}

/** Source and destination regions with real bytes, the source filled with a pattern. */
struct IntegrityBuffers
{
    uint32_t lkey = 0;
    uint32_t rkey = 0;
    uint64_t length = 0;
    Ptr<RdmaMemory> src;
    Ptr<RdmaMemory> dst;

    IntegrityBuffers(MetaRocePair& p, uint64_t len)
        : length(len),
          src(p.a->GetLocalMemory()),
          dst(p.b->GetLocalMemory())
    {
        lkey = src->Register(0x100000, len, true);
        rkey = dst->Register(0x900000, len, true);
        for (uint64_t i = 0; i < len; ++i)
        {
            src->Find(lkey)->bytes[i] = Pattern(i);
        }
    }

    /** Bytes of [offset, offset + len) of the destination that differ from the source. */
    uint64_t WrongBytes(uint64_t offset, uint64_t len) const
    {
        uint64_t wrong = 0;
        const auto& d = dst->Find(rkey)->bytes;
        for (uint64_t i = offset; i < offset + len; ++i)
        {
            wrong += d[i] != Pattern(i) ? 1 : 0;
        }
        return wrong;
    }

    /** Bytes of [offset, offset + len) of the destination not written exactly once. */
    uint64_t NotOnce(uint64_t offset, uint64_t len) const
    {
        uint64_t n = 0;
        const auto& w = dst->Find(rkey)->writes;
        for (uint64_t i = offset; i < offset + len; ++i)
        {
            n += w[i] != 1 ? 1 : 0;
        }
        return n;
    }
};

RdmaTransportHelper
IntegrityHelper()
{
    RdmaTransportHelper h("ns3::MetaRoceTransport");
    h.SetConnectionAttribute("PayloadIntegrity", BooleanValue(true));
    return h;
}

constexpr uint32_t kKiB = 1024;

} // namespace

TEST_CASE("conformance: a packet dropped on path p is retransmitted exactly once, on p",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    // Drop the first transmission of path 2's packet 3. Path 2 sends packets
    // 4..7 after it, whose ACKs reveal the gap.
    uint32_t dropped = 0;
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        if (h.pathId == 2 && h.pathSeq == 3 && !(h.flags & MetaRoceDataHeader::RETX))
        {
            ++dropped;
            return Drop();
        }
        return Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 256 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 256 * kKiB); // 64 packets: 8 on each of 8 paths
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    REQUIRE(dropped == 1);
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    REQUIRE(ev.retransmits.size() == 1);
    CHECK(ev.retransmits[0] == std::make_tuple(2u, 3u, false));
    CHECK(p.a->GetStats().retransmissions == 1);
    CHECK(p.a->GetPathStats(2).retransmitted == 1);
    CHECK(p.a->GetPathStats(2).timeouts == 0);
    CHECK(ev.failures.empty());
    CHECK(p.b->GetReceiverStats().placedBytes == 256 * kKiB);
}

TEST_CASE("conformance: reordering across paths causes no retransmission",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    // Every packet of paths 0 and 3 arrives 5 us late (20 packet times at
    // 100 Gb/s): later packets of other paths overtake them. Each path stays
    // in order, so nothing is lost.
    std::vector<uint32_t> arrivalOffsets;
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        if (h.pathId == 0 || h.pathId == 3)
        {
            return MetaRoceFault{MetaRoceFault::Delay, MicroSeconds(5)};
        }
        return Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 512 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 512 * kKiB);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    CHECK(p.a->GetStats().retransmissions == 0);
    CHECK(p.b->GetReceiverStats().duplicatePackets == 0);
    CHECK(p.b->GetReceiverStats().placedBytes == 512 * kKiB);
}

TEST_CASE("conformance: duplicated packets are placed once and complete once",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3, IntegrityHelper());
    RecordCompletions(p);
    IntegrityBuffers buf(p, 256 * kKiB);
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        return MetaRoceFault{MetaRoceFault::Duplicate, MicroSeconds(2)};
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    p.a->PostWrite(0, 1, 0x900000, buf.rkey, 256 * kKiB, 0x100000, buf.lkey);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    CHECK(p.b->GetReceiverStats().packets == 128); // 64 packets, each twice
    CHECK(p.b->GetReceiverStats().duplicatePackets == 64);
    CHECK(p.b->GetReceiverStats().placedBytes == 256 * kKiB);
    CHECK(buf.WrongBytes(0, 256 * kKiB) == 0);
    CHECK(buf.NotOnce(0, 256 * kKiB) == 0);
    CHECK(p.a->GetStats().retransmissions == 0);
}

TEST_CASE("conformance: a lost tail packet is recovered by its path's timer",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    int32_t tailPath = -1;
    Time tailSent;
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        if ((h.flags & MetaRoceDataHeader::LAST) && !(h.flags & MetaRoceDataHeader::RETX))
        {
            tailPath = h.pathId;
            tailSent = PicoSeconds(h.timestampPs);
            return Drop();
        }
        return Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 256 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 256 * kKiB);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    REQUIRE(tailPath >= 0);
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    // Nothing follows the tail on its path, so no ACK can reveal the gap:
    // only the timer (MinRto 50 us > srtt + 4 rttvar here) recovers it.
    REQUIRE(ev.retransmits.size() == 1);
    CHECK(std::get<0>(ev.retransmits[0]) == uint32_t(tailPath));
    CHECK(std::get<2>(ev.retransmits[0]) == true);
    CHECK(p.a->GetPathStats(tailPath).timeouts == 1);
    const Time recovery = p.aDone[0].completed - tailSent;
    CHECK(recovery >= MicroSeconds(50));
    CHECK(recovery < MicroSeconds(70)); // one RTO plus one round trip
    CHECK(ev.failures.empty());
}

TEST_CASE("conformance: a blackholed path is repathed and the transfer completes",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    const uint16_t oldPort = p.a->GetPathSourcePort(5);
    uint32_t afterRepath = 0;
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        if (h.pathId == 5 && h.pathEpoch == 0)
        {
            return Drop(); // the route of path 5's first source port is a black hole
        }
        afterRepath += h.pathId == 5 ? 1 : 0;
        return Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 16384 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 16384 * kKiB); // ~700 us: long enough to see the path return
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    // FailureThreshold (2) consecutive timeouts, then one repath.
    REQUIRE(ev.failures.size() == 1);
    CHECK(std::get<0>(ev.failures[0]) == 5);
    CHECK(std::get<2>(ev.failures[0]) == oldPort);
    CHECK(std::get<3>(ev.failures[0]) != oldPort);
    CHECK(p.a->GetPathStats(5).timeouts == 2);
    CHECK(p.a->GetStats().resent > 0);
    // Probed, then back to full load on the new port.
    CHECK(afterRepath > 10);
    CHECK_FALSE(p.a->IsPathProbing(5));
    CHECK(p.b->GetReceiverStats().placedBytes == 16384 * kKiB);
}

TEST_CASE("conformance: a plane failing mid-transfer moves traffic to the surviving plane",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    const Time failAt = MicroSeconds(30);
    SECTION("inside the fabric: both spines of plane 1 go down (the NIC cannot see it)")
    {
        for (uint32_t s = 0; s < 2; ++s)
        {
            p.fabric->ScheduleSwitchUp(failAt, p.fabric->GetGraph().SpineVertex(1, s), false);
        }
    }
    SECTION("at the NIC: host 0's plane-1 link goes down")
    {
        p.fabric->ScheduleLinkUp(failAt, p.fabric->FindLink("p1/h0-l0"), false);
    }
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 8192 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 8192 * kKiB); // ~350 us on two planes
    uint64_t plane0AtFailure = 0;
    Simulator::Schedule(failAt, [&]() {
        plane0AtFailure = p.fabric->GetNic(0)->GetPort(0)->GetStats().txBytes;
    });
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();
    REQUIRE(p.aDone.size() == 1);
    CHECK(p.aDone[0].status == RdmaStatus::Success);
    CHECK(p.b->GetReceiverStats().placedBytes == 8192 * kKiB);
    // Every plane-1 path (1, 3, 5, 7) was declared failed, none of plane 0.
    std::set<uint32_t> failedPaths;
    for (const auto& f : ev.failures)
    {
        failedPaths.insert(std::get<0>(f));
        CHECK(std::get<1>(f) == 1);
        CHECK(std::get<4>(f) >= failAt);
    }
    CHECK(failedPaths == std::set<uint32_t>{1, 3, 5, 7});
    // After the failure, plane 0 carried (nearly) everything still to send:
    // more than half of the 8 MiB.
    const uint64_t plane0After =
        p.fabric->GetNic(0)->GetPort(0)->GetStats().txBytes - plane0AtFailure;
    CHECK(plane0After > 4096 * kKiB);
    CHECK(p.a->GetStats().stalls == 0);
}

TEST_CASE("conformance: stream completions follow post order under reversed arrival",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    RecordCompletions(p);
    // Stream 0: Send A (64 KiB) then Send B (4 KiB); stream 1: Send C (4 KiB).
    p.b->PostRecv(0, 100, 0, 0, 64 * kKiB);
    p.b->PostRecv(0, 101, 0, 0, 4 * kKiB);
    p.b->PostRecv(1, 102, 0, 0, 4 * kKiB);
    // A's packets arrive 30 us late, so B's data is in long before A's.
    Time bArrived;
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        if (h.stream == 0 && h.messageSeq == 0)
        {
            return MetaRoceFault{MetaRoceFault::Delay, MicroSeconds(30)};
        }
        if (h.stream == 0 && h.messageSeq == 1)
        {
            bArrived = Simulator::Now();
        }
        return Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    p.a->PostSend(0, 1, 64 * kKiB);
    p.a->PostSend(0, 2, 4 * kKiB);
    p.a->PostSend(1, 3, 4 * kKiB);
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    REQUIRE(p.bDone.size() == 3);
    // C (another stream) is not held up; B waits for A although it came first.
    CHECK(p.bDone[0].wrId == 102);
    CHECK(p.bDone[1].wrId == 100);
    CHECK(p.bDone[2].wrId == 101);
    CHECK(bArrived < p.bDone[1].completed - MicroSeconds(20));
    for (const auto& c : p.bDone)
    {
        CHECK(c.status == RdmaStatus::Success);
        CHECK(c.opcode == RdmaOpcode::Recv);
    }
    CHECK(p.bDone[1].bytes == 64 * kKiB);
    // The sender's completions keep post order within stream 0 as well.
    REQUIRE(p.aDone.size() == 3);
    std::vector<uint64_t> stream0;
    for (const auto& c : p.aDone)
    {
        if (c.stream == 0)
        {
            stream0.push_back(c.wrId);
        }
    }
    CHECK(stream0 == std::vector<uint64_t>{1, 2});
}

TEST_CASE("conformance: random loss with payload integrity: every message completes, "
          "every byte right",
          "[metaroce][conformance]")
{
    const double loss = GENERATE(0.01, 0.10);
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3, IntegrityHelper());
    RecordCompletions(p);
    // Loss at every NIC receive port: each data packet and each ACK is lost
    // with probability `loss` end to end.
    InstallNicLoss(p.fabric, loss, 500);
    const uint64_t total = 2048 * kKiB;
    IntegrityBuffers buf(p, total);
    // Eight 192 KiB writes on two streams, then four 128 KiB sends.
    const uint32_t writeLen = 192 * kKiB;
    for (uint32_t i = 0; i < 8; ++i)
    {
        p.a->PostWrite(i % 2,
                       i,
                       0x900000 + i * writeLen,
                       buf.rkey,
                       writeLen,
                       0x100000 + i * writeLen,
                       buf.lkey);
    }
    const uint64_t sendBase = 8 * writeLen;
    const uint32_t sendLen = 128 * kKiB;
    for (uint32_t i = 0; i < 4; ++i)
    {
        p.b->PostRecv(2, 100 + i, 0x900000 + sendBase + i * sendLen, buf.rkey, sendLen);
        p.a->PostSend(2, 10 + i, sendLen, 0x100000 + sendBase + i * sendLen, buf.lkey);
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    CAPTURE(loss);
    REQUIRE(p.aDone.size() == 12);
    REQUIRE(p.bDone.size() == 4);
    for (const auto& c : p.aDone)
    {
        CHECK(c.status == RdmaStatus::Success);
    }
    for (const auto& c : p.bDone)
    {
        CHECK(c.status == RdmaStatus::Success);
    }
    const uint64_t used = sendBase + 4 * sendLen;
    CHECK(buf.WrongBytes(0, used) == 0);
    CHECK(buf.NotOnce(0, used) == 0);
    // Loss really happened and was repaired by retransmission.
    CHECK(p.a->GetStats().retransmissions > 0);
    CHECK(p.a->GetStats().stalls == 0);
}

TEST_CASE("conformance: N-to-1 incast converges to the fair share within two RTTs of the "
          "first ACK",
          "[metaroce][conformance]")
{
    // 16 hosts, 8 per leaf; senders 0..7 (leaf 0) write to host 15 (leaf 1).
    FabricSpec spec = TinySpec({{"hosts", 16}, {"clos", {{"hosts_per_leaf", 8}}}});
    FabricBuilder builder(spec);
    Ptr<Fabric> fabric = builder.Build();
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    const uint32_t n = 8;
    std::vector<Ptr<MetaRoceConnection>> senders;
    std::vector<PathEvents> events(n);
    Time firstAck = Seconds(1);
    for (uint32_t i = 0; i < n; ++i)
    {
        auto [a, b] = RdmaTransport::Connect(transports[i], transports[15]);
        senders.push_back(DynamicCast<MetaRoceConnection>(a));
        events[i].Attach(senders.back());
        const uint32_t rkey = b->GetLocalMemory()->Register(0, 4096 * kKiB);
        a->PostWrite(0, 1, 0, rkey, 4096 * kKiB);
    }
    Simulator::Stop(MicroSeconds(200));
    Simulator::Run();
    for (const auto& e : events)
    {
        for (const auto& [plane, series] : e.planeRates)
        {
            if (!series.empty())
            {
                firstAck = std::min(firstAck, series.front().first);
            }
        }
    }
    // Base RTT across two leaves: 8 us of propagation plus serialisation.
    const Time rtt = MicroSeconds(10);
    const double fair = 100e9 * 0.95 / n;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t plane = 0; plane < 2; ++plane)
        {
            const auto& series = events[i].planeRates[plane];
            REQUIRE_FALSE(series.empty());
            // The rate in force two RTTs after the first ACK, and ever after.
            for (const auto& [t, bps] : series)
            {
                if (t >= firstAck + 2 * rtt)
                {
                    CAPTURE(i, plane, t);
                    CHECK(double(bps) == Approx(fair).epsilon(0.10));
                }
            }
            uint64_t atDeadline = series.front().second;
            for (const auto& [t, bps] : series)
            {
                if (t <= firstAck + 2 * rtt)
                {
                    atDeadline = bps;
                }
            }
            CAPTURE(i, plane);
            CHECK(double(atDeadline) == Approx(fair).epsilon(0.10));
        }
    }
}

TEST_CASE("verbs: receiver-not-ready, bad key, out of bounds and length errors",
          "[metaroce][conformance]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3, IntegrityHelper());
    RecordCompletions(p);
    IntegrityBuffers buf(p, 64 * kKiB);
    SECTION("a Send before its receive is posted is retried until it is")
    {
        p.a->PostSend(0, 1, 16 * kKiB, 0x100000, buf.lkey);
        Simulator::Schedule(MicroSeconds(30),
                            [&]() { p.b->PostRecv(0, 9, 0x900000, buf.rkey, 16 * kKiB); });
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        REQUIRE(p.bDone.size() == 1);
        CHECK(p.bDone[0].status == RdmaStatus::Success);
        CHECK(p.bDone[0].completed >= MicroSeconds(30));
        REQUIRE(p.aDone.size() == 1);
        CHECK(p.aDone[0].status == RdmaStatus::Success);
        CHECK(p.a->GetStats().rnrRetries > 0);
        CHECK(buf.WrongBytes(0, 16 * kKiB) == 0);
        CHECK(buf.NotOnce(0, 16 * kKiB) == 0);
    }
    SECTION("a write with an unknown key fails and places nothing")
    {
        p.a->PostWrite(0, 1, 0x900000, buf.rkey + 77, 16 * kKiB, 0x100000, buf.lkey);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        REQUIRE(p.aDone.size() == 1);
        CHECK(p.aDone[0].status == RdmaStatus::RemoteAccessError);
        CHECK(p.b->GetReceiverStats().placedBytes == 0);
    }
    SECTION("a write past the end of the region fails and places nothing")
    {
        p.a->PostWrite(0, 1, 0x900000 + 60 * kKiB, buf.rkey, 8 * kKiB, 0x100000, buf.lkey);
        p.a->PostWrite(0, 2, 0x900000, buf.rkey, 4 * kKiB, 0x100000, buf.lkey);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        REQUIRE(p.aDone.size() == 2);
        CHECK(p.aDone[0].status == RdmaStatus::RemoteAccessError);
        CHECK(p.aDone[1].status == RdmaStatus::Success);      // the stream goes on
        CHECK(buf.NotOnce(4 * kKiB, 60 * kKiB) == 60 * kKiB); // untouched
        CHECK(buf.NotOnce(0, 4 * kKiB) == 0);
    }
    SECTION("a Send longer than its receive fails on both sides")
    {
        p.b->PostRecv(0, 9, 0x900000, buf.rkey, 4 * kKiB);
        p.a->PostSend(0, 1, 8 * kKiB, 0x100000, buf.lkey);
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        REQUIRE(p.aDone.size() == 1);
        CHECK(p.aDone[0].status == RdmaStatus::LengthError);
        REQUIRE(p.bDone.size() == 1);
        CHECK(p.bDone[0].status == RdmaStatus::LengthError);
        CHECK(p.b->GetReceiverStats().placedBytes == 0);
    }
}

TEST_CASE("conformance: the watchdog reports a transfer that cannot progress",
          "[metaroce][conformance]")
{
    RdmaTransportHelper h("ns3::MetaRoceTransport");
    h.SetConnectionAttribute("WatchdogTimeout", TimeValue(MicroSeconds(300)));
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3, h);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    DataFaults faults{[&](const MetaRoceDataHeader&, uint32_t) { return Drop(); }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 64 * kKiB);
    p.a->PostWrite(0, 42, 0, rkey, 64 * kKiB);
    Simulator::Stop(MicroSeconds(1000));
    Simulator::Run();
    CHECK(p.aDone.empty());
    // Reported at 300, 600 and 900 us, naming the connection and the request.
    REQUIRE(ev.stalls.size() == 3);
    CHECK(ev.stalls[0] == std::make_pair(p.a->GetId(), uint64_t(42)));
    // Nothing was ever acknowledged: the last progress is the post, at 0.
    CHECK(ev.stalledSince[0] == Seconds(0));
    // The report names the path holding the oldest unacknowledged packet.
    INFO("reported path " << ev.stalledPaths[0]);
    CHECK(ev.stalledPaths[0] >= 0); // the paths keep probing: one holds the oldest probe
    CHECK(ev.stalledPaths[0] < int32_t(p.a->GetNPaths()));
    CHECK_FALSE(ev.failures.empty()); // its paths kept failing and probing meanwhile
}

namespace
{
/** MetaRoceAimd that records the flow failures it is told of. */
class FailureRecordingAimd : public MetaRoceAimd
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FailureRecordingAimd")
                                .SetParent<MetaRoceAimd>()
                                .SetGroupName("MetaRoce")
                                .AddConstructor<FailureRecordingAimd>();
        return tid;
    }

    void FlowFailed(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now) override
    {
        s_failures.push_back(now);
    }

    static std::vector<Time> s_failures;
};

std::vector<Time> FailureRecordingAimd::s_failures;
NS_OBJECT_ENSURE_REGISTERED(FailureRecordingAimd);
} // namespace

TEST_CASE("conformance: the congestion policy sees a path's failure when it is declared",
          "[metaroce][conformance]")
{
    // A path given up (here: a blackholed route, FailureThreshold timeouts)
    // is an event of the congestion policy, at the instant of the
    // connection's PathFailed trace, once per failure.
    FailureRecordingAimd::s_failures.clear();
    RdmaTransportHelper helper("ns3::MetaRoceTransport");
    helper.SetConnectionAttribute("CongestionOps", TypeIdValue(FailureRecordingAimd::GetTypeId()));
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3, helper);
    RecordCompletions(p);
    PathEvents ev;
    ev.Attach(p.a);
    DataFaults faults{[&](const MetaRoceDataHeader& h, uint32_t) {
        return h.pathId == 5 && h.pathEpoch == 0 ? Drop() : Deliver();
    }};
    p.Transport(3)->SetDataFaultInjector(MakeCallback(&DataFaults::Call, &faults));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0, 4096 * kKiB);
    p.a->PostWrite(0, 1, 0, rkey, 4096 * kKiB);
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    REQUIRE(p.aDone.size() == 1);
    REQUIRE(ev.failures.size() == 1);
    REQUIRE(FailureRecordingAimd::s_failures.size() == 1);
    CHECK(FailureRecordingAimd::s_failures[0] == std::get<4>(ev.failures[0]));
    CHECK(FailureRecordingAimd::s_failures[0] > Time(0));
}
