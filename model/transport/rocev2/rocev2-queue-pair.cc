#include "rocev2-queue-pair.h"

#include "rocev2-connection.h"
#include "rocev2-transport.h"

#include "delay-until.h"

#include "fabric-frame.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceV2QueuePair");

namespace
{
bool
IsFirst(uint8_t op)
{
    return op == RC_SEND_FIRST || op == RC_SEND_ONLY || op == RC_WRITE_FIRST || op == RC_WRITE_ONLY;
}

bool
IsLast(uint8_t op)
{
    return op == RC_SEND_LAST || op == RC_SEND_ONLY || op == RC_WRITE_LAST || op == RC_WRITE_ONLY;
}

bool
IsWrite(uint8_t op)
{
    return op >= RC_WRITE_FIRST && op <= RC_WRITE_ONLY;
}
} // namespace

RoceV2QueuePair::RoceV2QueuePair(RoceV2Connection* owner, Ptr<RoceV2Transport> transport,
                                 uint32_t qpn, uint32_t plane, uint16_t srcPort,
                                 const Config& config, Ptr<RdmaCongestionOps> cc,
                                 RdmaConnectionCc* connCc)
    : m_owner(owner),
      m_transport(transport),
      m_qpn(qpn),
      m_plane(plane),
      m_srcPort(srcPort),
      m_config(config),
      m_ccOps(cc),
      m_connCc(connCc)
{
    m_schedulerIndex = transport->GetScheduler()->AddClient(this);
    m_lineBps = transport->GetNic()->GetPort(plane)->GetDataRate().GetBitRate();
    m_cc.lineBps = m_lineBps;
    m_ccOps->InitFlow(m_cc);
}

RoceV2QueuePair::~RoceV2QueuePair() = default;

void
RoceV2QueuePair::Dispose()
{
    m_rtoEvent.Cancel();
    m_ccTimer.Cancel();
    m_transport = nullptr;
    m_ccOps = nullptr;
}

uint32_t
RoceV2QueuePair::Unwrap(uint32_t wirePsn, uint32_t reference) const
{
    // The 24-bit PSN nearest to the reference (PSNs are 32-bit inside).
    const int32_t diff = int32_t(((wirePsn - reference) & kRocePsnMask) << 8) >> 8;
    return reference + diff;
}

// ---------------------------------------------------------------------------
// Requester

void
RoceV2QueuePair::PostSegment(const Segment& seg)
{
    Segment s = seg;
    if (s.opcode == RdmaOpcode::Send)
    {
        s.recvSeq = m_sendSeq++;
    }
    s.firstPsn = m_end;
    s.packets = std::max(1u, (s.length + m_config.payloadSize - 1) / m_config.payloadSize);
    m_end += s.packets;
    m_segments.push_back(s);
    ArmCcTimer();
    Kick();
}

RoceV2QueuePair::Segment*
RoceV2QueuePair::SegmentOf(uint32_t psn)
{
    if (m_cursor >= m_segments.size() || psn < m_segments[m_cursor].firstPsn)
    {
        m_cursor = 0;
    }
    while (m_cursor < m_segments.size())
    {
        Segment& s = m_segments[m_cursor];
        if (psn < s.firstPsn + s.packets)
        {
            return psn >= s.firstPsn ? &s : nullptr;
        }
        ++m_cursor;
    }
    return nullptr;
}

void
RoceV2QueuePair::Kick()
{
    if (!m_transport)
    {
        return;
    }
    m_transport->GetScheduler()->Activate(m_schedulerIndex, m_plane);
}

namespace
{
constexpr uint8_t kSacked = 1;
constexpr uint8_t kRetransmitted = 2;
} // namespace

