#include "rocev2-responder.h"

#include "rocev2-connection.h"
#include "rocev2-queue-pair.h"
#include "rocev2-transport.h"

#include "ns3/simulator.h"

namespace ns3
{

RoceV2Responder::RoceV2Responder(RoceV2QueuePair& qp)
    : m_qp(qp)
{
}

const RoceV2QpConfig&
RoceV2Responder::GetConfig() const
{
    return m_qp.GetConfig();
}

Ptr<RdmaMemory>
RoceV2Responder::GetLocalMemory() const
{
    return m_qp.GetConnection()->GetLocalMemory();
}

void
RoceV2Responder::PostRecv(const RdmaRecvRequest& rr)
{
    m_rq.push_back(PostedRecv{rr, Simulator::Now()});
}

void
RoceV2Responder::SendAckOrNak(uint8_t syndrome, uint32_t psn, int64_t msn)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddPaddingAtEnd(kRoceIcrcBytes);
    RoceAethHeader aeth;
    aeth.syndrome = syndrome;
    aeth.msn = uint32_t(msn < 0 ? m_msn : msn) & kRocePsnMask;
    p->AddHeader(aeth);
    RoceBthHeader bth;
    bth.opcode = RC_ACKNOWLEDGE;
    bth.destQp = m_qp.GetPeer();
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
    m_qp.GetTransport()->SendControl(p,
                                     m_qp.GetPlane(),
                                     m_qp.GetConnection()->GetRemoteHost(),
                                     m_qp.GetSourcePort());
}

void
RoceV2Responder::SendCnp()
{
    ++m_stats.cnpsSent;
    Ptr<Packet> cnp = Create<Packet>();
    cnp->AddPaddingAtEnd(16 + kRoceIcrcBytes);
    RoceBthHeader h;
    h.opcode = ROCE_CNP;
    h.destQp = m_qp.GetPeer();
    cnp->AddHeader(h);
    m_qp.GetTransport()->SendControl(cnp,
                                     m_qp.GetPlane(),
                                     m_qp.GetConnection()->GetRemoteHost(),
                                     m_qp.GetSourcePort());
}

void
RoceV2Responder::ReceiveData(const RoceBthHeader& bth, const Ptr<Packet>& packet, bool ce)
{
    ++m_stats.received;
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (ce && now - m_lastCnpPs >= m_qp.GetTransport()->GetCnpInterval().GetPicoSeconds())
    {
        // DCQCN notification point: at most one CNP per QP per interval.
        m_lastCnpPs = now;
        SendCnp();
    }
    m_qp.GetRecovery().ReceiveData(*this, bth, packet, RoceV2UnwrapPsn(bth.psn, m_ePsn));
}

void
RoceV2Responder::DiscardOutOfSequence()
{
    ++m_stats.outOfOrder;
    if (!m_nakSent)
    {
        m_nakSent = true; // one NAK per gap
        SendAckOrNak(RoceAethHeader::NAK_PSN_SEQUENCE, m_ePsn);
    }
}

void
RoceV2Responder::AcknowledgeDuplicate()
{
    ++m_stats.duplicates;
    SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
}

void
RoceV2Responder::ReceiveInOrder(const RoceBthHeader& bth, const Ptr<Packet>& packet, uint32_t psn)
{
    RoceRethHeader reth;
    if (RoceV2IsWrite(bth.opcode) && RoceV2IsFirst(bth.opcode) && packet->RemoveHeader(reth) == 0)
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
    if (RoceV2IsFirst(bth.opcode) && !OpenMessage(bth, reth, nak))
    {
        return;
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
            Place(m_ctx.key, m_ctx.address + m_ctx.offset, packet, len);
        }
    }
    m_ctx.offset += len;
    ++m_ePsn;
    m_nakSent = false;
    if (nak)
    {
        SendAckOrNak(nak, psn);
    }
    if (RoceV2IsLast(bth.opcode))
    {
        ++m_msn;
        if (!m_ctx.isWrite)
        {
            m_ctx.active = false;
            CompleteReceive(m_ctx.status, m_ctx.status == RdmaStatus::Success ? m_ctx.offset : 0);
        }
        m_ctx.active = false;
    }
    AcknowledgeInOrder(bth.ackRequest);
}

bool
RoceV2Responder::OpenMessage(const RoceBthHeader& bth, const RoceRethHeader& reth, uint8_t& nak)
{
    m_ctx = Context();
    m_ctx.active = true;
    m_ctx.isWrite = RoceV2IsWrite(bth.opcode);
    if (m_ctx.isWrite)
    {
        m_ctx.address = reth.virtualAddress;
        m_ctx.key = reth.rkey;
        m_ctx.length = reth.dmaLength;
        if (!m_qp.GetConnection()->GetLocalMemory()->CheckAccess(reth.rkey,
                                                                 reth.virtualAddress,
                                                                 reth.dmaLength))
        {
            m_ctx.status = RdmaStatus::RemoteAccessError;
            nak = RoceAethHeader::NAK_REMOTE_ACCESS;
        }
        return true;
    }
    if (m_rq.empty())
    {
        // Receiver not ready: discard, the requester retries from here.
        SendAckOrNak(RoceAethHeader::RNR_NAK, m_ePsn);
        m_ctx.active = false;
        m_nakSent = true; // later packets are dropped quietly until the retry
        return false;
    }
    const RdmaRecvRequest& rr = m_rq.front().rr;
    m_ctx.address = rr.address;
    m_ctx.key = rr.lkey;
    m_ctx.length = rr.length;
    return true;
}

void
RoceV2Responder::Place(uint32_t key, uint64_t address, const Ptr<Packet>& packet, uint32_t len)
{
    m_stats.placedBytes += len;
    if (key != 0)
    {
        m_qp.GetConnection()->GetLocalMemory()->PlaceFrom(key, address, packet, 0, len);
    }
}

void
RoceV2Responder::CompleteReceive(RdmaStatus status, uint32_t bytes)
{
    const PostedRecv r = m_rq.front();
    m_rq.pop_front();
    m_qp.GetConnection()->ReceiveDone(CompletionOf(r.rr, status, bytes, r.posted));
}

void
RoceV2Responder::AcknowledgeInOrder(bool now)
{
    if (++m_sinceAck >= m_qp.GetConfig().ackInterval || now)
    {
        m_sinceAck = 0;
        SendAckOrNak(RoceAethHeader::ACK, m_ePsn - 1);
    }
}

} // namespace ns3
