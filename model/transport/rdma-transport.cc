#include "rdma-transport.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaTransport);

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
    Ptr<RdmaConnection> ea = a->CreateEndpoint(b->GetHost());
    Ptr<RdmaConnection> eb = b->CreateEndpoint(a->GetHost());
    a->Bind(ea, eb);
    b->Bind(eb, ea);
    return {ea, eb};
}

} // namespace ns3
