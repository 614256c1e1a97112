#include "byte-range-set.h"

#include <algorithm>

namespace ns3
{

uint64_t
ByteRangeSet::Add(uint64_t begin, uint64_t end, std::vector<Range>* fresh)
{
    if (begin >= end)
    {
        return 0;
    }
    // First interval that ends at or after `begin` (touching ranges merge).
    auto first =
        std::lower_bound(m_ranges.begin(), m_ranges.end(), begin, [](const Range& r, uint64_t b) {
            return r.second < b;
        });
    uint64_t added = 0;
    uint64_t cursor = begin;
    uint64_t newBegin = begin;
    uint64_t newEnd = end;
    auto last = first;
    for (; last != m_ranges.end() && last->first <= end; ++last)
    {
        if (last->first > cursor)
        {
            added += last->first - cursor;
            if (fresh)
            {
                fresh->emplace_back(cursor, last->first);
            }
        }
        cursor = std::max(cursor, last->second);
        newBegin = std::min(newBegin, last->first);
        newEnd = std::max(newEnd, last->second);
    }
    if (cursor < end)
    {
        added += end - cursor;
        if (fresh)
        {
            fresh->emplace_back(cursor, end);
        }
    }
    // Replace [first, last) by the merged interval.
    auto at = m_ranges.erase(first, last);
    m_ranges.insert(at, Range(newBegin, newEnd));
    m_bytes += added;
    return added;
}

bool
ByteRangeSet::Contains(uint64_t begin, uint64_t end) const
{
    if (begin >= end)
    {
        return true;
    }
    auto it =
        std::upper_bound(m_ranges.begin(), m_ranges.end(), begin, [](uint64_t b, const Range& r) {
            return b < r.second;
        });
    return it != m_ranges.end() && it->first <= begin && it->second >= end;
}

void
ByteRangeSet::Clear()
{
    m_ranges.clear();
    m_bytes = 0;
}

} // namespace ns3
