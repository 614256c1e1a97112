#include "fabric-invariants.h"

#include "fabric.h"
#include "invariant-violations.h"
#include "pfc-pause-header.h"
#include "rdma-transport.h"

#include "ns3/simulator.h"

#include <unordered_map>

namespace ns3
{

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
