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
            .AddAttribute(
                "MaxQueueBytes",
                "Egress limit of this port in frame bytes (tail drop beyond it)",
                UintegerValue(4u << 20),
                MakeUintegerAccessor(&FabricPort::SetMaxQueueBytes, &FabricPort::GetMaxQueueBytes),
                MakeUintegerChecker<uint32_t>(1))
            .AddAttribute(
                "EcnEnabled",
                "Mark ECN-capable frames CE on enqueue (RED on queued bytes)",
                BooleanValue(true),
                MakeBooleanAccessor(&FabricPort::SetEcnEnabled, &FabricPort::GetEcnEnabled),
                MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Queued bytes below which nothing is marked",
                          UintegerValue(100 * 1024),
                          MakeUintegerAccessor(&FabricPort::SetEcnKmin, &FabricPort::GetEcnKmin),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnKmax",
                          "Queued bytes at and above which every ECN-capable frame is marked",
                          UintegerValue(400 * 1024),
                          MakeUintegerAccessor(&FabricPort::SetEcnKmax, &FabricPort::GetEcnKmax),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnPmax",
                          "Marking probability just below Kmax (linear from 0 at Kmin)",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&FabricPort::SetEcnPmax, &FabricPort::GetEcnPmax),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute(
                "ControlDscp",
                "DSCP of the control class (ACKs, CNPs); every other DSCP is data",
                UintegerValue(48),
                MakeUintegerAccessor(&FabricPort::SetControlDscp, &FabricPort::GetControlDscp),
                MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute(
                "StrictPriority",
                "Serve the control class strictly before data (false: packet "
                "round robin between the classes)",
                BooleanValue(true),
                MakeBooleanAccessor(&FabricPort::SetStrictPriority, &FabricPort::GetStrictPriority),
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
            .AddAttribute(
                "PfcEnabled",
                "Priority Flow Control: the data class is lossless. The port obeys "
                "PAUSE frames for its priority and, on a switch, its lossless frames "
                "are admitted by the switch's ingress accounting (false: PAUSE frames "
                "are counted and ignored, tail drop only)",
                BooleanValue(false),
                MakeBooleanAccessor(&FabricPort::SetPfcEnabled, &FabricPort::GetPfcEnabled),
                MakeBooleanChecker())
            .AddAttribute(
                "DataPriority",
                "802.1p priority of the data class: the lossless priority under PFC "
                "(3, the usual RoCE choice)",
                UintegerValue(3),
                MakeUintegerAccessor(&FabricPort::SetDataPriority, &FabricPort::GetDataPriority),
                MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("ControlPriority",
                          "802.1p priority of the control class (ACKs, CNPs); never paused",
                          UintegerValue(6),
                          MakeUintegerAccessor(&FabricPort::SetControlPriority,
                                               &FabricPort::GetControlPriority),
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
    m_pfc.SetExpiryCallback(MakeCallback(&FabricPort::PauseWake, this));
}

FabricPort::~FabricPort() = default;

void
FabricPort::DoDispose()
{
    m_wake.Cancel();
    m_pfc.Cancel();
    m_pfc.SetExpiryCallback(Callback<void>());
    m_queue.Clear();
    m_node = nullptr;
    m_channel = nullptr;
    m_sink = nullptr;
    m_admission.SetSharedBuffer(nullptr);
    m_receiveErrorModel = nullptr;
    m_ecn.Dispose();
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
    m_admission.SetSharedBuffer(buffer);
}

void
FabricPort::SetDataRate(DataRate rate)
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "FabricPort: DataRate must be positive");
    m_rate = rate;
    m_bps = rate.GetBitRate();
    m_psPerByte = (kBitPs % m_bps == 0) ? kBitPs / m_bps : 0;
    // Frames already queued now take their time at the new rate.
    m_queue.RecountQueuedPs([this](uint32_t bytes) { return TransmissionPs(bytes); });
}

// ---- Egress: admission, marking, the transmit timeline ----------------------

bool
FabricPort::Enqueue(FrameRef frame, const FrameInfo& info, uint32_t ingress, int64_t nowPs)
{
    CatchUp(nowPs); // queue state as of now: admission and marking are exact
    const uint32_t bytes = info.bytes;
    if (!m_linkUp)
    {
        RecordDrop(frame, DropReason::LinkDown);
        return false;
    }
    const uint32_t cls = m_queue.ClassOf(info.dscp);
    const uint8_t priority = m_queue.PriorityOf(cls);
    const uint32_t queued = m_queue.GetBytes();
    BufferCharge charge;
    DropReason reason;
    if (!m_admission.Admit(m_sink,
                           ingress,
                           priority,
                           ingress != kNoIngress && m_queue.IsLossless(cls),
                           bytes,
                           queued,
                           charge,
                           reason))
    {
        RecordDrop(frame, reason);
        return false;
    }
    const bool marked = m_ecn.ShouldMark(info.ecn, queued);
    if (marked)
    {
        MarkCe(frame);
    }
    TraceQueueBytes(queued, queued + bytes);
    m_queue.Push(cls,
                 FabricQueuedFrame{std::move(frame),
                                   info,
                                   static_cast<uint16_t>(ingress),
                                   priority,
                                   charge,
                                   nowPs},
                 TransmissionPs(bytes));
    FabricQueuedFrame& q = m_queue.Back(cls);
    if (marked)
    {
        q.info.ecn = Ecn::Ce;
    }
    if (m_queue.GetBytes() > m_stats.peakQueueBytes)
    {
        m_stats.peakQueueBytes = m_queue.GetBytes();
    }
    if (m_hopTraced && !m_enqueueTrace.IsEmpty())
    {
        m_enqueueTrace(q.frame.Share());
    }
    CatchUp(nowPs); // an idle transmitter starts this frame now
    return true;
}

void
FabricPort::MarkCe(FrameRef& frame)
{
    frame.SetEcn(Ecn::Ce);
    ++m_stats.ecnMarked;
    if (!m_ecnMarkTrace.IsEmpty())
    {
        m_ecnMarkTrace(frame.Share());
    }
}

int64_t
FabricPort::GetIdlePs(int64_t nowPs)
{
    CatchUp(nowPs);
    int64_t idle = std::max(nowPs, m_txFreePs);
    // Each class's queued frames take the sum of their serialisation times.
    // Classes that may send go first; a paused class waits for its expiry.
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        if (!m_queue.IsPaused(cls, nowPs))
        {
            idle += int64_t(m_queue.GetQueuedPs(cls));
        }
    }
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        if (m_queue.IsPaused(cls, nowPs))
        {
            idle = std::max(idle, m_queue.GetPausedUntilPs(cls));
            idle += int64_t(m_queue.GetQueuedPs(cls));
        }
    }
    return idle;
}

