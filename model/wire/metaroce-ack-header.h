/*
 * MetaRoceAckHeader: the receiver's answer to each MetaRoCE data packet, on
 * the path (plane) the packet came in on. It acknowledges the path's sequence
 * space (cumulative + 256-bit SACK vector, design decision 3, docs/metaroce-design.md), echoes
 * ECN and the packet's timestamp, and carries the receiver's fair-share rate
 * hint for this sender (decision 4).
 *
 * Model assumption (not public): this layout, 64 bytes, network byte order.
 *
 *   0  opcode (1) = 0x10  1  flags (1)          2  path id (2)
 *   4  path epoch (1)     5  version (1) = 1    6  reserved (2)
 *   8  destination connection id (4): the data sender's connection
 *  12  cumulative sequence (4): every packet below it has arrived
 *  16  trigger sequence (4): the packet this ACK answers
 *  20  rate hint, Mb/s (4), 0 = no hint
 *  24  timestamp echo, picoseconds (8)
 *  32  SACK bitmap (32): bit i = sequence cumulative + 1 + i
 */
#ifndef METAROCE_ACK_HEADER_H
#define METAROCE_ACK_HEADER_H

#include "sack-bitmap.h"

#include "ns3/header.h"

namespace ns3
{

class MetaRoceAckHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 64;
    static constexpr uint8_t kOpcode = 0x10;

    enum Flags : uint8_t
    {
        ECE = 0x01,          //!< the trigger packet arrived CE-marked
        RNR = 0x02,          //!< the trigger (a SEND) found no posted receive: not placed
        ACCESS_ERROR = 0x04, //!< the trigger (a WRITE) had a bad key or range: not placed
        LENGTH_ERROR = 0x08, //!< the trigger (a SEND) is longer than its posted receive
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /** \return kBytes, or 0 if the buffer is short or the opcode/version is unknown. */
    uint32_t Deserialize(Buffer::Iterator start) override;
    /**
     * Reads the header from \p size bytes at \p bytes (what Deserialize
     * does, without a Buffer: receivers copy a frame's headers out once).
     * \return kBytes, or 0 if short or the opcode/version is unknown.
     */
    uint32_t Parse(const uint8_t* bytes, uint32_t size);
    /** Serialize to kBytes bytes of memory (a compact frame's header). */
    void WriteTo(uint8_t* bytes) const;
    void Print(std::ostream& os) const override;

    uint8_t flags = 0;
    uint16_t pathId = 0;
    uint8_t pathEpoch = 0;
    uint32_t connection = 0;
    uint32_t cumulativeSeq = 0;
    uint32_t triggerSeq = 0;
    uint32_t rateHintMbps = 0;
    uint64_t timestampEchoPs = 0;
    SackBitmap sack;
};

} // namespace ns3

#endif
