#include "metaroce-connection.h"

#include "metaroce-aimd.h"
#include "metaroce-transport.h"

#include "delay-until.h"

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

namespace
{
constexpr uint32_t kMaxBackoff = 64;
} // namespace

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
            .AddAttribute("MinRto",
                          "Lower bound of a path's retransmission timeout (model assumption: "
                          "50 us, five base RTTs of the 64-host fabric)",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&MetaRoceConnection::SetMinRto,
                                           &MetaRoceConnection::GetMinRto),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxRto",
                          "Upper bound of a path's timeout, backoff included (also the "
                          "longest spacing of probes on a failed path)",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&MetaRoceConnection::SetMaxRto,
                                           &MetaRoceConnection::GetMaxRto),
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
                          MakeUintegerAccessor(&MetaRoceConnection::m_failureThreshold),
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
    m_rtoEvent.Cancel();
    m_rnrEvent.Cancel();
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
    for (uint32_t i = 0; i < nPaths; ++i)
    {
        Path& p = m_paths[i];
        p.srcPort = transport->AllocateSourcePort();
        WithFlowCc(p, i, [this](RdmaFlowCc& cc) { m_ccOps->InitFlow(cc); });
    }
    m_ccOps->Init(m_cc, nPaths);
    m_receiver.Configure(
        transport->GetMemory(),
        [this](const RdmaCompletion& c) { Complete(c); },
        m_maxMessagesAhead,
        nPaths); // the peer is set up alike
}

// ---------------------------------------------------------------------------
// Path state (issue 6: a path is 56 bytes; what it holds only while busy or
// only after a rare event lives in parts allocated then)

uint64_t
MetaRoceConnection::LineBps(uint32_t plane) const
{
    return m_transport->PeekNic()->PeekPort(plane)->GetBitRate();
}

MetaRoceConnection::FlightPool::~FlightPool()
{
    for (PathFlight* f : spare)
    {
        delete f;
    }
}

MetaRoceConnection::FlightPool&
MetaRoceConnection::Pool()
{
    static thread_local FlightPool pool;
    return pool;
}

MetaRoceConnection::PathFlight&
MetaRoceConnection::Flight(Path& p)
{
    if (!p.flight)
    {
#if !defined(__SANITIZE_ADDRESS__)
        auto& spare = Pool().spare;
        if (!spare.empty())
        {
            p.flight.reset(spare.back()); // in the state ReleaseIfIdle left it: a fresh one's
            spare.pop_back();
            return *p.flight;
        }
#endif
        p.flight = std::make_unique<PathFlight>();
    }
    return *p.flight;
}

MetaRoceConnection::PathCold&
MetaRoceConnection::Cold(Path& p)
{
    if (!p.cold)
    {
        p.cold = std::make_unique<PathCold>();
    }
    return *p.cold;
}

void
MetaRoceConnection::ReleaseIfIdle(Path& p)
{
    // A fresh PathFlight is equivalent to one with these defaults and any
    // maxEchoPs: every packet the path sends later leaves no earlier than
    // now, so no earlier than any send time an ACK has echoed so far.
    const PathFlight* f = p.flight.get();
    if (f && f->records.empty() && f->retx.empty() && f->inFlight == 0 &&
        f->rtoDeadlinePs == 0 && f->consecutiveTimeouts == 0 && f->backoff == 1)
    {
#if !defined(__SANITIZE_ADDRESS__)
        auto& spare = Pool().spare;
        if (spare.size() < FlightPool::kFlightPoolSize)
        {
            p.flight->maxEchoPs = PathFlight().maxEchoPs;
            spare.push_back(p.flight.release());
            return;
        }
#endif
        p.flight.reset();
    }
}

template <typename F>
void
MetaRoceConnection::WithFlowCc(Path& p, uint32_t pathIndex, F f)
{
    RdmaFlowCc cc;
    cc.cwnd = p.cwnd;
    cc.lineBps = LineBps(GetPathPlane(pathIndex));
    if (p.cold)
    {
        cc.lastDecreasePs = p.cold->lastDecreasePs;
        cc.rateBps = p.cold->rateBps;
        cc.extra = std::move(p.cold->extra);
    }
    f(cc);
    p.cwnd = cc.cwnd;
    if (p.cold || cc.lastDecreasePs != RdmaFlowCc().lastDecreasePs || cc.rateBps != 0 || cc.extra)
    {
        PathCold& c = Cold(p);
        c.lastDecreasePs = cc.lastDecreasePs;
        c.rateBps = cc.rateBps;
        c.extra = std::move(cc.extra);
    }
}

