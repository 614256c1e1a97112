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

RdmaTransport::RdmaTransport()
    : m_memory(CreateObject<RdmaMemory>())
{
}

void
RdmaTransport::DoDispose()
{
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
