#include "metaroce-fair-share.h"

#include <climits>

namespace ns3
{

void
MetaRoceFairShare::Configure(uint64_t capacityBps, double utilisation, int64_t windowPs)
{
    m_capacityBps = capacityBps;
    m_utilisation = utilisation;
    m_windowPs = windowPs > 1 ? windowPs : 1;
}

void
MetaRoceFairShare::Expire(int64_t nowPs)
{
    while (m_oldestPs <= nowPs - m_windowPs)
    {
        const auto [t, conn] = m_refreshes.front();
        m_refreshes.pop_front();
        m_oldestPs = m_refreshes.empty() ? INT64_MAX : m_refreshes.front().first;
        if (m_lastRefreshPs[conn] == t) // no later refresh: the connection went quiet
        {
            m_lastRefreshPs[conn] = INT64_MIN;
            --m_active;
        }
    }
}

void
MetaRoceFairShare::Refresh(uint32_t conn, int64_t nowPs)
{
    if (m_refreshes.empty())
    {
        m_oldestPs = nowPs;
    }
    m_refreshes.push_back({nowPs, conn});
}

uint64_t
MetaRoceFairShare::OnPacket(uint32_t conn, int64_t nowPs)
{
    Expire(nowPs);
    if (conn >= m_lastRefreshPs.size())
    {
        m_lastRefreshPs.resize(conn + 1, INT64_MIN);
    }
    int64_t& last = m_lastRefreshPs[conn];
    if (last == INT64_MIN)
    {
        ++m_active;
        last = nowPs;
        Refresh(conn, nowPs);
    }
    else if (nowPs - last >= m_windowPs / 2)
    {
        last = nowPs;
        Refresh(conn, nowPs);
    }
    return uint64_t(double(m_capacityBps) * m_utilisation / m_active);
}

uint32_t
MetaRoceFairShare::Active(int64_t nowPs)
{
    Expire(nowPs);
    return m_active;
}

} // namespace ns3
