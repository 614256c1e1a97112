#include "fabric-invariants.h"

#include "fabric.h"
#include "pfc-pause-header.h"
#include "rdma-transport.h"

#include "ns3/simulator.h"

#include <iomanip>
#include <sstream>
#include <unordered_map>

namespace ns3
{

namespace
{

/** Picoseconds as microseconds with picosecond precision ("12.345678us"). */
std::string
Us(int64_t ps)
{
    std::ostringstream os;
    os << (ps < 0 ? "-" : "") << std::llabs(ps) / 1'000'000 << "." << std::setw(6)
       << std::setfill('0') << std::llabs(ps) % 1'000'000 << "us";
    return os.str();
}

/** Collects violations as "<tag>: <text>" (tests look for the tags). */
class Violations
{
  public:
    explicit Violations(std::vector<std::string>& out)
        : m_out(out)
    {
    }

    template <typename... Args>
    void Add(const char* tag, const Args&... args)
    {
        std::ostringstream os;
        os << tag << ": ";
        (os << ... << args);
        m_out.push_back(os.str());
    }

  private:
    std::vector<std::string>& m_out;
};

std::string
Prio(uint32_t p)
{
    return "priority " + std::to_string(p);
}

} // namespace

// ---- FabricPfcLog ------------------------------------------------------------

FabricPfcLog::~FabricPfcLog()
{
    for (const auto& hook : m_hooks)
    {
        hook->port->TraceDisconnectWithoutContext("PfcTx", MakeCallback(&Hook::Sent, hook.get()));
        hook->port->TraceDisconnectWithoutContext("PfcRx",
                                                  MakeCallback(&Hook::Received, hook.get()));
    }
}

void
FabricPfcLog::Attach(const std::vector<Ptr<FabricPort>>& ports)
{
    NS_ABORT_MSG_IF(!m_hooks.empty(), "FabricPfcLog: attached twice");
    m_sent.assign(ports.size(), {});
    m_received.assign(ports.size(), {});
    for (uint32_t i = 0; i < ports.size(); ++i)
    {
        m_hooks.push_back(std::make_unique<Hook>(Hook{this, ports[i], i}));
        Hook* hook = m_hooks.back().get();
        ports[i]->TraceConnectWithoutContext("PfcTx", MakeCallback(&Hook::Sent, hook));
        ports[i]->TraceConnectWithoutContext("PfcRx", MakeCallback(&Hook::Received, hook));
    }
}

void
FabricPfcLog::Hook::Sent(Ptr<const Packet> frame)
{
    log->Record(log->m_sent[index], port, frame);
}

void
FabricPfcLog::Hook::Received(Ptr<const Packet> frame)
{
    log->Record(log->m_received[index], port, frame);
}

void
FabricPfcLog::Record(std::array<PfcFrameRecord, FabricPort::kPfcPriorities>& slot,
                     const Ptr<FabricPort>& port,
                     Ptr<const Packet> frame)
{
    PfcPauseHeader h;
    if (!PfcPauseHeader::Peek(*frame, &h))
    {
        return;
    }
    const Ptr<FabricChannel> channel = port->GetFabricChannel();
    for (uint8_t p = 0; p < FabricPort::kPfcPriorities; ++p)
    {
        if (h.IsEnabled(p))
        {
            slot[p] = PfcFrameRecord{true,
                                     frame->GetUid(),
                                     Simulator::Now().GetPicoSeconds(),
                                     h.GetQuanta(p),
                                     channel ? channel->GetEpoch() : 0};
        }
    }
}

// ---- Snapshot ----------------------------------------------------------------

namespace
{
/** Port \p i of Fabric::GetAllPorts (already brought up to date) as the checks see it. */
PortInvariantView
ReadPortView(const Fabric& fabric, uint32_t i, const FabricPort& port, const FabricPfcLog* log)
{
    PortInvariantView v;
    // GetAllPorts: link l's lower end at 2l, its upper end at 2l + 1.
    v.name = fabric.GetPortName(i / 2, i % 2 == 1);
    v.peer = int32_t(i ^ 1);
    v.linkUp = port.IsLinkUp();
    const Ptr<FabricChannel> channel = port.GetFabricChannel();
    v.linkEpoch = channel ? channel->GetEpoch() : 0;
    v.linkFramesInFlight = channel ? channel->GetFramesInFlight() : 0;
    v.errorModelDrops = port.GetStats().drops[static_cast<std::size_t>(DropReason::ErrorModel)];
    v.pfcEnabled = port.IsPfcEnabled();
    v.dataPriority = port.PriorityOf(FabricPort::kDataClass);
    v.queueBytesCounter = port.PeekQueueBytes();
    for (uint32_t cls = 0; cls < FabricPort::kTrafficClasses; ++cls)
    {
        v.queuedPsCounter[cls] = port.PeekQueuedPs(cls);
    }
    port.ForEachQueued([&v, &port](uint32_t cls,
                                   uint32_t bytes,
                                   uint32_t ingress,
                                   uint8_t priority,
                                   bool pool,
                                   bool lossless) {
        v.queuedFrameBytes += bytes;
        v.queuedFramePs[cls] += port.TransmissionPs(bytes);
        if (pool)
        {
            v.poolChargedBytes += bytes;
        }
        if (lossless)
        {
            v.losslessChargedBytes += bytes;
            v.losslessCharges.push_back({ingress, priority, bytes});
        }
    });
    for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
    {
        v.pauseOpen[p] = port.IsPauseOpen(p);
        v.pauseStartPs[p] = port.GetPauseStartPs(p);
        v.pausedUntilPs[p] = port.GetPausedUntilPs(p);
    }
    v.pauseWakePs = port.GetPauseWakePs();
    v.dataClassPaused = port.IsClassPaused(FabricPort::kDataClass);
    v.controlClassPaused = port.IsClassPaused(FabricPort::kControlClass);
    v.finishedPausedPs = port.GetStats().pfcPausedPs;
    v.pausedPs = uint64_t(port.GetPausedTime().GetPicoSeconds());
    v.maxPausePs = port.PauseQuantaPs(0xffff);
    v.trackingDepartures = port.IsTrackingDepartures();
    if (log)
    {
        v.logged = true;
        for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
        {
            v.lastSent[p] = log->LastSent(i, p);
            v.lastReceived[p] = log->LastReceived(i, p);
            v.lastReceivedPausePs[p] = port.PauseQuantaPs(v.lastReceived[p].quanta);
        }
    }
    return v;
}

/** Appends switch \p sw (named \p name) to s.switches and marks its ports' views as its. */
void
AddSwitchView(FabricInvariantSnapshot& s,
              const std::string& name,
              const FabricSwitch& sw,
              const std::unordered_map<const FabricPort*, uint32_t>& index)
{
    SwitchInvariantView w;
    w.name = name;
    w.pfcEnabled = sw.IsPfcEnabled();
    if (const Ptr<SharedBuffer> buffer = sw.GetBuffer())
    {
        w.capacity = buffer->Capacity();
        w.reserved = buffer->Reserved();
        w.used = buffer->Used();
        w.xoffBytesNow = sw.GetPfcXoffBytes();
    }
    w.staticXoffBytes = sw.GetPfcStaticXoffBytes();
    w.xonDeltaBytes = sw.GetPfcXonDeltaBytes();
    w.xoffNow = sw.GetPfcXoffNow();
    const uint32_t n = sw.GetNPorts();
    w.ports.resize(n);
    w.headroomCap.resize(n);
    w.refreshIntervalPs.resize(n);
    w.ingress.resize(n);
    for (uint32_t j = 0; j < n; ++j)
    {
        const Ptr<FabricPort> port = sw.GetPort(j);
        const auto it = index.find(PeekPointer(port));
        NS_ABORT_MSG_IF(it == index.end(),
                        "invariants: switch " << w.name << " port " << j << " is on no link");
        w.ports[j] = it->second;
        s.ports[it->second].owner = int32_t(s.switches.size());
        s.ports[it->second].sinkIndex = j;
        w.headroomCap[j] = sw.GetPfcHeadroomBytes(j);
        // ScheduleRefresh: half the pause time, truncated to whole nanoseconds.
        w.refreshIntervalPs[j] =
            int64_t(port->PauseQuantaPs(sw.GetPfcPauseQuanta()) / 2 / 1000) * 1000;
        for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
        {
            PfcIngressView& in = w.ingress[j][p];
            in.shared = sw.GetPfcSharedBytes(j, p);
            in.headroom = sw.GetPfcHeadroomUsedBytes(j, p);
            in.xoff = sw.IsPfcXoff(j, p);
            in.refreshPs = sw.GetPfcRefreshPs(j, p);
        }
    }
    for (uint32_t j = 0; j < n; ++j)
    {
        for (const auto& [ingress, priority, bytes] : s.ports[w.ports[j]].losslessCharges)
        {
            if (ingress < n && priority < PortInvariantView::kPriorities)
            {
                w.ingress[ingress][priority].queuedLossless += bytes;
            }
            else
            {
                w.strayLosslessBytes += bytes;
            }
        }
    }
    s.switches.push_back(std::move(w));
}
} // namespace

FabricInvariantSnapshot
TakeInvariantSnapshot(Fabric& fabric, const FabricPfcLog* log)
{
    FabricInvariantSnapshot s;
    const std::vector<Ptr<FabricPort>> ports = fabric.GetAllPorts();
    // Lazy departures: start every frame that is due, so queues, charges and
    // XON are what an eagerly scheduled port would show now.
    for (const auto& port : ports)
    {
        port->Sync();
    }
    s.nowPs = Simulator::Now().GetPicoSeconds();
    std::unordered_map<const FabricPort*, uint32_t> index;
    for (uint32_t i = 0; i < ports.size(); ++i)
    {
        index[PeekPointer(ports[i])] = i;
        s.ports.push_back(ReadPortView(fabric, i, *ports[i], log));
    }
    for (uint32_t vertex = 0; vertex < fabric.GetGraph().NumVertices(); ++vertex)
    {
        if (const Ptr<FabricSwitch> sw = fabric.GetSwitchAt(vertex))
        {
            AddSwitchView(s, fabric.GetGraph().VertexName(vertex), *sw, index);
        }
    }
    return s;
}

// ---- Buffers -------------------------------------------------------------------

namespace
{
/** One switch's shared buffer against what its ports and ingresses hold. */
void
CheckSharedBuffer(const FabricInvariantSnapshot& s, const SwitchInvariantView& sw, Violations& v)
{
    // The pool holds the lossy frames (TryReserve in EnqueueAt) and the
    // lossless bytes below XOFF (TryChargeShared); headroom bytes are
    // reserved, not used. Releases mirror both.
    uint64_t pool = 0;
    for (uint32_t j = 0; j < sw.ports.size(); ++j)
    {
        pool += s.ports[sw.ports[j]].poolChargedBytes;
    }
    uint64_t shared = 0;
    uint64_t headroomCaps = 0;
    for (uint32_t j = 0; j < sw.ingress.size(); ++j)
    {
        for (const PfcIngressView& in : sw.ingress[j])
        {
            shared += in.shared;
        }
        headroomCaps += sw.headroomCap[j];
    }
    if (sw.used != pool + shared)
    {
        v.Add("shared buffer",
              "switch ",
              sw.name,
              " has ",
              sw.used,
              " bytes in use, its charges account for ",
              pool + shared,
              " (lossy ",
              pool,
              " + lossless below XOFF ",
              shared,
              ")");
    }
    // TryReserve refuses beyond capacity - reserved, and Release only
    // gives back what was reserved: an underflow would wrap above it.
    if (sw.reserved > sw.capacity || sw.used > sw.capacity - sw.reserved)
    {
        v.Add("shared buffer",
              "switch ",
              sw.name,
              " uses ",
              sw.used,
              " bytes of a pool of ",
              sw.capacity,
              " - ",
              sw.reserved,
              " reserved");
    }
    // AddPort reserves each port's headroom out of the buffer under PFC.
    const uint64_t reserved = sw.pfcEnabled ? headroomCaps : 0;
    if (sw.reserved != reserved)
    {
        v.Add("shared buffer",
              "switch ",
              sw.name,
              " reserves ",
              sw.reserved,
              " bytes, its ports' headroom is ",
              reserved);
    }
}
} // namespace

std::vector<std::string>
CheckBufferInvariants(const FabricInvariantSnapshot& s)
{
    std::vector<std::string> out;
    Violations v(out);
    for (const PortInvariantView& port : s.ports)
    {
        // Every enqueue, start and flush moves the counter with the frame
        // (SetQueueBytes next to push_back / pop_front).
        if (port.queueBytesCounter != port.queuedFrameBytes)
        {
            v.Add("queue counter",
                  "port ",
                  port.name,
                  " counts ",
                  port.queueBytesCounter,
                  " bytes queued, its frames hold ",
                  port.queuedFrameBytes);
        }
        // Likewise the serialisation time each class's queue will take,
        // which GetIdlePs reports to the NIC scheduler.
        for (uint32_t cls = 0; cls < FabricPort::kTrafficClasses; ++cls)
        {
            if (port.queuedPsCounter[cls] != port.queuedFramePs[cls])
            {
                v.Add("queue counter",
                      "port ",
                      port.name,
                      " class ",
                      cls,
                      " counts ",
                      Us(int64_t(port.queuedPsCounter[cls])),
                      " of serialisation queued, its frames take ",
                      Us(int64_t(port.queuedFramePs[cls])));
            }
        }
        const uint64_t charged = port.poolChargedBytes + port.losslessChargedBytes;
        if (port.owner < 0 && charged > 0)
        {
            // A NIC port has no shared buffer and no ingress: nothing to charge.
            v.Add("buffer charge",
                  "NIC port ",
                  port.name,
                  " holds ",
                  charged,
                  " bytes charged to a switch buffer");
        }
        else if (port.owner >= 0 && charged != port.queuedFrameBytes)
        {
            // EnqueueAt charges every frame on a switch port: to the pool
            // (lossy, or PFC off) or to its (ingress, priority) (admitted
            // lossless); ReleaseCharge gives it back when it starts or is flushed.
            v.Add("buffer charge",
                  "switch port ",
                  port.name,
                  " queues ",
                  port.queuedFrameBytes,
                  " bytes, charged: pool ",
                  port.poolChargedBytes,
                  " + lossless ",
                  port.losslessChargedBytes);
        }
    }
    for (const SwitchInvariantView& sw : s.switches)
    {
        CheckSharedBuffer(s, sw, v);
    }
    return out;
}

// ---- PFC -------------------------------------------------------------------------

namespace
{

/** A port's class pause view and its paused time, against its priorities' pauses. */
void
CheckPausedTotals(const PortInvariantView& port, int64_t now, Violations& v)
{
    // UpdateClassPauses copies the data priority's end to its class after
    // every change; control frames are never paused.
    const bool dataPaused = port.pfcEnabled && port.pausedUntilPs[port.dataPriority] > now;
    if (port.dataClassPaused != dataPaused || port.controlClassPaused)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              ": class view (data ",
              port.dataClassPaused,
              ", control ",
              port.controlClassPaused,
              ") differs from the priority state (data ",
              dataPaused,
              ", control 0)");
    }
    // Each episode adds end - start >= 0; only one priority obeys, so the
    // total cannot exceed the time elapsed (a negative episode would wrap).
    if (port.pausedPs < port.finishedPausedPs ||
        port.pausedPs > uint64_t(std::max<int64_t>(0, now)) ||
        (!port.pfcEnabled && port.pausedPs != 0))
    {
        v.Add("pfc paused time",
              "port ",
              port.name,
              " paused ",
              Us(int64_t(port.pausedPs)),
              " (finished episodes ",
              Us(int64_t(port.finishedPausedPs)),
              ") at ",
              Us(now));
    }
}

