#include "fabric-frame.h"

#include "fabric-address.h"
#include "fabric-frame-header.h"

namespace ns3
{

FrameInfo
BuildFrame(Ptr<Packet> payload, const FrameAddress& addr)
{
    FabricFrameHeader h;
    h.inner = addr.inner;
    NS_ASSERT(addr.plane < FabricAddress::kMaxPlanes && addr.srcHost < FabricAddress::kMaxHosts &&
              addr.dstHost < FabricAddress::kMaxHosts);
    const uint32_t src = FabricAddress::HostIpU32(addr.plane, addr.srcHost);
    const uint32_t dst = FabricAddress::HostIpU32(addr.plane, addr.dstHost);
    FabricAddress::WriteHostMac(h.srcMac, addr.plane, addr.srcHost);
    FabricAddress::WriteHostMac(h.dstMac, addr.plane, addr.dstHost);
    h.srcIp = src;
    h.dstIp = dst;
    h.srcPort = addr.srcPort;
    h.dstPort = addr.dstPort;
    h.tos = static_cast<uint8_t>((addr.dscp << 2) | static_cast<uint8_t>(addr.ecn));
    payload->AddHeader(h);
    FrameInfo info;
    info.srcIp = src;
    info.dstIp = dst;
    info.srcPort = addr.srcPort;
    info.dstPort = addr.dstPort;
    info.dscp = addr.dscp;
    info.ecn = addr.ecn;
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
