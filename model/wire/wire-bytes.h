/*
 * Big-endian field access on a plain byte array. Headers on the per-packet
 * path serialise into a local array and hand it to the ns-3 Buffer in one
 * Write (and read it back in one Read): each Buffer::Iterator::WriteHtonU64
 * or ReadNtohU64 is an out-of-line call that moves one byte at a time.
 */
#ifndef METAROCE_WIRE_BYTES_H
#define METAROCE_WIRE_BYTES_H

#include <cstdint>

namespace ns3
{

/** Appends big-endian fields to a byte array. */
class WireWriter
{
  public:
    explicit WireWriter(uint8_t* bytes)
        : m_p(bytes)
    {
    }

    void U8(uint8_t v)
    {
        *m_p++ = v;
    }

    void U16(uint16_t v)
    {
        U8(uint8_t(v >> 8));
        U8(uint8_t(v));
    }

    void U32(uint32_t v)
    {
        U16(uint16_t(v >> 16));
        U16(uint16_t(v));
    }

    void U64(uint64_t v)
    {
        U32(uint32_t(v >> 32));
        U32(uint32_t(v));
    }

  private:
    uint8_t* m_p;
};

/** Reads big-endian fields from a byte array. */
class WireReader
{
  public:
    explicit WireReader(const uint8_t* bytes)
        : m_p(bytes)
    {
    }

    uint8_t U8()
    {
        return *m_p++;
    }

    uint16_t U16()
    {
        const uint16_t hi = U8();
        return uint16_t((hi << 8) | U8());
    }

    uint32_t U32()
    {
        const uint32_t hi = U16();
        return (hi << 16) | U16();
    }

    uint64_t U64()
    {
        const uint64_t hi = U32();
        return (hi << 32) | U32();
    }

  private:
    const uint8_t* m_p;
};

} // namespace ns3

#endif