/** The transmitter side: pauses a port obeys. */
void
CheckPausedPort(const FabricInvariantSnapshot& s,
                const PortInvariantView& port,
                Violations& v,
                PfcCheckCoverage& cov)
{
    const int64_t now = s.nowPs;
    bool anyOpen = false;
    for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
    {
        const int64_t until = port.pausedUntilPs[p];
        if (!port.pauseOpen[p])
        {
            // EndPause sets the end to when it ended (expiry, resume, link
            // down), never later: a closed pause stops nothing.
            if (until > now)
            {
                v.Add("pfc pause",
                      "port ",
                      port.name,
                      " ",
                      Prio(p),
                      ": closed pause ends at ",
                      Us(until),
                      ", after now (",
                      Us(now),
                      ")");
            }
            continue;
        }
        anyOpen = true;
        // LinkStateChanged(false) ends every pause (a dead link carries
        // none) and Receive drops frames while the link is down.
        if (!port.linkUp)
        {
            v.Add("pfc pause",
                  "port ",
                  port.name,
                  " ",
                  Prio(p),
                  ": pause episode open on a link that is down");
        }
        // ReceivePfc only lets the data class's priority obey, with PFC on.
        if (!port.pfcEnabled || p != port.dataPriority)
        {
            v.Add("pfc pause",
                  "port ",
                  port.name,
                  " ",
                  Prio(p),
                  ": pause open on a priority the port does not obey");
        }
        // A PAUSE sets until = arrival + quanta x 512 bit times (> arrival),
        // with quanta at most 65535.
        if (port.pauseStartPs[p] > now || until <= port.pauseStartPs[p] ||
            until > now + int64_t(port.maxPausePs))
        {
            v.Add("pfc pause",
                  "port ",
                  port.name,
                  " ",
                  Prio(p),
                  ": open pause from ",
                  Us(port.pauseStartPs[p]),
                  " to ",
                  Us(until),
                  " at ",
                  Us(now),
                  " (longest pause ",
                  Us(int64_t(port.maxPausePs)),
                  ")");
        }
        // ArmPauseWake keeps one wake-up at (or before) the earliest expiry:
        // that is what ends the episode and restarts the class on time.
        if (port.pauseWakePs < 0 || port.pauseWakePs > until)
        {
            v.Add("pfc pause",
                  "port ",
                  port.name,
                  " ",
                  Prio(p),
                  ": pause until ",
                  Us(until),
                  " but the wake-up is ",
                  port.pauseWakePs < 0 ? std::string("not pending") : "at " + Us(port.pauseWakePs));
        }
        // The pause is what the last PAUSE frame received for p set,
        // exactly: ReceivePfc sets until = now + PauseQuantaPs(quanta).
        if (port.logged)
        {
            const PfcFrameRecord& r = port.lastReceived[p];
            if (!r.valid || r.quanta == 0 || until != r.atPs + int64_t(port.lastReceivedPausePs[p]))
            {
                v.Add("pfc pause",
                      "port ",
                      port.name,
                      " ",
                      Prio(p),
                      ": pause until ",
                      Us(until),
                      " does not match the last PFC frame received (",
                      r.valid ? "quanta " + std::to_string(r.quanta) + " at " + Us(r.atPs)
                              : std::string("none"),
                      ")");
            }
            else
            {
                ++cov.openPausesChecked;
            }
        }
    }
    if (!anyOpen && port.pauseWakePs >= 0)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              ": pause wake-up pending at ",
              Us(port.pauseWakePs),
              " with no pause open");
    }
    CheckPausedTotals(port, now, v);
}