FramePayload
RoceV2QueuePair::PullPacket(uint32_t plane,
                            int64_t now,
                            FrameAddress& addr,
                            int64_t& notBeforePs)
{
    const bool sr = m_config.selectiveRepeat;
    // Selective repeat: a lost packet first (its PSN still unacknowledged).
    int64_t retx = -1;
    while (sr && !m_retxQueue.empty() && retx < 0)
    {
        const uint32_t psn = m_retxQueue.front();
        if (psn >= m_una && psn < m_nxt && !(m_txFlags[psn - m_una] & kSacked))
        {
            retx = psn;
        }
        else
        {
            m_retxQueue.pop_front();
        }
    }
    if (retx < 0)
    {
        if (m_nxt >= m_end)
        {
            return nullptr;
        }
        const uint32_t cap = sr ? m_config.bdpCapPackets : m_config.maxInflightPackets;
        if (cap > 0 && m_nxt - m_una >= cap)
        {
            return nullptr; // an ACK reactivates the QP
        }
    }
    const int64_t wait = std::max(m_rnrUntilPs, m_nextSendPs);
    if (now < wait)
    {
        notBeforePs = wait; // the scheduler wakes the plane then
        return nullptr;
    }
    uint32_t psn;
    if (retx >= 0)
    {
        m_retxQueue.pop_front();
        psn = uint32_t(retx);
    }
    else
    {
        psn = m_nxt++;
        if (sr)
        {
            m_txFlags.push_back(0);
        }
    }
    Ptr<Packet> p = BuildDataPacket(psn, addr);
    if (psn < m_highestSent)
    {
        ++m_stats.retransmitted;
    }
    m_highestSent = std::max(m_highestSent, m_nxt);
    m_maxInFlight = std::max(m_maxInFlight, m_nxt - m_una);
    const uint32_t wire = WireBytes(p->GetSize() + kFrameHeaderBytes);
    m_ccOps->PacketSent(*m_connCc, m_cc, wire);
    const uint64_t rate = m_ccOps->PacingRate(&m_cc, 0, m_lineBps);
    m_nextSendPs = rate < m_lineBps ? std::max(now, m_nextSendPs) +
                                          int64_t(double(wire) * 8e12 / double(rate))
                                    : 0;
    if (m_rtoDeadlinePs == 0)
    {
        ArmRto();
    }
    return p;
}

Ptr<Packet>
RoceV2QueuePair::BuildDataPacket(uint32_t psn, FrameAddress& addr)
{
    Segment* seg = SegmentOf(psn);
    NS_ASSERT(seg);
    const uint32_t k = psn - seg->firstPsn;
    const uint32_t offset = k * m_config.payloadSize;
    const uint32_t len = std::min(m_config.payloadSize, seg->length - offset);
    const bool first = k == 0;
    const bool last = k + 1 == seg->packets;
    const bool write = seg->opcode == RdmaOpcode::Write;

    const uint8_t* bytes = nullptr;
    if (m_config.payloadIntegrity && seg->lkey != 0)
    {
        bytes = m_owner->GetLocalMemory()->Bytes(seg->lkey, seg->localAddress + offset);
    }
    Ptr<Packet> p = bytes ? Create<Packet>(bytes, len) : Create<Packet>(len);
    const uint8_t pad = (4 - len % 4) % 4;
    p->AddPaddingAtEnd(pad + kRoceIcrcBytes);
    if (m_config.selectiveRepeat)
    {
        // IRN's extension: every packet says where it goes.
        RoceRethHeader reth;
        reth.virtualAddress = write ? seg->remoteAddress + offset : offset;
        reth.rkey = write ? seg->rkey : seg->recvSeq;
        reth.dmaLength = seg->length;
        p->AddHeader(reth);
    }
    else if (write && first)
    {
        RoceRethHeader reth;
        reth.virtualAddress = seg->remoteAddress;
        reth.rkey = seg->rkey;
        reth.dmaLength = seg->length;
        p->AddHeader(reth);
    }
    RoceBthHeader bth;
    bth.opcode = write ? (first && last ? RC_WRITE_ONLY
                          : first   ? RC_WRITE_FIRST
                          : last    ? RC_WRITE_LAST
                                    : RC_WRITE_MIDDLE)
                       : (first && last ? RC_SEND_ONLY
                          : first   ? RC_SEND_FIRST
                          : last    ? RC_SEND_LAST
                                    : RC_SEND_MIDDLE);
    bth.padCount = pad;
    bth.destQp = m_peerQpn;
    bth.ackRequest = last;
    bth.psn = psn & kRocePsnMask;
    p->AddHeader(bth);
    ++m_stats.packets;
    m_stats.payloadBytes += len;
    addr = m_transport->DataAddress(m_owner->GetRemoteHost(), m_plane, m_srcPort);
    addr.ecn = m_config.ecnCapable ? Ecn::Ect0 : Ecn::NotEct;
    return p;
}

