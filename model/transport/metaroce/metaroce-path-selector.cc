#include "metaroce-path-selector.h"

namespace ns3
{

bool
MetaRocePathSelector::RecomputePathWork(uint32_t plane)
{
    bool work = false;
    for (uint32_t i = plane; i < m_paths.size() && !work; i += m_planes.size())
    {
        work = m_paths[i].probing || m_paths[i].HasRetransmission();
    }
    m_planes[plane].pathWork = work;
    return work;
}

bool
MetaRocePathSelector::FindRetransmission(uint32_t plane) const
{
    for (uint32_t i = plane; i < m_paths.size(); i += m_planes.size())
    {
        if (m_paths[i].HasRetransmission())
        {
            return true;
        }
    }
    return false;
}

int32_t
MetaRocePathSelector::FindProbe(uint32_t plane) const
{
    // A failed path earns its load back with a probe, and has at most one
    // unanswered at a time.
    for (uint32_t i = plane; i < m_paths.size(); i += m_planes.size())
    {
        const MetaRocePath& p = m_paths[i];
        if (p.probing && p.InFlight() == 0 && p.CountOutstanding() < SackBitmap::kBits)
        {
            return int32_t(i);
        }
    }
    return -1;
}

int32_t
MetaRocePathSelector::Choose(uint32_t plane, bool forRetransmit, int64_t now)
{
    MetaRocePlane& ps = m_planes[plane];
    const uint32_t nPlanes = m_planes.size();
    const uint32_t n = m_paths.size() / nPlanes;
    int32_t fallback = -1;
    uint32_t fallbackK = 0;
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t i = plane + (ps.rrNext + k) % n * nPlanes;
        const MetaRocePath& p = m_paths[i];
        if (forRetransmit && !p.HasRetransmission())
        {
            continue;
        }
        if (!p.HasRoom())
        {
            continue;
        }
        if (p.IsClear(now) || forRetransmit)
        {
            ps.rrNext = (ps.rrNext + k + 1) % n;
            return int32_t(i);
        }
        if (fallback < 0)
        {
            fallback = int32_t(i);
            fallbackK = k;
        }
    }
    if (fallback >= 0)
    {
        ps.rrNext = (ps.rrNext + fallbackK + 1) % n;
    }
    return fallback;
}

} // namespace ns3
