/*
 * InfiniBand transport headers as RoCEv2 carries them over UDP destination
 * port 4791 (IBTA Annex A17): the Base Transport Header (BTH, 12 bytes), the
 * RDMA Extended Transport Header (RETH, 16 bytes, on the first packet of an
 * RDMA WRITE) and the ACK Extended Transport Header (AETH, 4 bytes, on ACKs
 * and NAKs). A RoCEv2 packet ends with a 4-byte invariant CRC (ICRC), which
 * the model counts on the wire but does not compute (Wireshark shows it
 * without checking it unless asked to).
 *
 * Real serialisation, network byte order; Deserialize returns 0 for a short
 * buffer, so a malformed packet is rejected, never over-read. A pcap of this
 * traffic decodes as InfiniBand in tshark/Wireshark with no plug-in.
 */
#ifndef METAROCE_ROCE_HEADERS_H
#define METAROCE_ROCE_HEADERS_H

#include "ns3/header.h"

namespace ns3
{

constexpr uint16_t kRoceV2UdpPort = 4791;
constexpr uint32_t kRoceIcrcBytes = 4;
constexpr uint32_t kRocePsnMask = 0xFFFFFF;

/** Reliable-connection opcodes (BTH OpCode: transport 000 = RC) and the CNP. */
enum RoceOpcode : uint8_t
{
    RC_SEND_FIRST = 0x00,
    RC_SEND_MIDDLE = 0x01,
    RC_SEND_LAST = 0x02,
    RC_SEND_ONLY = 0x04,
    RC_WRITE_FIRST = 0x06,
    RC_WRITE_MIDDLE = 0x07,
    RC_WRITE_LAST = 0x08,
    RC_WRITE_ONLY = 0x0A,
    RC_ACKNOWLEDGE = 0x11,
    ROCE_CNP = 0x81, //!< congestion notification packet (RoCEv2 Annex A17.9.3)
};

/** Base Transport Header, 12 bytes. */
class RoceBthHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 12;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override
    {
        return kBytes;
    }

    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t opcode = RC_SEND_ONLY;
    bool solicited = false;
    bool migReq = true;      //!< M bit: 1 = no path migration state
    uint8_t padCount = 0;    //!< bytes of padding before the ICRC (payload to 4-byte multiple)
    uint16_t pkey = 0xFFFF;  //!< default partition
    uint32_t destQp = 0;     //!< 24 bits
    bool ackRequest = false; //!< A bit: the responder must acknowledge this packet
    uint32_t psn = 0;        //!< 24 bits
};

/** RDMA Extended Transport Header, 16 bytes. */
class RoceRethHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 16;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override
    {
        return kBytes;
    }

    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint64_t virtualAddress = 0;
    uint32_t rkey = 0;
    uint32_t dmaLength = 0;
};

/** ACK Extended Transport Header, 4 bytes: syndrome and message sequence number. */
class RoceAethHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 4;

    /** Syndromes (IBTA 9.7.5.2.2): ACK, RNR NAK, NAKs. */
    enum Syndrome : uint8_t
    {
        ACK = 0x1F,     //!< ACK, credit count "invalid" (no end-to-end credits)
        RNR_NAK = 0x20, //!< + 5-bit RNR timer code
        NAK_PSN_SEQUENCE = 0x60,
        NAK_INVALID_REQUEST = 0x61,
        NAK_REMOTE_ACCESS = 0x62,
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override
    {
        return kBytes;
    }

    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    uint8_t syndrome = ACK;
    uint32_t msn = 0; //!< 24 bits

    bool IsAck() const
    {
        return (syndrome & 0x60) == 0x00;
    }

    bool IsRnr() const
    {
        return (syndrome & 0x60) == 0x20;
    }

    bool IsNak() const
    {
        return (syndrome & 0x60) == 0x60;
    }
};

} // namespace ns3

#endif
