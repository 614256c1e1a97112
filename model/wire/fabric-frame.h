/*
 * The wire format every fabric packet uses: Ethernet II, IPv4 (ECN in the
 * low two bits of the TOS byte, DSCP in the high six), UDP. Frames are built
 * with ns-3's own Header classes, so pcap captures decode as
 * Ethernet/IPv4/UDP. The few fields forwarding needs (FrameInfo) are read
 * once, where a frame enters the fabric (BuildFrame returns them; ParseFrame
 * reads them from the bytes in one copy), and travel with the frame from hop
 * to hop (a port that marks CE updates both); the byte offsets are those of RFC 791 / RFC 768 with
 * a 20-byte IPv4 header, which is what BuildFrame writes (FabricFrameHeader: the three headers in
 * one serialisation pass, byte-identical to ns-3's classes).
 */
#ifndef METAROCE_FABRIC_FRAME_H
#define METAROCE_FABRIC_FRAME_H

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

constexpr uint32_t kEthernetHeaderBytes = 14;
constexpr uint32_t kIpv4HeaderBytes = 20;
constexpr uint32_t kUdpHeaderBytes = 8;
constexpr uint32_t kFrameHeaderBytes = kEthernetHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes;
/** Frame check sequence: on the wire, not in the Packet (pcap convention). */
constexpr uint32_t kEthernetFcsBytes = 4;
/** Smallest Ethernet frame without FCS; shorter frames are padded on the wire. */
constexpr uint32_t kEthernetMinFrameBytes = 60;
/** Preamble + start-of-frame delimiter (8) and inter-frame gap (12). */
constexpr uint32_t kEthernetPreambleIfgBytes = 20;

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint8_t kIpProtocolUdp = 17;

/** ECN codepoints (RFC 3168), as in Ipv4Header::EcnType. */
enum class Ecn : uint8_t
{
    NotEct = 0,
    Ect1 = 1,
    Ect0 = 2,
    Ce = 3,
};

/** What a sender puts in a frame's headers. */
struct FrameAddress
{
    uint32_t plane = 0;
    uint32_t srcHost = 0;
    uint32_t dstHost = 0;
    uint16_t srcPort = 0; //!< UDP source port: ECMP entropy
    uint16_t dstPort = 0; //!< UDP destination port: selects the transport
    uint8_t dscp = 0;     //!< six-bit DSCP: selects the traffic class
    Ecn ecn = Ecn::NotEct;
    /**
     * The sender's own header (transport, test traffic), if it leaves adding
     * it to BuildFrame: written with the frame headers in one AddHeader
     * (FabricFrameHeader::inner). Not owned; must live until the frame is built.
     */
    const Header* inner = nullptr;
    /**
     * BuildCompactFrame: the sender's own header as bytes (instead of
     * inner), written after the frame headers. Not owned.
     */
    const uint8_t* innerBytes = nullptr;
    uint32_t innerSize = 0;
};

/** The header fields forwarding and demultiplexing need, in host byte order. */
struct FrameInfo
{
    /**
     * The frame's size in bytes (Packet::GetSize), so forwarding never reads
     * the Packet. Set by the port where a frame enters the fabric.
     */
    uint32_t bytes = 0;
    uint32_t srcIp = 0;
    uint32_t dstIp = 0;
    uint16_t srcPort = 0;
    uint16_t dstPort = 0;
    uint8_t dscp = 0;
    Ecn ecn = Ecn::NotEct;
};

/**
 * A frame held as its header bytes alone, for frames whose payload nobody
 * reads (test traffic, MetaRoCE data without CarryBytes, ACKs): the payload
 * is size - headerBytes zero bytes, exactly what Create<Packet>(n) holds.
 * Built in a pooled block instead of an ns-3 Packet (no Packet, Buffer or
 * metadata allocation, no AddHeader, nothing to free at the far end); a
 * Packet with the same bytes is made only if something asks for one
 * (a trace, pcap, an error model): FrameRef::Share.
 */
struct FrameBytes
{
    static constexpr uint32_t kMaxHeaderBytes = 120;
    uint32_t size = 0;        //!< frame bytes: headers and payload
    uint32_t headerBytes = 0; //!< bytes of header[] in use
    uint8_t header[kMaxHeaderBytes];

    /** A block from the pool (blocks of finished frames are reused). */
    static FrameBytes* Allocate();
    static void Free(FrameBytes* block);
};

/**
 * The fabric's reference to a frame while it is queued or in flight: either
 * a Packet (one reference of its own) or a FrameBytes block (owned).
 * Move-only: handing a frame from port to channel to port moves a pointer
 * and never touches the Packet, whose reference count would otherwise be
 * read and written at every hop (ns-3 3.37's Ptr has no move, and the Packet
 * is long out of cache by the time its frame arrives). The frame's bytes are
 * read only where they are needed: the receiving NIC, a connected trace, an
 * ECN mark, an error model.
 */
class FrameRef
{
  public:
    FrameRef() = default;

    /** Takes a reference of its own to \p packet. */
    explicit FrameRef(const Ptr<Packet>& packet)
        : m_packet(PeekPointer(packet))
    {
        if (m_packet)
        {
            m_packet->Ref();
        }
    }

    /** Takes ownership of \p bytes (from FrameBytes::Allocate). */
    explicit FrameRef(FrameBytes* bytes)
        : m_bytes(bytes)
    {
    }

    FrameRef(FrameRef&& other) noexcept
        : m_packet(other.m_packet),
          m_bytes(other.m_bytes)
    {
        other.m_packet = nullptr;
        other.m_bytes = nullptr;
    }

