#include "oracle-connection.h"

#include "oracle-transport.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OracleConnection);

TypeId
OracleConnection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OracleConnection")
                            .SetParent<RdmaConnection>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<OracleConnection>();
    return tid;
}

void
OracleConnection::Setup(Ptr<OracleTransport> transport, uint32_t remoteHost)
{
    m_transport = transport;
    SetEndpoints(transport->GetHost(), remoteHost, transport->GetMemory());
}

void
OracleConnection::DoDispose()
{
    m_transport = nullptr;
    m_peer = nullptr;
    RdmaConnection::DoDispose();
}

void
OracleConnection::Post(const RdmaWorkRequest& wr)
{
    NS_ABORT_MSG_IF(wr.length == 0 || wr.opcode == RdmaOpcode::Recv,
                    "OracleConnection::Post: a Write or Send of at least one byte");
    CountPosted(wr);
    m_pending[wr.stream].push_back(Pending{wr, Simulator::Now()});
    m_transport->Enqueue(this, wr);
}

void
OracleConnection::PostRecv(const RdmaRecvRequest& rr)
{
    CountPosted(rr);
    m_recvs[rr.stream].push_back(PostedRecv{rr, Simulator::Now()});
    Match(rr.stream);
}

void
OracleConnection::StartService(uint32_t length, Time start, Time duration)
{
    m_serviceBytes = length;
    m_serviceStart = start;
    m_serviceDuration = duration;
}

uint64_t
OracleConnection::TransmittedBytes() const
{
    if (m_serviceBytes == 0 || !m_serviceDuration.IsStrictlyPositive())
    {
        return m_transmitted;
    }
    const double done =
        (Simulator::Now() - m_serviceStart).GetSeconds() / m_serviceDuration.GetSeconds();
    return m_transmitted + uint64_t(std::min(1.0, done) * m_serviceBytes);
}

uint64_t
OracleConnection::GetDeliveredBytes() const
{
    // What the peer has put on the wire towards this endpoint: an ideal
    // wire delivers it as it leaves.
    return m_peer ? m_peer->TransmittedBytes() : 0;
}

void
OracleConnection::Serialised(const RdmaWorkRequest& wr)
{
    m_transmitted += wr.length;
    m_serviceBytes = 0;
    if (wr.opcode == RdmaOpcode::Write)
    {
        for (Pending& p : m_pending[wr.stream])
        {
            if (p.wr.wrId == wr.wrId && !p.done)
            {
                p.done = true;
                break;
            }
        }
        Release(wr.stream);
        return;
    }
    m_peer->SendArrived(wr.stream, wr.wrId, wr.length);
}

void
OracleConnection::SendArrived(uint16_t stream, uint64_t wrId, uint32_t length)
{
    m_arrived[stream].emplace_back(wrId, length);
    Match(stream);
}

void
OracleConnection::Match(uint16_t stream)
{
    auto& sends = m_arrived[stream];
    auto& recvs = m_recvs[stream];
    while (!sends.empty() && !recvs.empty())
    {
        const auto [wrId, length] = sends.front();
        const PostedRecv r = recvs.front();
        sends.pop_front();
        recvs.pop_front();
        // A Send longer than its Recv places nothing and fails both (as on a real QP).
        const RdmaStatus status =
            length <= r.rr.length ? RdmaStatus::Success : RdmaStatus::LengthError;
        const RdmaCompletion c =
            CompletionOf(r.rr, status, status == RdmaStatus::Success ? length : 0, r.posted);
        m_peer->SendMatched(stream, wrId, status);
        Complete(c); // may post: the containers are looked up again
    }
}

void
OracleConnection::SendMatched(uint16_t stream, uint64_t wrId, RdmaStatus status)
{
    for (Pending& p : m_pending[stream])
    {
        if (p.wr.wrId == wrId && p.wr.opcode == RdmaOpcode::Send && !p.done)
        {
            p.done = true;
            p.status = status;
            break;
        }
    }
    Release(stream);
}

void
OracleConnection::Release(uint16_t stream)
{
    auto& pending = m_pending[stream];
    while (!pending.empty() && pending.front().done)
    {
        const Pending p = pending.front();
        pending.pop_front();
        Complete(CompletionOf(p.wr, p.status, p.posted)); // may post on this stream
    }
}

} // namespace ns3
