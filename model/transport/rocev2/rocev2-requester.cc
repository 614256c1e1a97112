#include "rocev2-requester.h"

#include "delay-until.h"
#include "fabric-frame.h"
#include "rocev2-connection.h"
#include "rocev2-queue-pair.h"
#include "rocev2-transport.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceV2Requester");

RoceV2Requester::RoceV2Requester(RoceV2QueuePair& qp,
                                 Ptr<RdmaCongestionOps> cc,
                                 RdmaConnectionCc* connCc)
    : m_qp(qp),
      m_ccOps(cc),
      m_connCc(connCc),
      m_inFlightCap(qp.GetRecovery().GetInFlightCap(qp.GetConfig()))
{
    m_schedulerIndex = qp.GetTransport()->GetScheduler()->AddClient(this);
    m_lineBps = qp.GetTransport()->GetNic()->GetPort(qp.GetPlane())->GetDataRate().GetBitRate();
    m_cc.lineBps = m_lineBps;
    m_ccOps->InitFlow(m_cc, Simulator::Now());
}

void
RoceV2Requester::Dispose()
{
    m_rtoEvent.Cancel();
    m_ccTimer.Cancel();
    m_ccOps = nullptr;
}

void
RoceV2Requester::PostSegment(const Segment& seg)
{
    Segment s = seg;
    if (s.opcode == RdmaOpcode::Send)
    {
        s.recvSeq = m_sendSeq++;
    }
    const uint32_t mtu = m_qp.GetConfig().payloadSize;
    s.firstPsn = m_end;
    s.packets = std::max(1u, (s.length + mtu - 1) / mtu);
    m_end += s.packets;
    m_segments.push_back(s);
    ArmCcTimer();
    Kick();
}

RoceV2Requester::Segment*
RoceV2Requester::SegmentOf(uint32_t psn)
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
RoceV2Requester::Kick()
{
    if (!m_qp.GetTransport())
    {
        return;
    }
    m_qp.GetTransport()->GetScheduler()->Activate(m_schedulerIndex, m_qp.GetPlane());
}

FramePayload
RoceV2Requester::PullPacket(uint32_t plane, int64_t now, FrameAddress& addr, int64_t& notBeforePs)
{
    RoceV2Recovery& recovery = m_qp.GetRecovery();
    // A packet the policy wants resent goes first.
    const int64_t retx = recovery.NextRetransmission(m_una, m_nxt);
    if (retx < 0)
    {
        if (m_nxt >= m_end)
        {
            return nullptr;
        }
        if (m_inFlightCap > 0 && m_nxt - m_una >= m_inFlightCap)
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
    const uint32_t psn = retx >= 0 ? uint32_t(retx) : m_nxt++;
    recovery.PacketSent(psn, retx >= 0);
    Ptr<Packet> p = BuildDataPacket(psn, addr);
    if (psn < m_highestSent)
    {
        ++m_stats.retransmitted;
    }
    m_highestSent = std::max(m_highestSent, m_nxt);
    m_maxInFlight = std::max(m_maxInFlight, m_nxt - m_una);
    const uint32_t wire = WireBytes(p->GetSize() + kFrameHeaderBytes);
    m_ccOps->PacketSent(*m_connCc, m_cc, wire, Simulator::Now());
    const uint64_t rate = m_ccOps->PacingRate(m_cc);
    m_nextSendPs = rate < m_lineBps
                       ? std::max(now, m_nextSendPs) + int64_t(double(wire) * 8e12 / double(rate))
                       : 0;
    if (m_rtoDeadlinePs == 0)
    {
        ArmRto();
    }
    return p;
}

Ptr<Packet>
RoceV2Requester::BuildDataPacket(uint32_t psn, FrameAddress& addr)
{
    const RoceV2QpConfig& config = m_qp.GetConfig();
    Segment* seg = SegmentOf(psn);
    NS_ASSERT(seg);
    const uint32_t k = psn - seg->firstPsn;
    const uint32_t offset = k * config.payloadSize;
    const uint32_t len = std::min(config.payloadSize, seg->length - offset);
    const bool first = k == 0;
    const bool last = k + 1 == seg->packets;
    const bool write = seg->opcode == RdmaOpcode::Write;

    RoceV2Connection* owner = m_qp.GetConnection();
    const uint8_t* bytes = nullptr;
    if (config.payloadIntegrity && seg->lkey != 0)
    {
        bytes = owner->GetLocalMemory()->Bytes(seg->lkey, seg->localAddress + offset);
    }
    Ptr<Packet> p = bytes ? Create<Packet>(bytes, len) : Create<Packet>(len);
    const uint8_t pad = (4 - len % 4) % 4;
    p->AddPaddingAtEnd(pad + kRoceIcrcBytes);
    if (m_qp.GetRecovery().PlacesOutOfOrder())
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
                          : first       ? RC_WRITE_FIRST
                          : last        ? RC_WRITE_LAST
                                        : RC_WRITE_MIDDLE)
                       : (first && last ? RC_SEND_ONLY
                          : first       ? RC_SEND_FIRST
                          : last        ? RC_SEND_LAST
                                        : RC_SEND_MIDDLE);
    bth.padCount = pad;
    bth.destQp = m_qp.GetPeer();
    bth.ackRequest = last;
    bth.psn = psn & kRocePsnMask;
    p->AddHeader(bth);
    ++m_stats.packets;
    m_stats.payloadBytes += len;
    addr = m_qp.GetTransport()->DataAddress(owner->GetRemoteHost(),
                                            m_qp.GetPlane(),
                                            m_qp.GetSourcePort());
    addr.ecn = config.ecnCapable ? Ecn::Ect0 : Ecn::NotEct;
    return p;
}