    FrameRef& operator=(FrameRef&& other) noexcept
    {
        if (this != &other)
        {
            Reset();
            m_packet = other.m_packet;
            m_bytes = other.m_bytes;
            other.m_packet = nullptr;
            other.m_bytes = nullptr;
        }
        return *this;
    }

    FrameRef(const FrameRef&) = delete;
    FrameRef& operator=(const FrameRef&) = delete;

    ~FrameRef()
    {
        Reset();
    }

    /**
     * Another reference to the frame as a Packet. A FrameBytes frame becomes
     * a Packet with the same bytes first (once: later calls share it).
     */
    Ptr<Packet> Share() const;
    /** Hands this reference over as a Ptr (made as Share does), leaving this empty. */
    Ptr<Packet> Release();
    /** Copies the first \p size bytes of the frame to \p out; \return bytes copied. */
    uint32_t CopyData(uint8_t* out, uint32_t size) const;
    /** Frame bytes (Packet::GetSize). */
    uint32_t GetSize() const;
    /** Rewrites the IPv4 ECN codepoint (and checksum), as SetFrameEcn does. */
    void SetEcn(Ecn ecn);

    /** Starts fetching a compact frame's header bytes (a receiver is about to read them). */
    void PrefetchBytes() const
    {
        if (m_bytes)
        {
            __builtin_prefetch(m_bytes);
            __builtin_prefetch(reinterpret_cast<const char*>(m_bytes) + 64);
        }
    }

    /** Whether the frame is held as FrameBytes (no Packet made yet). */
    bool IsCompact() const
    {
        return m_bytes != nullptr;
    }

    explicit operator bool() const
    {
        return m_packet || m_bytes;
    }

  private:
    void Reset()
    {
        if (m_packet)
        {
            m_packet->Unref();
            m_packet = nullptr;
        }
        if (m_bytes)
        {
            FrameBytes::Free(m_bytes);
            m_bytes = nullptr;
        }
    }

    /** Turns a FrameBytes frame into a Packet with the same bytes. */
    void MakePacket() const;

    // Exactly one is set (or neither). Mutable: Share turns bytes into a
    // Packet without changing the frame.
    mutable Packet* m_packet = nullptr;
    mutable FrameBytes* m_bytes = nullptr;
};

/**
 * A payload as a transport hands it to the NIC or receives it: a Packet, or
 * (no Packet) that many zero bytes, which a compact frame carries without
 * allocating them. Converts from a Ptr<Packet> (and from nullptr: none).
 */
struct FramePayload
{
    FramePayload() = default;

    FramePayload(std::nullptr_t)
    {
    }

    FramePayload(Ptr<Packet> p)
        : packet(std::move(p))
    {
    }

    /** \p bytes zero bytes, no Packet. */
    static FramePayload Zeros(uint32_t bytes)
    {
        FramePayload f;
        f.zeros = true;
        f.zeroBytes = bytes;
        return f;
    }

    explicit operator bool() const
    {
        return packet || zeros;
    }

    uint32_t GetSize() const
    {
        return packet ? packet->GetSize() : zeroBytes;
    }

    /** Copies \p size bytes from offset 0 (zeros if there is no Packet); \return bytes copied. */
    uint32_t CopyData(uint8_t* out, uint32_t size) const;

    /** A deep copy (Packet::Copy), for a duplicated delivery. */
    FramePayload Copy() const
    {
        return zeros ? *this : FramePayload(packet->Copy());
    }

    Ptr<Packet> packet;
    uint32_t zeroBytes = 0; //!< when zeros
    bool zeros = false;
};

/**
 * Prepends Ethernet, IPv4 and UDP headers to a payload packet (in place).
 * IPv4 carries a real header checksum; UDP's checksum is 0 (allowed over
 * IPv4, and what RoCEv2 NICs send). TTL 64, DF set, IP id 0.
 * \p addr.inner, if set, is serialised between the UDP header and the payload
 * in the same pass (FabricFrameHeader::inner).
 * \return the forwarding fields of the frame just built (no need to parse it).
 */
FrameInfo BuildFrame(Ptr<Packet> payload, const FrameAddress& addr);

/**
 * BuildFrame for a frame whose payload is \p payloadBytes zero bytes, held
 * as FrameBytes (see there): the same bytes BuildFrame writes for
 * Create<Packet>(payloadBytes), with \p addr.innerBytes as the sender's
 * header. \return the frame (in \p frame) and its forwarding fields.
 */
FrameInfo BuildCompactFrame(FrameRef& frame, uint32_t payloadBytes, const FrameAddress& addr);

/**
 * Reads the forwarding fields of a frame.
 * \return false if the packet is not a complete Ethernet II / IPv4 (IHL 5) /
 *         UDP frame; \p info is then unspecified.
 */
bool ParseFrame(const Packet& frame, FrameInfo& info);

/**
 * Rewrites the ECN codepoint of a frame's IPv4 header (and its checksum).
 * Costs a header removal and re-serialisation: only done when a switch marks.
 */
void SetFrameEcn(Ptr<Packet> frame, Ecn ecn);

/** Removes Ethernet, IPv4 and UDP headers, leaving the UDP payload. */
void StripFrame(Ptr<Packet> frame);

/** Bytes a frame of \p packetBytes occupies on the line (padding, FCS, preamble, IFG). */
inline uint32_t
WireBytes(uint32_t packetBytes, uint32_t perFrameOverhead = kEthernetPreambleIfgBytes)
{
    uint32_t frame = packetBytes < kEthernetMinFrameBytes ? kEthernetMinFrameBytes : packetBytes;
    return frame + kEthernetFcsBytes + perFrameOverhead;
}

} // namespace ns3

#endif