/**
 * What the upstream of one (ingress, priority) of a PFC switch believes. Only the switch sends
 * PFC frames out of its ports: PAUSE(quanta) at StartXoff and at each refresh, PAUSE(0) at
 * EndXoff, each only while the link is up (SendPfc). So while the link has been up since the last
 * one (same epoch), that frame says the state: PAUSE iff XOFF, and the refresh is due exactly half
 * a pause after it.
 */
void
CheckUpstream(const FabricInvariantSnapshot& s,
              const SwitchInvariantView& sw,
              uint32_t j,
              uint8_t p,
              Violations& v,
              PfcCheckCoverage& cov)
{
    const PfcIngressView& in = sw.ingress[j][p];
    const PortInvariantView& port = s.ports[sw.ports[j]];
    const std::string what = "switch " + sw.name + " ingress " + port.name + " " + Prio(p);
    if (!port.logged || !port.linkUp)
    {
        return;
    }
    const PfcFrameRecord& sent = port.lastSent[p];
    if (!sent.valid || sent.epoch != port.linkEpoch)
    {
        return; // nothing sent since the link came up: the refresh sends within half a pause
    }
    if (in.xoff != (sent.quanta > 0))
    {
        v.Add("pfc peer",
              what,
              ": ",
              in.xoff ? "in XOFF" : "not in XOFF",
              " but the last PFC frame it sent (",
              Us(sent.atPs),
              ") was PAUSE(",
              sent.quanta,
              ")");
    }
    if (in.xoff && sent.quanta > 0 && in.refreshPs >= 0 &&
        in.refreshPs != sent.atPs + sw.refreshIntervalPs[j])
    {
        v.Add("pfc refresh",
              what,
              ": last PAUSE at ",
              Us(sent.atPs),
              ", refresh at ",
              Us(in.refreshPs),
              ", not half a pause (",
              Us(sw.refreshIntervalPs[j]),
              ") later");
    }
    const PortInvariantView& peer = s.ports[port.peer];
    if (!peer.pfcEnabled || peer.dataPriority != p)
    {
        return; // the upstream ignores this priority: nothing to believe
    }
    const PfcFrameRecord& heard = peer.lastReceived[p];
    if (heard.valid && heard.uid == sent.uid)
    {
        if (in.xoff)
        {
            // The PAUSE arrived at heard.atPs >= sent.atPs and pauses until
            // arrival + quanta x 512 bit times; the refresh is due at
            // sent.atPs + half of that and is still pending, so now is before
            // the pause ends: while XOFF lasts, the upstream is paused,
            // without a gap between a PAUSE and its refresh.
            if (!(peer.pauseOpen[p] && peer.pausedUntilPs[p] > s.nowPs))
            {
                v.Add("pfc peer",
                      what,
                      ": in XOFF, ",
                      peer.name,
                      " heard PAUSE(",
                      heard.quanta,
                      ") at ",
                      Us(heard.atPs),
                      " but is not paused now (pause until ",
                      Us(peer.pausedUntilPs[p]),
                      ")");
            }
            else
            {
                ++cov.peerPausedConfirmed;
            }
        }
        else if (sent.quanta == 0)
        {
            // The resume ends the pause at once (EndPause in ReceivePfc).
            if (peer.pauseOpen[p])
            {
                v.Add("pfc peer",
                      what,
                      ": ",
                      peer.name,
                      " received the resume at ",
                      Us(heard.atPs),
                      " but still has a pause open");
            }
            else
            {
                ++cov.peerResumedConfirmed;
            }
        }
    }
    else if (peer.linkFramesInFlight == 0 && peer.errorModelDrops == 0)
    {
        // Not received: it is on the wire, or the receiver's error model
        // lost it (then the refresh, or the expiry, repairs the state).
        v.Add("pfc peer",
              what,
              ": its last PFC frame (",
              Us(sent.atPs),
              ") never reached ",
              peer.name,
              ", is not on the wire and cannot have been lost");
    }
    else
    {
        ++cov.pauseFrameInFlight;
    }
}

