#include "rocev2-selective-repeat.h"

#include "rocev2-requester.h"
#include "rocev2-responder.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceV2SelectiveRepeat);

namespace
{
constexpr uint8_t kSacked = 1;
constexpr uint8_t kRetransmitted = 2;
} // namespace

TypeId
RoceV2SelectiveRepeat::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceV2SelectiveRepeat")
                            .SetParent<RoceV2Recovery>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RoceV2SelectiveRepeat>();
    return tid;
}

RoceV2SelectiveRepeat::RoceV2SelectiveRepeat() = default;

RoceV2SelectiveRepeat::RoceV2SelectiveRepeat(const RoceV2SelectiveRepeat& other)
    : RoceV2Recovery(other)
{
}

RoceV2SelectiveRepeat::~RoceV2SelectiveRepeat() = default;

Ptr<RoceV2Recovery>
RoceV2SelectiveRepeat::Fork()
{
    return CopyObject<RoceV2SelectiveRepeat>(this);
}

// ---------------------------------------------------------------------------
// Requester

uint32_t
RoceV2SelectiveRepeat::GetInFlightCap(const RoceV2QpConfig& config) const
{
    return config.bdpCapPackets;
}

int64_t
RoceV2SelectiveRepeat::GetRtoPs(const RoceV2QpConfig& config, uint32_t inFlight) const
{
    return (inFlight <= config.rtoLowThreshold ? config.rtoLow : config.rtoHigh).GetPicoSeconds();
}

int64_t
RoceV2SelectiveRepeat::NextRetransmission(uint32_t una, uint32_t nxt)
{
    // A queued PSN acknowledged since (cumulatively or selectively) is dropped.
    while (!m_retxQueue.empty())
    {
        const uint32_t psn = m_retxQueue.front();
        if (psn >= una && psn < nxt && !(m_txFlags[psn - una] & kSacked))
        {
            return psn;
        }
        m_retxQueue.pop_front();
    }
    return -1;
}

void
RoceV2SelectiveRepeat::PacketSent(uint32_t psn, bool retransmission)
{
    if (retransmission)
    {
        m_retxQueue.pop_front();
    }
    else
    {
        m_txFlags.push_back(0);
    }
}

void
RoceV2SelectiveRepeat::UnaAdvancing(uint32_t una, uint32_t newUna)
{
    for (uint32_t p = una; p < newUna && !m_txFlags.empty(); ++p)
    {
        m_txFlags.pop_front();
    }
    if (m_inRecovery && newUna >= m_recoveryPoint)
    {
        m_inRecovery = false;
    }
}

void
RoceV2SelectiveRepeat::AckReceived(RoceV2Requester& tx, uint32_t psn)
{
    tx.AdvanceUna(psn + 1);
    if (m_inRecovery)
    {
        QueueNextLost(tx.GetUna(), tx.GetNxt());
    }
}

void
RoceV2SelectiveRepeat::RnrNakReceived(RoceV2Requester& tx, uint32_t psn)
{
    // Only that packet was refused: resend it after the delay.
    m_retxQueue.push_front(psn);
}

void
RoceV2SelectiveRepeat::SequenceNakReceived(RoceV2Requester& tx, uint32_t psn, uint32_t aethPsn)
{
    // IRN NACK: cumulative PSN in the BTH, the PSN it acknowledges in the MSN field.
    tx.AdvanceUna(psn);
    const uint32_t una = tx.GetUna();
    const uint32_t nxt = tx.GetNxt();
    const int64_t sacked = aethPsn;
    if (sacked >= int64_t(una) && sacked < int64_t(nxt))
    {
        m_txFlags[sacked - una] |= kSacked;
        m_highestSacked = std::max(m_highestSacked, uint32_t(sacked));
    }
    if (!m_inRecovery)
    {
        m_inRecovery = true;
        m_recoveryPoint = nxt;
        tx.NotifyLost(1);
    }
    QueueNextLost(una, nxt);
}

void
RoceV2SelectiveRepeat::QueueNextLost(uint32_t una, uint32_t nxt)
{
    // IRN: in recovery, each ACK or NACK releases the next lost packet: the
    // lowest PSN below the highest selectively acknowledged one that is
    // neither acknowledged nor already resent in this recovery.
    for (uint32_t psn = una; psn < m_highestSacked && psn < nxt; ++psn)
    {
        uint8_t& f = m_txFlags[psn - una];
        if (!(f & (kSacked | kRetransmitted)))
        {
            f |= kRetransmitted;
            m_retxQueue.push_back(psn);
            return;
        }
    }
}

void
RoceV2SelectiveRepeat::RequestFailed(RoceV2Requester& tx, uint32_t psn)
{
    const uint32_t una = tx.GetUna();
    if (psn >= una && psn < tx.GetNxt())
    {
        m_txFlags[psn - una] |= kSacked;
    }
}

