#include "fabric-address.h"

#include "ns3/assert.h"

namespace ns3
{

Ipv4Address
FabricAddress::HostIp(uint32_t plane, uint32_t host)
{
    NS_ASSERT(plane < kMaxPlanes && host < kMaxHosts);
    return Ipv4Address(HostIpU32(plane, host));
}

Mac48Address
FabricAddress::HostMac(uint32_t plane, uint32_t host)
{
    NS_ASSERT(plane < kMaxPlanes && host < kMaxHosts);
    uint8_t bytes[6];
    WriteHostMac(bytes, plane, host);
    Mac48Address mac;
    mac.CopyFrom(bytes);
    return mac;
}

} // namespace ns3
