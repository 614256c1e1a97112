/*
 * The end-of-simulation invariants (Fabric::CheckInvariants,
 * helper/fabric-invariants.*, docs/hardening.md): they hold on real PFC runs
 * of both transports and are not vacuous there (XOFF seen and confirmed at
 * the peers, requests outstanding and counted), and every check reports a
 * state corrupted on purpose: a snapshot edited by hand for each relation,
 * a live fabric corrupted through the switch's own interface, and a
 * connection that completes what was never posted, twice, or not at all.
 */
#include "fabric-invariants.h"
#include "fabric-stats.h"
#include "fabric-traffic-sink.h"
#include "fabric-traffic-source.h"
#include "rocev2-connection.h"
#include "test-metaroce-util.h"

#include "ns3/boolean.h"
#include "ns3/integer.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>

using namespace ns3;
using namespace ns3::test;

namespace
{

constexpr uint8_t kDataDscp = 26; // the data class (anything but ControlDscp 48)
constexpr uint8_t kLossless = 3;  // DataPriority default

using test::OneLeafSpec;

void
AddLineRateSource(Ptr<Fabric> fabric, uint32_t from, uint32_t to, uint64_t packets)
{
    Ptr<FabricTrafficSource> src = CreateObject<FabricTrafficSource>();
    src->SetAttribute("DataRate", DataRateValue(DataRate("100Gbps")));
    src->SetAttribute("PacketSize", UintegerValue(4096));
    src->SetAttribute("DestinationHost", UintegerValue(to));
    src->SetAttribute("Plane", IntegerValue(0));
    src->SetAttribute("SourcePort", UintegerValue(20000 + 100 * from + to));
    src->SetAttribute("Dscp", UintegerValue(kDataDscp));
    src->SetAttribute("EcnCapable", BooleanValue(false));
    src->SetAttribute("MaxPackets", UintegerValue(packets));
    fabric->GetHost(from)->AddApplication(src);
}

/**
 * Hosts 1..8 send 200 x 4 KiB each at line rate to host 0: the leaf's
 * ingresses pass XOFF within ~15 us and stay paused while the port to host
 * 0 drains 6.6 MB (~530 us).
 */
Ptr<Fabric>
BuildIncast(const nlohmann::json& pfcPatch = nlohmann::json::object())
{
    FabricBuilder builder(OneLeafSpec(9, true, pfcPatch));
    Ptr<Fabric> fabric = builder.Build();
    fabric->GetHost(0)->AddApplication(CreateObject<FabricTrafficSink>());
    for (uint32_t h = 1; h <= 8; ++h)
    {
        AddLineRateSource(fabric, h, 0, 200);
    }
    return fabric;
}

std::vector<std::string>
AllFabricChecks(const FabricInvariantSnapshot& s)
{
    std::vector<std::string> v = CheckBufferInvariants(s);
    for (auto& x : CheckPfcInvariants(s))
    {
        v.push_back(x);
    }
    return v;
}

/** Whether some violation starts with \p tag and contains \p text. */
bool
Reports(const std::vector<std::string>& violations, const std::string& tag, const std::string& text)
{
    return std::any_of(violations.begin(), violations.end(), [&](const std::string& v) {
        return v.rfind(tag + ": ", 0) == 0 && v.find(text) != std::string::npos;
    });
}

std::string
Joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += x + "\n";
    }
    return s;
}

/** The (ingress, priority) pairs of the leaf (switch view 0) in XOFF. */
std::vector<uint32_t>
XoffIngresses(const FabricInvariantSnapshot& s)
{
    std::vector<uint32_t> out;
    for (uint32_t j = 0; j < s.switches[0].ingress.size(); ++j)
    {
        if (s.switches[0].ingress[j][kLossless].xoff)
        {
            out.push_back(j);
        }
    }
    return out;
}

} // namespace

