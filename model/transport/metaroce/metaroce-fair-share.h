/*
 * MetaRoceFairShare: the receiver NIC's fair-share rate hint for one port
 * (design decision 4, docs/metaroce-design.md). It counts the connections currently sending to
 * the port and gives each an equal share of the port's capacity, returned on
 * every ACK, so senders jump to their rate instead of searching for it.
 *
 * A connection counts as sending for between ActiveWindow/2 and ActiveWindow
 * after its last packet (activity is recorded at most twice per window, which
 * keeps the bookkeeping O(1) per packet). Model assumptions: equal (not
 * max-min weighted) shares, and a target utilisation below 1 so queues drain.
 */
#ifndef METAROCE_FAIR_SHARE_H
#define METAROCE_FAIR_SHARE_H

#include "ring-buffer.h"

#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

class MetaRoceFairShare
{
  public:
    /**
     * \param capacityBps the port's line rate
     * \param utilisation fraction of it to hand out
     * \param windowPs activity window (picoseconds)
     */
    void Configure(uint64_t capacityBps, double utilisation, int64_t windowPs);

    /** Connection \p conn sent a packet to this port at \p nowPs; \return its share, bit/s. */
    uint64_t OnPacket(uint32_t conn, int64_t nowPs);

    /** Connections counted as sending at \p nowPs. */
    uint32_t Active(int64_t nowPs);

  private:
    void Expire(int64_t nowPs);
    /** Queues \p conn's refresh at \p nowPs (expired after the window). */
    void Refresh(uint32_t conn, int64_t nowPs);

    uint64_t m_capacityBps = 0;
    double m_utilisation = 1;
    int64_t m_windowPs = 1;
    /** m_refreshes.front()'s time (INT64_MAX if none): most packets expire nothing. */
    int64_t m_oldestPs = INT64_MAX;
    RingBuffer<std::pair<int64_t, uint32_t>, true> m_refreshes; //!< (time, conn), oldest first
    std::vector<int64_t> m_lastRefreshPs;                       //!< by conn; INT64_MIN: inactive
    uint32_t m_active = 0;
};

} // namespace ns3

#endif
