/*
 * FabricLanes: which lane (thread) of FabricSimulatorImpl runs each node of
 * a fabric, and the lookahead that split allows.
 *
 * Hosts are cut into equal runs by index (host h on lane h * lanes / hosts);
 * a leaf goes with most of its hosts; the spines of each plane are cut into
 * equal runs by their order in the plane. On a Clos fabric with a traffic
 * pattern symmetric in the hosts (all-to-all) that gives each lane the same
 * work, and only leaf-spine links cross lanes. The lookahead is what a
 * frame on a link between lanes is at least ahead of the event that sends
 * it: the serialisation of the shortest frame, since ports start their
 * departures lazily (FabricChannel::Deliver), and at most the link's delay.
 */
#ifndef METAROCE_FABRIC_LANES_H
#define METAROCE_FABRIC_LANES_H

#include "fabric.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

struct FabricLanes
{
    std::vector<uint32_t> laneOfNode; //!< by node id; FabricSimulatorImpl::kNoLane if none
    Time lookahead;                   //!< see above
    /**
     * With keyed order (FabricSimulatorImpl::EventOrder), where ports on links
     * between lanes catch up at each barrier: the least delay of such a link.
     */
    Time keyedLookahead;
    /** Per lane: its ports on links to other lanes. */
    std::vector<std::vector<Ptr<FabricPort>>> cutPorts;
};

/** Splits \p fabric's nodes into \p lanes lanes (see above). */
FabricLanes SplitFabric(const Fabric& fabric, uint32_t lanes);

} // namespace ns3

#endif