void
RoceV2QueuePair::ReceiveAck(const RoceBthHeader& bth, const RoceAethHeader& aeth)
{
    ++m_stats.acksReceived;
    const bool sr = m_config.selectiveRepeat;
    const uint32_t psn = Unwrap(bth.psn, m_una);
    if (psn + 1 < m_una || psn > m_end)
    {
        return; // from before a rewind, or corrupt
    }
    if (aeth.IsAck())
    {
        AdvanceUna(psn + 1);
        if (sr && m_inRecovery)
        {
            QueueNextLost();
        }
    }
    else if (aeth.IsRnr())
    {
        ++m_stats.rnrReceived;
        m_rnrUntilPs = Simulator::Now().GetPicoSeconds() + m_config.rnrDelay.GetPicoSeconds();
        if (sr)
        {
            // Only that packet was refused: resend it after the delay.
            m_retxQueue.push_front(psn);
        }
        else
        {
            AdvanceUna(psn);
            GoBack(psn);
        }
    }
    else if (aeth.syndrome == RoceAethHeader::NAK_PSN_SEQUENCE)
    {
        ++m_stats.naksReceived;
        if (sr)
        {
            // IRN NACK: cumulative PSN in the BTH, the PSN it acknowledges in the MSN field.
            SelectiveAck(psn, Unwrap(aeth.msn, m_una));
        }
        else
        {
            AdvanceUna(psn);
            if (psn < m_nxt)
            {
                m_stats.rewoundPackets += m_nxt - psn;
                m_ccOps->PacketsLost(*m_connCc, m_cc, m_nxt - psn);
            }
            GoBack(psn);
        }
    }
    else
    {
        // Remote access or invalid request: that request fails; the responder
        // consumed the packet.
        if (Segment* s = SegmentOf(psn))
        {
            s->status = aeth.syndrome == RoceAethHeader::NAK_REMOTE_ACCESS
                            ? RdmaStatus::RemoteAccessError
                            : RdmaStatus::LengthError;
        }
        if (sr)
        {
            if (psn >= m_una && psn < m_nxt)
            {
                m_txFlags[psn - m_una] |= kSacked;
            }
        }
        else
        {
            AdvanceUna(psn + 1);
        }
    }
    Kick();
}

void
RoceV2QueuePair::SelectiveAck(uint32_t cumulative, int64_t sacked)
{
    AdvanceUna(cumulative);
    if (sacked >= int64_t(m_una) && sacked < int64_t(m_nxt))
    {
        m_txFlags[sacked - m_una] |= kSacked;
        m_highestSacked = std::max(m_highestSacked, uint32_t(sacked));
    }
    if (!m_inRecovery)
    {
        m_inRecovery = true;
        m_recoveryPoint = m_nxt;
        m_ccOps->PacketsLost(*m_connCc, m_cc, 1);
    }
    QueueNextLost();
}

