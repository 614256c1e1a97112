#include "fabric-frame.h"

#include "fabric-address.h"

#include "ns3/ethernet-header.h"
#include "ns3/udp-header.h"

namespace ns3
{

void
BuildFrame(Ptr<Packet> payload, const FrameAddress& addr)
{
    UdpHeader udp;
    udp.SetSourcePort(addr.srcPort);
    udp.SetDestinationPort(addr.dstPort);
    // UdpHeader computes its length field from the payload when serialised.
    payload->AddHeader(udp);

    Ipv4Header ip;
    ip.SetSource(FabricAddress::HostIp(addr.plane, addr.srcHost));
    ip.SetDestination(FabricAddress::HostIp(addr.plane, addr.dstHost));
    ip.SetProtocol(kIpProtocolUdp);
    ip.SetPayloadSize(payload->GetSize());
    ip.SetTtl(64);
    ip.SetTos(static_cast<uint8_t>((addr.dscp << 2) | static_cast<uint8_t>(addr.ecn)));
    ip.SetDontFragment();
    ip.EnableChecksum();
    payload->AddHeader(ip);

    EthernetHeader eth(false);
    eth.SetSource(FabricAddress::HostMac(addr.plane, addr.srcHost));
    eth.SetDestination(FabricAddress::HostMac(addr.plane, addr.dstHost));
    eth.SetLengthType(kEtherTypeIpv4);
    payload->AddHeader(eth);
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
    return true;
}

void
SetFrameEcn(Ptr<Packet> frame, Ecn ecn)
{
    EthernetHeader eth(false);
    Ipv4Header ip;
    frame->RemoveHeader(eth);
    frame->RemoveHeader(ip);
    ip.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
    ip.EnableChecksum();
    frame->AddHeader(ip);
    frame->AddHeader(eth);
}

void
StripFrame(Ptr<Packet> frame)
{
    frame->RemoveAtStart(kFrameHeaderBytes);
}

} // namespace ns3
