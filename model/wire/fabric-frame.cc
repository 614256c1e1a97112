#include "fabric-frame.h"

#include "fabric-address.h"
#include "fabric-frame-header.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ns3
{

namespace
{
/** Fills \p h with the frame headers for \p addr; \return its forwarding fields (size unset). */
FrameInfo
AddressFrame(const FrameAddress& addr, FabricFrameHeader& h)
{
    NS_ASSERT(addr.plane < FabricAddress::kMaxPlanes && addr.srcHost < FabricAddress::kMaxHosts &&
              addr.dstHost < FabricAddress::kMaxHosts);
    FrameInfo info;
    info.srcIp = FabricAddress::HostIpU32(addr.plane, addr.srcHost);
    info.dstIp = FabricAddress::HostIpU32(addr.plane, addr.dstHost);
    info.srcPort = addr.srcPort;
    info.dstPort = addr.dstPort;
    info.dscp = addr.dscp;
    info.ecn = addr.ecn;
    FabricAddress::WriteHostMac(h.srcMac, addr.plane, addr.srcHost);
    FabricAddress::WriteHostMac(h.dstMac, addr.plane, addr.dstHost);
    h.srcIp = info.srcIp;
    h.dstIp = info.dstIp;
    h.srcPort = addr.srcPort;
    h.dstPort = addr.dstPort;
    h.tos = static_cast<uint8_t>((addr.dscp << 2) | static_cast<uint8_t>(addr.ecn));
    return info;
}
} // namespace

FrameInfo
BuildFrame(Ptr<Packet> payload, const FrameAddress& addr)
{
    FabricFrameHeader h;
    h.inner = addr.inner;
    FrameInfo info = AddressFrame(addr, h);
    payload->AddHeader(h);
    info.bytes = payload->GetSize();
    return info;
}

bool
ParseFrame(const Packet& frame, FrameInfo& info)
{
    uint8_t b[kFrameHeaderBytes];
    if (frame.GetSize() < kFrameHeaderBytes ||
        frame.CopyData(b, kFrameHeaderBytes) != kFrameHeaderBytes)
    {
        return false;
    }
    const uint8_t* ip = b + kEthernetHeaderBytes;
    const uint8_t* udp = ip + kIpv4HeaderBytes;
    if (((b[12] << 8) | b[13]) != kEtherTypeIpv4 || ip[0] != 0x45 || ip[9] != kIpProtocolUdp)
    {
        return false;
    }
    auto u32 = [](const uint8_t* p) {
        return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    };
    info.dscp = ip[1] >> 2;
    info.ecn = static_cast<Ecn>(ip[1] & 0x3);
    info.srcIp = u32(ip + 12);
    info.dstIp = u32(ip + 16);
    info.srcPort = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
    info.dstPort = static_cast<uint16_t>((udp[2] << 8) | udp[3]);
    info.bytes = frame.GetSize();
    return true;
}

void
SetFrameEcn(Ptr<Packet> frame, Ecn ecn)
{
    FabricFrameHeader h;
    frame->RemoveHeader(h);
    h.tos = static_cast<uint8_t>((h.tos & 0xfc) | static_cast<uint8_t>(ecn));
    frame->AddHeader(h); // recomputes the IPv4 checksum
}

void
StripFrame(Ptr<Packet> frame)
{
    frame->RemoveAtStart(kFrameHeaderBytes);
}

} // namespace ns3

namespace ns3
{

/**
 * The header bytes of a compact frame as a Header, so the Packet made from
 * it is built as BuildFrame builds one: a zero-filled payload (ns-3's
 * virtual zero area) with the headers added in front.
 */
class FrameBytesHeader : public Header
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::FrameBytesHeader")
                                .SetParent<Header>()
                                .SetGroupName("MetaRoce")
                                .AddConstructor<FrameBytesHeader>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return m_size;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        start.Write(m_bytes, m_size);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        return 0;
    } // send side only

    void Print(std::ostream& os) const override
    {
        os << m_size << " header bytes";
    }

    const uint8_t* m_bytes = nullptr;
    uint32_t m_size = 0;
};

NS_OBJECT_ENSURE_REGISTERED(FrameBytesHeader);

#if !defined(__SANITIZE_ADDRESS__)
namespace
{
/** Blocks of finished compact frames; never shrinks (bounded by the peak in flight). */
std::vector<FrameBytes*>&
FrameBytesPool()
{
    static auto* pool = new std::vector<FrameBytes*>();
    return *pool;
}
} // namespace
#endif

