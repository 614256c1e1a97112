#include "oracle-transport.h"

#include "fabric-port.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OracleTransport);

TypeId
OracleTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OracleTransport")
                            .SetParent<RdmaTransport>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<OracleTransport>();
    return tid;
}

OracleTransport::OracleTransport()
    : RdmaTransport(OracleConnection::GetTypeId())
{
}

void
OracleTransport::DoDispose()
{
    m_queue.clear();
    RdmaTransport::DoDispose();
}

void
OracleTransport::SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost)
{
    PeekConnection<OracleConnection>(index)->Setup(this, remoteHost);
}

void
OracleTransport::Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote)
{
    Ptr<OracleConnection> l = DynamicCast<OracleConnection>(local);
    Ptr<OracleConnection> r = DynamicCast<OracleConnection>(remote);
    NS_ABORT_MSG_IF(!l || !r, "OracleTransport::Bind: not oracle endpoints");
    l->SetPeer(r);
}

double
OracleTransport::GetLineRateBps() const
{
    double bps = 0;
    for (uint32_t p = 0; p < m_nic->GetNPlanes(); ++p)
    {
        bps += m_nic->GetPort(p)->GetDataRate().GetBitRate();
    }
    return bps;
}

void
OracleTransport::Enqueue(Ptr<OracleConnection> connection, const RdmaWorkRequest& wr)
{
    m_queue.push_back(Queued{connection, wr});
    if (!m_busy)
    {
        StartNext();
    }
}

void
OracleTransport::StartNext()
{
    const Queued& q = m_queue.front();
    // Whole nanoseconds, rounded up: the fabric's time resolution, and a
    // rate never above the line rate.
    const Time duration =
        NanoSeconds(int64_t(std::ceil(q.wr.length * 8.0 / GetLineRateBps() * 1e9)));
    m_busy = true;
    q.connection->StartService(q.wr.length, Simulator::Now(), duration);
    Simulator::Schedule(duration, &OracleTransport::Finish, this);
}

void
OracleTransport::Finish()
{
    const Queued q = m_queue.front();
    m_queue.pop_front();
    m_busy = false;
    q.connection->Serialised(q.wr); // may post more work
    if (!m_busy && !m_queue.empty())
    {
        StartNext();
    }
}

} // namespace ns3