TEST_CASE("invariants: a PFC incast stopped mid-pause passes every buffer and PFC check, with "
          "XOFF confirmed at the paused peers",
          "[invariants][pfc]")
{
    Ptr<Fabric> fabric = BuildIncast();
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    REQUIRE(fabric->GetPfcLog() != nullptr); // the suite sets s_checkInvariantsOnDispose
    const FabricInvariantSnapshot s = TakeInvariantSnapshot(*fabric, fabric->GetPfcLog());
    PfcCheckCoverage cov;
    const auto pfc = CheckPfcInvariants(s, &cov);
    const auto buffer = CheckBufferInvariants(s);
    INFO(Joined(pfc) << Joined(buffer));
    CHECK(pfc.empty());
    CHECK(buffer.empty());
    CHECK(fabric->CheckInvariants().empty());
    // Not vacuous: 9 ingresses x 8 priorities checked, the senders' links
    // in XOFF, each sender's NIC port holding the PAUSE and paused now, its
    // pause matched to that frame.
    CHECK(cov.ingressesChecked == 9 * 8);
    CHECK(cov.xoffChecked >= 4);
    CHECK(cov.peerPausedConfirmed >= 4);
    CHECK(cov.openPausesChecked >= 4);
    CHECK(s.switches.size() == 1);
    CHECK(s.switches[0].xoffNow == cov.xoffChecked);
}

