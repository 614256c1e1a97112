#include "fabric-address.h"

#include "ns3/assert.h"

namespace ns3
{

Ipv4Address
FabricAddress::HostIp(uint32_t plane, uint32_t host)
{
    NS_ASSERT(plane < kMaxPlanes && host < kMaxHosts);
    return Ipv4Address((10u << 24) | (plane << 16) | host);
}

Mac48Address
FabricAddress::HostMac(uint32_t plane, uint32_t host)
{
    NS_ASSERT(plane < kMaxPlanes && host < kMaxHosts);
    // Locally administered, unicast (0x02 in the first octet).
    uint8_t bytes[6] = {0x02, 0x00, 0x00, static_cast<uint8_t>(plane),
                        static_cast<uint8_t>(host >> 8), static_cast<uint8_t>(host & 0xff)};
    Mac48Address mac;
    mac.CopyFrom(bytes);
    return mac;
}

} // namespace ns3
