#include "fabric-pfc-monitor.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricPfcMonitor");
NS_OBJECT_ENSURE_REGISTERED(FabricPfcMonitor);

TypeId
FabricPfcMonitor::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricPfcMonitor")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricPfcMonitor>()
            .AddAttribute("StormThreshold",
                          "A port paused continuously for longer than this is a pause storm",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&FabricPfcMonitor::m_threshold),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddTraceSource("PauseStorm",
                            "A port's priority stayed paused longer than StormThreshold",
                            MakeTraceSourceAccessor(&FabricPfcMonitor::m_stormTrace),
                            "ns3::FabricPfcMonitor::StormTracedCallback")
            .AddTraceSource("Deadlock",
                            "A cycle of paused switch ports waiting for each other (names)",
                            MakeTraceSourceAccessor(&FabricPfcMonitor::m_deadlockTrace),
                            "ns3::FabricPfcMonitor::DeadlockTracedCallback");
    return tid;
}

FabricPfcMonitor::FabricPfcMonitor() = default;

void
FabricPfcMonitor::DoDispose()
{
    m_watched.clear();
    Object::DoDispose();
}

void
FabricPfcMonitor::Install(Ptr<Fabric> fabric)
{
    const auto& links = fabric->GetLinks();
    m_watched.resize(2 * links.size());
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        const FabricLink& link = links[l];
        for (uint32_t side = 0; side < 2; ++side)
        {
            const uint32_t i = 2 * l + side;
            Watched& w = m_watched[i];
            const bool upper = side == 1;
            w.port = upper ? link.upper : link.lower;
            w.name = fabric->GetPortName(l, upper);
            const uint32_t vertex = upper ? link.desc.b : link.desc.a;
            w.owner = fabric->GetSwitchAt(vertex); // nullptr for a host
            w.peer = 2 * l + (1 - side);
            w.port->TraceConnectWithoutContext(
                "PfcPauseState",
                MakeCallback(&FabricPfcMonitor::StateChanged, this).Bind(i));
        }
    }
}

void
FabricPfcMonitor::StateChanged(uint32_t watched, uint8_t priority, bool paused)
{
    Watched& w = m_watched[watched];
    ++w.episode[priority]; // a new episode starts, or the current one ends
    if (paused)
    {
        w.sinceNs[priority] = Simulator::Now().GetNanoSeconds();
        Simulator::Schedule(m_threshold,
                            &FabricPfcMonitor::Check,
                            this,
                            watched,
                            priority,
                            w.episode[priority]);
    }
}

void
FabricPfcMonitor::Check(uint32_t watched, uint8_t priority, uint64_t episode)
{
    if (watched >= m_watched.size())
    {
        return; // disposed
    }
    const Watched& w = m_watched[watched];
    if (w.episode[priority] != episode)
    {
        return; // that pause ended (and maybe another began, with its own check)
    }
    StormReport r{w.name, priority, NanoSeconds(w.sinceNs[priority]), Simulator::Now()};
    NS_LOG_WARN("PFC pause storm: " << r.port << " priority " << unsigned(priority)
                                    << " paused since " << r.since.As(Time::US) << " ("
                                    << (r.at - r.since).As(Time::US) << ")");
    m_storms.push_back(r);
    m_stormTrace(r.port, priority, r.since);
    CheckDeadlock(priority);
}

void
FabricPfcMonitor::CheckDeadlock(uint8_t priority)
{
    // Vertices: every switch port paused now. Edge X -> Z: X's peer Y is a
    // port of Z's switch, and Z holds lossless frames that came in on Y.
    std::vector<uint32_t> paused;
    std::map<uint32_t, uint32_t> vertexOf;
    for (uint32_t i = 0; i < m_watched.size(); ++i)
    {
        if (m_watched[i].owner && m_watched[i].port->IsPaused(priority))
        {
            vertexOf[i] = paused.size();
            paused.push_back(i);
        }
    }
    std::vector<std::vector<uint32_t>> adjacency(paused.size());
    for (uint32_t v = 0; v < paused.size(); ++v)
    {
        const Watched& x = m_watched[paused[v]];
        const Watched& y = m_watched[x.peer];
        if (!y.owner)
        {
            continue; // paused by a NIC: the chain ends there
        }
        const uint32_t ingress = y.port->GetSinkIndex();
        for (uint32_t u = 0; u < paused.size(); ++u)
        {
            const Watched& z = m_watched[paused[u]];
            if (z.owner == y.owner && z.port->GetLosslessBytesFrom(ingress) > 0)
            {
                adjacency[v].push_back(u);
            }
        }
    }
    for (const auto& component : FindCycles(adjacency))
    {
        std::vector<uint32_t> ids;
        for (uint32_t v : component)
        {
            ids.push_back(paused[v]);
        }
        if (!m_seenCycles.insert(ids).second)
        {
            continue;
        }
        std::vector<std::string> names;
        std::ostringstream text;
        for (uint32_t id : ids)
        {
            names.push_back(m_watched[id].name);
            text << " " << m_watched[id].name;
        }
        NS_LOG_WARN("PFC deadlock (cyclic buffer dependency), priority " << unsigned(priority)
                                                                         << ":" << text.str());
        m_deadlocks.push_back(names);
        m_deadlockTrace(names);
    }
}

std::vector<std::vector<uint32_t>>
FabricPfcMonitor::FindCycles(const std::vector<std::vector<uint32_t>>& adjacency)
{
    // Tarjan's strongly connected components (recursive: the graphs are the
    // paused ports of a fabric, small).
    const uint32_t n = adjacency.size();
    std::vector<int32_t> index(n, -1);
    std::vector<int32_t> low(n, 0);
    std::vector<bool> onStack(n, false);
    std::vector<uint32_t> stack;
    std::vector<std::vector<uint32_t>> cycles;
    int32_t next = 0;
    std::function<void(uint32_t)> visit = [&](uint32_t v) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        onStack[v] = true;
        for (uint32_t w : adjacency[v])
        {
            if (index[w] < 0)
            {
                visit(w);
                low[v] = std::min(low[v], low[w]);
            }
            else if (onStack[w])
            {
                low[v] = std::min(low[v], index[w]);
            }
        }
        if (low[v] == index[v])
        {
            std::vector<uint32_t> component;
            uint32_t w;
            do
            {
                w = stack.back();
                stack.pop_back();
                onStack[w] = false;
                component.push_back(w);
            } while (w != v);
            const bool selfLoop =
                std::find(adjacency[v].begin(), adjacency[v].end(), v) != adjacency[v].end();
            if (component.size() > 1 || selfLoop)
            {
                std::sort(component.begin(), component.end());
                cycles.push_back(component);
            }
        }
    };
    for (uint32_t v = 0; v < n; ++v)
    {
        if (index[v] < 0)
        {
            visit(v);
        }
    }
    std::sort(cycles.begin(), cycles.end());
    return cycles;
}

} // namespace ns3