TEST_CASE("invariants: each buffer and PFC check reports its own corruption of a real snapshot",
          "[invariants][pfc]")
{
    Ptr<Fabric> fabric = BuildIncast();
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    const FabricInvariantSnapshot real = TakeInvariantSnapshot(*fabric, fabric->GetPfcLog());
    REQUIRE(AllFabricChecks(real).empty());
    const std::vector<uint32_t> xoff = XoffIngresses(real);
    REQUIRE(xoff.size() >= 2);
    const uint8_t p = kLossless;
    const SwitchInvariantView& leaf = real.switches[0];
    const uint32_t j = xoff[0];                          // an ingress in XOFF
    const uint32_t in = leaf.ports[j];                   // its port (on the leaf)
    const uint32_t peer = uint32_t(real.ports[in].peer); // the sender's NIC port, paused
    REQUIRE(real.ports[peer].pauseOpen[p]);
    uint32_t idle = UINT32_MAX; // an ingress never in XOFF: host 0's link
    for (uint32_t k = 0; k < leaf.ingress.size(); ++k)
    {
        if (!leaf.ingress[k][p].xoff && !real.ports[leaf.ports[k]].lastSent[p].valid)
        {
            idle = k;
        }
    }
    REQUIRE(idle != UINT32_MAX);
    const uint32_t idlePort = leaf.ports[idle];
    const uint32_t idlePeer = uint32_t(real.ports[idlePort].peer); // host 0's NIC port
    uint32_t busy = UINT32_MAX; // a switch port with frames queued (towards host 0)
    for (uint32_t k : leaf.ports)
    {
        if (real.ports[k].queuedFrameBytes > 0)
        {
            busy = k;
        }
    }
    REQUIRE(busy != UINT32_MAX);
    const int64_t now = real.nowPs;

    struct Case
    {
        const char* tag;
        const char* text;
        std::function<void(FabricInvariantSnapshot&)> corrupt;
    };

    const std::vector<Case> cases = {
        // Buffers
        {"queue counter", "bytes queued", [&](auto& s) { s.ports[busy].queueBytesCounter += 1; }},
        {"queue counter",
         "of serialisation queued",
         [&](auto& s) { s.ports[busy].queuedPsCounter[1] += 1; }},
        {"buffer charge", "charged: pool", [&](auto& s) { s.ports[busy].poolChargedBytes += 64; }},
        {"buffer charge", "NIC port", [&](auto& s) { s.ports[peer].poolChargedBytes = 64; }},
        {"shared buffer", "in use", [&](auto& s) { s.switches[0].used += 64; }},
        {"shared buffer",
         "of a pool of",
         [&](auto& s) { s.switches[0].used = uint64_t(0) - 64; }}, // an underflow
        {"shared buffer", "reserves", [&](auto& s) { s.switches[0].reserved += 1; }},
        // PFC accounting and XOFF
        {"pfc accounting",
         "lossless bytes from it are queued",
         [&](auto& s) { s.switches[0].ingress[j][p].queuedLossless -= 1; }},
        {"pfc accounting",
         "does not have",
         [&](auto& s) { s.switches[0].strayLosslessBytes = 64; }},
        {"pfc accounting", "PFC off", [&](auto& s) { s.switches[0].pfcEnabled = false; }},
        {"pfc headroom",
         "in a headroom of",
         [&](auto& s) {
             auto& x = s.switches[0].ingress[j][p];
             x.headroom = s.switches[0].headroomCap[j] + 1;
             x.queuedLossless = x.shared + x.headroom;
         }},
        {"pfc xoff",
         "in headroom but not in XOFF",
         [&](auto& s) {
             auto& x = s.switches[0].ingress[idle][p];
             x.headroom = 100;
             x.queuedLossless = 100;
         }},
        {"pfc xoff",
         "with nothing charged",
         [&](auto& s) {
             auto& x = s.switches[0].ingress[j][p];
             x.shared = x.headroom = x.queuedLossless = 0;
         }},
        {"pfc xoff",
         "at or below XON",
         [&](auto& s) {
             auto& x = s.switches[0].ingress[j][p];
             x.headroom = 0;
             x.queuedLossless = x.shared;
             s.switches[0].staticXoffBytes = uint32_t(x.shared) + s.switches[0].xonDeltaBytes;
         }},
        {"pfc xoff", "ingresses in XOFF", [&](auto& s) { s.switches[0].xoffNow += 1; }},
        {"pfc xoff", "departures", [&](auto& s) { s.ports[idlePort].trackingDepartures = false; }},
        // Refresh
        {"pfc refresh",
         "no refresh pending",
         [&](auto& s) { s.switches[0].ingress[j][p].refreshPs = -1; }},
        {"pfc refresh",
         "interval",
         [&](auto& s) {
             s.switches[0].ingress[j][p].refreshPs =
                 now + s.switches[0].refreshIntervalPs[j] + 1000;
         }},
        {"pfc refresh",
         "not half a pause",
         [&](auto& s) { s.switches[0].ingress[j][p].refreshPs -= 1000; }},
        {"pfc refresh",
         "while not in XOFF",
         [&](auto& s) { s.switches[0].ingress[idle][p].refreshPs = now + 1000; }},
        // What the peer believes
        {"pfc peer", "was PAUSE(0)", [&](auto& s) { s.ports[in].lastSent[p].quanta = 0; }},
        {"pfc peer",
         "is not paused now",
         [&](auto& s) {
             s.ports[peer].pausedUntilPs[p] = now; // (also breaks its own pause checks)
         }},
        {"pfc peer",
         "received the resume",
         [&](auto& s) {
             // Not in XOFF, resume sent and heard, yet the peer's pause is open.
             auto& x = s.switches[0].ingress[j][p];
             x.xoff = false;
             x.refreshPs = -1;
             s.switches[0].xoffNow -= 1;
             s.ports[in].lastSent[p].quanta = 0;
             s.ports[peer].lastReceived[p].quanta = 0;
         }},
        {"pfc peer",
         "never reached",
         [&](auto& s) {
             s.ports[peer].lastReceived[p].uid += 1000000;
             s.ports[peer].linkFramesInFlight = 0;
         }},
        // The paused transmitter
        {"pfc pause", "on a link that is down", [&](auto& s) { s.ports[peer].linkUp = false; }},
        {"pfc pause",
         "does not obey",
         [&](auto& s) {
             s.ports[peer].pauseOpen[5] = true;
             s.ports[peer].pausedUntilPs[5] = s.ports[peer].pausedUntilPs[p];
             s.ports[peer].pauseStartPs[5] = s.ports[peer].pauseStartPs[p];
         }},
        {"pfc pause", "open pause from", [&](auto& s) { s.ports[peer].pauseStartPs[p] = now + 1; }},
        {"pfc pause", "not pending", [&](auto& s) { s.ports[peer].pauseWakePs = -1; }},
        {"pfc pause",
         "does not match the last PFC frame",
         [&](auto& s) { s.ports[peer].pausedUntilPs[p] += 1000; }},
        {"pfc pause",
         "closed pause ends",
         [&](auto& s) { s.ports[idlePeer].pausedUntilPs[p] = now + 1000; }},
        {"pfc pause", "with no pause open", [&](auto& s) { s.ports[idlePeer].pauseWakePs = now; }},
        {"pfc pause", "class view", [&](auto& s) { s.ports[peer].controlClassPaused = true; }},
        {"pfc paused time", "paused", [&](auto& s) { s.ports[peer].pausedPs = uint64_t(now) + 1; }},
        {"pfc paused time",
         "paused",
         [&](auto& s) { s.ports[peer].pausedPs = uint64_t(0) - 5; }}, // a negative episode
    };
    for (const auto& c : cases)
    {
        FabricInvariantSnapshot s = real;
        c.corrupt(s);
        const auto v = AllFabricChecks(s);
        INFO(c.tag << " / " << c.text << ":\n" << Joined(v));
        CHECK(Reports(v, c.tag, c.text));
    }
}

