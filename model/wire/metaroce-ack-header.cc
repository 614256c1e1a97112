#include "metaroce-ack-header.h"

#include "metaroce-data-header.h"

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
    i.WriteU8(kOpcode);
    i.WriteU8(flags);
    i.WriteHtonU16(pathId);
    i.WriteU8(pathEpoch);
    i.WriteU8(MetaRoceDataHeader::kVersion);
    i.WriteHtonU16(0);
    i.WriteHtonU32(connection);
    i.WriteHtonU32(cumulativeSeq);
    i.WriteHtonU32(triggerSeq);
    i.WriteHtonU32(rateHintMbps);
    i.WriteHtonU64(timestampEchoPs);
    for (uint32_t w = 0; w < 4; ++w)
    {
        i.WriteHtonU64(sack.Word(w));
    }
}

uint32_t
MetaRoceAckHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    const uint8_t opcode = i.ReadU8();
    flags = i.ReadU8();
    pathId = i.ReadNtohU16();
    pathEpoch = i.ReadU8();
    const uint8_t version = i.ReadU8();
    if (opcode != kOpcode || version != MetaRoceDataHeader::kVersion)
    {
        return 0;
    }
    i.ReadNtohU16();
    connection = i.ReadNtohU32();
    cumulativeSeq = i.ReadNtohU32();
    triggerSeq = i.ReadNtohU32();
    rateHintMbps = i.ReadNtohU32();
    timestampEchoPs = i.ReadNtohU64();
    for (uint32_t w = 0; w < 4; ++w)
    {
        sack.SetWord(w, i.ReadNtohU64());
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
