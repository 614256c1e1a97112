#include "metaroce-connection.h"

#include "metaroce-aimd.h"
#include "metaroce-transport.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceConnection");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceConnection);

TypeId
MetaRoceConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceConnection")
            .SetParent<RdmaConnection>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceConnection>()
            .AddAttribute("PathsPerPlane",
                          "Paths (UDP source ports) per plane (model assumption: 4, so a "
                          "connection on 8 planes sprays over 32 routes, enough to spread over "
                          "the spines of a 64-host Clos without one path per spine)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&MetaRoceConnection::m_pathsPerPlane),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("PayloadSize",
                          "Payload bytes per packet (4096: the RoCE MTU; frames are 4096 + "
                          "48 + 42 bytes)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&MetaRoceConnection::m_payloadSize),
                          MakeUintegerChecker<uint32_t>(1, 8900))
            .AddAttribute(
                "MinRto",
                "Lower bound of a path's retransmission timeout (model assumption: "
                "50 us, five base RTTs of the 64-host fabric)",
                TimeValue(MicroSeconds(50)),
                MakeTimeAccessor(&MetaRoceConnection::SetMinRto, &MetaRoceConnection::GetMinRto),
                MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "MaxRto",
                "Upper bound of a path's timeout, backoff included (also the "
                "longest spacing of probes on a failed path)",
                TimeValue(MilliSeconds(1)),
                MakeTimeAccessor(&MetaRoceConnection::SetMaxRto, &MetaRoceConnection::GetMaxRto),
                MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("InitialRto",
                          "Timeout of a path before its first RTT sample",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&MetaRoceConnection::SetInitialRto,
                                           &MetaRoceConnection::GetInitialRto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("FailureThreshold",
                          "Consecutive timeouts that declare a path failed and repath it",
                          UintegerValue(2),
                          MakeUintegerAccessor(&MetaRoceConnection::SetFailureThreshold,
                                               &MetaRoceConnection::GetFailureThreshold),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RnrDelay",
                          "Wait before resending a Send packet that found no posted receive",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&MetaRoceConnection::SetRnrDelay,
                                           &MetaRoceConnection::GetRnrDelay),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("WatchdogTimeout",
                          "Outstanding work with no packet acknowledged for this long is "
                          "reported (Stalled trace)",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&MetaRoceConnection::SetWatchdogTimeout,
                                           &MetaRoceConnection::GetWatchdogTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("EcnCapable",
                          "Send data packets ECT(0), so switches mark instead of only dropping",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceConnection::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("PayloadIntegrity",
                          "Packets carry the real bytes of the local buffer (posts need a "
                          "local key of a region registered with bytes)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&MetaRoceConnection::m_payloadIntegrity),
                          MakeBooleanChecker())
            .AddAttribute("MaxMessagesAhead",
                          "Messages per stream the receiver tracks beyond the next to complete",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&MetaRoceConnection::m_maxMessagesAhead),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CongestionOps",
                          "Congestion-control policy (a RdmaCongestionOps TypeId)",
                          TypeIdValue(MetaRoceAimd::GetTypeId()),
                          MakeTypeIdAccessor(&MetaRoceConnection::m_ccTypeId),
                          MakeTypeIdChecker())
            .AddTraceSource("PathWindow",
                            "A path's congestion window changed (path, packets)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_pathWindowTrace),
                            "ns3::MetaRoceConnection::PathWindowTracedCallback")
            .AddTraceSource("PathRtt",
                            "An RTT sample on a path (path, rtt)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_pathRttTrace),
                            "ns3::MetaRoceConnection::PathRttTracedCallback")
            .AddTraceSource("Retransmit",
                            "A packet was retransmitted on its path (path, seq, after timeout)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_retransmitTrace),
                            "ns3::MetaRoceConnection::PathRetransmitTracedCallback")
            .AddTraceSource("PathFailed",
                            "A path was declared failed and repathed (path, plane, old and new "
                            "UDP source port)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_pathFailedTrace),
                            "ns3::MetaRoceConnection::PathFailedTracedCallback")
            .AddTraceSource("PlaneRate",
                            "The pacing rate of a plane changed (plane, bit/s)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_planeRateTrace),
                            "ns3::MetaRoceConnection::PlaneRateTracedCallback")
            .AddTraceSource("Stalled",
                            "Watchdog: outstanding work made no progress for WatchdogTimeout "
                            "(connection id, oldest work request id, path holding the oldest "
                            "unacknowledged packet or -1, last progress)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_stalledTrace),
                            "ns3::MetaRoceConnection::StalledTracedCallback")
            .AddTraceSource("ConnectionWindow",
                            "The connection window changed (packets)",
                            MakeTraceSourceAccessor(&MetaRoceConnection::m_connectionWindowTrace),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

MetaRoceConnection::MetaRoceConnection() = default;
MetaRoceConnection::~MetaRoceConnection() = default;

void
MetaRoceConnection::DoDispose()
{
    m_recovery.Cancel();
    m_watchdog.Cancel();
    m_transport = nullptr;
    m_scheduler = nullptr;
    m_ccOps = nullptr;
    RdmaConnection::DoDispose();
}

void
MetaRoceConnection::Setup(Ptr<MetaRoceTransport> transport, uint32_t id, uint32_t remoteHost)
{
    m_transport = transport;
    m_id = id;
    SetEndpoints(transport->GetHost(), remoteHost, transport->GetMemory());
    m_scheduler = transport->GetScheduler();
    m_schedulerIndex = m_scheduler->AddClient(this);
    m_recovery.Setup(this);
    NS_ABORT_MSG_IF(!m_ccTypeId.IsChildOf(RdmaCongestionOps::GetTypeId()),
                    "MetaRoceConnection::CongestionOps: " << m_ccTypeId.GetName()
                                                          << " is not an RdmaCongestionOps");
    ObjectFactory factory;
    factory.SetTypeId(m_ccTypeId);
    m_ccOps = factory.Create<RdmaCongestionOps>();

    Ptr<RdmaNic> nic = transport->GetNic();
    const uint32_t nPlanes = nic->GetNPlanes();
    const uint32_t nPaths = nPlanes * m_pathsPerPlane;
    m_planes.resize(nPlanes);
    for (uint32_t plane = 0; plane < nPlanes; ++plane)
    {
        m_planes[plane].rateBps = LineBps(plane);
    }
    m_paths.resize(nPaths); // exactly nPaths: the vector is empty before
    // One time for all paths: before Simulator::Run ns-3 records every Time
    // it constructs, so a Time per path of thousands of connections costs.
    const Time now = Simulator::Now();
    for (uint32_t i = 0; i < nPaths; ++i)
    {
        MetaRocePath& p = m_paths[i];
        p.srcPort = transport->AllocateSourcePort();
        p.WithFlowCc(LineBps(GetPathPlane(i)),
                     [this, now](RdmaFlowCc& cc) { m_ccOps->InitFlow(cc, now); });
    }
    m_ccOps->Init(m_cc, nPaths);
    m_receiver.Configure(
        transport->GetMemory(),
        [this](const RdmaCompletion& c) { Complete(c); },
        m_maxMessagesAhead,
        nPaths); // the peer is set up alike
}

uint64_t
MetaRoceConnection::LineBps(uint32_t plane) const
{
    return m_transport->PeekNic()->PeekPort(plane)->GetBitRate();
}

int64_t
MetaRoceConnection::GetHeldWorkRequests() const
{
    return int64_t(m_receiver.GetPostedReceives() + m_sendQueue.CountUncompleted());
}

// ---------------------------------------------------------------------------
// Posting

void
MetaRoceConnection::Post(const RdmaWorkRequest& wr)
{
    NS_ABORT_MSG_IF(wr.length == 0, "MetaRoceConnection::Post: zero-length work request");
    NS_ABORT_MSG_IF(wr.opcode == RdmaOpcode::Recv, "MetaRoceConnection::Post: use PostRecv");
    NS_ABORT_MSG_IF(m_payloadIntegrity && wr.lkey == 0,
                    "MetaRoceConnection::Post: PayloadIntegrity needs a local key (lkey)");
    const uint64_t index = m_sendQueue.Add(wr, m_payloadSize);
    CountPosted(wr);
    if (m_sendQueue.GetOutstandingMessages() == 1)
    {
        m_lastProgressPs = Simulator::Now().GetPicoSeconds();
    }
    if (wr.lkey != 0 && !GetLocalMemory()->CheckAccess(wr.lkey, wr.localAddress, wr.length))
    {
        // Rejected before any sequence number is used: the peer never sees it.
        FailMessage(index, RdmaStatus::LocalProtectionError);
        return;
    }
    m_sendQueue.Admit(index);
    ArmWatchdog();
    Kick();
}

void
MetaRoceConnection::PostRecv(const RdmaRecvRequest& rr)
{
    NS_ABORT_MSG_IF(rr.lkey != 0 && !GetLocalMemory()->CheckAccess(rr.lkey, rr.address, rr.length),
                    "MetaRoceConnection::PostRecv: buffer outside region " << rr.lkey);
    CountPosted(rr);
    m_receiver.PostRecv(rr);
}

// ---------------------------------------------------------------------------
// Sending

FramePayload
MetaRoceConnection::PullPacket(uint32_t plane,
                               int64_t now,
                               FrameAddress& addr,
                               int64_t& notBeforePs)
{
    MetaRocePlane& ps = m_planes[plane];
    if (now < ps.nextSendPs)
    {
        notBeforePs = ps.nextSendPs; // the scheduler wakes the plane then
        return nullptr;
    }
    MetaRocePathSelector selector = Selector();
    if (!selector.RefreshPathWork(plane) && NewDataBlocked())
    {
        // The common pull of a window-limited connection: with no probe due
        // and nothing to resend on this plane, the full checks below end
        // with nothing sent and nothing changed; skip them.
        return nullptr;
    }
    // A failed path earns its load back with a probe: a payload-less packet,
    // so no message ever waits on a route that may still be dead.
    const int32_t probe = selector.ChooseProbe(plane);
    if (probe >= 0 && HasNewData())
    {
        return SendProbe(probe, addr, now);
    }
    // Lost packets first, each on the path that lost it.
    int32_t pi = selector.ChooseRetransmit(plane, now);
    FramePayload packet;
    if (pi >= 0)
    {
        packet = SendRetransmission(pi, addr, now);
    }
    if (!packet)
    {
        packet = SendNew(plane, pi, addr, now);
        if (!packet)
        {
            return nullptr;
        }
    }
    m_recovery.ArmRto(pi);
    Pace(plane, packet, now);
    return packet;
}

FramePayload
MetaRoceConnection::SendProbe(uint32_t pathIndex, FrameAddress& addr, int64_t now)
{
    MetaRocePath& p = m_paths[pathIndex];
    MetaRocePath::Outstanding& o = p.GetOutstanding();
    const uint32_t seq = p.nextSeq++;
    const MetaRoceChunkRef probe{MetaRoceChunkRef::kProbe, 0};
    o.packets.push_back(MetaRocePath::SentPacket{probe, now, MetaRocePath::PacketState::InFlight});
    ++o.inFlight;
    ++m_inFlight;
    ++p.GetHistory().probes;
    FramePayload packet =
        BuildPacket(p, pathIndex, seq, probe, MetaRoceDataHeader::PROBE, addr, now);
    m_recovery.ArmRto(pathIndex);
    return packet;
}

FramePayload
MetaRoceConnection::SendRetransmission(uint32_t pathIndex, FrameAddress& addr, int64_t now)
{
    MetaRocePath& p = m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // the selector found its queue non-empty
    const uint32_t una = p.Una();
    FramePayload packet;
    while (!o.retx.empty() && !packet)
    {
        const uint32_t seq = o.retx.front();
        o.retx.pop_front();
        if (seq < una || o.packets[seq - una].state != MetaRocePath::PacketState::Lost)
        {
            continue; // acknowledged meanwhile
        }
        MetaRocePath::SentPacket& pkt = o.packets[seq - una];
        pkt.state = MetaRocePath::PacketState::InFlight;
        pkt.sentPs = now;
        ++o.inFlight;
        ++m_inFlight;
        MetaRocePath::History& hist = p.GetHistory();
        ++(pkt.byTimeout ? hist.timeoutRetransmitted : hist.retransmitted);
        ++m_stats.retransmissions;
        m_retransmitTrace(pathIndex, seq, pkt.byTimeout);
        pkt.byTimeout = false;
        packet = BuildPacket(p, pathIndex, seq, pkt.ref, MetaRoceDataHeader::RETX, addr, now);
    }
    p.ReleaseIfIdle();
    return packet;
}

FramePayload
MetaRoceConnection::SendNew(uint32_t plane, int32_t& pi, FrameAddress& addr, int64_t now)
{
    if (NewDataBlocked())
    {
        return nullptr;
    }
    pi = Selector().ChooseNew(plane, now);
    MetaRoceChunkRef ref;
    if (pi < 0 || !m_sendQueue.NextChunk(ref))
    {
        return nullptr;
    }
    MetaRocePath& p = m_paths[pi];
    MetaRocePath::Outstanding& o = p.GetOutstanding();
    const uint32_t seq = p.nextSeq++;
    o.packets.push_back(MetaRocePath::SentPacket{ref, now, MetaRocePath::PacketState::InFlight});
    ++o.inFlight;
    ++m_inFlight;
    ++p.sent;
    return BuildPacket(p, pi, seq, ref, 0, addr, now);
}

void
MetaRoceConnection::Pace(uint32_t plane, const FramePayload& packet, int64_t now)
{
    MetaRocePlane& ps = m_planes[plane];
    const uint64_t line = LineBps(plane);
    if (ps.rateBps < line)
    {
        // The payload (BuildPacket leaves the data header to the NIC).
        const uint64_t wire =
            WireBytes(packet.GetSize() + MetaRoceDataHeader::kBytes + kFrameHeaderBytes);
        ps.nextSendPs =
            std::max(now, ps.nextSendPs) + int64_t(double(wire) * 8e12 / double(ps.rateBps));
    }
    else
    {
        ps.nextSendPs = 0;
    }
}

FramePayload
MetaRoceConnection::BuildPacket(const MetaRocePath& path,
                                uint32_t pathIndex,
                                uint32_t seq,
                                const MetaRoceChunkRef& ref,
                                uint8_t flags,
                                FrameAddress& addr,
                                int64_t nowPs)
{
    // The header goes to the transport's transmit header, which the NIC
    // writes with the frame headers in one pass: as bytes into a compact
    // frame (FrameAddress::innerBytes) when the payload is zeros, as a
    // Header into a Packet (FrameAddress::inner) when it carries bytes.
    MetaRoceDataHeader& h = m_transport->TxHeader();
    h.Clear();
    h.pathId = pathIndex;
    h.pathEpoch = path.epoch;
    h.connection = m_remoteId;
    h.pathSeq = seq;
    uint32_t len = 0; // a probe carries no payload
    const uint8_t* bytes = nullptr;
    if (ref.message == MetaRoceChunkRef::kProbe)
    {
        h.flags = flags;
    }
    else
    {
        const MetaRoceSendQueue::Message& m = m_sendQueue.Get(ref.message);
        const uint32_t offset = ref.chunk * m_payloadSize;
        len = std::min(m_payloadSize, m.wr.length - offset);
        if (m_payloadIntegrity)
        {
            bytes = GetLocalMemory()->Bytes(m.wr.lkey, m.wr.localAddress + offset);
        }
        m_sendQueue.DescribeChunk(ref, offset, flags, h);
        ++m_stats.dataPackets;
        m_stats.payloadBytes += len;
    }
    h.timestampPs = nowPs;
    addr = m_transport->DataAddress(GetRemoteHost(), GetPathPlane(pathIndex), path.srcPort);
    addr.ecn = m_ecnCapable ? Ecn::Ect0 : Ecn::NotEct;
    if (bytes)
    {
        addr.inner = &h;
        return FramePayload(Create<Packet>(bytes, len));
    }
    h.WriteTo(m_transport->TxHeaderBytes());
    addr.innerBytes = m_transport->TxHeaderBytes();
    addr.innerSize = MetaRoceDataHeader::kBytes;
    return FramePayload::Zeros(len);
}

void
MetaRoceConnection::Kick()
{
    if (HasNewData())
    {
        // Every plane is eligible (what KickPlane would find on each, in the
        // same order): one check of the scheduler's membership word instead
        // of eight calls after every ACK.
        m_scheduler->ActivateAll(m_schedulerIndex);
        return;
    }
    for (uint32_t plane = 0; plane < m_planes.size(); ++plane)
    {
        KickPlane(plane);
    }
}

void
MetaRoceConnection::KickPlane(uint32_t plane)
{
    // New data makes the plane eligible; otherwise only a retransmission
    // waiting on one of its paths does. (A connection waiting for its pacing
    // time stays in the NIC ring: nothing to do here for it.)
    if (HasNewData() || Selector().HasRetransmission(plane))
    {
        m_scheduler->Activate(m_schedulerIndex, plane);
    }
}

// ---------------------------------------------------------------------------
// Acknowledgements

void
MetaRoceConnection::ReceiveAck(const MetaRoceAckHeader& h, uint32_t plane)
{
    ++m_stats.acks;
    if (h.pathId >= m_paths.size() || h.pathEpoch != m_paths[h.pathId].epoch)
    {
        ++m_stats.staleAcks; // for a path epoch that was abandoned
        return;
    }
    const uint32_t pi = h.pathId;
    MetaRocePath& p = m_paths[pi];
    // Allocated if the path was idle (a late or duplicate ACK), released below.
    const MetaRocePath::Outstanding& o = p.GetOutstanding();
    const int64_t now = Simulator::Now().GetPicoSeconds();

    ApplyRateHint(h, GetPathPlane(pi));
    UpdatePath(h, pi, now);
    HandleNaks(h, pi, now);
    // Were the windows what limited sending? (RFC 7661: grow only then.)
    const bool pathLimited = o.inFlight + 1 >= std::max(1u, uint32_t(p.cwnd));
    const bool connLimited = m_inFlight + 1 >= std::max(1u, uint32_t(m_cc.cwnd));
    const uint32_t newly = m_recovery.ApplySack(h, pi);
    CongestionOnAck(pi, newly, h.flags & MetaRoceAckHeader::ECE, pathLimited, connLimited, now);
    // Loss: anything sent on this path before the packet this ACK echoes and
    // still missing was lost (one path is one FIFO route: decision 3).
    const uint32_t lost = m_recovery.DetectLosses(pi);
    if (lost > 0)
    {
        CongestionOnLoss(pi, lost);
    }
    if (newly > 0)
    {
        m_lastProgressPs = now;
    }
    m_recovery.UpdateTimer(pi, newly > 0, now);
    p.ReleaseIfIdle();
    Kick();
}

void
MetaRoceConnection::ApplyRateHint(const MetaRoceAckHeader& h, uint32_t plane)
{
    if (h.rateHintMbps == 0)
    {
        return;
    }
    MetaRocePlane& ps = m_planes[plane];
    const uint64_t line = LineBps(plane);
    // Pacing is per plane: the plane's line rate and the hint its ACK carried.
    RdmaFlowCc planeCc;
    planeCc.lineBps = line;
    planeCc.advisedBps = uint64_t(h.rateHintMbps) * 1000000;
    const uint64_t rate = m_ccOps->PacingRate(planeCc);
    if (rate != ps.rateBps)
    {
        ps.rateBps = rate;
        m_planeRateTrace(plane, rate);
    }
}

void
MetaRoceConnection::UpdatePath(const MetaRoceAckHeader& h, uint32_t pi, int64_t now)
{
    MetaRocePath& p = m_paths[pi];
    MetaRocePath::Outstanding& o = *p.outstanding;
    if (h.timestampEchoPs > 0 && int64_t(h.timestampEchoPs) <= now)
    {
        const int64_t samplePs = now - int64_t(h.timestampEchoPs);
        p.UpdateRtt(samplePs);
        m_pathRttTrace(pi, PicoSeconds(samplePs));
        o.maxEchoPs = std::max(o.maxEchoPs, int64_t(h.timestampEchoPs));
    }
    // The path answers: its timeout streak ends.
    o.consecutiveTimeouts = 0;
    o.backoff = 1;
    if (p.probing)
    {
        // The probe came back: the path carries full load again.
        p.probing = false;
        p.WithFlowCc(LineBps(GetPathPlane(pi)),
                     [this](RdmaFlowCc& cc) { m_ccOps->InitFlow(cc, Simulator::Now()); });
        m_pathWindowTrace(pi, p.cwnd);
    }
}

void
MetaRoceConnection::HandleNaks(const MetaRoceAckHeader& h, uint32_t pi, int64_t now)
{
    const MetaRocePath& p = m_paths[pi];
    const uint32_t una = p.Una();
    if (h.triggerSeq < una || h.triggerSeq >= p.nextSeq)
    {
        return; // answers a packet no longer outstanding
    }
    if (h.flags & MetaRoceAckHeader::RNR)
    {
        m_recovery.DeferRnr(pi, h.triggerSeq, now);
    }
    if (h.flags & (MetaRoceAckHeader::ACCESS_ERROR | MetaRoceAckHeader::LENGTH_ERROR))
    {
        const MetaRoceChunkRef ref = p.outstanding->packets[h.triggerSeq - una].ref;
        if (ref.message != MetaRoceChunkRef::kProbe && m_sendQueue.Holds(ref.message))
        {
            FailMessage(ref.message,
                        (h.flags & MetaRoceAckHeader::LENGTH_ERROR)
                            ? RdmaStatus::LengthError
                            : RdmaStatus::RemoteAccessError);
        }
    }
}

void
MetaRoceConnection::CongestionOnAck(uint32_t pi,
                                    uint32_t newly,
                                    bool ecn,
                                    bool pathLimited,
                                    bool connLimited,
                                    int64_t now)
{
    MetaRocePath& p = m_paths[pi];
    if (ecn)
    {
        MetaRocePath::History& hist = p.GetHistory();
        hist.lastEcnPs = now;
        ++hist.ecnEchoes;
    }
    if (newly == 0 && !ecn)
    {
        return;
    }
    const double before = p.cwnd;
    const double connBefore = m_cc.cwnd;
    RdmaAckEvent ev;
    ev.packets = newly;
    ev.ecnEcho = ecn;
    ev.srtt = PicoSeconds(p.srttPs);
    ev.pathLimited = pathLimited;
    ev.connectionLimited = connLimited;
    p.WithFlowCc(LineBps(GetPathPlane(pi)),
                 [&](RdmaFlowCc& cc) { m_ccOps->PacketsAcked(m_cc, cc, ev, Simulator::Now()); });
    if (p.cwnd != before)
    {
        m_pathWindowTrace(pi, p.cwnd);
    }
    if (m_cc.cwnd != connBefore)
    {
        m_connectionWindowTrace(m_cc.cwnd);
    }
}

void
MetaRoceConnection::CongestionOnLoss(uint32_t pi, uint32_t lost)
{
    MetaRocePath& p = m_paths[pi];
    p.GetHistory().lost += lost;
    const double before = p.cwnd;
    p.WithFlowCc(LineBps(GetPathPlane(pi)),
                 [&](RdmaFlowCc& cc) { m_ccOps->PacketsLost(m_cc, cc, lost, Simulator::Now()); });
    if (p.cwnd != before)
    {
        m_pathWindowTrace(pi, p.cwnd);
    }
}

void
MetaRoceConnection::TimeoutWindow(uint32_t pi)
{
    MetaRocePath& p = m_paths[pi];
    p.WithFlowCc(LineBps(GetPathPlane(pi)),
                 [this](RdmaFlowCc& cc) { m_ccOps->Timeout(m_cc, cc, Simulator::Now()); });
    m_pathWindowTrace(pi, p.cwnd);
}

void
MetaRoceConnection::PathFailed(uint32_t pi, uint16_t oldPort)
{
    MetaRocePath& p = m_paths[pi];
    const uint32_t plane = GetPathPlane(pi);
    NS_LOG_INFO("connection " << m_id << " path " << pi << " (plane " << plane << ") failed: port "
                              << oldPort << " -> " << p.srcPort);
    p.WithFlowCc(LineBps(plane),
                 [this](RdmaFlowCc& cc) { m_ccOps->FlowFailed(m_cc, cc, Simulator::Now()); });
    m_pathFailedTrace(pi, plane, oldPort, p.srcPort);
    m_pathWindowTrace(pi, p.cwnd);
    Kick();
}

// ---------------------------------------------------------------------------
// Completions

void
MetaRoceConnection::FailMessage(uint64_t index, RdmaStatus status)
{
    if (m_sendQueue.Fail(index, status))
    {
        ReleaseCompletions(m_sendQueue.Get(index).wr.stream);
    }
}

void
MetaRoceConnection::ReleaseCompletions(uint16_t stream)
{
    // Complete() may post more work: the queue finds the stream's next
    // completion afresh each round.
    RdmaCompletion c;
    while (m_sendQueue.PopCompletion(stream, c))
    {
        Complete(c);
    }
    m_sendQueue.TrimReleased();
}

// ---------------------------------------------------------------------------
// Link changes and the watchdog

void
MetaRoceConnection::PlaneLinkChanged(uint32_t plane, bool up)
{
    if (up)
    {
        KickPlane(plane); // its paths are probing: one packet each until ACKs return
        return;
    }
    // The NIC sees its own port go down: no need to wait for timeouts.
    for (uint32_t i = plane; i < m_paths.size(); i += m_planes.size())
    {
        m_recovery.FailPath(i);
    }
}

void
MetaRoceConnection::ArmWatchdog()
{
    if (!m_watchdog.IsRunning())
    {
        m_watchdog = Simulator::Schedule(PicoSeconds(m_watchdogTimeoutPs),
                                         &MetaRoceConnection::Watchdog,
                                         this);
    }
}

void
MetaRoceConnection::Watchdog()
{
    if (m_sendQueue.GetOutstandingMessages() == 0)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetPicoSeconds();
    const int64_t due = m_lastProgressPs + m_watchdogTimeoutPs;
    if (now >= due)
    {
        ++m_stats.stalls;
        const uint64_t oldest = m_sendQueue.GetOldestPendingWrId();
        const int32_t stuckPath = StuckPath();
        NS_LOG_WARN("connection " << m_id << " (host " << GetLocalHost() << " -> "
                                  << GetRemoteHost() << ") stalled: work request " << oldest
                                  << " has made no progress since "
                                  << PicoSeconds(m_lastProgressPs).As(Time::US) << " (path "
                                  << stuckPath << ")");
        m_stalledTrace(m_id, oldest, stuckPath, PicoSeconds(m_lastProgressPs));
        m_watchdog = Simulator::Schedule(PicoSeconds(m_watchdogTimeoutPs),
                                         &MetaRoceConnection::Watchdog,
                                         this);
        return;
    }
    m_watchdog = Simulator::Schedule(PicoSeconds(due - now), &MetaRoceConnection::Watchdog, this);
}

int32_t
MetaRoceConnection::StuckPath() const
{
    // -1: no path holds an unacknowledged packet, e.g. every path is failed
    // and probing.
    int32_t stuckPath = -1;
    int64_t oldestSentPs = INT64_MAX;
    for (uint32_t i = 0; i < m_paths.size(); ++i)
    {
        if (const MetaRocePath::Outstanding* o = m_paths[i].outstanding.get())
        {
            for (size_t k = 0; k < o->packets.size(); ++k)
            {
                if (o->packets[k].state != MetaRocePath::PacketState::Acked &&
                    o->packets[k].sentPs < oldestSentPs)
                {
                    oldestSentPs = o->packets[k].sentPs;
                    stuckPath = int32_t(i);
                }
            }
        }
    }
    return stuckPath;
}

// ---------------------------------------------------------------------------
// Receiving

void
MetaRoceConnection::ReceiveData(const MetaRoceDataHeader& h,
                                const FramePayload& payload,
                                bool ce,
                                uint32_t plane,
                                uint64_t hintBps)
{
    MetaRoceAckHeader& ack = m_transport->AckScratch(); // OnData and this set every field
    if (!m_receiver.OnData(h, payload, ce, ack))
    {
        return;
    }
    ack.connection = m_remoteId;
    ack.rateHintMbps = uint32_t(std::max<uint64_t>(1, hintBps / 1000000));
    // The ACK of a path keeps one reverse route per epoch (its own entropy).
    const uint16_t port = uint16_t(49152 + ((uint32_t(h.pathId) * 2654435761u) ^
                                            (uint32_t(h.pathEpoch) << 8) ^ (m_id * 40503u)) %
                                               16384);
    ++m_stats.acksSent;
    m_transport->SendAck(ack, plane, GetRemoteHost(), port);
}

} // namespace ns3
