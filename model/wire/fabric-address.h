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

    /** Host index encoded in a fabric IPv4 address (host byte order). */
    static uint32_t HostOf(uint32_t ip) { return ip & 0xffff; }

    /** Plane encoded in a fabric IPv4 address (host byte order). */
    static uint32_t PlaneOf(uint32_t ip) { return (ip >> 16) & 0xff; }
};

} // namespace ns3

#endif