MetaRocePathStats
MetaRoceConnection::GetPathStats(uint32_t path) const
{
    const Path& p = m_paths[path];
    MetaRocePathStats s;
    s.sent = p.sent;
    s.acked = p.acked;
    if (const PathCold* c = p.cold.get())
    {
        s.retransmitted = c->retransmitted;
        s.timeoutRetransmitted = c->timeoutRetransmitted;
        s.timeouts = c->timeouts;
        s.failures = c->failures;
        s.ecnEchoes = c->ecnEchoes;
        s.lost = c->lost;
        s.probes = c->probes;
    }
    return s;
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
    if (wr.stream >= m_streams.size())
    {
        m_streams.resize(wr.stream + 1);
    }
    TxStream& s = m_streams[wr.stream];
    const uint64_t index = m_messageBase + m_messages.size();
    m_messages.push_back(TxMessage());
    TxMessage& m = m_messages.back();
    m.wr = wr;
    m.posted = Simulator::Now();
    m.chunks = uint32_t((uint64_t(wr.length) + m_payloadSize - 1) / m_payloadSize);
    CountPosted(wr);
    if (m_outstandingMessages++ == 0)
    {
        m_lastProgressPs = Simulator::Now().GetPicoSeconds();
    }
    s.order.push_back(index);
    if (wr.lkey != 0 && !GetLocalMemory()->CheckAccess(wr.lkey, wr.localAddress, wr.length))
    {
        // Rejected before any sequence number is used: the peer never sees it.
        FailMessage(index, RdmaStatus::LocalProtectionError);
        return;
    }
    m.messageSeq = s.nextMessageSeq++;
    if (wr.opcode == RdmaOpcode::Send)
    {
        m.sendSeq = s.nextSendSeq++;
    }
    m.ackedBits.assign((m.chunks + 63) / 64, 0);
    s.unsent.push_back(index);
    if (!s.active)
    {
        s.active = true;
        m_activeStreams.push_back(wr.stream);
    }
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

bool
MetaRoceConnection::NextChunk(ChunkRef& ref)
{
    while (!m_resend.empty())
    {
        ref = m_resend.front();
        m_resend.pop_front();
        if (ref.message < m_messageBase)
        {
            continue;
        }
        const TxMessage& m = Message(ref.message);
        if (m.done || (m.ackedBits[ref.chunk >> 6] >> (ref.chunk & 63)) & 1)
        {
            continue;
        }
        return true;
    }
    while (!m_activeStreams.empty())
    {
        const uint16_t sid = m_activeStreams.front();
        TxStream& s = m_streams[sid];
        while (!s.unsent.empty() &&
               (s.unsent.front() < m_messageBase || Message(s.unsent.front()).done ||
                Message(s.unsent.front()).nextChunk >= Message(s.unsent.front()).chunks))
        {
            s.unsent.pop_front();
        }
        if (s.unsent.empty())
        {
            m_activeStreams.pop_front();
            s.active = false;
            continue;
        }
        TxMessage& m = Message(s.unsent.front());
        ref.message = s.unsent.front();
        ref.chunk = m.nextChunk++;
        if (m.nextChunk >= m.chunks)
        {
            s.unsent.pop_front();
        }
        if (s.unsent.empty())
        {
            s.active = false;
        }
        else
        {
            // Round robin over streams, a packet at a time. Pushed before
            // the pop, so a lone stream does not empty the buffer (which
            // would free its array, to allocate it again at once).
            m_activeStreams.push_back(sid);
        }
        m_activeStreams.pop_front();
        return true;
    }
    return false;
}

bool
MetaRoceConnection::HasRoom(const Path& p) const
{
    if (Outstanding(p) >= SackBitmap::kBits)
    {
        return false; // the receiver's bitmap could not describe another packet
    }
    if (p.probing)
    {
        return false; // carries only its probe (PullPacket) until an ACK comes back
    }
    return InFlight(p) < std::max(1u, uint32_t(p.cwnd));
}

bool
MetaRoceConnection::PlaneHasPathWork(uint32_t plane) const
{
    for (uint32_t i = plane; i < m_paths.size(); i += m_planes.size())
    {
        const Path& p = m_paths[i];
        if (p.probing || (p.flight && !p.flight->retx.empty()))
        {
            return true;
        }
    }
    return false;
}

void
MetaRoceConnection::MarkPathWork(uint32_t pathIndex)
{
    m_planes[GetPathPlane(pathIndex)].pathWork = true;
}

int32_t
MetaRoceConnection::ChoosePath(uint32_t plane, bool forRetransmit, int64_t now)
{
    PlaneState& ps = m_planes[plane];
    const uint32_t nPlanes = m_planes.size();
    const uint32_t n = m_paths.size() / nPlanes;
    int32_t fallback = -1;
    uint32_t fallbackK = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t i = plane + (ps.rrNext + k) % n * nPlanes;
        const Path& p = m_paths[i];
        if (forRetransmit && (!p.flight || p.flight->retx.empty()))
        {
            continue;
        }
        if (!HasRoom(p))
        {
            continue;
        }
        // "New packets go to clear paths": no ECN echo within the last RTT.
        const int64_t lastEcnPs = p.cold ? p.cold->lastEcnPs : PathCold().lastEcnPs;
        const bool clear = now - lastEcnPs > std::max<int64_t>(p.srttPs, 1);
        if (clear || forRetransmit)
        {
            ps.rrNext = (ps.rrNext + k + 1) % n;
            return int32_t(i);
        }
        if (fallback < 0)
        {
            fallback = int32_t(i);
            fallbackK = k;
        }
    }
    if (fallback >= 0)
    {
        ps.rrNext = (ps.rrNext + fallbackK + 1) % n;
    }
    return fallback;
}

