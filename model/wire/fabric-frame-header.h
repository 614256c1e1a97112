/*
 * FabricFrameHeader: the Ethernet II + IPv4 + UDP headers of a fabric frame
 * as one ns-3 Header, serialised in one pass. The bytes are exactly those
 * ns-3's EthernetHeader, Ipv4Header (20 bytes, real checksum) and UdpHeader
 * (checksum 0, allowed over IPv4 and what RoCEv2 NICs send) would write; a
 * test decodes our frames with those three classes and with tshark. Why one
 * class: adding the three ns-3 headers one by one costs three Packet
 * buffer operations per frame, a sixth of the whole forwarding cost when
 * measured.
 */
#ifndef METAROCE_FABRIC_FRAME_HEADER_H
#define METAROCE_FABRIC_FRAME_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

class FabricFrameHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 42;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    /** Lengths (IPv4 total length, UDP length) come from the bytes that follow. */
    void Serialize(Buffer::Iterator start) const override;
    /** Returns 0 (consumes nothing) unless the bytes are Ethernet II/IPv4 (IHL 5)/UDP. */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t dstMac[6] = {0};
    uint8_t srcMac[6] = {0};
    uint32_t srcIp = 0; //!< host byte order
    uint32_t dstIp = 0;
    uint16_t srcPort = 0;
    uint16_t dstPort = 0;
    uint8_t tos = 0; //!< DSCP << 2 | ECN
    uint8_t ttl = 64;
    uint16_t ipId = 0;
    uint16_t ipTotalLength = 0; //!< as read by Deserialize
    uint16_t udpLength = 0;     //!< as read by Deserialize
    bool checksumOk = true;     //!< as read by Deserialize
    /**
     * Send side only: a header (the transport's, the test traffic's) that
     * Serialize writes right after these 42 bytes, so a frame costs one
     * Packet::AddHeader instead of two. Not
     * owned; must outlive the AddHeader call. Deserialize reads the frame
     * headers only, so packet metadata (off unless Packet::EnablePrinting)
     * records the pair as one item.
     */
    const Header* inner = nullptr;

    /**
     * Writes the 42 header bytes of a frame of \p frameBytes bytes (headers
     * and payload) to \p b: what Serialize writes before the inner header.
     */
    void WriteTo(uint8_t* b, uint32_t frameBytes) const;

    /** RFC 1071 checksum of a 20-byte IPv4 header whose checksum field is zero. */
    static uint16_t Ipv4Checksum(const uint8_t* header20);
};

} // namespace ns3

#endif
