/*
 * SackBitmap: the 256-bit selective-acknowledgement vector of a MetaRoCE path
 * (design decision 3, docs/metaroce-design.md). Bit i stands for path sequence number
 * cumulative + 1 + i, where `cumulative` is the lowest sequence number the
 * receiver has not yet seen (so bit 0 is the packet right after the hole).
 * Four 64-bit words, word 0 holding bits 0..63; serialised as 32 bytes,
 * word 0 first, each word in network byte order.
 */
#ifndef METAROCE_SACK_BITMAP_H
#define METAROCE_SACK_BITMAP_H

#include <array>
#include <cstdint>

namespace ns3
{

class SackBitmap
{
  public:
    static constexpr uint32_t kBits = 256;
    static constexpr uint32_t kBytes = kBits / 8;

    bool Test(uint32_t bit) const
    {
        return bit < kBits && (m_words[bit >> 6] >> (bit & 63)) & 1;
    }

    void Set(uint32_t bit)
    {
        m_words[bit >> 6] |= uint64_t(1) << (bit & 63);
    }

    void Clear()
    {
        m_words = {0, 0, 0, 0};
    }

    bool Empty() const
    {
        return (m_words[0] | m_words[1] | m_words[2] | m_words[3]) == 0;
    }

    /** Drops the lowest \p n bits; bit n becomes bit 0 (the window slides forward). */
    void ShiftDown(uint32_t n)
    {
        if (n >= kBits)
        {
            Clear();
            return;
        }
        const uint32_t words = n >> 6;
        const uint32_t bits = n & 63;
        for (uint32_t i = 0; i < 4; ++i)
        {
            uint64_t lo = i + words < 4 ? m_words[i + words] : 0;
            uint64_t hi = i + words + 1 < 4 ? m_words[i + words + 1] : 0;
            m_words[i] = bits == 0 ? lo : (lo >> bits) | (hi << (64 - bits));
        }
    }

    /** Number of consecutive set bits starting at bit 0. */
    uint32_t LeadingOnes() const
    {
        uint32_t n = 0;
        for (uint64_t w : m_words)
        {
            if (w == ~uint64_t(0))
            {
                n += 64;
                continue;
            }
            return n + uint32_t(__builtin_ctzll(~w));
        }
        return n;
    }

    /** Index of the highest set bit, or -1 if none. */
    int32_t Highest() const
    {
        for (int32_t i = 3; i >= 0; --i)
        {
            if (m_words[i])
            {
                return i * 64 + 63 - __builtin_clzll(m_words[i]);
            }
        }
        return -1;
    }

    uint64_t Word(uint32_t i) const
    {
        return m_words[i];
    }

    void SetWord(uint32_t i, uint64_t w)
    {
        m_words[i] = w;
    }

    bool operator==(const SackBitmap& o) const
    {
        return m_words == o.m_words;
    }

  private:
    std::array<uint64_t, 4> m_words{0, 0, 0, 0};
};

} // namespace ns3

#endif