FramePayload
MetaRoceConnection::PullPacket(uint32_t plane,
                               int64_t now,
                               FrameAddress& addr,
                               int64_t& notBeforePs)
{
    PlaneState& ps = m_planes[plane];
    if (now < ps.nextSendPs)
    {
        notBeforePs = ps.nextSendPs; // the scheduler wakes the plane then
        return nullptr;
    }
    if (ps.pathWork)
    {
        ps.pathWork = PlaneHasPathWork(plane);
    }
    if (!ps.pathWork && NewDataBlocked())
    {
        // The common pull of a window-limited connection: with no probe due
        // and nothing to resend on this plane, the full checks below end
        // with nothing sent and nothing changed; skip them.
        return nullptr;
    }
    FramePayload packet;
    // A failed path earns its load back with a probe: a payload-less packet,
    // so no message ever waits on a route that may still be dead.
    for (uint32_t i = plane; ps.pathWork && i < m_paths.size(); i += m_planes.size())
    {
        Path& p = m_paths[i];
        if (p.probing && InFlight(p) == 0 && Outstanding(p) < SackBitmap::kBits && HasNewData())
        {
            PathFlight& f = Flight(p);
            const uint32_t seq = p.nextSeq++;
            const ChunkRef probe{kProbe, 0};
            f.records.push_back(TxRecord{probe, now, TxState::InFlight});
            ++f.inFlight;
            ++m_inFlight;
            ++Cold(p).probes;
            packet = BuildPacket(p, i, seq, probe, MetaRoceDataHeader::PROBE, addr, now);
            ArmRto(i);
            return packet;
        }
    }
    // Lost packets first, each on the path that lost it.
    int32_t pi = ps.pathWork ? ChoosePath(plane, true, now) : -1;
    if (pi >= 0)
    {
        Path& p = m_paths[pi];
        PathFlight& f = *p.flight; // ChoosePath found its retransmit queue non-empty
        const uint32_t una = Una(p);
        while (!f.retx.empty() && !packet)
        {
            const uint32_t seq = f.retx.front();
            f.retx.pop_front();
            if (seq < una || f.records[seq - una].state != TxState::Lost)
            {
                continue; // acknowledged meanwhile
            }
            TxRecord& rec = f.records[seq - una];
            rec.state = TxState::InFlight;
            rec.sentPs = now;
            ++f.inFlight;
            ++m_inFlight;
            PathCold& c = Cold(p);
            ++(rec.byTimeout ? c.timeoutRetransmitted : c.retransmitted);
            ++m_stats.retransmissions;
            m_retransmitTrace(pi, seq, rec.byTimeout);
            rec.byTimeout = false;
            packet = BuildPacket(p, pi, seq, rec.ref, MetaRoceDataHeader::RETX, addr, now);
        }
        ReleaseIfIdle(p);
    }
    if (!packet)
    {
        if (NewDataBlocked())
        {
            return nullptr;
        }
        pi = ChoosePath(plane, false, now);
        ChunkRef ref;
        if (pi < 0 || !NextChunk(ref))
        {
            return nullptr;
        }
        Path& p = m_paths[pi];
        PathFlight& f = Flight(p);
        const uint32_t seq = p.nextSeq++;
        f.records.push_back(TxRecord{ref, now, TxState::InFlight});
        ++f.inFlight;
        ++m_inFlight;
        ++p.sent;
        packet = BuildPacket(p, pi, seq, ref, 0, addr, now);
    }
    ArmRto(pi);
    const uint64_t line = LineBps(plane);
    if (ps.rateBps < line)
    {
        // The payload (BuildPacket leaves the data header to the NIC).
        const uint64_t wire =
            WireBytes(packet.GetSize() + MetaRoceDataHeader::kBytes + kFrameHeaderBytes);
        ps.nextSendPs = std::max(now, ps.nextSendPs) +
                        int64_t(double(wire) * 8e12 / double(ps.rateBps));
    }
    else
    {
        ps.nextSendPs = 0;
    }
    return packet;
}

