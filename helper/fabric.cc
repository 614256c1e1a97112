#include "fabric.h"

#include "fabric-pfc-monitor.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Fabric");
NS_OBJECT_ENSURE_REGISTERED(Fabric);

TypeId
Fabric::GetTypeId()
{
    static TypeId tid = TypeId("ns3::Fabric").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

Fabric::Fabric() = default;

bool Fabric::s_checkInvariantsOnDispose = false;

std::vector<std::string>
Fabric::CheckInvariants()
{
    std::vector<std::string> violations;
    // Every port up to date first: a port's catch-up may release a lossless
    // frame and make its switch send a resume out of another port, which
    // must not happen between reading that port and the wires.
    SyncPorts();
    const std::vector<Ptr<FabricPort>> ports = GetAllPorts();
    uint64_t sent = 0;
    uint64_t delivered = 0;
    for (const auto& nic : m_nics)
    {
        sent += nic->GetFramesSent();
        delivered += nic->GetFramesDelivered();
    }
    uint64_t pauseSent = 0;
    uint64_t pauseConsumed = 0;
    uint64_t dropped = 0;
    uint64_t queued = 0;
    for (const auto& port : ports)
    {
        const FabricPortStats& st = port->GetStats();
        pauseSent += st.pfcTxFrames;
        pauseConsumed += st.pfcRxFrames;
        for (uint64_t d : st.drops)
        {
            dropped += d;
        }
        queued += port->GetQueuePackets();
    }
    uint64_t onWire = 0;
    for (const auto& link : m_links)
    {
        onWire += link.channel->GetFramesInFlight();
    }
    if (sent + pauseSent != delivered + pauseConsumed + dropped + queued + onWire)
    {
        violations.push_back("frames not conserved: sent by NICs " + std::to_string(sent) +
                             " + PAUSE sent " + std::to_string(pauseSent) + " != delivered " +
                             std::to_string(delivered) + " + PAUSE consumed " +
                             std::to_string(pauseConsumed) + " + dropped " +
                             std::to_string(dropped) + " + queued " + std::to_string(queued) +
                             " + on the wire " + std::to_string(onWire));
    }
    for (uint32_t v = 0; v < m_switchAt.size(); ++v)
    {
        if (m_switchAt[v] && m_switchAt[v]->GetBuffer() &&
            m_switchAt[v]->GetBuffer()->Used() > m_switchAt[v]->GetBuffer()->Capacity())
        {
            violations.push_back("switch " + m_graph->VertexName(v) + " holds " +
                                 std::to_string(m_switchAt[v]->GetBuffer()->Used()) +
                                 " bytes, above its buffer");
        }
    }
    const FabricInvariantSnapshot snapshot = TakeInvariantSnapshot(*this, GetPfcLog());
    for (auto& v : CheckBufferInvariants(snapshot))
    {
        violations.push_back(std::move(v));
    }
    for (auto& v : CheckPfcInvariants(snapshot))
    {
        violations.push_back(std::move(v));
    }
    for (auto& v : CheckTransportInvariants(*this))
    {
        violations.push_back(std::move(v));
    }
    return violations;
}

void
Fabric::DoDispose()
{
    // Only while the ports are intact (a caller may dispose the fabric after
    // Simulator::Destroy has disposed its nodes and their ports).
    if (s_checkInvariantsOnDispose && !m_links.empty() && m_links[0].lower->GetFabricChannel())
    {
        for (const auto& v : CheckInvariants())
        {
            NS_FATAL_ERROR("fabric " << m_spec.name << " at " << Simulator::Now().As(Time::US)
                                     << ": invariant violated: " << v);
        }
    }
    m_pfcLog = nullptr; // disconnects from the ports' traces
    // Ports, channels, switches and NICs refer to one another: dispose each
    // so that the cycles break and nothing outlives the simulation.
    for (auto& link : m_links)
    {
        link.channel->Dispose();
        link.lower->Dispose();
        link.upper->Dispose();
    }
    for (auto& sw : m_switchAt)
    {
        if (sw)
        {
            sw->Dispose();
        }
    }
    for (auto& nic : m_nics)
    {
        nic->Dispose();
    }
    m_nics.clear();
    m_switchAt.clear();
    m_links.clear();
    if (m_pfcMonitor)
    {
        m_pfcMonitor->Dispose();
        m_pfcMonitor = nullptr;
    }
    Object::DoDispose();
}

Ptr<FabricSwitch>
Fabric::GetLeaf(uint32_t plane, uint32_t leaf) const
{
    return m_switchAt[m_graph->LeafVertex(plane, leaf)];
}

Ptr<FabricSwitch>
Fabric::GetSpine(uint32_t plane, uint32_t spine) const
{
    return m_switchAt[m_graph->SpineVertex(plane, spine)];
}

int32_t
Fabric::FindLink(const std::string& name) const
{
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        if (m_links[i].desc.name == name)
        {
            return i;
        }
    }
    return -1;
}

