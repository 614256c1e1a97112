/*
 * FabricStats: what the fabric did over an interval, from the ports' counters:
 * utilisation per plane and per tier direction (line bytes sent over line
 * capacity, so 1.0 is a saturated link), drops by reason, ECN marks and
 * packet-hops. Read-only: models keep counters, this helper sums them.
 */
#ifndef METAROCE_FABRIC_STATS_H
#define METAROCE_FABRIC_STATS_H

#include "drop-reason.h"
#include "fabric.h"

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/** The four directions of a two-tier Clos, in the order stored below. */
enum class TierDirection : uint8_t
{
    HostToLeaf = 0,
    LeafToHost,
    LeafToSpine,
    SpineToLeaf,
    Count
};

std::string TierDirectionName(TierDirection d);

struct TierUsage
{
    uint32_t ports = 0;
    uint64_t txPackets = 0;
    uint64_t txWireBytes = 0;
    double capacityBps = 0; //!< sum of the ports' line rates
    double utilisation = 0; //!< txWireBytes * 8 / (capacityBps * seconds)
};

struct FabricStats
{
    double seconds = 0;
    std::vector<std::array<TierUsage, static_cast<std::size_t>(TierDirection::Count)>> perPlane;
    DropCounters drops{};
    uint64_t ecnMarked = 0;
    uint64_t packetHops = 0;
    uint32_t peakQueueBytes = 0; //!< largest egress queue seen on any port

    // PFC (all 0 when it is off)
    uint64_t pfcFramesSent = 0;        //!< PAUSE frames (pauses and resumes) sent by all ports
    uint64_t pfcFramesReceived = 0;    //!< PAUSE frames received
    double pfcPausedSeconds = 0;       //!< sum over ports of the time their transmitter was paused
    uint32_t pfcPausedPorts = 0;       //!< ports paused at least once
    uint32_t pfcPeakHeadroomBytes = 0; //!< largest headroom use of any switch ingress
    uint64_t pfcStorms = 0;            //!< pause storms reported (FabricPfcMonitor)
    uint64_t pfcDeadlocks = 0;         //!< cyclic buffer dependencies reported

    uint64_t TotalDrops() const;
    nlohmann::json ToJson() const;
};

/** Sums the fabric's port counters; \p interval is the time they cover. */
FabricStats CollectFabricStats(const Fabric& fabric, Time interval);

} // namespace ns3

#endif
