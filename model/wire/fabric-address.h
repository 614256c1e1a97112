/*
 * Addressing plan of a multi-plane fabric (model assumption, docs/fabric-model.md):
 * every plane is its own layer-3 network, so host h's port on plane p has
 *   IPv4 10.p.(h >> 8).(h & 0xff)   and   MAC 02:00:00:p:(h >> 8):(h & 0xff).
 * A switch routes on the low 16 bits of the destination address (the host
 * index) and checks the plane byte against its own plane.
 */
#ifndef METAROCE_FABRIC_ADDRESS_H
#define METAROCE_FABRIC_ADDRESS_H

#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"

#include <cstdint>

namespace ns3
{

class FabricAddress
{
  public:
    static constexpr uint32_t kMaxHosts = 65536;
    static constexpr uint32_t kMaxPlanes = 256;

    static Ipv4Address HostIp(uint32_t plane, uint32_t host);
    static Mac48Address HostMac(uint32_t plane, uint32_t host);

    /** HostIp as a host-order integer (10.plane.host), for the per-packet path. */
    static uint32_t HostIpU32(uint32_t plane, uint32_t host)
    {
        return (10u << 24) | (plane << 16) | host;
    }

    /** Writes HostMac's six bytes to \p out (per-packet path: no Mac48Address). */
    static void WriteHostMac(uint8_t* out, uint32_t plane, uint32_t host)
    {
        out[0] = 0x02; // locally administered, unicast
        out[1] = 0x00;
        out[2] = 0x00;
        out[3] = static_cast<uint8_t>(plane);
        out[4] = static_cast<uint8_t>(host >> 8);
        out[5] = static_cast<uint8_t>(host & 0xff);
    }

    /** Host index encoded in a fabric IPv4 address (host byte order). */
    static uint32_t HostOf(uint32_t ip)
    {
        return ip & 0xffff;
    }

    /** Plane encoded in a fabric IPv4 address (host byte order). */
    static uint32_t PlaneOf(uint32_t ip)
    {
        return (ip >> 16) & 0xff;
    }
};

} // namespace ns3

#endif
