#include "pfc-pause-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(PfcPauseHeader);

namespace
{
const uint8_t kPfcDestination[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
} // namespace

TypeId
PfcPauseHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcPauseHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<PfcPauseHeader>();
    return tid;
}

TypeId
PfcPauseHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcPauseHeader::GetSerializedSize() const
{
    return kBytes;
}

Mac48Address
PfcPauseHeader::Destination()
{
    Mac48Address a;
    a.CopyFrom(kPfcDestination);
    return a;
}

void
PfcPauseHeader::SetPause(uint8_t priority, uint16_t quanta)
{
    NS_ASSERT(priority < kPriorities);
    m_classEnable |= uint8_t(1u << priority);
    m_quanta[priority] = quanta;
}

void
PfcPauseHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(kPfcDestination, 6);
    uint8_t src[6];
    m_source.CopyTo(src);
    start.Write(src, 6);
    start.WriteHtonU16(kEtherType);
    start.WriteHtonU16(kOpcode);
    start.WriteHtonU16(m_classEnable); // the high byte is reserved (zero)
    for (uint16_t q : m_quanta)
    {
        start.WriteHtonU16(q);
    }
    start.WriteU8(0, kBytes - kContentBytes);
}

uint32_t
PfcPauseHeader::Deserialize(Buffer::Iterator start)
{
    if (start.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    uint8_t dst[6];
    start.Read(dst, 6);
    for (int i = 0; i < 6; ++i)
    {
        if (dst[i] != kPfcDestination[i])
        {
            return 0;
        }
    }
    uint8_t src[6];
    start.Read(src, 6);
    if (start.ReadNtohU16() != kEtherType || start.ReadNtohU16() != kOpcode)
    {
        return 0;
    }
    const uint16_t enable = start.ReadNtohU16();
    if (enable > 0xff)
    {
        return 0; // reserved bits set: not a frame we understand
    }
    std::array<uint16_t, kPriorities> quanta;
    for (auto& q : quanta)
    {
        q = start.ReadNtohU16();
    }
    m_source.CopyFrom(src);
    m_classEnable = static_cast<uint8_t>(enable);
    m_quanta = quanta;
    return kBytes;
}

void
PfcPauseHeader::Print(std::ostream& os) const
{
    os << "PFC src=" << m_source << " enable=0x" << std::hex << unsigned(m_classEnable) << std::dec;
    for (uint32_t p = 0; p < kPriorities; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << p << "=" << m_quanta[p];
        }
    }
}

bool
PfcPauseHeader::Peek(const Packet& frame, PfcPauseHeader* header)
{
    if (frame.GetSize() != kBytes)
    {
        return false;
    }
    uint8_t head[14];
    frame.CopyData(head, sizeof(head));
    if (head[12] != (kEtherType >> 8) || head[13] != (kEtherType & 0xff))
    {
        return false;
    }
    PfcPauseHeader h;
    if (frame.PeekHeader(h) != kBytes)
    {
        return false;
    }
    if (header)
    {
        *header = h;
    }
    return true;
}

} // namespace ns3