void
RoceV2QueuePair::QueueNextLost()
{
    // IRN: in recovery, each ACK or NACK releases the next lost packet: the
    // lowest PSN below the highest selectively acknowledged one that is
    // neither acknowledged nor already resent in this recovery.
    for (uint32_t psn = m_una; psn < m_highestSacked && psn < m_nxt; ++psn)
    {
        uint8_t& f = m_txFlags[psn - m_una];
        if (!(f & (kSacked | kRetransmitted)))
        {
            f |= kRetransmitted;
            m_retxQueue.push_back(psn);
            return;
        }
    }
}

void
RoceV2QueuePair::AdvanceUna(uint32_t una)
{
    if (una <= m_una)
    {
        return;
    }
    const uint32_t newUna = std::min(una, m_end);
    if (m_config.selectiveRepeat)
    {
        for (uint32_t p = m_una; p < newUna && !m_txFlags.empty(); ++p)
        {
            m_txFlags.pop_front();
        }
        if (m_inRecovery && newUna >= m_recoveryPoint)
        {
            m_inRecovery = false;
        }
    }
    m_una = newUna;
    if (m_nxt < m_una)
    {
        m_nxt = m_una;
    }
    m_retries = 0;
    while (!m_segments.empty() &&
           m_segments.front().firstPsn + m_segments.front().packets <= m_una)
    {
        const Segment done = m_segments.front();
        m_segments.pop_front();
        m_cursor = m_cursor > 0 ? m_cursor - 1 : 0;
        m_owner->SegmentDone(done.message, done.status); // may post more work
    }
    m_rtoDeadlinePs = 0;
    if (m_una < m_nxt)
    {
        ArmRto();
    }
}

void
RoceV2QueuePair::GoBack(uint32_t psn)
{
    m_nxt = std::max(psn, m_una);
    m_cursor = 0;
}

void
RoceV2QueuePair::ArmRto()
{
    int64_t rtoPs =
        int64_t(4096000) << std::min<uint32_t>(m_config.timeoutExponent, 31); // 4.096 us x 2^exp
    if (m_config.selectiveRepeat)
    {
        rtoPs = (m_nxt - m_una <= m_config.rtoLowThreshold ? m_config.rtoLow : m_config.rtoHigh)
                    .GetPicoSeconds();
    }
    m_rtoDeadlinePs = Simulator::Now().GetPicoSeconds() + rtoPs;
    if (!m_rtoEvent.IsRunning())
    {
        m_rtoEvent =
            Simulator::Schedule(DelayUntilPs(m_rtoDeadlinePs), &RoceV2QueuePair::RtoExpired, this);
    }
}

void
RoceV2QueuePair::RtoExpired()
{
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (m_rtoDeadlinePs == 0 || m_una >= m_nxt)
    {
        m_rtoDeadlinePs = 0;
        return;
    }
    if (now < m_rtoDeadlinePs)
    {
        m_rtoEvent =
            Simulator::Schedule(DelayUntilPs(m_rtoDeadlinePs), &RoceV2QueuePair::RtoExpired, this);
        return;
    }
    ++m_stats.timeouts;
    m_ccOps->Timeout(*m_connCc, m_cc);
    if (++m_retries > m_config.retryLimit)
    {
        NS_LOG_WARN("QP " << m_qpn << ": retry limit exceeded, failing outstanding work");
        while (!m_segments.empty())
        {
            const Segment s = m_segments.front();
            m_segments.pop_front();
            m_owner->SegmentDone(s.message, RdmaStatus::RetryExceeded);
        }
        m_una = m_nxt = m_end;
        m_txFlags.clear();
        m_retxQueue.clear();
        m_rtoDeadlinePs = 0;
        return;
    }
    if (m_config.selectiveRepeat)
    {
        // Everything unacknowledged is presumed lost and resent (once each).
        m_retxQueue.clear();
        for (uint32_t psn = m_una; psn < m_nxt; ++psn)
        {
            uint8_t& f = m_txFlags[psn - m_una];
            if (!(f & kSacked))
            {
                f |= kRetransmitted;
                m_retxQueue.push_back(psn);
            }
        }
        m_inRecovery = true;
        m_recoveryPoint = m_nxt;
    }
    else
    {
        GoBack(m_una);
    }
    m_rtoDeadlinePs = 0;
    ArmRto();
    Kick();
}