void
RoceV2Requester::ReceiveAck(const RoceBthHeader& bth, const RoceAethHeader& aeth)
{
    ++m_stats.acksReceived;
    RoceV2Recovery& recovery = m_qp.GetRecovery();
    const uint32_t psn = RoceV2UnwrapPsn(bth.psn, m_una);
    if (psn + 1 < m_una || psn > m_end)
    {
        return; // from before a rewind, or corrupt
    }
    if (aeth.IsAck())
    {
        recovery.AckReceived(*this, psn);
    }
    else if (aeth.IsRnr())
    {
        ++m_stats.rnrReceived;
        m_rnrUntilPs =
            Simulator::Now().GetPicoSeconds() + m_qp.GetConfig().rnrDelay.GetPicoSeconds();
        recovery.RnrNakReceived(*this, psn);
    }
    else if (aeth.syndrome == RoceAethHeader::NAK_PSN_SEQUENCE)
    {
        ++m_stats.naksReceived;
        recovery.SequenceNakReceived(*this, psn, RoceV2UnwrapPsn(aeth.msn, m_una));
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
        recovery.RequestFailed(*this, psn);
    }
    Kick();
}

void
RoceV2Requester::AdvanceUna(uint32_t una)
{
    if (una <= m_una)
    {
        return;
    }
    const uint32_t newUna = std::min(una, m_end);
    m_qp.GetRecovery().UnaAdvancing(m_una, newUna);
    m_una = newUna;
    if (m_nxt < m_una)
    {
        m_nxt = m_una;
    }
    m_retries = 0;
    while (!m_segments.empty() && m_segments.front().firstPsn + m_segments.front().packets <= m_una)
    {
        const Segment done = m_segments.front();
        m_segments.pop_front();
        m_cursor = m_cursor > 0 ? m_cursor - 1 : 0;
        m_qp.GetConnection()->SegmentDone(done.message, done.status); // may post more work
    }
    m_rtoDeadlinePs = 0;
    if (m_una < m_nxt)
    {
        ArmRto();
    }
}

void
RoceV2Requester::GoBack(uint32_t psn)
{
    m_nxt = std::max(psn, m_una);
    m_cursor = 0;
}

void
RoceV2Requester::NotifyLost(uint32_t packets)
{
    m_ccOps->PacketsLost(*m_connCc, m_cc, packets, Simulator::Now());
}

void
RoceV2Requester::ArmRto()
{
    const int64_t rtoPs = m_qp.GetRecovery().GetRtoPs(m_qp.GetConfig(), m_nxt - m_una);
    m_rtoDeadlinePs = Simulator::Now().GetPicoSeconds() + rtoPs;
    if (!m_rtoEvent.IsRunning())
    {
        m_rtoEvent =
            Simulator::Schedule(DelayUntilPs(m_rtoDeadlinePs), &RoceV2Requester::RtoExpired, this);
    }
}

void
RoceV2Requester::RtoExpired()
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
            Simulator::Schedule(DelayUntilPs(m_rtoDeadlinePs), &RoceV2Requester::RtoExpired, this);
        return;
    }
    ++m_stats.timeouts;
    m_ccOps->Timeout(*m_connCc, m_cc, Simulator::Now());
    if (++m_retries > m_qp.GetConfig().retryLimit)
    {
        FailOutstanding();
        return;
    }
    m_qp.GetRecovery().TimedOut(*this);
    m_rtoDeadlinePs = 0;
    ArmRto();
    Kick();
}

void
RoceV2Requester::FailOutstanding()
{
    NS_LOG_WARN("QP " << m_qp.GetQpn() << ": retry limit exceeded, failing outstanding work");
    while (!m_segments.empty())
    {
        const Segment s = m_segments.front();
        m_segments.pop_front();
        m_qp.GetConnection()->SegmentDone(s.message, RdmaStatus::RetryExceeded);
    }
    m_una = m_nxt = m_end;
    m_qp.GetRecovery().Abort();
    m_ccOps->FlowFailed(*m_connCc, m_cc, Simulator::Now());
    m_rtoDeadlinePs = 0;
}

void
RoceV2Requester::ReceiveCnp()
{
    ++m_stats.cnpsReceived;
    m_ccOps->CongestionNotified(*m_connCc, m_cc, Simulator::Now());
    ArmCcTimer();
}

void
RoceV2Requester::ArmCcTimer()
{
    const Time interval = m_ccOps->GetTimerInterval();
    if (interval.IsZero() || m_ccTimer.IsRunning())
    {
        return;
    }
    m_ccTimer = Simulator::Schedule(interval, &RoceV2Requester::CcTimer, this);
}

void
RoceV2Requester::CcTimer()
{
    m_ccOps->Timer(*m_connCc, m_cc, Simulator::Now());
    // Keep ticking while there is work or the rate is still recovering.
    if (m_nxt < m_end || m_una < m_nxt || m_cc.rateBps < m_lineBps)
    {
        m_ccTimer =
            Simulator::Schedule(m_ccOps->GetTimerInterval(), &RoceV2Requester::CcTimer, this);
    }
}

} // namespace ns3