void
RoceV2SelectiveRepeat::TimedOut(RoceV2Requester& tx)
{
    // Everything unacknowledged is presumed lost and resent (once each).
    const uint32_t una = tx.GetUna();
    const uint32_t nxt = tx.GetNxt();
    m_retxQueue.clear();
    for (uint32_t psn = una; psn < nxt; ++psn)
    {
        uint8_t& f = m_txFlags[psn - una];
        if (!(f & kSacked))
        {
            f |= kRetransmitted;
            m_retxQueue.push_back(psn);
        }
    }
    m_inRecovery = true;
    m_recoveryPoint = nxt;
}

void
RoceV2SelectiveRepeat::Abort()
{
    m_txFlags.clear();
    m_retxQueue.clear();
}

// ---------------------------------------------------------------------------
// Responder

void
RoceV2SelectiveRepeat::ReceiveData(RoceV2Responder& rx,
                                   const RoceBthHeader& bth,
                                   const Ptr<Packet>& packet,
                                   uint32_t psn)
{
    const uint32_t expected = rx.GetExpectedPsn();
    if (psn < expected)
    {
        rx.AcknowledgeDuplicate();
        return;
    }
    const uint32_t idx = psn - expected;
    const uint32_t window = std::max<uint32_t>(2 * rx.GetConfig().bdpCapPackets, 1024);
    if (idx >= window)
    {
        ++rx.GetStats().outOfOrder; // beyond what the responder tracks: dropped
        return;
    }
    if (idx < m_ahead.size() && m_ahead[idx].received)
    {
        ++rx.GetStats().duplicates;
        rx.SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, expected, psn);
        return;
    }
    Ahead a;
    if (!Place(rx, bth, packet, psn, a))
    {
        return;
    }
    if (idx > 0)
    {
        // Placed out of order; IRN NACK: cumulative PSN, and this one.
        while (m_ahead.size() <= idx)
        {
            m_ahead.push_back(Ahead());
        }
        m_ahead[idx] = a;
        ++rx.GetStats().outOfOrder;
        rx.SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, expected, psn);
        return;
    }
    DeliverInOrder(rx, a);
    rx.AcknowledgeInOrder(bth.ackRequest || !m_ahead.empty());
}

bool
RoceV2SelectiveRepeat::Place(RoceV2Responder& rx,
                             const RoceBthHeader& bth,
                             const Ptr<Packet>& packet,
                             uint32_t psn,
                             Ahead& a)
{
    RoceRethHeader reth;
    if (packet->RemoveHeader(reth) == 0 || packet->GetSize() < bth.padCount + kRoceIcrcBytes)
    {
        return false; // truncated
    }
    const uint32_t len = packet->GetSize() - bth.padCount - kRoceIcrcBytes;
    a.received = true;
    uint8_t nak = 0;
    uint32_t key = 0;
    uint64_t address = 0;
    if (RoceV2IsWrite(bth.opcode))
    {
        key = reth.rkey;
        address = reth.virtualAddress;
        if (!rx.GetLocalMemory()->CheckAccess(key, address, len))
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
            rx.AcknowledgeDuplicate();
            return false;
        }
        if (recvSeq - m_recvSeq >= rx.GetPostedReceives())
        {
            rx.SendAckOrNak(RoceAethHeader::RNR_NAK, psn); // only this packet is refused
            return false;
        }
        RoceV2Responder::PostedRecv& r = rx.GetReceive(recvSeq - m_recvSeq);
        if (reth.dmaLength > r.rr.length)
        {
            r.status = RdmaStatus::LengthError;
            a.status = RdmaStatus::LengthError;
            nak = RoceAethHeader::NAK_INVALID_REQUEST;
        }
        key = r.rr.lkey;
        address = r.rr.address + reth.virtualAddress; // the packet's offset in the message
        a.lastOfSend = RoceV2IsLast(bth.opcode);
        a.sendBytes = reth.dmaLength;
    }
    if (a.status == RdmaStatus::Success)
    {
        rx.Place(key, address, packet, len);
    }
    if (nak)
    {
        rx.SendAckOrNak(nak, psn);
    }
    return true;
}

void
RoceV2SelectiveRepeat::DeliverInOrder(RoceV2Responder& rx, const Ahead& a)
{
    // In order: this packet, then every one already placed behind it.
    if (!m_ahead.empty())
    {
        m_ahead.pop_front();
    }
    rx.AdvanceExpectedPsn();
    Apply(rx, a);
    while (!m_ahead.empty() && m_ahead.front().received)
    {
        const Ahead next = m_ahead.front();
        m_ahead.pop_front();
        rx.AdvanceExpectedPsn();
        Apply(rx, next);
    }
}

void
RoceV2SelectiveRepeat::Apply(RoceV2Responder& rx, const Ahead& a)
{
    if (!a.lastOfSend)
    {
        return;
    }
    rx.CountMessage();
    const RdmaStatus held = rx.GetReceive(0).status;
    const RdmaStatus status = held != RdmaStatus::Success ? held : a.status;
    ++m_recvSeq;
    rx.CompleteReceive(status, status == RdmaStatus::Success ? a.sendBytes : 0);
}

} // namespace ns3
