#include "fabric-port.h"

#include "fabric-channel.h"
#include "pfc-pause-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPort");
NS_OBJECT_ENSURE_REGISTERED(FabricPort);

TypeId
FabricPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricPort")
            .SetParent<NetDevice>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricPort>()
            .AddAttribute("DataRate",
                          "Line rate of the port's transmitter",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&FabricPort::SetDataRate, &FabricPort::GetDataRate),
                          MakeDataRateChecker())
            .AddAttribute("InterframeBytes",
                          "Per-frame line overhead outside the frame: preamble+SFD (8) and "
                          "inter-frame gap (12). FCS and padding to 64 bytes are always counted.",
                          UintegerValue(kEthernetPreambleIfgBytes),
                          MakeUintegerAccessor(&FabricPort::m_interframeBytes),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("MaxQueueBytes",
                          "Egress limit of this port in frame bytes (tail drop beyond it)",
                          UintegerValue(4u << 20),
                          MakeUintegerAccessor(&FabricPort::m_maxQueueBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("EcnEnabled",
                          "Mark ECN-capable frames CE on enqueue (RED on queued bytes)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricPort::m_ecnEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Queued bytes below which nothing is marked",
                          UintegerValue(100 * 1024),
                          MakeUintegerAccessor(&FabricPort::m_kminBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKmax",
                          "Queued bytes at and above which every ECN-capable frame is marked",
                          UintegerValue(400 * 1024),
                          MakeUintegerAccessor(&FabricPort::m_kmaxBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnPmax",
                          "Marking probability just below Kmax (linear from 0 at Kmin)",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricPort::m_pmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("ControlDscp",
                          "DSCP of the control class (ACKs, CNPs); every other DSCP is data",
                          UintegerValue(48),
                          MakeUintegerAccessor(&FabricPort::m_controlDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("StrictPriority",
                          "Serve the control class strictly before data (false: packet "
                          "round robin between the classes)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricPort::m_strictPriority),
                          MakeBooleanChecker())
            .AddAttribute("EventPerDequeue",
                          "Schedule an event at every frame's start of transmission, so the "
                          "Dequeue trace and transmit-side Sniffer fire at the exact time "
                          "(false: lazy departures, identical results, fewer events)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricPort::m_eventPerDequeue),
                          MakeBooleanChecker())
            .AddAttribute("Mtu",
                          "Largest frame in bytes (Ethernet header to end of payload)",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&FabricPort::SetMtu, &FabricPort::GetMtu),
                          MakeUintegerChecker<uint16_t>(64))
            .AddAttribute("ReceiveErrorModel",
                          "Loss applied to frames arriving at this port (random loss)",
                          PointerValue(),
                          MakePointerAccessor(&FabricPort::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddAttribute("PfcEnabled",
                          "Priority Flow Control: the data class is lossless. The port obeys "
                          "PAUSE frames for its priority and, on a switch, its lossless frames "
                          "are admitted by the switch's ingress accounting (false: PAUSE frames "
                          "are counted and ignored, tail drop only)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricPort::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("DataPriority",
                          "802.1p priority of the data class: the lossless priority under PFC "
                          "(3, the usual RoCE choice)",
                          UintegerValue(3),
                          MakeUintegerAccessor(&FabricPort::m_dataPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("ControlPriority",
                          "802.1p priority of the control class (ACKs, CNPs); never paused",
                          UintegerValue(6),
                          MakeUintegerAccessor(&FabricPort::m_controlPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddTraceSource("Enqueue",
                            "A frame was queued for transmission",
                            MakeTraceSourceAccessor(&FabricPort::m_enqueueTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Dequeue",
                            "A frame started transmission",
                            MakeTraceSourceAccessor(&FabricPort::m_dequeueTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Drop",
                            "A frame was dropped by this port, with the reason",
                            MakeTraceSourceAccessor(&FabricPort::m_dropTrace),
                            "ns3::FabricPort::DropTracedCallback")
            .AddTraceSource("EcnMark",
                            "A frame was marked CE on enqueue",
                            MakeTraceSourceAccessor(&FabricPort::m_ecnMarkTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("QueueBytes",
                            "Frame bytes queued for transmission",
                            MakeTraceSourceAccessor(&FabricPort::m_queueBytesTrace),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("Sniffer",
                            "Every frame sent or received (for pcap)",
                            MakeTraceSourceAccessor(&FabricPort::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A frame was received and passed the error model",
                            MakeTraceSourceAccessor(&FabricPort::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcTx",
                            "A PFC frame (pause or resume) was sent",
                            MakeTraceSourceAccessor(&FabricPort::m_pfcTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcRx",
                            "A PFC frame was received (and consumed)",
                            MakeTraceSourceAccessor(&FabricPort::m_pfcRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PfcPauseState",
                            "A lossless priority of this transmitter became paused (true) or "
                            "resumed (false): at a PAUSE arrival, or at its exact expiry",
                            MakeTraceSourceAccessor(&FabricPort::m_pfcStateTrace),
                            "ns3::FabricPort::PfcStateTracedCallback");
    return tid;
}

FabricPort::FabricPort()
{
    m_ecnRng = CreateObject<UniformRandomVariable>();
}

FabricPort::~FabricPort() = default;

void
FabricPort::DoDispose()
{
    m_wake.Cancel();
    m_pauseWake.Cancel();
    for (auto& q : m_queues)
    {
        q.clear();
    }
    m_node = nullptr;
    m_channel = nullptr;
    m_sink = nullptr;
    m_sharedBuffer = nullptr;
    m_receiveErrorModel = nullptr;
    m_ecnRng = nullptr;
    NetDevice::DoDispose();
}

void
FabricPort::Attach(Ptr<FabricChannel> channel)
{
    m_channel = channel;
    m_channel->Attach(this);
    m_linkUp = channel->IsLinkUp();
}

void
FabricPort::SetPacketSink(FabricPacketSink* sink)
{
    m_sink = sink;
}

void
FabricPort::SetSharedBuffer(Ptr<SharedBuffer> buffer)
{
    m_sharedBuffer = buffer;
}

uint64_t
FabricPort::TransmissionPs(uint32_t packetBytes) const
{
    return LinePs(WireBytes(packetBytes, m_interframeBytes));
}

void
FabricPort::SetDataRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "FabricPort: DataRate must be positive");
    m_rate = rate;
    m_bps = rate.GetBitRate();
    m_psPerByte = (kBitPs % m_bps == 0) ? kBitPs / m_bps : 0;
    // Frames already queued now take their time at the new rate.
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        m_queuedPs[cls] = 0;
        for (size_t i = 0; i < m_queues[cls].size(); ++i)
        {
            m_queuedPs[cls] += TransmissionPs(m_queues[cls][i].info.bytes);
        }
    }
}

uint64_t
FabricPort::LinePs(uint64_t wire) const
{
    if (m_psPerByte)
    {
        return wire * m_psPerByte; // every common rate: exact
    }
    return static_cast<uint64_t>((static_cast<unsigned __int128>(wire) * kBitPs) / m_bps);
}

double
FabricPort::EcnMarkProbability(uint32_t queueBytes) const
{
    if (queueBytes < m_kminBytes)
    {
        return 0.0;
    }
    if (queueBytes >= m_kmaxBytes)
    {
        return 1.0;
    }
    return m_pmax * double(queueBytes - m_kminBytes) / double(m_kmaxBytes - m_kminBytes);
}

bool
FabricPort::Enqueue(Ptr<Packet> frame, const FrameInfo& info, uint32_t ingress)
{
    return EnqueueAt(frame, info, ingress, Simulator::Now().GetPicoSeconds());
}

bool
FabricPort::EnqueueAt(const Ptr<Packet>& frame,
                      const FrameInfo& info,
                      uint32_t ingress,
                      int64_t nowPs)
{
    FrameInfo sized = info;
    sized.bytes = frame->GetSize();
    return EnqueueAt(FrameRef(frame), sized, ingress, nowPs);
}

bool
FabricPort::EnqueueAt(FrameRef frame, const FrameInfo& info, uint32_t ingress, int64_t nowPs)
{
    CatchUp(nowPs); // queue state as of now: admission and marking are exact
    const uint32_t bytes = info.bytes;
    if (!m_linkUp)
    {
        RecordDrop(frame, DropReason::LinkDown);
        return false;
    }
    const uint32_t cls = ClassOf(info.dscp);
    const uint8_t priority = PriorityOf(cls);
    uint8_t charge = m_sharedBuffer ? kChargePool : kChargeNone;
    PfcAdmission admission = PfcAdmission::Lossy;
    if (ingress != kNoIngress && IsLossless(cls))
    {
        // PFC: the switch's ingress accounting decides; the port limit does
        // not apply to lossless frames (pausing the sender is the point).
        admission = m_sink->AdmitLossless(ingress, priority, bytes);
        if (admission == PfcAdmission::Drop)
        {
            RecordDrop(frame, DropReason::PfcHeadroom);
            return false;
        }
        if (admission == PfcAdmission::Admitted)
        {
            charge = kChargeLossless;
        }
    }
    if (admission == PfcAdmission::Lossy)
    {
        if (m_queueBytes + bytes > m_maxQueueBytes)
        {
            RecordDrop(frame, DropReason::Buffer);
            return false;
        }
        if (m_sharedBuffer && !m_sharedBuffer->TryReserve(bytes))
        {
            // Sibling ports may hold frames that have started by now but are not
            // yet released: bring them up to date before refusing.
            m_sink->SyncPorts();
            if (!m_sharedBuffer->TryReserve(bytes))
            {
                RecordDrop(frame, DropReason::Buffer);
                return false;
            }
        }
    }
    bool marked = false;
    if (m_ecnEnabled && (info.ecn == Ecn::Ect0 || info.ecn == Ecn::Ect1))
    {
        const double p = EcnMarkProbability(m_queueBytes);
        if (p >= 1.0 || (p > 0.0 && m_ecnRng->GetValue() < p))
        {
            frame.SetEcn(Ecn::Ce);
            marked = true;
            ++m_stats.ecnMarked;
            if (!m_ecnMarkTrace.IsEmpty())
            {
                m_ecnMarkTrace(frame.Share());
            }
        }
    }
    m_queues[cls].push_back(Queued{std::move(frame),
                                   info,
                                   static_cast<uint16_t>(ingress),
                                   priority,
                                   charge,
                                   nowPs});
    if (marked)
    {
        m_queues[cls].back().info.ecn = Ecn::Ce;
    }
    m_queuedPs[cls] += TransmissionPs(bytes);
    SetQueueBytes(m_queueBytes + bytes);
    if (m_queueBytes > m_stats.peakQueueBytes)
    {
        m_stats.peakQueueBytes = m_queueBytes;
    }
    if (m_hopTraced && !m_enqueueTrace.IsEmpty())
    {
        m_enqueueTrace(m_queues[cls].back().frame.Share());
    }
    CatchUp(nowPs); // an idle transmitter starts this frame now
    return true;
}

int64_t
FabricPort::GetIdlePs()
{
    return GetIdlePsAt(Simulator::Now().GetPicoSeconds());
}

int64_t
FabricPort::GetIdlePsAt(int64_t nowPs)
{
    CatchUp(nowPs);
    int64_t idle = std::max(nowPs, m_txFreePs);
    // Each class's queued frames take the sum of their serialisation times.
    auto drain = [this, &idle](uint32_t cls) { idle += int64_t(m_queuedPs[cls]); };
    // Classes that may send go first; a paused class waits for its expiry.
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        if (m_classPausedUntilPs[cls] <= nowPs)
        {
            drain(cls);
        }
    }
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        if (m_classPausedUntilPs[cls] > nowPs)
        {
            idle = std::max(idle, m_classPausedUntilPs[cls]);
            drain(cls);
        }
    }
    return idle;
}

void
FabricPort::Sync()
{
    CatchUp(Simulator::Now().GetPicoSeconds());
}

int32_t
FabricPort::PickClass(int64_t startPs) const
{
    auto eligible = [this, startPs](uint32_t cls) {
        return !m_queues[cls].empty() && m_queues[cls].front().enqueuedPs <= startPs &&
               m_classPausedUntilPs[cls] <= startPs;
    };
    if (m_strictPriority)
    {
        return eligible(kControlClass) ? int32_t(kControlClass)
               : eligible(kDataClass)  ? int32_t(kDataClass)
                                       : -1;
    }
    const uint32_t other = (m_rrNext + 1) % kTrafficClasses;
    return eligible(m_rrNext) ? int32_t(m_rrNext) : eligible(other) ? int32_t(other) : -1;
}

void
FabricPort::CatchUp(int64_t nowPs)
{
    while (m_queueBytes > 0 && m_txFreePs <= nowPs)
    {
        // The next frame starts when the transmitter is free, or, if it
        // idled, when the first of the queued frames arrived (or its class's
        // pause expired).
        int64_t startPs = m_txFreePs;
        int32_t cls = PickClass(startPs);
        if (cls < 0)
        {
            startPs = INT64_MAX;
            for (uint32_t c = 0; c < kTrafficClasses; ++c)
            {
                const auto& q = m_queues[c];
                if (!q.empty())
                {
                    startPs = std::min(startPs,
                                       std::max(q.front().enqueuedPs, m_classPausedUntilPs[c]));
                }
            }
            if (startPs > nowPs)
            {
                break;
            }
            cls = PickClass(startPs);
        }
        Commit(cls, startPs, nowPs);
    }
    // With the transmitter idle and frames queued, their class is paused:
    // the pause wake-up, not this one, starts them.
    if ((m_eventPerDequeue || m_trackDepartures) && m_queueBytes > 0 && m_txFreePs > nowPs)
    {
        ArmWake();
    }
}

void
FabricPort::Commit(uint32_t cls, int64_t startPs, int64_t nowPs)
{
    auto& queue = m_queues[cls];
    Queued q = std::move(queue.front());
    queue.pop_front();
    if (!m_strictPriority)
    {
        m_rrNext = (cls + 1) % kTrafficClasses;
    }
    SetQueueBytes(m_queueBytes - q.info.bytes);
    const uint32_t wire = WireBytes(q.info.bytes, m_interframeBytes);
    const uint64_t linePs = LinePs(wire);
    m_queuedPs[cls] -= linePs;
    m_txFreePs = startPs + int64_t(linePs);
    ++m_stats.txPackets;
    m_stats.txBytes += q.info.bytes;
    m_stats.txWireBytes += wire;
    if (m_hopTraced && !m_dequeueTrace.IsEmpty())
    {
        m_dequeueTrace(q.frame.Share());
    }
    if (m_hopTraced && !m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(q.frame.Share());
    }
    m_channel->Transmit(this, std::move(q.frame), q.info, m_txFreePs, nowPs);
    // Last: a PFC release may make the switch send a resume (on this port too).
    ReleaseCharge(q);
}

void
FabricPort::ReleaseCharge(const Queued& q)
{
    if (q.charge == kChargePool)
    {
        m_sharedBuffer->Release(q.info.bytes);
    }
    else if (q.charge == kChargeLossless)
    {
        m_sink->ReleaseLossless(q.ingress, q.priority, q.info.bytes);
    }
}

void
FabricPort::ArmWake()
{
    if (m_wake.IsRunning())
    {
        return;
    }
    const int64_t wakeNs = (m_txFreePs + 999) / 1000;
    m_wake = Simulator::Schedule(NanoSeconds(wakeNs) - Simulator::Now(), &FabricPort::Wake, this);
}

void
FabricPort::Wake()
{
    Sync();
}

void
FabricPort::Receive(FrameRef frame, const FrameInfo& info, uint32_t epoch, int64_t nowPs)
{
    if (!m_linkUp || epoch != m_channel->GetEpoch())
    {
        RecordDrop(frame, DropReason::LinkDown);
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame.Share()))
    {
        RecordDrop(frame, DropReason::ErrorModel);
        return;
    }
    if (info.bytes == PfcPauseHeader::kBytes && !frame.IsCompact() && ReceivePfc(frame.Share()))
    {
        return; // MAC control: consumed by the port
    }
    ++m_stats.rxPackets;
    m_stats.rxBytes += info.bytes;
    if (m_hopTraced && !m_snifferTrace.IsEmpty())
    {
        m_snifferTrace(frame.Share());
    }
    if (m_hopTraced && !m_macRxTrace.IsEmpty())
    {
        m_macRxTrace(frame.Share());
    }
    m_sink->ReceiveFromPort(this, std::move(frame), info, nowPs);
}

void
FabricPort::LinkStateChanged(bool up)
{
    // The channel has already started every frame due before this instant.
    m_linkUp = up;
    if (!up)
    {
        m_wake.Cancel();
        // A dead link carries no pause: the pauses this transmitter obeyed end.
        const int64_t nowPs = Simulator::Now().GetPicoSeconds();
        for (uint8_t p = 0; p < kPfcPriorities; ++p)
        {
            if (m_pauseActive[p])
            {
                EndPause(p, nowPs);
            }
        }
        UpdateClassPauses();
        m_pauseWake.Cancel();
        Flush(DropReason::LinkDown);
        // The frame being serialised is lost with the link; the transmitter is free.
        m_txFreePs = std::min(m_txFreePs, nowPs);
    }
    m_linkChangeCallbacks();
    if (m_sink)
    {
        m_sink->PortLinkChanged(this, up);
    }
}

void
FabricPort::Flush(DropReason reason)
{
    for (auto& queue : m_queues)
    {
        while (!queue.empty())
        {
            Queued q = std::move(queue.front());
            queue.pop_front();
            SetQueueBytes(m_queueBytes - q.info.bytes);
            ReleaseCharge(q);
            RecordDrop(q.frame, reason);
        }
    }
    m_queuedPs.fill(0);
}

// ---- Priority Flow Control ------------------------------------------------

uint64_t
FabricPort::PauseQuantaPs(uint32_t quanta) const
{
    return LinePs(uint64_t(quanta) * (PfcPauseHeader::kQuantumBits / 8));
}

void
FabricPort::SendPfc(uint8_t priority, uint16_t quanta)
{
    PfcPauseHeader h;
    h.SetPause(priority, quanta);
    SendPfc(h);
}

void
FabricPort::SendPfc(PfcPauseHeader header)
{
    if (!m_linkUp || !m_channel)
    {
        return; // nobody to tell; the sender re-evaluates when the link is back
    }
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    CatchUp(nowPs); // the frame on the wire (if any) is the one it follows
    header.SetSource(m_address);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(header);
    const uint32_t wire = WireBytes(PfcPauseHeader::kBytes, m_interframeBytes);
    m_txFreePs = std::max(nowPs, m_txFreePs) + int64_t(LinePs(wire));
    ++m_stats.pfcTxFrames;
    m_stats.txWireBytes += wire;
    m_pfcTxTrace(frame);
    m_snifferTrace(frame);
    FrameInfo info; // MAC control: no IP fields
    info.bytes = frame->GetSize();
    m_channel->Transmit(this, FrameRef(frame), info, m_txFreePs, nowPs);
    if ((m_eventPerDequeue || m_trackDepartures) && m_queueBytes > 0)
    {
        ArmWake();
    }
}

bool
FabricPort::ReceivePfc(Ptr<Packet> frame)
{
    PfcPauseHeader h;
    if (!PfcPauseHeader::Peek(*frame, &h))
    {
        return false;
    }
    ++m_stats.pfcRxFrames;
    m_snifferTrace(frame);
    m_pfcRxTrace(frame);
    if (!m_pfcEnabled)
    {
        return true; // a port without PFC ignores PFC frames
    }
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    // Frames that started before the PAUSE arrived are committed; pauses
    // that ran out before now end at their own expiry.
    CatchUp(nowPs);
    bool resumed = ExpirePauses(nowPs);
    for (uint8_t p = 0; p < kPfcPriorities; ++p)
    {
        if (!h.IsEnabled(p) || !(IsLossless(kDataClass) && p == m_dataPriority))
        {
            continue; // only the lossless priority obeys
        }
        const int64_t until = nowPs + int64_t(PauseQuantaPs(h.GetQuanta(p)));
        if (until > nowPs)
        {
            if (!m_pauseActive[p])
            {
                m_pauseActive[p] = true;
                m_pauseStartPs[p] = nowPs;
                m_pfcStateTrace(p, true);
            }
            m_pausedUntilPs[p] = until; // a refresh extends, a shorter one shortens
        }
        else if (m_pauseActive[p])
        {
            EndPause(p, nowPs);
            resumed = true;
        }
    }
    UpdateClassPauses();
    ArmPauseWake();
    CatchUp(nowPs); // a resume lets queued frames start now
    if (resumed && m_sink)
    {
        m_sink->PortResumed(this);
    }
    return true;
}

bool
FabricPort::ExpirePauses(int64_t nowPs)
{
    bool ended = false;
    for (uint8_t p = 0; p < kPfcPriorities; ++p)
    {
        if (m_pauseActive[p] && m_pausedUntilPs[p] <= nowPs)
        {
            EndPause(p, m_pausedUntilPs[p]);
            ended = true;
        }
    }
    return ended;
}

void
FabricPort::EndPause(uint8_t priority, int64_t endPs)
{
    m_stats.pfcPausedPs += uint64_t(endPs - m_pauseStartPs[priority]);
    m_pauseActive[priority] = false;
    m_pausedUntilPs[priority] = endPs;
    m_pfcStateTrace(priority, false);
}

void
FabricPort::UpdateClassPauses()
{
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        m_classPausedUntilPs[cls] = IsLossless(cls) ? m_pausedUntilPs[PriorityOf(cls)] : 0;
    }
}

void
FabricPort::ArmPauseWake()
{
    int64_t earliest = INT64_MAX;
    for (uint8_t p = 0; p < kPfcPriorities; ++p)
    {
        if (m_pauseActive[p])
        {
            earliest = std::min(earliest, m_pausedUntilPs[p]);
        }
    }
    if (earliest == INT64_MAX)
    {
        m_pauseWake.Cancel();
        return;
    }
    // A wake-up already due at or before the expiry re-arms itself when it
    // runs (a refreshed pause costs one event per refresh, not per frame).
    if (m_pauseWake.IsRunning() && m_pauseWakePs <= earliest)
    {
        return;
    }
    m_pauseWake.Cancel();
    m_pauseWakePs = earliest;
    const int64_t wakeNs = (earliest + 999) / 1000;
    m_pauseWake =
        Simulator::Schedule(NanoSeconds(wakeNs) - Simulator::Now(), &FabricPort::PauseWake, this);
}

void
FabricPort::PauseWake()
{
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    // Frames due before the expiry go first, then the expiry lets the paused
    // class start at its exact picosecond (CatchUp takes max(arrival, expiry)).
    const bool ended = ExpirePauses(nowPs);
    UpdateClassPauses();
    CatchUp(nowPs);
    ArmPauseWake();
    if (ended && m_sink)
    {
        m_sink->PortResumed(this);
    }
}

bool
FabricPort::IsPaused(uint8_t priority) const
{
    return m_pauseActive[priority] &&
           m_pausedUntilPs[priority] > Simulator::Now().GetPicoSeconds();
}

bool
FabricPort::IsClassPaused(uint32_t cls) const
{
    return m_classPausedUntilPs[cls] > Simulator::Now().GetPicoSeconds();
}

Time
FabricPort::GetPausedTime() const
{
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    uint64_t ps = m_stats.pfcPausedPs;
    for (uint8_t p = 0; p < kPfcPriorities; ++p)
    {
        if (m_pauseActive[p])
        {
            ps += uint64_t(std::min(nowPs, m_pausedUntilPs[p]) - m_pauseStartPs[p]);
        }
    }
    return PicoSeconds(ps);
}

void
FabricPort::SetTrackDepartures(bool on)
{
    m_trackDepartures = on;
    if (on)
    {
        Sync(); // arms the wake-up at the end of the frame on the wire
    }
}

uint32_t
FabricPort::GetLosslessBytesFrom(uint32_t ingress)
{
    Sync();
    uint32_t bytes = 0;
    for (const auto& queue : m_queues)
    {
        for (size_t i = 0; i < queue.size(); ++i)
        {
            const Queued& q = queue[i];
            if (q.charge == kChargeLossless && q.ingress == ingress)
            {
                bytes += q.info.bytes;
            }
        }
    }
    return bytes;
}

void
FabricPort::RecordDrop(Ptr<const Packet> frame, DropReason reason)
{
    ++m_stats.drops[static_cast<std::size_t>(reason)];
    m_dropTrace(frame, reason);
}

void
FabricPort::RecordDrop(const FrameRef& frame, DropReason reason)
{
    ++m_stats.drops[static_cast<std::size_t>(reason)];
    if (!m_dropTrace.IsEmpty())
    {
        m_dropTrace(frame.Share(), reason);
    }
}

uint32_t
FabricPort::GetQueueBytes()
{
    Sync();
    return m_queueBytes;
}

uint32_t
FabricPort::GetQueuePackets()
{
    Sync();
    return QueuedPackets();
}

uint32_t
FabricPort::QueuedPackets() const
{
    uint32_t n = 0;
    for (const auto& q : m_queues)
    {
        n += q.size();
    }
    return n;
}

Ptr<FabricPort>
FabricPort::GetPeer() const
{
    if (!m_channel)
    {
        return nullptr;
    }
    Ptr<FabricPort> a = m_channel->GetPort(0);
    return a == this ? m_channel->GetPort(1) : a;
}

int64_t
FabricPort::AssignStreams(int64_t stream)
{
    m_ecnRng->SetStream(stream);
    return 1;
}

// ---- NetDevice boilerplate --------------------------------------------------

void
FabricPort::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
FabricPort::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
FabricPort::GetChannel() const
{
    return m_channel;
}

void
FabricPort::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
FabricPort::GetAddress() const
{
    return m_address;
}

bool
FabricPort::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
FabricPort::GetMtu() const
{
    return m_mtu;
}

bool
FabricPort::IsLinkUp() const
{
    return m_linkUp;
}

void
FabricPort::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
}

bool
FabricPort::IsBroadcast() const
{
    return false;
}

Address
FabricPort::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
FabricPort::IsMulticast() const
{
    return false;
}

Address
FabricPort::GetMulticast(Ipv4Address) const
{
    return Mac48Address::GetMulticast(Ipv4Address("224.0.0.0"));
}

Address
FabricPort::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
FabricPort::IsBridge() const
{
    return false;
}

bool
FabricPort::IsPointToPoint() const
{
    return true;
}

bool
FabricPort::Send(Ptr<Packet> packet, const Address&, uint16_t)
{
    FrameInfo info;
    if (!ParseFrame(*packet, info))
    {
        RecordDrop(packet, DropReason::Malformed);
        return false;
    }
    return Enqueue(packet, info);
}

bool
FabricPort::SendFrom(Ptr<Packet> packet, const Address&, const Address& dest, uint16_t protocol)
{
    return Send(packet, dest, protocol);
}

Ptr<Node>
FabricPort::GetNode() const
{
    return m_node;
}

void
FabricPort::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
FabricPort::NeedsArp() const
{
    return false;
}

void
FabricPort::SetReceiveCallback(NetDevice::ReceiveCallback)
{
    // Frames go to the FabricPacketSink (switch or NIC), never to an IP stack.
}

void
FabricPort::SetPromiscReceiveCallback(PromiscReceiveCallback)
{
}

bool
FabricPort::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