void
RoceV2QueuePair::ReceiveCnp()
{
    ++m_stats.cnpsReceived;
    m_ccOps->CongestionNotified(*m_connCc, m_cc);
    ArmCcTimer();
}

void
RoceV2QueuePair::ArmCcTimer()
{
    const Time interval = m_ccOps->GetTimerInterval();
    if (interval.IsZero() || m_ccTimer.IsRunning())
    {
        return;
    }
    m_ccTimer = Simulator::Schedule(interval, &RoceV2QueuePair::CcTimer, this);
}

void
RoceV2QueuePair::CcTimer()
{
    m_ccOps->Timer(*m_connCc, m_cc);
    // Keep ticking while there is work or the rate is still recovering.
    if (m_nxt < m_end || m_una < m_nxt || m_cc.rateBps < m_lineBps)
    {
        m_ccTimer = Simulator::Schedule(m_ccOps->GetTimerInterval(), &RoceV2QueuePair::CcTimer, this);
    }
}

// ---------------------------------------------------------------------------
// Responder

void
RoceV2QueuePair::PostRecv(const RdmaRecvRequest& rr)
{
    m_rq.push_back(PostedRecv{rr, Simulator::Now()});
}

void
RoceV2QueuePair::SendAckOrNak(uint8_t syndrome, uint32_t psn, int64_t msn)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddPaddingAtEnd(kRoceIcrcBytes);
    RoceAethHeader aeth;
    aeth.syndrome = syndrome;
    aeth.msn = uint32_t(msn < 0 ? m_msn : msn) & kRocePsnMask;
    p->AddHeader(aeth);
    RoceBthHeader bth;
    bth.opcode = RC_ACKNOWLEDGE;
    bth.destQp = m_peerQpn;
    bth.psn = psn & kRocePsnMask;
    p->AddHeader(bth);
    if (syndrome == RoceAethHeader::ACK)
    {
        ++m_stats.acksSent;
    }
    else
    {
        ++m_stats.naksSent;
    }
    m_transport->SendControl(p, m_plane, m_owner->GetRemoteHost(), m_srcPort);
}