/** One (ingress, priority) of a PFC switch, and what its upstream believes. */
void
CheckIngress(const FabricInvariantSnapshot& s,
             const SwitchInvariantView& sw,
             uint32_t j,
             uint8_t p,
             Violations& v,
             PfcCheckCoverage& cov)
{
    const int64_t now = s.nowPs;
    const PfcIngressView& in = sw.ingress[j][p];
    const PortInvariantView& port = s.ports[sw.ports[j]];
    const std::string what = "switch " + sw.name + " ingress " + port.name + " " + Prio(p);
    ++cov.ingressesChecked;
    // AdmitLossless's Admitted is always followed by the enqueue of that
    // frame, charged to (ingress, priority); ReleaseLossless runs once per
    // frame, when it starts or is flushed. So the counts are exactly the
    // lossless frames from this ingress still queued at the egresses
    // (FabricPort::GetLosslessBytesFrom, per priority).
    if (in.shared + in.headroom != in.queuedLossless)
    {
        v.Add("pfc accounting",
              what,
              ": charged ",
              in.shared,
              " (pool) + ",
              in.headroom,
              " (headroom), but ",
              in.queuedLossless,
              " lossless bytes from it are queued");
    }
    // AdmitLossless drops (pfc_headroom) rather than exceed the headroom.
    if (in.headroom > sw.headroomCap[j])
    {
        v.Add("pfc headroom",
              what,
              ": ",
              in.headroom,
              " bytes in a headroom of ",
              sw.headroomCap[j]);
    }
    // The first frame into headroom starts XOFF; XOFF ends only when the
    // headroom is empty (ShouldResume).
    if (in.headroom > 0 && !in.xoff)
    {
        v.Add("pfc xoff", what, ": ", in.headroom, " bytes in headroom but not in XOFF");
    }
    if (in.xoff)
    {
        ++cov.xoffChecked;
        // Only ReleaseLossless lowers the counts, and it ends XOFF once the
        // headroom is empty and the pool bytes are 0 or at or below XON.
        if (in.shared + in.headroom == 0)
        {
            v.Add("pfc xoff", what, ": in XOFF with nothing charged");
        }
        // With a static XOFF the threshold never moves, so every count
        // change re-evaluates ShouldResume: XOFF implies it is false. (A
        // dynamic XOFF moves with the other ingresses' use of the pool; the
        // refresh below re-evaluates it within half a pause time.)
        if (sw.staticXoffBytes > 0 && in.headroom == 0 && in.shared > 0 &&
            in.shared + sw.xonDeltaBytes <= sw.staticXoffBytes)
        {
            v.Add("pfc xoff",
                  what,
                  ": in XOFF at ",
                  in.shared,
                  " bytes, at or below XON ",
                  sw.staticXoffBytes - sw.xonDeltaBytes);
        }
        // StartXoff and every refresh schedule the next refresh half a
        // pause later (whole ns); EndXoff cancels it.
        if (in.refreshPs < 0)
        {
            v.Add("pfc refresh", what, ": in XOFF with no refresh pending");
        }
        else if (in.refreshPs < now || in.refreshPs - now > sw.refreshIntervalPs[j])
        {
            v.Add("pfc refresh",
                  what,
                  ": refresh at ",
                  Us(in.refreshPs),
                  ", now ",
                  Us(now),
                  ", interval ",
                  Us(sw.refreshIntervalPs[j]));
        }
    }
    else if (in.refreshPs >= 0)
    {
        v.Add("pfc refresh", what, ": refresh pending at ", Us(in.refreshPs), " while not in XOFF");
    }

    CheckUpstream(s, sw, j, p, v, cov);
}
} // namespace

