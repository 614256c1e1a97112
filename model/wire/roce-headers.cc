#include "roce-headers.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceRethHeader);
NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

TypeId
RoceBthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceBthHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RoceBthHeader>();
    return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceBthHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(opcode);
    // SE | M | PadCnt(2) | TVer(4) = 0
    i.WriteU8(uint8_t((solicited ? 0x80 : 0) | (migReq ? 0x40 : 0) | ((padCount & 3) << 4)));
    i.WriteHtonU16(pkey);
    i.WriteU8(0); // FECN | BECN | reserved
    i.WriteU8(uint8_t(destQp >> 16));
    i.WriteHtonU16(uint16_t(destQp));
    i.WriteU8(ackRequest ? 0x80 : 0);
    i.WriteU8(uint8_t(psn >> 16));
    i.WriteHtonU16(uint16_t(psn));
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    opcode = i.ReadU8();
    const uint8_t flags = i.ReadU8();
    solicited = flags & 0x80;
    migReq = flags & 0x40;
    padCount = (flags >> 4) & 3;
    pkey = i.ReadNtohU16();
    i.ReadU8();
    destQp = uint32_t(i.ReadU8()) << 16;
    destQp |= i.ReadNtohU16();
    ackRequest = i.ReadU8() & 0x80;
    psn = uint32_t(i.ReadU8()) << 16;
    psn |= i.ReadNtohU16();
    return kBytes;
}

void
RoceBthHeader::Print(std::ostream& os) const
{
    os << "BTH op=0x" << std::hex << unsigned(opcode) << std::dec << " qp=" << destQp
       << " psn=" << psn << (ackRequest ? " A" : "");
}

TypeId
RoceRethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceRethHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RoceRethHeader>();
    return tid;
}

TypeId
RoceRethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceRethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU64(virtualAddress);
    i.WriteHtonU32(rkey);
    i.WriteHtonU32(dmaLength);
}

uint32_t
RoceRethHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    virtualAddress = i.ReadNtohU64();
    rkey = i.ReadNtohU32();
    dmaLength = i.ReadNtohU32();
    return kBytes;
}

void
RoceRethHeader::Print(std::ostream& os) const
{
    os << "RETH va=0x" << std::hex << virtualAddress << std::dec << " rkey=" << rkey
       << " len=" << dmaLength;
}

TypeId
RoceAethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceAethHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RoceAethHeader>();
    return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RoceAethHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteU8(syndrome);
    i.WriteU8(uint8_t(msn >> 16));
    i.WriteHtonU16(uint16_t(msn));
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator i)
{
    if (i.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    syndrome = i.ReadU8();
    msn = uint32_t(i.ReadU8()) << 16;
    msn |= i.ReadNtohU16();
    return kBytes;
}

void
RoceAethHeader::Print(std::ostream& os) const
{
    os << "AETH syndrome=0x" << std::hex << unsigned(syndrome) << std::dec << " msn=" << msn;
}

} // namespace ns3
