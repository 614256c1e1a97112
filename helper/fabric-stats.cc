#include "fabric-stats.h"

#include "fabric-pfc-monitor.h"

namespace ns3
{

std::string
TierDirectionName(TierDirection d)
{
    switch (d)
    {
    case TierDirection::HostToLeaf:
        return "host_to_leaf";
    case TierDirection::LeafToHost:
        return "leaf_to_host";
    case TierDirection::LeafToSpine:
        return "leaf_to_spine";
    case TierDirection::SpineToLeaf:
        return "spine_to_leaf";
    case TierDirection::Count:
        break;
    }
    return "unknown";
}

uint64_t
FabricStats::TotalDrops() const
{
    uint64_t n = 0;
    for (uint64_t d : drops)
    {
        n += d;
    }
    return n;
}

nlohmann::json
FabricStats::ToJson() const
{
    nlohmann::json j;
    j["seconds"] = seconds;
    j["packet_hops"] = packetHops;
    j["ecn_marked_packets"] = ecnMarked;
    j["peak_queue_bytes"] = peakQueueBytes;
    nlohmann::json d = nlohmann::json::object();
    for (std::size_t r = 0; r < kDropReasonCount; ++r)
    {
        d[DropReasonName(static_cast<DropReason>(r))] = drops[r];
    }
    j["dropped_packets"] = d;
    j["pfc"] = {{"frames_sent", pfcFramesSent},
                {"frames_received", pfcFramesReceived},
                {"paused_seconds", pfcPausedSeconds},
                {"paused_ports", pfcPausedPorts},
                {"peak_headroom_bytes", pfcPeakHeadroomBytes},
                {"storms", pfcStorms},
                {"deadlocks", pfcDeadlocks}};
    nlohmann::json planes = nlohmann::json::array();
    for (const auto& plane : perPlane)
    {
        nlohmann::json p;
        for (std::size_t t = 0; t < plane.size(); ++t)
        {
            const TierUsage& u = plane[t];
            p[TierDirectionName(static_cast<TierDirection>(t))] = {{"ports", u.ports},
                                                                   {"tx_packets", u.txPackets},
                                                                   {"tx_wire_bytes", u.txWireBytes},
                                                                   {"utilisation", u.utilisation}};
        }
        planes.push_back(p);
    }
    j["planes"] = planes;
    return j;
}

FabricStats
CollectFabricStats(const Fabric& fabric, Time interval)
{
    FabricStats s;
    s.seconds = interval.GetSeconds();
    s.perPlane.resize(fabric.GetNPlanes());
    auto add = [&s](TierUsage& u, const Ptr<FabricPort>& port) {
        const FabricPortStats& ps = port->GetStats();
        ++u.ports;
        u.txPackets += ps.txPackets;
        u.txWireBytes += ps.txWireBytes;
        u.capacityBps += double(port->GetDataRate().GetBitRate());
        for (std::size_t r = 0; r < kDropReasonCount; ++r)
        {
            s.drops[r] += ps.drops[r];
        }
        s.ecnMarked += ps.ecnMarked;
        s.packetHops += ps.txPackets;
        s.peakQueueBytes = std::max(s.peakQueueBytes, ps.peakQueueBytes);
        s.pfcFramesSent += ps.pfcTxFrames;
        s.pfcFramesReceived += ps.pfcRxFrames;
        const double paused = port->GetPausedTime().GetSeconds();
        s.pfcPausedSeconds += paused;
        s.pfcPausedPorts += paused > 0;
    };
    for (const FabricLink& l : fabric.GetLinks())
    {
        auto& plane = s.perPlane[l.desc.plane];
        const bool hostTier = l.desc.tier == LinkTier::HostLeaf;
        add(plane[std::size_t(hostTier ? TierDirection::HostToLeaf : TierDirection::LeafToSpine)],
            l.lower);
        add(plane[std::size_t(hostTier ? TierDirection::LeafToHost : TierDirection::SpineToLeaf)],
            l.upper);
    }
    for (uint32_t v : fabric.GetGraph().SwitchVertices())
    {
        s.pfcPeakHeadroomBytes =
            std::max(s.pfcPeakHeadroomBytes, fabric.GetSwitchAt(v)->GetPfcPeakHeadroomBytes());
    }
    if (Ptr<FabricPfcMonitor> monitor = fabric.GetPfcMonitor())
    {
        s.pfcStorms = monitor->GetStorms();
        s.pfcDeadlocks = monitor->GetDeadlocks();
    }
    for (auto& plane : s.perPlane)
    {
        for (auto& u : plane)
        {
            u.utilisation = (u.capacityBps > 0 && s.seconds > 0)
                                ? double(u.txWireBytes) * 8.0 / (u.capacityBps * s.seconds)
                                : 0.0;
        }
    }
    return s;
}

} // namespace ns3
