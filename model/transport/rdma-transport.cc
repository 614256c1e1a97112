#include "rdma-transport.h"

#include "ns3/abort.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

bool RdmaTransport::s_heapAccounting = false;

uint64_t
RdmaTransport::HeapInUse()
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    const struct mallinfo2 mi = mallinfo2();
    return uint64_t(mi.uordblks) + uint64_t(mi.hblkhd);
#else
    return 0;
#endif
}

TypeId
RdmaTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaTransport").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

RdmaTransport::RdmaTransport(TypeId connectionType)
    : m_memory(CreateObject<RdmaMemory>())
{
    NS_ABORT_MSG_IF(!connectionType.IsChildOf(RdmaConnection::GetTypeId()),
                    "RdmaTransport: " << connectionType.GetName() << " is not an RdmaConnection");
    m_connectionFactory.SetTypeId(connectionType);
}

void
RdmaTransport::SetConnectionAttribute(const std::string& name, const AttributeValue& value)
{
    m_connectionFactory.Set(name, value);
}

Ptr<RdmaConnection>
RdmaTransport::CreateEndpoint(uint32_t remoteHost)
{
    NS_ABORT_MSG_IF(!m_nic,
                    GetInstanceTypeId().GetName() << ": SetNic before creating connections");
    Ptr<RdmaConnection> c = m_connectionFactory.Create<RdmaConnection>();
    const uint32_t index = m_connections.size();
    m_connections.push_back(c);
    SetupEndpoint(c, index, remoteHost);
    return c;
}

void
RdmaTransport::DisposeConnections()
{
    for (auto& c : m_connections)
    {
        c->Dispose();
    }
    m_connections.clear();
}

void
RdmaTransport::DoDispose()
{
    DisposeConnections();
    m_nic = nullptr;
    m_memory = nullptr;
    Object::DoDispose();
}

void
RdmaTransport::SetNic(Ptr<RdmaNic> nic)
{
    m_nic = nic;
}

std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>>
RdmaTransport::Connect(Ptr<RdmaTransport> a, Ptr<RdmaTransport> b)
{
    NS_ABORT_MSG_IF(a->GetInstanceTypeId() != b->GetInstanceTypeId(),
                    "RdmaTransport::Connect: hosts " << a->GetHost() << " and " << b->GetHost()
                                                     << " run different transports ("
                                                     << a->GetInstanceTypeId().GetName() << ", "
                                                     << b->GetInstanceTypeId().GetName() << ")");
    NS_ABORT_MSG_IF(a->GetNic()->GetNPlanes() != b->GetNic()->GetNPlanes(),
                    "RdmaTransport::Connect: hosts have different plane counts");
    const bool account = s_heapAccounting;
    int64_t heap = account ? int64_t(HeapInUse()) : 0;
    auto charge = [&](RdmaTransport* t) {
        if (account)
        {
            const int64_t now = int64_t(HeapInUse());
            t->m_endpointHeapBytes += now - heap;
            heap = now;
        }
    };
    Ptr<RdmaConnection> ea = a->CreateEndpoint(b->GetHost());
    charge(PeekPointer(a));
    Ptr<RdmaConnection> eb = b->CreateEndpoint(a->GetHost());
    charge(PeekPointer(b));
    a->Bind(ea, eb);
    charge(PeekPointer(a));
    b->Bind(eb, ea);
    charge(PeekPointer(b));
    if (account)
    {
        ++a->m_accountedEndpoints;
        ++b->m_accountedEndpoints;
    }
    // After the accounting: the tracking is the test suite's, not the transport's.
    if (a->m_trackWorkRequests)
    {
        ea->EnableWorkRequestTracking();
    }
    if (b->m_trackWorkRequests)
    {
        eb->EnableWorkRequestTracking();
    }
    return {ea, eb};
}

} // namespace ns3