FramePayload
MetaRoceConnection::BuildPacket(Path& path,
                                uint32_t pathIndex,
                                uint32_t seq,
                                const ChunkRef& ref,
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
    if (ref.message == kProbe)
    {
        h.flags = flags;
    }
    else
    {
        const TxMessage& m = Message(ref.message);
        const uint32_t offset = ref.chunk * m_payloadSize;
        len = std::min(m_payloadSize, m.wr.length - offset);
        if (m_payloadIntegrity)
        {
            bytes = GetLocalMemory()->Bytes(m.wr.lkey, m.wr.localAddress + offset);
        }
        h.opcode =
            m.wr.opcode == RdmaOpcode::Write ? MetaRoceDataHeader::WRITE : MetaRoceDataHeader::SEND;
        h.flags = flags | (ref.chunk == 0 ? MetaRoceDataHeader::FIRST : 0) |
                  (ref.chunk + 1 == m.chunks ? MetaRoceDataHeader::LAST : 0);
        h.stream = m.wr.stream;
        h.messageSeq = m.messageSeq;
        h.messageLength = m.wr.length;
        h.offset = offset;
        if (m.wr.opcode == RdmaOpcode::Write)
        {
            h.remoteAddress = m.wr.remoteAddress + offset;
            h.keyOrMatch = m.wr.rkey;
        }
        else
        {
            h.keyOrMatch = m.sendSeq;
        }
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
    bool work = HasNewData();
    for (uint32_t i = plane; i < m_paths.size() && !work && m_planes[plane].pathWork;
         i += m_planes.size())
    {
        work = m_paths[i].flight && !m_paths[i].flight->retx.empty();
    }
    if (work)
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
    const uint32_t pathPlane = GetPathPlane(pi);
    Path& p = m_paths[pi];
    // Allocated if the path was idle (a late or duplicate ACK), released below.
    PathFlight& f = Flight(p);
    const int64_t now = Simulator::Now().GetPicoSeconds();

    // Receiver-driven rate (decision 4).
    if (h.rateHintMbps != 0)
    {
        PlaneState& ps = m_planes[pathPlane];
        const uint64_t line = LineBps(pathPlane);
        const uint64_t hintBps = uint64_t(h.rateHintMbps) * 1000000;
        const uint64_t rate = m_ccOps->PacingRate(nullptr, hintBps, line);
        if (rate != ps.rateBps)
        {
            ps.rateBps = rate;
            m_planeRateTrace(pathPlane, rate);
        }
    }
    if (h.timestampEchoPs > 0 && int64_t(h.timestampEchoPs) <= now)
    {
        UpdateRtt(p, now - int64_t(h.timestampEchoPs));
        f.maxEchoPs = std::max(f.maxEchoPs, int64_t(h.timestampEchoPs));
    }
    f.consecutiveTimeouts = 0;
    f.backoff = 1;
    if (p.probing)
    {
        // The probe came back: the path carries full load again.
        p.probing = false;
        WithFlowCc(p, pi, [this](RdmaFlowCc& cc) { m_ccOps->InitFlow(cc); });
        m_pathWindowTrace(pi, p.cwnd);
    }

    const uint32_t una = Una(p);
    const bool triggerKnown = h.triggerSeq >= una && h.triggerSeq < p.nextSeq;
    if (triggerKnown && (h.flags & MetaRoceAckHeader::RNR))
    {
        TxRecord& rec = f.records[h.triggerSeq - una];
        if (rec.state == TxState::InFlight)
        {
            rec.state = TxState::RnrWait;
            --f.inFlight;
            --m_inFlight;
            ++m_stats.rnrRetries;
            m_rnrWait.push_back(RnrEntry{now + m_rnrDelayPs, pi, p.epoch, h.triggerSeq});
            if (!m_rnrEvent.IsRunning())
            {
                m_rnrEvent = Simulator::Schedule(PicoSeconds(m_rnrDelayPs),
                                                 &MetaRoceConnection::RnrTimer,
                                                 this);
            }
        }
    }
    if (triggerKnown &&
        (h.flags & (MetaRoceAckHeader::ACCESS_ERROR | MetaRoceAckHeader::LENGTH_ERROR)))
    {
        const ChunkRef ref = f.records[h.triggerSeq - una].ref;
        if (ref.message != kProbe && ref.message >= m_messageBase)
        {
            FailMessage(ref.message,
                        (h.flags & MetaRoceAckHeader::LENGTH_ERROR) ? RdmaStatus::LengthError
                                                                    : RdmaStatus::RemoteAccessError);
        }
    }

    // Were the windows what limited sending? (RFC 7661: grow only then.)
    const bool pathLimited = f.inFlight + 1 >= std::max(1u, uint32_t(p.cwnd));
    const bool connLimited = m_inFlight + 1 >= std::max(1u, uint32_t(m_cc.cwnd));

    // Cumulative and selective acknowledgement.
    uint32_t newly = 0;
    auto ackSeq = [&](uint32_t seq) {
        TxRecord& rec = f.records[seq - una];
        if (rec.state == TxState::Acked)
        {
            return;
        }
        if (rec.state == TxState::InFlight)
        {
            --f.inFlight;
            --m_inFlight;
        }
        rec.state = TxState::Acked;
        ++newly;
        AckChunk(rec.ref);
    };
    const uint32_t cum = std::min(h.cumulativeSeq, p.nextSeq);
    for (uint32_t seq = una; seq < cum; ++seq)
    {
        ackSeq(seq);
    }
    const int32_t highest = h.sack.Highest();
    for (int32_t bit = 0; bit <= highest; ++bit)
    {
        const uint32_t seq = h.cumulativeSeq + 1 + bit;
        if (seq >= p.nextSeq)
        {
            break;
        }
        if (seq >= una && h.sack.Test(bit))
        {
            ackSeq(seq);
        }
    }
    while (!f.records.empty() && f.records.front().state == TxState::Acked)
    {
        f.records.pop_front();
    }
    p.acked += newly;

    // Congestion control (decision 4).
    const bool ecn = h.flags & MetaRoceAckHeader::ECE;
    if (ecn)
    {
        PathCold& c = Cold(p);
        c.lastEcnPs = now;
        ++c.ecnEchoes;
    }
    if (newly > 0 || ecn)
    {
        const double before = p.cwnd;
        const double connBefore = m_cc.cwnd;
        RdmaAckEvent ev;
        ev.packets = newly;
        ev.ecnEcho = ecn;
        ev.srtt = PicoSeconds(p.srttPs);
        ev.pathLimited = pathLimited;
        ev.connectionLimited = connLimited;
        WithFlowCc(p, pi, [&](RdmaFlowCc& cc) { m_ccOps->PacketsAcked(m_cc, cc, ev); });
        if (p.cwnd != before)
        {
            m_pathWindowTrace(pi, p.cwnd);
        }
        if (m_cc.cwnd != connBefore)
        {
            m_connectionWindowTrace(m_cc.cwnd);
        }
    }

    // Loss: anything sent on this path before the packet this ACK echoes and
    // still missing was lost (one path is one FIFO route: decision 3).
    uint32_t lost = 0;
    const uint32_t firstUnacked = Una(p);
    for (uint32_t k = 0; k < f.records.size(); ++k)
    {
        TxRecord& rec = f.records[k];
        if (rec.state == TxState::InFlight && rec.sentPs < f.maxEchoPs)
        {
            rec.state = TxState::Lost;
            --f.inFlight;
            --m_inFlight;
            f.retx.push_back(firstUnacked + k);
            MarkPathWork(pi);
            ++lost;
        }
    }
    if (lost > 0)
    {
        Cold(p).lost += lost;
        const double before = p.cwnd;
        WithFlowCc(p, pi, [&](RdmaFlowCc& cc) { m_ccOps->PacketsLost(m_cc, cc, lost); });
        if (p.cwnd != before)
        {
            m_pathWindowTrace(pi, p.cwnd);
        }
    }

    if (newly > 0)
    {
        m_lastProgressPs = now;
    }
    if (f.inFlight == 0 && f.retx.empty())
    {
        f.rtoDeadlinePs = 0;
    }
    else if (newly > 0)
    {
        f.rtoDeadlinePs = now + RtoPs(p);
        ArmRto(pi);
    }
    ReleaseIfIdle(p);
    Kick();
}

void
MetaRoceConnection::AckChunk(const ChunkRef& ref)
{
    if (ref.message == kProbe || ref.message < m_messageBase)
    {
        return;
    }
    TxMessage& m = Message(ref.message);
    uint64_t& word = m.ackedBits[ref.chunk >> 6];
    const uint64_t bit = uint64_t(1) << (ref.chunk & 63);
    if (m.done || (word & bit))
    {
        return;
    }
    word |= bit;
    if (++m.ackedChunks == m.chunks)
    {
        m.done = true;
        --m_outstandingMessages;
        ReleaseCompletions(m.wr.stream);
    }
}

void
MetaRoceConnection::FailMessage(uint64_t index, RdmaStatus status)
{
    TxMessage& m = Message(index);
    if (m.done)
    {
        return;
    }
    m.done = true;
    m.status = status;
    m.nextChunk = m.chunks; // nothing more of it is sent
    --m_outstandingMessages;
    ReleaseCompletions(m.wr.stream);
}

void
MetaRoceConnection::ReleaseCompletions(uint16_t stream)
{
    // Complete() may post more work, which can grow m_streams and m_messages:
    // look both up again on every round.
    while (!m_streams[stream].order.empty())
    {
        TxStream& s = m_streams[stream];
        TxMessage& m = Message(s.order.front());
        if (!m.done)
        {
            break;
        }
        s.order.pop_front();
        m.released = true;
        RdmaCompletion c;
        c.wrId = m.wr.wrId;
        c.opcode = m.wr.opcode;
        c.status = m.status;
        c.stream = stream;
        c.bytes = m.wr.length;
        c.posted = m.posted;
        c.completed = Simulator::Now();
        Complete(c);
    }
    while (!m_messages.empty() && m_messages.front().released)
    {
        m_messages.pop_front();
        ++m_messageBase;
    }
}

// ---------------------------------------------------------------------------
// Timers, failures, repathing

void
MetaRoceConnection::UpdateRtt(Path& p, int64_t samplePs)
{
    // RFC 6298 smoothing, per path.
    if (p.srttPs == 0)
    {
        p.srttPs = samplePs;
        p.rttvarPs = samplePs / 2;
    }
    else
    {
        const int64_t err = p.srttPs > samplePs ? p.srttPs - samplePs : samplePs - p.srttPs;
        p.rttvarPs = (3 * p.rttvarPs + err) / 4;
        p.srttPs = (7 * p.srttPs + samplePs) / 8;
    }
    m_pathRttTrace(uint32_t(&p - m_paths.data()), PicoSeconds(samplePs));
}

int64_t
MetaRoceConnection::RtoPs(const Path& p) const
{
    const int64_t minPs = m_minRtoPs;
    const int64_t maxPs = m_maxRtoPs;
    int64_t rto = p.srttPs > 0 ? p.srttPs + 4 * p.rttvarPs : m_initialRtoPs;
    rto = std::clamp(rto, minPs, maxPs);
    const uint32_t backoff = p.flight ? p.flight->backoff : 1;
    return std::min(rto * int64_t(backoff), maxPs);
}

void
MetaRoceConnection::ArmRto(uint32_t pathIndex)
{
    Path& p = m_paths[pathIndex];
    PathFlight& f = *p.flight; // called for a path with something outstanding
    // Once per packet: the time is read once and the timer's nanosecond
    // computed in integers (DelayNsUntilPs, without Time arithmetic).
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    if (f.rtoDeadlinePs == 0)
    {
        f.rtoDeadlinePs = nowPs + RtoPs(p);
    }
    // One timer per connection, at the earliest path deadline, re-armed
    // lazily: a deadline that moves later is picked up when the timer fires;
    // only an earlier one needs a new event.
    const int64_t delayNs = DelayNsUntilPs(nowPs, f.rtoDeadlinePs);
    const int64_t atPs = nowPs + delayNs * 1000;
    if (m_rtoEventPs != 0 && m_rtoEventPs <= atPs)
    {
        return;
    }
    m_rtoEvent.Cancel();
    m_rtoEventPs = atPs;
    m_rtoEvent = Simulator::Schedule(NanoSeconds(delayNs), &MetaRoceConnection::RtoTimer, this);
}

void
MetaRoceConnection::RtoTimer()
{
    m_rtoEventPs = 0;
    const int64_t now = Simulator::Now().GetPicoSeconds();
    for (uint32_t i = 0; i < m_paths.size(); ++i)
    {
        const PathFlight* f = m_paths[i].flight.get();
        if (f && f->rtoDeadlinePs != 0 && f->rtoDeadlinePs <= now)
        {
            PathTimeout(i);
        }
    }
    for (uint32_t i = 0; i < m_paths.size(); ++i)
    {
        const PathFlight* f = m_paths[i].flight.get();
        if (f && f->rtoDeadlinePs != 0)
        {
            ArmRto(i); // keeps the earliest
        }
    }
}

void
MetaRoceConnection::PathTimeout(uint32_t pathIndex)
{
    Path& p = m_paths[pathIndex];
    PathFlight& f = *p.flight; // its deadline was set
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (f.inFlight == 0 && f.retx.empty())
    {
        f.rtoDeadlinePs = 0; // only receiver-not-ready waits left: the RNR timer owns them
        ReleaseIfIdle(p);
        return;
    }
    ++Cold(p).timeouts;
    ++f.consecutiveTimeouts;
    if (p.probing || f.consecutiveTimeouts >= m_failureThreshold)
    {
        FailPath(pathIndex);
        return;
    }
    f.backoff = std::min(f.backoff * 2, kMaxBackoff);
    WithFlowCc(p, pathIndex, [this](RdmaFlowCc& cc) { m_ccOps->Timeout(m_cc, cc); });
    m_pathWindowTrace(pathIndex, p.cwnd);
    // Tail loss: resend the oldest packet still in flight on this path.
    int32_t oldest = -1;
    for (uint32_t k = 0; k < f.records.size(); ++k)
    {
        const TxRecord& rec = f.records[k];
        if (rec.state == TxState::InFlight &&
            (oldest < 0 || rec.sentPs < f.records[oldest].sentPs))
        {
            oldest = int32_t(k);
        }
    }
    if (oldest >= 0)
    {
        f.records[oldest].state = TxState::Lost;
        f.records[oldest].byTimeout = true;
        --f.inFlight;
        --m_inFlight;
        f.retx.push_front(Una(p) + oldest);
        MarkPathWork(pathIndex);
    }
    f.rtoDeadlinePs = now + RtoPs(p); // armed by RtoTimer
    KickPlane(GetPathPlane(pathIndex));
}

void
MetaRoceConnection::FailPath(uint32_t pathIndex)
{
    Path& p = m_paths[pathIndex];
    PathFlight& f = Flight(p); // keeps the doubled backoff below
    const uint16_t oldPort = p.srcPort;
    // Everything the path still owes moves to the healthy paths.
    for (size_t k = 0; k < f.records.size(); ++k)
    {
        const TxRecord& rec = f.records[k];
        if (rec.state == TxState::Acked)
        {
            continue;
        }
        if (rec.state == TxState::InFlight)
        {
            --m_inFlight;
        }
        if (rec.ref.message == kProbe)
        {
            continue;
        }
        m_resend.push_back(rec.ref);
        ++m_stats.resent;
    }
    f.records.clear();
    f.retx.clear();
    f.inFlight = 0;
    p.nextSeq = 0;
    ++p.epoch; // the receiver restarts the path's bitmap; late packets and ACKs are stale
    p.srcPort = m_transport->AllocateSourcePort();
    f.maxEchoPs = -1;
    p.probing = true;
    MarkPathWork(pathIndex);
    p.cwnd = 1;
    f.backoff = std::min(f.backoff * 2, kMaxBackoff); // probes of a dead route spread out
    f.rtoDeadlinePs = 0;
    ++Cold(p).failures;
    const uint32_t plane = GetPathPlane(pathIndex);
    NS_LOG_INFO("connection " << m_id << " path " << pathIndex << " (plane " << plane
                              << ") failed: port " << oldPort << " -> " << p.srcPort);
    m_pathFailedTrace(pathIndex, plane, oldPort, p.srcPort);
    m_pathWindowTrace(pathIndex, p.cwnd);
    Kick();
}

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
        FailPath(i);
    }
}

