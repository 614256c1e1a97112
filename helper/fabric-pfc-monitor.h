/*
 * FabricPfcMonitor: reports what makes a PFC fabric hang instead of letting
 * it hang silently (docs/fabric-model.md, "PFC").
 *
 * - Pause storm: a port's lossless priority continuously paused for longer
 *   than StormThreshold (default 1 ms, about three refreshes of a maximal
 *   pause at 100 Gb/s: far beyond any transient incast). Reported once per
 *   pause episode, for that port.
 * - Cyclic buffer dependency (deadlock): at each storm report, the monitor
 *   builds the wait-for graph of the switch ports paused now: egress X waits
 *   for egress Z when X's peer Y (the port that paused X) is on a switch
 *   whose port Z is paused and holds lossless frames that arrived on Y. A
 *   cycle in that graph (every member paused, so none can drain) is a
 *   deadlock; each distinct cycle is reported once.
 *
 * Cost: nothing per packet. It listens to the ports' PfcPauseState trace and
 * schedules one check per pause episode, StormThreshold after it starts.
 * Reports go to NS_LOG_WARN, the PauseStorm and Deadlock trace sources, and
 * the counters FabricStats reads.
 */
#ifndef METAROCE_FABRIC_PFC_MONITOR_H
#define METAROCE_FABRIC_PFC_MONITOR_H

#include "fabric.h"

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

class FabricPfcMonitor : public Object
{
  public:
    static TypeId GetTypeId();
    FabricPfcMonitor();

    /** Watches every port of \p fabric (call once, before Simulator::Run). */
    void Install(Ptr<Fabric> fabric);

    struct StormReport
    {
        std::string port; //!< Fabric::GetPortName of the paused transmitter
        uint8_t priority = 0;
        Time since; //!< start of the pause episode
        Time at;    //!< when it was reported (since + StormThreshold)
    };

    uint64_t GetStorms() const
    {
        return m_storms.size();
    }

    uint64_t GetDeadlocks() const
    {
        return m_deadlocks.size();
    }

    const std::vector<StormReport>& GetStormReports() const
    {
        return m_storms;
    }

    /** Each deadlock as the names of the paused ports of its cycle. */
    const std::vector<std::vector<std::string>>& GetDeadlockReports() const
    {
        return m_deadlocks;
    }

    /**
     * The strongly connected components of a directed graph that contain a
     * cycle (more than one vertex, or a self-loop), each as sorted vertex ids.
     */
    static std::vector<std::vector<uint32_t>> FindCycles(
        const std::vector<std::vector<uint32_t>>& adjacency);

    typedef void (*StormTracedCallback)(const std::string& port, uint8_t priority, Time since);
    typedef void (*DeadlockTracedCallback)(const std::vector<std::string>& ports);

  protected:
    void DoDispose() override;

  private:
    struct Watched
    {
        Ptr<FabricPort> port;
        std::string name;
        Ptr<FabricSwitch> owner; //!< nullptr for NIC ports
        uint32_t peer = 0;       //!< index of the port at the other end
        std::array<uint64_t, FabricPort::kPfcPriorities> episode{};
        std::array<int64_t, FabricPort::kPfcPriorities> sinceNs{};
    };

    void StateChanged(uint32_t watched, uint8_t priority, bool paused);
    void Check(uint32_t watched, uint8_t priority, uint64_t episode);
    void CheckDeadlock(uint8_t priority);

    Time m_threshold;
    std::vector<Watched> m_watched;
    std::vector<StormReport> m_storms;
    std::vector<std::vector<std::string>> m_deadlocks;
    std::set<std::vector<uint32_t>> m_seenCycles;
    TracedCallback<const std::string&, uint8_t, Time> m_stormTrace;
    TracedCallback<const std::vector<std::string>&> m_deadlockTrace;
};

} // namespace ns3

#endif
