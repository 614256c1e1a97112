#include "metaroce-ack-header.h"

#include "metaroce-data-header.h"
#include "wire-bytes.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceAckHeader);

TypeId
MetaRoceAckHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceAckHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceAckHeader>();
    return tid;
}

TypeId
MetaRoceAckHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MetaRoceAckHeader::GetSerializedSize() const
{
    return kBytes;
}

void
MetaRoceAckHeader::Serialize(Buffer::Iterator i) const
{
    uint8_t b[kBytes];
    WriteTo(b);
    i.Write(b, kBytes);
}

void
MetaRoceAckHeader::WriteTo(uint8_t* b) const
{
    WireWriter w(b);
    w.U8(kOpcode);
    w.U8(flags);
    w.U16(pathId);
    w.U8(pathEpoch);
    w.U8(MetaRoceDataHeader::kVersion);
    w.U16(0);
    w.U32(connection);
    w.U32(cumulativeSeq);
    w.U32(triggerSeq);
    w.U32(rateHintMbps);
    w.U64(timestampEchoPs);
    for (uint32_t k = 0; k < 4; ++k)
    {
        w.U64(sack.Word(k));
    }
}

uint32_t
MetaRoceAckHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    uint8_t b[kBytes];
    i.Read(b, kBytes);
    return Parse(b, kBytes);
}

uint32_t
MetaRoceAckHeader::Parse(const uint8_t* bytes, uint32_t size)
{
    if (size < kBytes)
    {
        return 0;
    }
    WireReader r(bytes);
    const uint8_t opcode = r.U8();
    flags = r.U8();
    pathId = r.U16();
    pathEpoch = r.U8();
    const uint8_t version = r.U8();
    if (opcode != kOpcode || version != MetaRoceDataHeader::kVersion)
    {
        return 0;
    }
    r.U16();
    connection = r.U32();
    cumulativeSeq = r.U32();
    triggerSeq = r.U32();
    rateHintMbps = r.U32();
    timestampEchoPs = r.U64();
    for (uint32_t k = 0; k < 4; ++k)
    {
        sack.SetWord(k, r.U64());
    }
    return kBytes;
}

void
MetaRoceAckHeader::Print(std::ostream& os) const
{
    os << "ACK conn=" << connection << " path=" << pathId << "/" << unsigned(pathEpoch)
       << " cum=" << cumulativeSeq << " trigger=" << triggerSeq << " hint=" << rateHintMbps
       << "Mbps flags=0x" << std::hex << unsigned(flags) << std::dec;
}

} // namespace ns3
