/*
 * MetaRoceDataHeader: the header of every MetaRoCE data packet, right after
 * UDP. Packets are self-describing (design decision 1, docs/metaroce-design.md): each carries
 * where its payload goes, so the receiver places it on arrival in any order.
 *
 * Model assumption (the specification's header is not public): this layout,
 * 48 bytes, network byte order.
 *
 *   0  opcode (1)        1  flags (1)          2  path id (2)
 *   4  path epoch (1)    5  version (1) = 1    6  stream (2)
 *   8  destination connection id (4)          12  path sequence number (4)
 *  16  message sequence in the stream (4)     20  message length (4)
 *  24  byte offset in the message (4)
 *  28  WRITE: remote address (8)  SEND: 0 (8)
 *  36  WRITE: remote key (4)      SEND: receive match = send sequence in the stream (4)
 *  40  send timestamp, picoseconds (8) (echoed by the ACK: RTT samples)
 *
 * Field widths: 32-bit path sequence numbers wrap after 2^32 packets per path
 * (never within a simulation); 16-bit path id and stream allow 65,536 of each
 * per connection; a message is at most 4 GiB.
 */
#ifndef METAROCE_DATA_HEADER_H
#define METAROCE_DATA_HEADER_H

#include "ns3/header.h"

namespace ns3
{

class MetaRoceDataHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 48;
    static constexpr uint8_t kVersion = 1;

    enum Opcode : uint8_t
    {
        WRITE = 0x01,
        SEND = 0x02,
    };

    enum Flags : uint8_t
    {
        FIRST = 0x01, //!< first packet of the message
        LAST = 0x02,  //!< last packet of the message
        RETX = 0x04,  //!< a retransmission
        PROBE = 0x08, //!< sent on a path being probed after a failure
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

    /**
     * Every field back to its default, as assigning a new header would,
     * without making and destroying an ns3::Header (a sender reuses one
     * header for every packet).
     */
    void Clear()
    {
        opcode = WRITE;
        flags = 0;
        pathId = 0;
        pathEpoch = 0;
        stream = 0;
        connection = 0;
        pathSeq = 0;
        messageSeq = 0;
        messageLength = 0;
        offset = 0;
        remoteAddress = 0;
        keyOrMatch = 0;
        timestampPs = 0;
    }

    uint8_t opcode = WRITE;
    uint8_t flags = 0;
    uint16_t pathId = 0;
    uint8_t pathEpoch = 0;
    uint16_t stream = 0;
    uint32_t connection = 0;
    uint32_t pathSeq = 0;
    uint32_t messageSeq = 0;
    uint32_t messageLength = 0;
    uint32_t offset = 0;
    uint64_t remoteAddress = 0; //!< WRITE only
    uint32_t keyOrMatch = 0;    //!< WRITE: remote key; SEND: send sequence in the stream
    uint64_t timestampPs = 0;
};

} // namespace ns3

#endif