FrameBytes*
FrameBytes::Allocate()
{
#if !defined(__SANITIZE_ADDRESS__)
    auto& pool = FrameBytesPool();
    if (!pool.empty())
    {
        FrameBytes* block = pool.back();
        pool.pop_back();
        return block;
    }
#endif
    return new FrameBytes;
}

void
FrameBytes::Free(FrameBytes* block)
{
#if !defined(__SANITIZE_ADDRESS__)
    FrameBytesPool().push_back(block);
#else
    delete block; // the sanitizer sees every block's lifetime
#endif
}

void
FrameRef::MakePacket() const
{
    Ptr<Packet> packet = Create<Packet>(m_bytes->size - m_bytes->headerBytes);
    FrameBytesHeader h;
    h.m_bytes = m_bytes->header;
    h.m_size = m_bytes->headerBytes;
    packet->AddHeader(h);
    FrameBytes::Free(m_bytes);
    m_bytes = nullptr;
    m_packet = PeekPointer(packet);
    m_packet->Ref();
}

Ptr<Packet>
FrameRef::Share() const
{
    if (m_bytes)
    {
        MakePacket();
    }
    return Ptr<Packet>(m_packet);
}

Ptr<Packet>
FrameRef::Release()
{
    if (m_bytes)
    {
        MakePacket();
    }
    Ptr<Packet> packet(m_packet, false);
    m_packet = nullptr;
    return packet;
}

uint32_t
FrameRef::CopyData(uint8_t* out, uint32_t size) const
{
    if (!m_bytes)
    {
        return m_packet ? m_packet->CopyData(out, size) : 0;
    }
    const uint32_t n = std::min(size, m_bytes->size);
    const uint32_t fromHeader = std::min(n, m_bytes->headerBytes);
    std::memcpy(out, m_bytes->header, fromHeader);
    std::memset(out + fromHeader, 0, n - fromHeader);
    return n;
}

uint32_t
FrameRef::GetSize() const
{
    return m_bytes ? m_bytes->size : m_packet ? m_packet->GetSize() : 0;
}

void
FrameRef::SetEcn(Ecn ecn)
{
    if (!m_bytes)
    {
        SetFrameEcn(Ptr<Packet>(m_packet), ecn);
        return;
    }
    // The bytes SetFrameEcn leaves: the TOS byte's low two bits, then the
    // header checksum over the new header.
    uint8_t* ip = m_bytes->header + kEthernetHeaderBytes;
    ip[1] = static_cast<uint8_t>((ip[1] & 0xfc) | static_cast<uint8_t>(ecn));
    ip[10] = ip[11] = 0;
    const uint16_t csum = FabricFrameHeader::Ipv4Checksum(ip);
    ip[10] = csum >> 8;
    ip[11] = csum & 0xff;
}

uint32_t
FramePayload::CopyData(uint8_t* out, uint32_t size) const
{
    if (packet)
    {
        return packet->CopyData(out, size);
    }
    const uint32_t n = std::min(size, zeroBytes);
    std::memset(out, 0, n);
    return n;
}

FrameInfo
BuildCompactFrame(FrameRef& frame, uint32_t payloadBytes, const FrameAddress& addr)
{
    NS_ASSERT(addr.inner == nullptr); // a Header object needs a Packet: use BuildFrame
    NS_ASSERT(kFrameHeaderBytes + addr.innerSize <= FrameBytes::kMaxHeaderBytes);
    FrameBytes* b = FrameBytes::Allocate();
    b->headerBytes = kFrameHeaderBytes + addr.innerSize;
    b->size = b->headerBytes + payloadBytes;
    // One header object for every compact frame: AddressFrame sets every
    // field WriteTo reads but the constants, and none is ever changed here
    // (an ns3::Header made and destroyed per frame is two library calls).
    static thread_local FabricFrameHeader h;
    FrameInfo info = AddressFrame(addr, h);
    h.WriteTo(b->header, b->size);
    if (addr.innerSize > 0)
    {
        std::memcpy(b->header + kFrameHeaderBytes, addr.innerBytes, addr.innerSize);
    }
    frame = FrameRef(b);
    info.bytes = b->size;
    return info;
}

} // namespace ns3