TEST_CASE("invariants: a live PFC fabric corrupted through the switch's interface fails the "
          "check, and a rogue resume is repaired by the next refresh",
          "[invariants][pfc]")
{
    Ptr<Fabric> fabric = BuildIncast();
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    REQUIRE(fabric->CheckInvariants().empty());
    Ptr<FabricSwitch> leaf = fabric->GetLeaf(0, 0);
    const FabricInvariantSnapshot s = TakeInvariantSnapshot(*fabric, fabric->GetPfcLog());
    const std::vector<uint32_t> xoff = XoffIngresses(s);
    REQUIRE(!xoff.empty());
    const uint32_t j = xoff[0];

    // Bytes reserved in the shared buffer that no frame holds.
    REQUIRE(leaf->GetBuffer()->TryReserve(1000));
    {
        const auto v = fabric->CheckInvariants();
        INFO(Joined(v));
        CHECK(Reports(v, "shared buffer", "in use"));
    }
    leaf->GetBuffer()->Release(1000);
    CHECK(fabric->CheckInvariants().empty());

    // A lossless charge admitted for a frame that was never queued.
    REQUIRE(leaf->AdmitLossless(j, kLossless, 500) == PfcAdmission::Admitted);
    {
        const auto v = fabric->CheckInvariants();
        INFO(Joined(v));
        CHECK(Reports(v, "pfc accounting", "lossless bytes from it are queued"));
    }
    leaf->ReleaseLossless(j, kLossless, 500);
    CHECK(fabric->CheckInvariants().empty());

    // A resume the switch did not decide, sent out of an ingress in XOFF:
    // the last frame contradicts XOFF at once, and once it has arrived the
    // sender transmits while the switch still counts on it being paused
    // (its headroom fills).
    leaf->GetPort(j)->SendPfc(kLossless, 0);
    {
        const auto v = fabric->CheckInvariants();
        INFO(Joined(v));
        CHECK(Reports(v, "pfc peer", "was PAUSE(0)"));
    }
    Simulator::Stop(MicroSeconds(5));
    Simulator::Run();
    {
        const auto v = fabric->CheckInvariants();
        INFO(Joined(v));
        CHECK(Reports(v, "pfc peer", "was PAUSE(0)"));
        CHECK(Reports(v, "pfc peer", "heard PAUSE(0)"));
    }
    // The refresh due half a pause (167.77 us) after the last real PAUSE
    // pauses it again (or the ingress has resumed by then): consistent.
    Simulator::Stop(MicroSeconds(200));
    Simulator::Run();
    const auto v = fabric->CheckInvariants();
    INFO(Joined(v));
    CHECK(v.empty());
}

TEST_CASE("invariants: a static XOFF and a link failure mid-pause keep the PFC state consistent",
          "[invariants][pfc]")
{
    // Static XOFF (40,000 bytes, XON 22,000), so "XOFF implies above XON"
    // is checked too; at 40 us one sender's link fails while it is paused:
    // its pause ends with the link (nothing may stay open on a dead link),
    // the frames it had queued at the leaf are flushed and released.
    Ptr<Fabric> fabric = BuildIncast({{"xoff", 40000}, {"alpha", nullptr}});
    const int32_t link = fabric->FindLink("p0/h3-l0");
    REQUIRE(link >= 0);
    fabric->ScheduleLinkUp(MicroSeconds(40), link, false);
    fabric->ScheduleLinkUp(MicroSeconds(70), link, true);
    for (int us : {30, 45, 80, 600})
    {
        Simulator::Schedule(MicroSeconds(us), [fabric, us]() {
            const auto v = fabric->CheckInvariants();
            INFO("at " << us << " us:\n" << Joined(v));
            CHECK(v.empty());
        });
    }
    Simulator::Stop(MicroSeconds(800));
    Simulator::Run();
    CHECK(fabric->GetLeaf(0, 0)->GetPfcXoffCount() > 0);
    CHECK(fabric->CheckInvariants().empty());
}

