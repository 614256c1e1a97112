#include "fabric-test-header.h"

#include "wire-bytes.h"

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
    uint8_t b[kBytes];
    WriteTo(b);
    start.Write(b, kBytes);
}

void
FabricTestHeader::WriteTo(uint8_t* bytes) const
{
    WireWriter w(bytes);
    w.U32(m_seq);
    w.U64(m_sendNs);
}

uint32_t
FabricTestHeader::Deserialize(Buffer::Iterator start)
{
    if (start.GetRemainingSize() < kBytes)
    {
        return 0; // truncated: nothing consumed
    }
    uint8_t b[kBytes];
    start.Read(b, kBytes);
    return Parse(b, kBytes);
}

uint32_t
FabricTestHeader::Parse(const uint8_t* bytes, uint32_t size)
{
    if (size < kBytes)
    {
        return 0;
    }
    WireReader r(bytes);
    m_seq = r.U32();
    m_sendNs = r.U64();
    return kBytes;
}

void
FabricTestHeader::Print(std::ostream& os) const
{
    os << "seq=" << m_seq << " sent=" << m_sendNs << "ns";
}

} // namespace ns3
