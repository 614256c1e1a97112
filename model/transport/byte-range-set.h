/*
 * ByteRangeSet: the byte ranges of one message that have been placed, as
 * sorted disjoint half-open intervals. Adding a range returns only the parts
 * not placed before, so the receiver writes every byte at most once and counts
 * it once however many duplicates arrive (design decision 1, docs/metaroce-design.md: direct
 * placement in any order).
 */
#ifndef METAROCE_BYTE_RANGE_SET_H
#define METAROCE_BYTE_RANGE_SET_H

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

class ByteRangeSet
{
  public:
    typedef std::pair<uint64_t, uint64_t> Range; //!< [first, second)

    /**
     * Adds [begin, end); appends to \p fresh (if given) the sub-ranges that
     * were not yet in the set. \return the number of new bytes.
     */
    uint64_t Add(uint64_t begin, uint64_t end, std::vector<Range>* fresh = nullptr);
    /** True if every byte of [begin, end) is in the set. */
    bool Contains(uint64_t begin, uint64_t end) const;

    uint64_t Bytes() const
    {
        return m_bytes;
    }

    const std::vector<Range>& Ranges() const
    {
        return m_ranges;
    }

    void Clear();

  private:
    std::vector<Range> m_ranges;
    uint64_t m_bytes = 0;
};

} // namespace ns3

#endif
