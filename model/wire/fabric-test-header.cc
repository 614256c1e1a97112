#include "fabric-test-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricTestHeader);

TypeId
FabricTestHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricTestHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<FabricTestHeader>();
    return tid;
}

TypeId
FabricTestHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricTestHeader::GetSerializedSize() const
{
    return kBytes;
}

void
FabricTestHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteHtonU32(m_seq);
    start.WriteHtonU64(m_sendNs);
}

uint32_t
FabricTestHeader::Deserialize(Buffer::Iterator start)
{
    if (start.GetRemainingSize() < kBytes)
    {
        return 0; // truncated: nothing consumed
    }
    m_seq = start.ReadNtohU32();
    m_sendNs = start.ReadNtohU64();
    return kBytes;
}

void
FabricTestHeader::Print(std::ostream& os) const
{
    os << "seq=" << m_seq << " sent=" << m_sendNs << "ns";
}

} // namespace ns3
