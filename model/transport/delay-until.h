/*
 * DelayUntilPs: the delay from now to the first nanosecond at or after a
 * picosecond deadline. Transports keep exact picosecond deadlines (pacing,
 * timers) but ns-3 events run on a nanosecond grid; rounding up means an
 * event never fires before its deadline.
 */
#ifndef METAROCE_DELAY_UNTIL_H
#define METAROCE_DELAY_UNTIL_H

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

/** The nanoseconds from \p nowPs to the first nanosecond at or after \p ps (integers only). */
inline int64_t
DelayNsUntilPs(int64_t nowPs, int64_t ps)
{
    const int64_t nowNs = nowPs / 1000;
    return std::max(nowNs, (ps + 999) / 1000) - nowNs;
}

inline Time
DelayUntilPs(int64_t ps)
{
    return NanoSeconds(DelayNsUntilPs(Simulator::Now().GetPicoSeconds(), ps));
}

} // namespace ns3

#endif