// ---- Completions ---------------------------------------------------------------

namespace
{

/** A connection whose completions the test delivers by hand. */
class ScriptedConnection : public RdmaConnection
{
  public:
    void Post(const RdmaWorkRequest& wr) override
    {
        CountPosted(wr);
        ++held;
    }

    void PostRecv(const RdmaRecvRequest& rr) override
    {
        CountPosted(rr);
        ++held;
    }

    using RdmaConnection::PostRecv;

    void Deliver(uint64_t wrId, RdmaOpcode opcode, uint16_t stream = 0)
    {
        RdmaCompletion c;
        c.wrId = wrId;
        c.opcode = opcode;
        c.stream = stream;
        c.completed = Simulator::Now();
        held = std::max<int64_t>(0, held - 1);
        Complete(c);
    }

    int64_t GetHeldWorkRequests() const override
    {
        return held;
    }

    uint64_t GetDeliveredBytes() const override
    {
        return 0;
    }

    uint64_t GetSentPackets() const override
    {
        return 0;
    }

    uint64_t GetRetransmittedPackets() const override
    {
        return 0;
    }

    int64_t held = 0;
};

std::vector<std::string>
Audit(const Ptr<ScriptedConnection>& c)
{
    return CheckWorkRequestAudit(c->GetWorkRequestAudit(), "scripted");
}

} // namespace

TEST_CASE("invariants: completions of requests never posted, completed twice, or lost are "
          "reported",
          "[invariants][transport]")
{
    Ptr<ScriptedConnection> c = CreateObject<ScriptedConnection>();
    c->EnableWorkRequestTracking();
    c->PostWrite(0, 1, 0, 0, 100);
    c->PostSend(0, 2, 100);
    c->PostRecv(1, 3, 0, 0, 100);
    c->PostWrite(0, 4, 0, 0, 100);
    c->Deliver(1, RdmaOpcode::Write);
    c->Deliver(2, RdmaOpcode::Send);
    c->Deliver(3, RdmaOpcode::Recv, 1);
    auto a = c->GetWorkRequestAudit();
    CHECK(a.tracked);
    CHECK(a.posted == 4);
    CHECK(a.completed == 3);
    CHECK(a.trackedOutstanding == 1); // wrId 4: outstanding, counted
    CHECK(a.held == 1);
    CHECK(Audit(c).empty());

    SECTION("a second completion of a request")
    {
        c->Deliver(1, RdmaOpcode::Write); // wrId 4 still outstanding: counts alone cannot tell
        const auto v = Audit(c);
        INFO(Joined(v));
        CHECK(Reports(v, "completion", "already completed"));
        CHECK_FALSE(Reports(v, "completion", "nothing of their kind"));
    }
    SECTION("a completion of a request never posted")
    {
        c->Deliver(99, RdmaOpcode::Write);
        const auto v = Audit(c);
        INFO(Joined(v));
        CHECK(Reports(v, "completion", "never posted"));
        CHECK(Reports(v, "completion", "wr=99"));
    }
    SECTION("the same wrId on another stream or opcode is another request")
    {
        c->Deliver(4, RdmaOpcode::Write, 1);
        CHECK(Reports(Audit(c), "completion", "never posted"));
    }
    SECTION("a request the transport dropped without completing it")
    {
        c->held -= 1;
        const auto v = Audit(c);
        INFO(Joined(v));
        CHECK(Reports(v, "completion", "lost without a completion"));
    }
    SECTION("a completion with nothing of its kind outstanding, even without tracking")
    {
        Ptr<ScriptedConnection> u = CreateObject<ScriptedConnection>();
        u->PostRecv(0, 5, 0, 0, 100);
        u->Deliver(5, RdmaOpcode::Write); // a Write completion, only a Recv was posted
        const auto v = Audit(u);
        INFO(Joined(v));
        CHECK_FALSE(u->GetWorkRequestAudit().tracked);
        CHECK(Reports(v, "completion", "nothing of their kind outstanding"));
    }
    SECTION("a reused wrId completes as often as it was posted")
    {
        c->PostWrite(0, 1, 0, 0, 100);
        c->Deliver(1, RdmaOpcode::Write);
        CHECK(Audit(c).empty());
        c->Deliver(4, RdmaOpcode::Write);
        CHECK(Audit(c).empty());
        c->PostWrite(0, 6, 0, 0, 100); // keeps the send side outstanding
        c->Deliver(1, RdmaOpcode::Write);
        CHECK(Reports(Audit(c), "completion", "already completed"));
    }
    SECTION("per-request books that missed a post")
    {
        auto b = c->GetWorkRequestAudit();
        b.posted += 1;
        b.held += 1;
        CHECK(Reports(CheckWorkRequestAudit(b, "edited"), "completion", "requests tracked leave"));
    }
    c->Dispose();
}