void
MetaRoceConnection::RnrTimer()
{
    const int64_t now = Simulator::Now().GetPicoSeconds();
    while (!m_rnrWait.empty() && m_rnrWait.front().readyPs <= now)
    {
        const RnrEntry e = m_rnrWait.front();
        m_rnrWait.pop_front();
        Path& p = m_paths[e.path];
        if (p.epoch != e.epoch || e.seq < Una(p) || e.seq >= p.nextSeq)
        {
            continue; // the path failed meanwhile: its packets were moved
        }
        PathFlight& f = *p.flight; // e.seq is outstanding
        TxRecord& rec = f.records[e.seq - Una(p)];
        if (rec.state == TxState::RnrWait)
        {
            rec.state = TxState::Lost;
            f.retx.push_back(e.seq);
            MarkPathWork(e.path);
            KickPlane(GetPathPlane(e.path));
        }
    }
    if (!m_rnrWait.empty())
    {
        m_rnrEvent = Simulator::Schedule(DelayUntilPs(m_rnrWait.front().readyPs),
                                         &MetaRoceConnection::RnrTimer,
                                         this);
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
    if (m_outstandingMessages == 0)
    {
        return;
    }
    const int64_t now = Simulator::Now().GetPicoSeconds();
    const int64_t due = m_lastProgressPs + m_watchdogTimeoutPs;
    if (now >= due)
    {
        ++m_stats.stalls;
        uint64_t oldest = 0;
        for (size_t i = 0; i < m_messages.size(); ++i)
        {
            if (!m_messages[i].done)
            {
                oldest = m_messages[i].wr.wrId;
                break;
            }
        }
        // The path holding the oldest unacknowledged packet (-1: none holds
        // one, e.g. every path is failed and probing).
        int32_t stuckPath = -1;
        int64_t oldestSentPs = INT64_MAX;
        for (uint32_t i = 0; i < m_paths.size(); ++i)
        {
            if (const PathFlight* f = m_paths[i].flight.get())
            {
                for (size_t k = 0; k < f->records.size(); ++k)
                {
                    if (f->records[k].state != TxState::Acked &&
                        f->records[k].sentPs < oldestSentPs)
                    {
                        oldestSentPs = f->records[k].sentPs;
                        stuckPath = int32_t(i);
                    }
                }
            }
        }
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

// ---------------------------------------------------------------------------
// Receiving

void
MetaRoceConnection::ReceiveData(const MetaRoceDataHeader& h, const FramePayload& payload, bool ce,
                                uint32_t plane, uint64_t hintBps)
{
    MetaRoceAckHeader& ack = m_transport->AckScratch(); // OnData and this set every field
    if (!m_receiver.OnData(h, payload, ce, ack))
    {
        return;
    }
    ack.connection = m_remoteId;
    ack.rateHintMbps = uint32_t(std::max<uint64_t>(1, hintBps / 1000000));
    // The ACK of a path keeps one reverse route per epoch (its own entropy).
    const uint16_t port =
        uint16_t(49152 + ((uint32_t(h.pathId) * 2654435761u) ^ (uint32_t(h.pathEpoch) << 8) ^
                          (m_id * 40503u)) %
                             16384);
    ++m_stats.acksSent;
    m_transport->SendAck(ack, plane, GetRemoteHost(), port);
}

} // namespace ns3