void
FabricPort::Sync(int64_t nowPs)
{
    CatchUp(nowPs);
}

void
FabricPort::CatchUp(int64_t nowPs)
{
    while (m_queue.GetBytes() > 0 && m_txFreePs <= nowPs)
    {
        // The next frame starts when the transmitter is free, or, if it
        // idled, when the first of the queued frames arrived (or its class's
        // pause expired).
        int64_t startPs = m_txFreePs;
        int32_t cls = m_queue.Pick(startPs);
        if (cls < 0)
        {
            startPs = m_queue.NextEligiblePs();
            if (startPs > nowPs)
            {
                break;
            }
            cls = m_queue.Pick(startPs);
        }
        Commit(cls, startPs, nowPs);
    }
    // With the transmitter idle and frames queued, their class is paused:
    // the pause wake-up, not this one, starts them.
    if ((m_eventPerDequeue || m_trackDepartures) && m_queue.GetBytes() > 0 && m_txFreePs > nowPs)
    {
        ArmWake();
    }
}

void
FabricPort::Commit(uint32_t cls, int64_t startPs, int64_t nowPs)
{
    const uint32_t wire = WireBytes(m_queue.Front(cls).info.bytes, m_interframeBytes);
    const uint64_t linePs = LinePs(wire);
    const uint32_t queued = m_queue.GetBytes();
    FabricQueuedFrame q = m_queue.Pop(cls, linePs);
    TraceQueueBytes(queued, m_queue.GetBytes());
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
    m_admission.Release(m_sink, q);
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

// ---- Ingress and link state ---------------------------------------------------

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
    if (info.bytes == PfcPauseHeader::kBytes && !frame.IsCompact() &&
        ReceivePfc(frame.Share(), nowPs))
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
        const int64_t nowPs = CurrentPs();
        m_pfc.EndAll(nowPs);
        UpdateClassPauses();
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
    m_queue.Drain([this, reason](FabricQueuedFrame& q) {
        TraceQueueBytes(m_queue.GetBytes() + q.info.bytes, m_queue.GetBytes());
        m_admission.Release(m_sink, q);
        RecordDrop(q.frame, reason);
    });
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
    const int64_t nowPs = CurrentPs();
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
    if ((m_eventPerDequeue || m_trackDepartures) && m_queue.GetBytes() > 0)
    {
        ArmWake();
    }
}

bool
FabricPort::ReceivePfc(Ptr<Packet> frame, int64_t nowPs)
{
    PfcPauseHeader h;
    if (!PfcPauseHeader::Peek(*frame, &h))
    {
        return false;
    }
    ++m_stats.pfcRxFrames;
    m_snifferTrace(frame);
    m_pfcRxTrace(frame);
    if (!m_queue.IsPfcEnabled())
    {
        return true; // a port without PFC ignores PFC frames
    }
    // Frames that started before the PAUSE arrived are committed; pauses
    // that ran out before now end at their own expiry.
    CatchUp(nowPs);
    bool resumed = m_pfc.ExpirePauses(nowPs);
    const uint8_t p = m_queue.PriorityOf(kDataClass);
    if (h.IsEnabled(p)) // only the lossless priority obeys
    {
        resumed |= m_pfc.Obey(p, nowPs, nowPs + int64_t(PauseQuantaPs(h.GetQuanta(p))));
    }
    UpdateClassPauses();
    m_pfc.ArmWake();
    CatchUp(nowPs); // a resume lets queued frames start now
    if (resumed && m_sink)
    {
        m_sink->PortResumed(this);
    }
    return true;
}

void
FabricPort::UpdateClassPauses()
{
    for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
    {
        m_queue.SetPausedUntilPs(
            cls,
            m_queue.IsLossless(cls) ? m_pfc.GetPausedUntilPs(m_queue.PriorityOf(cls)) : 0);
    }
}

void
FabricPort::PauseWake()
{
    const int64_t nowPs = CurrentPs();
    // Frames due before the expiry go first, then the expiry lets the paused
    // class start at its exact picosecond (CatchUp takes max(arrival, expiry)).
    const bool ended = m_pfc.ExpirePauses(nowPs);
    UpdateClassPauses();
    CatchUp(nowPs);
    m_pfc.ArmWake();
    if (ended && m_sink)
    {
        m_sink->PortResumed(this);
    }
}

Time
FabricPort::GetPausedTime() const
{
    return PicoSeconds(m_pfc.GetPausedPs(CurrentPs()));
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
    return m_queue.GetLosslessBytesFrom(ingress);
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
    return m_queue.GetBytes();
}

uint32_t
FabricPort::GetQueuePackets()
{
    Sync();
    return m_queue.GetPackets();
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