void
RoceV2QueuePair::ReceiveData(const RoceBthHeader& bth, Ptr<Packet> packet, bool ce)
{
    ++m_stats.received;
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (ce && now - m_lastCnpPs >= m_transport->GetCnpInterval().GetPicoSeconds())
    {
        // DCQCN notification point: at most one CNP per QP per interval.
        m_lastCnpPs = now;
        ++m_stats.cnpsSent;
        Ptr<Packet> cnp = Create<Packet>();
        cnp->AddPaddingAtEnd(16 + kRoceIcrcBytes);
        RoceBthHeader h;
        h.opcode = ROCE_CNP;
        h.destQp = m_peerQpn;
        cnp->AddHeader(h);
        m_transport->SendControl(cnp, m_plane, m_owner->GetRemoteHost(), m_srcPort);
    }
    const uint32_t psn = Unwrap(bth.psn, m_ePsn);
    if (m_config.selectiveRepeat)
    {
        ReceiveInOrderOrPlaced(bth, packet, psn);
        return;
    }
    if (psn > m_ePsn)
    {
        ++m_stats.outOfOrder;
        if (!m_nakSent)
        {
            m_nakSent = true; // one NAK per gap
            SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, m_ePsn);
        }
        return;
    }
    if (psn < m_ePsn)
    {
        ++m_stats.duplicates;
        SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
        return;
    }
    RoceRethHeader reth;
    if (IsWrite(bth.opcode) && IsFirst(bth.opcode) && packet->RemoveHeader(reth) == 0)
    {
        return; // truncated
    }
    const uint32_t trailer = bth.padCount + kRoceIcrcBytes;
    if (packet->GetSize() < trailer)
    {
        return;
    }
    const uint32_t len = packet->GetSize() - trailer;
    uint8_t nak = 0;
    if (IsFirst(bth.opcode))
    {
        m_ctx = Context();
        m_ctx.active = true;
        m_ctx.isWrite = IsWrite(bth.opcode);
        if (m_ctx.isWrite)
        {
            m_ctx.address = reth.virtualAddress;
            m_ctx.key = reth.rkey;
            m_ctx.length = reth.dmaLength;
            if (!m_owner->GetLocalMemory()->CheckAccess(reth.rkey, reth.virtualAddress,
                                                       reth.dmaLength))
            {
                m_ctx.status = RdmaStatus::RemoteAccessError;
                nak = RoceAethHeader::NAK_REMOTE_ACCESS;
            }
        }
        else
        {
            if (m_rq.empty())
            {
                // Receiver not ready: discard, the requester retries from here.
                SendAckOrNak(RoceAethHeader::RNR_NAK, m_ePsn);
                m_ctx.active = false;
                m_nakSent = true; // later packets are dropped quietly until the retry
                return;
            }
            const RdmaRecvRequest& rr = m_rq.front().rr;
            m_ctx.address = rr.address;
            m_ctx.key = rr.lkey;
            m_ctx.length = rr.length;
        }
    }
    if (!m_ctx.active)
    {
        return; // a middle packet with no message under way: corrupt stream
    }
    if (m_ctx.status == RdmaStatus::Success)
    {
        if (uint64_t(m_ctx.offset) + len > m_ctx.length)
        {
            m_ctx.status = m_ctx.isWrite ? RdmaStatus::RemoteAccessError : RdmaStatus::LengthError;
            nak = m_ctx.isWrite ? RoceAethHeader::NAK_REMOTE_ACCESS
                                : RoceAethHeader::NAK_INVALID_REQUEST;
        }
        else
        {
            m_stats.placedBytes += len;
            if (m_ctx.key != 0)
            {
                m_owner->GetLocalMemory()->PlaceFrom(m_ctx.key,
                                                     m_ctx.address + m_ctx.offset,
                                                     packet,
                                                     0,
                                                     len);
            }
        }
    }
    m_ctx.offset += len;
    ++m_ePsn;
    m_nakSent = false;
    if (nak)
    {
        SendAckOrNak(nak, psn);
    }
    if (IsLast(bth.opcode))
    {
        ++m_msn;
        if (!m_ctx.isWrite)
        {
            const PostedRecv r = m_rq.front();
            m_rq.pop_front();
            RdmaCompletion c;
            c.wrId = r.rr.wrId;
            c.opcode = RdmaOpcode::Recv;
            c.status = m_ctx.status;
            c.stream = r.rr.stream;
            c.bytes = m_ctx.status == RdmaStatus::Success ? m_ctx.offset : 0;
            c.posted = r.posted;
            c.completed = Simulator::Now();
            m_ctx.active = false;
            m_owner->ReceiveDone(c);
        }
        m_ctx.active = false;
    }
    if (++m_sinceAck >= m_config.ackInterval || bth.ackRequest)
    {
        m_sinceAck = 0;
        SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
    }
}

