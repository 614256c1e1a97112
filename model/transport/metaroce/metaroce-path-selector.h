/*
 * MetaRocePathSelector: which path of a plane carries the plane's next packet
 * (design decision 2, docs/metaroce-design.md). The NIC pulls a packet per plane when its port is
 * free; the selector answers, in this order of precedence:
 * - a failed path whose probe may go (one probe at a time until an ACK
 *   comes back);
 * - a path with a lost packet queued (it is resent on the path that lost it);
 * - for new data, a path with window room, preferring paths with no ECN echo
 *   within their last RTT ("new packets go to clear paths"), round robin
 *   among equals.
 *
 * It is a view over the connection's paths and planes, built per use, so
 * the per-plane round robin state stays in the plane record the pull reads
 * anyway and the selector costs an endpoint no memory.
 */
#ifndef METAROCE_PATH_SELECTOR_H
#define METAROCE_PATH_SELECTOR_H

#include "metaroce-path.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** A plane of the NIC as one sender sees it; its paths are plane, plane + planes, ... */
struct MetaRocePlane
{
    uint64_t rateBps = 0;   //!< pacing rate
    int64_t nextSendPs = 0; //!< pacing: earliest time of the plane's next packet
    uint32_t rrNext = 0;    //!< round robin over the plane's paths
    /**
     * False only when no path of the plane is probing or has a
     * retransmission queued, so a pull need not read every path of the
     * plane: set by whatever gives a path such work (MarkPathWork),
     * recomputed by the next pull (RefreshPathWork).
     */
    bool pathWork = false;
};

class MetaRocePathSelector
{
  public:
    MetaRocePathSelector(std::vector<MetaRocePath>& paths, std::vector<MetaRocePlane>& planes)
        : m_paths(paths),
          m_planes(planes)
    {
    }

    /** Consecutive paths alternate planes: path i is on plane i mod planes. */
    uint32_t GetPlane(uint32_t path) const
    {
        return path % m_planes.size();
    }

    /** Recomputes the plane's path-work flag if it is set; returns it. */
    bool RefreshPathWork(uint32_t plane)
    {
        return m_planes[plane].pathWork && RecomputePathWork(plane);
    }

    /** Path \p path is probing or has a retransmission queued now. */
    void MarkPathWork(uint32_t path)
    {
        m_planes[GetPlane(path)].pathWork = true;
    }

    /** Whether a path of \p plane has a lost packet queued. */
    bool HasRetransmission(uint32_t plane) const
    {
        return m_planes[plane].pathWork && FindRetransmission(plane);
    }

    /** A failed path of \p plane free to send its next probe, or -1. */
    int32_t ChooseProbe(uint32_t plane) const
    {
        return m_planes[plane].pathWork ? FindProbe(plane) : -1;
    }

    /** The path of \p plane to retransmit on now, or -1. */
    int32_t ChooseRetransmit(uint32_t plane, int64_t nowPs)
    {
        return m_planes[plane].pathWork ? Choose(plane, true, nowPs) : -1;
    }

    /** The path of \p plane to carry a new packet, or -1. */
    int32_t ChooseNew(uint32_t plane, int64_t nowPs)
    {
        return Choose(plane, false, nowPs);
    }

  private:
    // The plane's flag is tested inline; these read its paths.
    bool RecomputePathWork(uint32_t plane);
    bool FindRetransmission(uint32_t plane) const;
    int32_t FindProbe(uint32_t plane) const;
    int32_t Choose(uint32_t plane, bool forRetransmit, int64_t nowPs);

    std::vector<MetaRocePath>& m_paths;
    std::vector<MetaRocePlane>& m_planes;
};

} // namespace ns3

#endif