std::vector<std::string>
CheckPfcInvariants(const FabricInvariantSnapshot& s, PfcCheckCoverage* coverage)
{
    std::vector<std::string> out;
    Violations v(out);
    PfcCheckCoverage cov;
    for (const PortInvariantView& port : s.ports)
    {
        CheckPausedPort(s, port, v, cov);
    }
    for (const SwitchInvariantView& sw : s.switches)
    {
        if (sw.strayLosslessBytes > 0)
        {
            v.Add("pfc accounting",
                  "switch ",
                  sw.name,
                  ": ",
                  sw.strayLosslessBytes,
                  " lossless bytes charged to an ingress or priority it does not have");
        }
        uint32_t xoff = 0;
        for (uint32_t j = 0; j < sw.ingress.size(); ++j)
        {
            for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
            {
                const PfcIngressView& in = sw.ingress[j][p];
                xoff += in.xoff ? 1 : 0;
                if (!sw.pfcEnabled)
                {
                    // Without PFC AdmitLossless answers Lossy: nothing is
                    // charged, nothing paused.
                    if (in.shared || in.headroom || in.xoff || in.refreshPs >= 0 ||
                        in.queuedLossless)
                    {
                        v.Add("pfc accounting",
                              "switch ",
                              sw.name,
                              " (PFC off) ingress ",
                              s.ports[sw.ports[j]].name,
                              " ",
                              Prio(p),
                              " has PFC state");
                    }
                    continue;
                }
                CheckIngress(s, sw, j, p, v, cov);
            }
        }
        // StartXoff / EndXoff keep the count, and turn departure tracking
        // on for every port at the first XOFF and off after the last (exact XON).
        if (xoff != sw.xoffNow)
        {
            v.Add("pfc xoff",
                  "switch ",
                  sw.name,
                  " counts ",
                  sw.xoffNow,
                  " ingresses in XOFF, ",
                  xoff,
                  " are");
        }
        for (uint32_t j = 0; j < sw.ports.size(); ++j)
        {
            const PortInvariantView& port = s.ports[sw.ports[j]];
            if (port.trackingDepartures != (sw.xoffNow > 0))
            {
                v.Add("pfc xoff",
                      "switch ",
                      sw.name,
                      " port ",
                      port.name,
                      port.trackingDepartures ? " tracks" : " does not track",
                      " departures with ",
                      sw.xoffNow,
                      " ingresses in XOFF");
            }
        }
    }
    if (coverage)
    {
        *coverage = cov;
    }
    return out;
}

