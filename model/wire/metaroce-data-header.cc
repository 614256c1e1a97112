#include "metaroce-data-header.h"

#include "wire-bytes.h"

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
    uint8_t b[kBytes];
    WriteTo(b);
    i.Write(b, kBytes);
}

void
MetaRoceDataHeader::WriteTo(uint8_t* b) const
{
    WireWriter w(b);
    w.U8(opcode);
    w.U8(flags);
    w.U16(pathId);
    w.U8(pathEpoch);
    w.U8(kVersion);
    w.U16(stream);
    w.U32(connection);
    w.U32(pathSeq);
    w.U32(messageSeq);
    w.U32(messageLength);
    w.U32(offset);
    w.U64(remoteAddress);
    w.U32(keyOrMatch);
    w.U64(timestampPs);
}

uint32_t
MetaRoceDataHeader::Deserialize(Buffer::Iterator i)
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
MetaRoceDataHeader::Parse(const uint8_t* bytes, uint32_t size)
{
    if (size < kBytes)
    {
        return 0;
    }
    WireReader r(bytes);
    opcode = r.U8();
    flags = r.U8();
    pathId = r.U16();
    pathEpoch = r.U8();
    const uint8_t version = r.U8();
    if ((opcode != WRITE && opcode != SEND) || version != kVersion)
    {
        return 0;
    }
    stream = r.U16();
    connection = r.U32();
    pathSeq = r.U32();
    messageSeq = r.U32();
    messageLength = r.U32();
    offset = r.U32();
    remoteAddress = r.U64();
    keyOrMatch = r.U32();
    timestampPs = r.U64();
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