namespace
{

/**
 * Hosts 1..6 each write 1 MiB to host 0 and send it 64 KiB into a posted
 * receive, over the PFC leaf, with \p transport; checked at \p stopAt.
 */
void
RunTransportIncast(const std::string& transport, Time stopAt, bool expectOutstanding)
{
    // A static XOFF of 20,000 bytes: the senders are paused within microseconds.
    FabricBuilder builder(OneLeafSpec(7, true, {{"xoff", 20000}, {"alpha", nullptr}}));
    Ptr<Fabric> fabric = builder.Build();
    RdmaTransportHelper helper(transport);
    auto transports = helper.Install(fabric);
    std::vector<RdmaCompletion> done;
    std::vector<Ptr<RdmaConnection>> conns;
    for (uint32_t src = 1; src < 7; ++src)
    {
        auto [a, b] = RdmaTransport::Connect(transports[src], transports[0]);
        a->SetCompletionCallback(CollectInto(&done));
        b->SetCompletionCallback(CollectInto(&done));
        const uint32_t rkey = b->GetLocalMemory()->Register(0, 1 << 20);
        b->PostRecv(1, 100 + src, 0, 0, 64 * 1024);
        a->PostWrite(0, src, 0, rkey, 1 << 20);
        a->PostSend(1, 200 + src, 64 * 1024);
        conns.push_back(a);
        conns.push_back(b);
    }
    Simulator::Stop(stopAt);
    Simulator::Run();
    const auto v = fabric->CheckInvariants();
    INFO(transport << " at " << stopAt.As(Time::US) << ":\n" << Joined(v));
    CHECK(v.empty());
    uint64_t outstanding = 0;
    for (const auto& c : conns)
    {
        const auto a = c->GetWorkRequestAudit();
        CHECK(a.tracked);
        CHECK(a.posted > 0);
        CHECK(a.held == int64_t(a.posted - a.completed));
        CHECK(a.trackedOutstanding == a.posted - a.completed);
        outstanding += a.trackedOutstanding;
        // The check is live on real connections too: one request more or
        // less than the transport holds is reported.
        auto edited = a;
        edited.held += edited.held > 0 ? -1 : 1;
        CHECK(
            Reports(CheckWorkRequestAudit(edited, "edited"), "completion", "the transport holds"));
    }
    const FabricStats st = CollectFabricStats(*fabric, Simulator::Now());
    CHECK(st.pfcFramesSent > 0);
    CHECK(st.TotalDrops() == 0);
    if (expectOutstanding)
    {
        CHECK(outstanding > 0);
        CHECK(done.size() < 18);
    }
    else
    {
        CHECK(outstanding == 0);
        CHECK(done.size() == 18); // 6 writes, 6 sends, 6 receives
    }
}

} // namespace

TEST_CASE("invariants: RoCEv2 over PFC, every completion matched, outstanding work counted",
          "[invariants][transport][rocev2][pfc]")
{
    RunTransportIncast("ns3::RoceV2Transport", MicroSeconds(200), true);
    Simulator::Destroy();
    RunTransportIncast("ns3::RoceV2Transport", MilliSeconds(5), false);
}

TEST_CASE("invariants: MetaRoCE over PFC, every completion matched, outstanding work counted",
          "[invariants][transport][metaroce][pfc]")
{
    RunTransportIncast("ns3::MetaRoceTransport", MicroSeconds(200), true);
    Simulator::Destroy();
    RunTransportIncast("ns3::MetaRoceTransport", MilliSeconds(5), false);
}
