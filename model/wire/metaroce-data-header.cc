#include "metaroce-data-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceDataHeader);

TypeId
MetaRoceDataHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceDataHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceDataHeader>();
    return tid;
}

TypeId
MetaRoceDataHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
MetaRoceDataHeader::GetSerializedSize() const
{
    return kBytes;
}

void
MetaRoceDataHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(opcode);
    i.WriteU8(flags);
    i.WriteHtonU16(pathId);
    i.WriteU8(pathEpoch);
    i.WriteU8(kVersion);
    i.WriteHtonU16(stream);
    i.WriteHtonU32(connection);
    i.WriteHtonU32(pathSeq);
    i.WriteHtonU32(messageSeq);
    i.WriteHtonU32(messageLength);
    i.WriteHtonU32(offset);
    i.WriteHtonU64(remoteAddress);
    i.WriteHtonU32(keyOrMatch);
    i.WriteHtonU64(timestampPs);
}

uint32_t
MetaRoceDataHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    opcode = i.ReadU8();
    flags = i.ReadU8();
    pathId = i.ReadNtohU16();
    pathEpoch = i.ReadU8();
    const uint8_t version = i.ReadU8();
    if ((opcode != WRITE && opcode != SEND) || version != kVersion)
    {
        return 0;
    }
    stream = i.ReadNtohU16();
    connection = i.ReadNtohU32();
    pathSeq = i.ReadNtohU32();
    messageSeq = i.ReadNtohU32();
    messageLength = i.ReadNtohU32();
    offset = i.ReadNtohU32();
    remoteAddress = i.ReadNtohU64();
    keyOrMatch = i.ReadNtohU32();
    timestampPs = i.ReadNtohU64();
    return kBytes;
}

void
MetaRoceDataHeader::Print(std::ostream& os) const
{
    os << (opcode == WRITE ? "WRITE" : "SEND") << " conn=" << connection << " path=" << pathId
       << "/" << unsigned(pathEpoch) << " seq=" << pathSeq << " stream=" << stream
       << " msg=" << messageSeq << " off=" << offset << "/" << messageLength;
    if (opcode == WRITE)
    {
        os << " raddr=0x" << std::hex << remoteAddress << std::dec << " rkey=" << keyOrMatch;
    }
    else
    {
        os << " match=" << keyOrMatch;
    }
    os << " flags=0x" << std::hex << unsigned(flags) << std::dec;
}

} // namespace ns3