// ---- Completions -------------------------------------------------------------------

std::vector<std::string>
CheckWorkRequestAudit(const RdmaConnection::WorkRequestAudit& a, const std::string& name)
{
    std::vector<std::string> out;
    Violations v(out);
    // Every request produces exactly one completion, after it is posted: a
    // completion while nothing of its side (Write/Send, or Recv) is
    // outstanding matches no request.
    if (a.unmatched > 0)
    {
        v.Add("completion",
              name,
              ": ",
              a.unmatched,
              " completions with nothing of their kind outstanding (posted ",
              a.posted,
              ", completed ",
              a.completed,
              ")");
    }
    if (a.tracked)
    {
        if (a.unknown > 0)
        {
            v.Add("completion",
                  name,
                  ": ",
                  a.unknown,
                  " completions of requests never posted; first: ",
                  a.firstViolation);
        }
        if (a.duplicates > 0)
        {
            v.Add("completion",
                  name,
                  ": ",
                  a.duplicates,
                  " completions of requests already completed; first: ",
                  a.firstViolation);
        }
        // The per-request books saw every post and every completion.
        const uint64_t matched = a.completed - a.unknown - a.duplicates;
        if (a.posted - matched != a.trackedOutstanding)
        {
            v.Add("completion",
                  name,
                  ": posted ",
                  a.posted,
                  ", matched completions ",
                  matched,
                  ", but the requests tracked leave ",
                  a.trackedOutstanding,
                  " outstanding");
        }
    }
    // Every request not completed is still held by the transport (queued,
    // in flight, or completed and waiting for an earlier one of its
    // stream); none was dropped without a completion.
    const uint64_t outstanding = a.posted >= a.completed ? a.posted - a.completed : 0;
    if (a.held >= 0 && uint64_t(a.held) != outstanding)
    {
        v.Add("completion",
              name,
              ": ",
              outstanding,
              " requests outstanding but the transport holds ",
              a.held,
              uint64_t(a.held) < outstanding ? " (lost without a completion)"
                                             : " (held after completing)");
    }
    return out;
}

std::vector<std::string>
CheckTransportInvariants(const Fabric& fabric)
{
    std::vector<std::string> out;
    for (uint32_t h = 0; h < fabric.GetNHosts(); ++h)
    {
        const Ptr<RdmaTransport> t = fabric.GetHost(h)->GetObject<RdmaTransport>();
        if (!t)
        {
            continue;
        }
        for (uint32_t k = 0; k < t->GetNConnections(); ++k)
        {
            const Ptr<RdmaConnection> c = t->GetConnection(k);
            if (!c)
            {
                continue;
            }
            const std::string name = "host " + std::to_string(h) + " connection " +
                                     std::to_string(k) + " (to host " +
                                     std::to_string(c->GetRemoteHost()) + ")";
            for (auto& violation : CheckWorkRequestAudit(c->GetWorkRequestAudit(), name))
            {
                out.push_back(std::move(violation));
            }
        }
    }
    return out;
}

} // namespace ns3