void
RoceV2QueuePair::ReceiveInOrderOrPlaced(const RoceBthHeader& bth, Ptr<Packet> packet, uint32_t psn)
{
    if (psn < m_ePsn)
    {
        ++m_stats.duplicates;
        SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
        return;
    }
    const uint32_t idx = psn - m_ePsn;
    const uint32_t window = std::max<uint32_t>(2 * m_config.bdpCapPackets, 1024);
    if (idx >= window)
    {
        ++m_stats.outOfOrder; // beyond what the responder tracks: dropped
        return;
    }
    if (idx < m_ahead.size() && m_ahead[idx].received)
    {
        ++m_stats.duplicates;
        SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, m_ePsn, psn);
        return;
    }
    RoceRethHeader reth;
    if (packet->RemoveHeader(reth) == 0 || packet->GetSize() < bth.padCount + kRoceIcrcBytes)
    {
        return; // truncated
    }
    const uint32_t len = packet->GetSize() - bth.padCount - kRoceIcrcBytes;
    Ahead a;
    a.received = true;
    uint8_t nak = 0;
    uint32_t key = 0;
    uint64_t address = 0;
    if (IsWrite(bth.opcode))
    {
        key = reth.rkey;
        address = reth.virtualAddress;
        if (!m_owner->GetLocalMemory()->CheckAccess(key, address, len))
        {
            a.status = RdmaStatus::RemoteAccessError;
            nak = RoceAethHeader::NAK_REMOTE_ACCESS;
        }
    }
    else
    {
        const uint32_t recvSeq = reth.rkey;
        if (recvSeq < m_recvSeq)
        {
            ++m_stats.duplicates;
            SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
            return;
        }
        if (recvSeq - m_recvSeq >= m_rq.size())
        {
            SendAckOrNak(RoceAethHeader::RNR_NAK, psn); // only this packet is refused
            return;
        }
        PostedRecv& r = m_rq[recvSeq - m_recvSeq];
        if (reth.dmaLength > r.rr.length)
        {
            r.status = RdmaStatus::LengthError;
            a.status = RdmaStatus::LengthError;
            nak = RoceAethHeader::NAK_INVALID_REQUEST;
        }
        key = r.rr.lkey;
        address = r.rr.address + reth.virtualAddress; // the packet's offset in the message
        a.lastOfSend = IsLast(bth.opcode);
        a.sendBytes = reth.dmaLength;
    }
    if (a.status == RdmaStatus::Success)
    {
        m_stats.placedBytes += len;
        if (key != 0)
        {
            m_owner->GetLocalMemory()->PlaceFrom(key, address, packet, 0, len);
        }
    }
    if (nak)
    {
        SendAckOrNak(nak, psn);
    }
    if (idx > 0)
    {
        // Placed out of order; IRN NACK: cumulative PSN, and this one.
        while (m_ahead.size() <= idx)
        {
            m_ahead.push_back(Ahead());
        }
        m_ahead[idx] = a;
        ++m_stats.outOfOrder;
        SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, m_ePsn, psn);
        return;
    }
    // In order: this packet, then every one already placed behind it.
    if (!m_ahead.empty())
    {
        m_ahead.pop_front();
    }
    ++m_ePsn;
    ApplyInOrder(a);
    while (!m_ahead.empty() && m_ahead.front().received)
    {
        const Ahead next = m_ahead.front();
        m_ahead.pop_front();
        ++m_ePsn;
        ApplyInOrder(next);
    }
    if (++m_sinceAck >= m_config.ackInterval || bth.ackRequest || !m_ahead.empty())
    {
        m_sinceAck = 0;
        SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
    }
}

void
RoceV2QueuePair::ApplyInOrder(const Ahead& a)
{
    if (!a.lastOfSend)
    {
        return;
    }
    ++m_msn;
    const PostedRecv r = m_rq.front();
    m_rq.pop_front();
    ++m_recvSeq;
    RdmaCompletion c;
    c.wrId = r.rr.wrId;
    c.opcode = RdmaOpcode::Recv;
    c.status = r.status != RdmaStatus::Success ? r.status : a.status;
    c.stream = r.rr.stream;
    c.bytes = c.status == RdmaStatus::Success ? a.sendBytes : 0;
    c.posted = r.posted;
    c.completed = Simulator::Now();
    m_owner->ReceiveDone(c);
}

} // namespace ns3
