#include "fabric-lanes.h"

#include "fabric-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>

namespace ns3
{

FabricLanes
SplitFabric(const Fabric& fabric, uint32_t lanes)
{
    NS_ABORT_MSG_IF(lanes == 0, "SplitFabric: no lanes");
    FabricLanes out;
    const uint32_t hosts = fabric.GetNHosts();
    uint32_t maxId = 0;
    for (const auto& link : fabric.GetLinks())
    {
        maxId = std::max({maxId, link.lower->GetNode()->GetId(), link.upper->GetNode()->GetId()});
    }
    for (uint32_t h = 0; h < hosts; ++h)
    {
        maxId = std::max(maxId, fabric.GetHost(h)->GetId());
    }
    out.laneOfNode.assign(maxId + 1, FabricSimulatorImpl::kNoLane);
    std::vector<uint32_t> hostOfNode(maxId + 1, FabricSimulatorImpl::kNoLane);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const uint32_t id = fabric.GetHost(h)->GetId();
        out.laneOfNode[id] = static_cast<uint32_t>(uint64_t(h) * lanes / hosts);
        hostOfNode[id] = h;
    }
    // Leaves: with most of their hosts (the lower lane on a tie).
    std::map<uint32_t, std::vector<uint32_t>> leafVotes;
    // Spines: per plane, in the order they first appear.
    std::map<uint32_t, std::vector<uint32_t>> spinesOfPlane;
    for (const auto& link : fabric.GetLinks())
    {
        const uint32_t lower = link.lower->GetNode()->GetId();
        const uint32_t upper = link.upper->GetNode()->GetId();
        if (link.desc.tier == LinkTier::HostLeaf && hostOfNode[lower] != FabricSimulatorImpl::kNoLane)
        {
            auto& votes = leafVotes[upper];
            votes.resize(lanes, 0);
            ++votes[out.laneOfNode[lower]];
        }
        else if (link.desc.tier == LinkTier::LeafSpine)
        {
            auto& spines = spinesOfPlane[link.desc.plane];
            if (std::find(spines.begin(), spines.end(), upper) == spines.end())
            {
                spines.push_back(upper);
            }
        }
    }
    for (const auto& [node, votes] : leafVotes)
    {
        out.laneOfNode[node] =
            static_cast<uint32_t>(std::max_element(votes.begin(), votes.end()) - votes.begin());
    }
    for (const auto& [plane, spines] : spinesOfPlane)
    {
        for (size_t i = 0; i < spines.size(); ++i)
        {
            if (out.laneOfNode[spines[i]] == FabricSimulatorImpl::kNoLane)
            {
                out.laneOfNode[spines[i]] = static_cast<uint32_t>(i * lanes / spines.size());
            }
        }
    }
    // Anything else (a leaf without hosts): lane 0.
    for (const auto& link : fabric.GetLinks())
    {
        for (const auto& port : {link.lower, link.upper})
        {
            uint32_t& lane = out.laneOfNode[port->GetNode()->GetId()];
            if (lane == FabricSimulatorImpl::kNoLane)
            {
                lane = 0;
            }
        }
    }
    bool any = false;
    out.cutPorts.assign(lanes, {});
    for (const auto& link : fabric.GetLinks())
    {
        const uint32_t lowerLane = out.laneOfNode[link.lower->GetNode()->GetId()];
        const uint32_t upperLane = out.laneOfNode[link.upper->GetNode()->GetId()];
        if (lowerLane != upperLane)
        {
            out.cutPorts[lowerLane].push_back(link.lower);
            out.cutPorts[upperLane].push_back(link.upper);
            const Time delay = link.channel->GetDelay();
            out.keyedLookahead = any ? std::min(out.keyedLookahead, delay) : delay;
            // A port catches up its departures lazily, when the previous
            // frame reaches the far end (FabricChannel::Deliver): the next
            // frame's arrival is then only its own serialisation ahead, and
            // the shortest frame (64 bytes and the inter-frame bytes) bounds
            // that. Whole nanoseconds: arrivals are scheduled in them.
            Time bound = link.channel->GetDelay();
            for (const auto& port : {link.lower, link.upper})
            {
                UintegerValue interframe;
                port->GetAttribute("InterframeBytes", interframe);
                const uint64_t bits = (64 + interframe.Get()) * 8;
                const uint64_t ns = bits * 1000000000ull / port->GetBitRate();
                bound = std::min(bound, NanoSeconds(ns));
            }
            out.lookahead = any ? std::min(out.lookahead, bound) : bound;
            any = true;
        }
    }
    if (!any)
    {
        out.lookahead = Seconds(1); // no link between lanes: nothing limits a window
        out.keyedLookahead = Seconds(1);
    }
    return out;
}

} // namespace ns3