void
Fabric::SyncPorts() const
{
    for (const auto& port : GetAllPorts())
    {
        port->Sync();
    }
}

std::vector<Ptr<FabricPort>>
Fabric::GetAllPorts() const
{
    std::vector<Ptr<FabricPort>> ports;
    ports.reserve(2 * m_links.size());
    for (const auto& l : m_links)
    {
        ports.push_back(l.lower);
        ports.push_back(l.upper);
    }
    return ports;
}

Ptr<FabricPfcMonitor>
Fabric::GetPfcMonitor() const
{
    return m_pfcMonitor ? DynamicCast<FabricPfcMonitor>(m_pfcMonitor) : nullptr;
}

std::string
Fabric::GetPortName(uint32_t link, bool upper) const
{
    const FabricLinkDesc& d = m_links.at(link).desc;
    const FabricVertex& v = m_graph->Vertex(upper ? d.b : d.a);
    const char* kind = v.kind == FabricNodeKind::Host   ? "h"
                       : v.kind == FabricNodeKind::Leaf ? "l"
                                                        : "s";
    return d.name + "@" + kind + std::to_string(v.index);
}

std::string
Fabric::GetPortName(const Ptr<FabricPort>& port) const
{
    for (uint32_t l = 0; l < m_links.size(); ++l)
    {
        if (m_links[l].lower == port || m_links[l].upper == port)
        {
            return GetPortName(l, m_links[l].upper == port);
        }
    }
    return "";
}

void
Fabric::SetLinkUp(uint32_t link, bool up)
{
    NS_ABORT_MSG_UNLESS(link < m_links.size(), "Fabric: no link " << link);
    m_links[link].channel->SetLinkUp(up);
}

void
Fabric::SetSwitchUp(uint32_t vertex, bool up)
{
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        if (m_links[i].desc.a == vertex || m_links[i].desc.b == vertex)
        {
            SetLinkUp(i, up);
        }
    }
}

void
Fabric::SetPlaneUp(uint32_t plane, bool up)
{
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        if (m_links[i].desc.plane == plane)
        {
            SetLinkUp(i, up);
        }
    }
}

void
Fabric::ScheduleLinkUp(Time at, uint32_t link, bool up)
{
    Simulator::Schedule(at - Simulator::Now(), &Fabric::SetLinkUp, this, link, up);
}

void
Fabric::ScheduleSwitchUp(Time at, uint32_t vertex, bool up)
{
    Simulator::Schedule(at - Simulator::Now(), &Fabric::SetSwitchUp, this, vertex, up);
}

void
Fabric::SchedulePlaneUp(Time at, uint32_t plane, bool up)
{
    Simulator::Schedule(at - Simulator::Now(), &Fabric::SetPlaneUp, this, plane, up);
}

void
Fabric::LinkStateChanged(bool)
{
    // One recomputation per change, each after the full convergence delay; it
    // reads the link states of its own time, so a burst of changes converges
    // to the final state.
    Simulator::Schedule(m_convergenceDelay, &Fabric::RecomputeRoutes, this);
}

void
Fabric::RecomputeRoutes()
{
    std::vector<bool> up(m_links.size());
    for (uint32_t i = 0; i < m_links.size(); ++i)
    {
        up[i] = m_links[i].channel->IsLinkUp();
    }
    auto nextHops = m_graph->ComputeNextHops(up);
    for (uint32_t v : m_graph->SwitchVertices())
    {
        std::vector<std::vector<uint16_t>> routes(nextHops[v].size());
        for (std::size_t h = 0; h < routes.size(); ++h)
        {
            for (uint32_t link : nextHops[v][h])
            {
                const FabricLink& l = m_links[link];
                routes[h].push_back(
                    static_cast<uint16_t>(l.desc.a == v ? l.lowerSwitchPort : l.upperSwitchPort));
            }
        }
        m_switchAt[v]->SetRoutes(std::move(routes));
    }
    ++m_routeComputations;
    NS_LOG_INFO("routes recomputed at " << Simulator::Now());
}

uint64_t
Fabric::GetPacketHops() const
{
    uint64_t hops = 0;
    for (const auto& l : m_links)
    {
        hops += l.lower->GetStats().txPackets + l.upper->GetStats().txPackets;
    }
    return hops;
}

int64_t
Fabric::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (const auto& l : m_links)
    {
        used += l.lower->AssignStreams(stream + used);
        used += l.upper->AssignStreams(stream + used);
    }
    return used;
}

} // namespace ns3
