#include "fabric-frame-header.h"

#include "fabric-frame.h"

#include "ns3/ipv4-address.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FabricFrameHeader);

TypeId
FabricFrameHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricFrameHeader")
                            .SetParent<Header>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<FabricFrameHeader>();
    return tid;
}

TypeId
FabricFrameHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
FabricFrameHeader::GetSerializedSize() const
{
    return kBytes + (inner ? inner->GetSerializedSize() : 0);
}

uint16_t
FabricFrameHeader::Ipv4Checksum(const uint8_t* h)
{
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (uint32_t(h[i]) << 8) | h[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

void
FabricFrameHeader::WriteTo(uint8_t* b, uint32_t frameBytes) const
{
    const uint16_t ipLen = static_cast<uint16_t>(frameBytes - kEthernetHeaderBytes);
    const uint16_t udpLen = static_cast<uint16_t>(ipLen - kIpv4HeaderBytes);

    std::memcpy(b, dstMac, 6);
    std::memcpy(b + 6, srcMac, 6);
    b[12] = kEtherTypeIpv4 >> 8;
    b[13] = kEtherTypeIpv4 & 0xff;
    uint8_t* ip = b + kEthernetHeaderBytes;
    ip[0] = 0x45; // version 4, IHL 5 words
    ip[1] = tos;
    ip[2] = ipLen >> 8;
    ip[3] = ipLen & 0xff;
    ip[4] = ipId >> 8;
    ip[5] = ipId & 0xff;
    ip[6] = 0x40; // don't fragment
    ip[7] = 0;
    ip[8] = ttl;
    ip[9] = kIpProtocolUdp;
    ip[10] = ip[11] = 0;
    for (int i = 0; i < 4; ++i)
    {
        ip[12 + i] = static_cast<uint8_t>(srcIp >> (24 - 8 * i));
        ip[16 + i] = static_cast<uint8_t>(dstIp >> (24 - 8 * i));
    }
    const uint16_t csum = Ipv4Checksum(ip);
    ip[10] = csum >> 8;
    ip[11] = csum & 0xff;
    uint8_t* udp = ip + kIpv4HeaderBytes;
    udp[0] = srcPort >> 8;
    udp[1] = srcPort & 0xff;
    udp[2] = dstPort >> 8;
    udp[3] = dstPort & 0xff;
    udp[4] = udpLen >> 8;
    udp[5] = udpLen & 0xff;
    udp[6] = udp[7] = 0;
}

void
FabricFrameHeader::Serialize(Buffer::Iterator start) const
{
    uint8_t b[kBytes];
    WriteTo(b, start.GetSize());
    start.Write(b, kBytes);
    if (inner)
    {
        inner->Serialize(start);
    }
}

uint32_t
FabricFrameHeader::Deserialize(Buffer::Iterator start)
{
    if (start.GetRemainingSize() < kBytes)
    {
        return 0;
    }
    uint8_t b[kBytes];
    start.Read(b, kBytes);
    const uint8_t* ip = b + kEthernetHeaderBytes;
    const uint8_t* udp = ip + kIpv4HeaderBytes;
    if (((b[12] << 8) | b[13]) != kEtherTypeIpv4 || ip[0] != 0x45 || ip[9] != kIpProtocolUdp)
    {
        return 0;
    }
    std::memcpy(dstMac, b, 6);
    std::memcpy(srcMac, b + 6, 6);
    tos = ip[1];
    ipTotalLength = static_cast<uint16_t>((ip[2] << 8) | ip[3]);
    ipId = static_cast<uint16_t>((ip[4] << 8) | ip[5]);
    ttl = ip[8];
    srcIp = (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    dstIp = (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
    srcPort = static_cast<uint16_t>((udp[0] << 8) | udp[1]);
    dstPort = static_cast<uint16_t>((udp[2] << 8) | udp[3]);
    udpLength = static_cast<uint16_t>((udp[4] << 8) | udp[5]);
    uint8_t check[20];
    std::memcpy(check, ip, 20);
    check[10] = check[11] = 0;
    checksumOk = Ipv4Checksum(check) == ((ip[10] << 8) | ip[11]);
    return kBytes;
}

void
FabricFrameHeader::Print(std::ostream& os) const
{
    os << Ipv4Address(srcIp) << ":" << srcPort << " > " << Ipv4Address(dstIp) << ":" << dstPort
       << " tos=0x" << std::hex << unsigned(tos) << std::dec;
}

} // namespace ns3
