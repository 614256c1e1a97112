#include "fabric-builder.h"

#include "ecmp-hash.h"
#include "fabric-address.h"
#include "fabric-pfc-monitor.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricBuilder");

FabricBuilder::FabricBuilder(const FabricSpec& spec)
    : m_spec(spec)
{
    m_portFactory.SetTypeId(FabricPort::GetTypeId());
    m_switchFactory.SetTypeId(FabricSwitch::GetTypeId());
    m_channelFactory.SetTypeId(FabricChannel::GetTypeId());
}

void
FabricBuilder::SetPortAttribute(const std::string& name, const AttributeValue& value)
{
    m_portOverrides.emplace_back(name, value.Copy());
}

void
FabricBuilder::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    m_switchOverrides.emplace_back(name, value.Copy());
}

void
FabricBuilder::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    m_channelOverrides.emplace_back(name, value.Copy());
}

Ptr<FabricPort>
FabricBuilder::MakePort(Ptr<Node> node, const FabricLinkSpec& link, bool switchPort)
{
    Ptr<FabricPort> port = m_portFactory.Create<FabricPort>();
    port->SetAttribute("DataRate", DataRateValue(link.rate));
    // PFC on both ends of every link: switches pause, NICs obey (and, with
    // the data class lossless, a switch admits it by ingress accounting).
    const FabricPfcSpec& pfc = m_spec.switches.pfc;
    port->SetAttribute("PfcEnabled", BooleanValue(pfc.enabled));
    port->SetAttribute("DataPriority", UintegerValue(pfc.losslessPriority));
    if (switchPort)
    {
        const FabricEcnSpec& ecn = m_spec.switches.ecn;
        port->SetAttribute("MaxQueueBytes", UintegerValue(m_spec.switches.portBufferBytes));
        port->SetAttribute("EcnEnabled", BooleanValue(ecn.enabled));
        port->SetAttribute("EcnKmin", UintegerValue(ecn.kminBytes));
        port->SetAttribute("EcnKmax", UintegerValue(ecn.kmaxBytes));
        port->SetAttribute("EcnPmax", DoubleValue(ecn.pmax));
    }
    else
    {
        port->SetAttribute("MaxQueueBytes", UintegerValue(m_spec.host.portBufferBytes));
        port->SetAttribute("EcnEnabled", BooleanValue(false));
    }
    for (const auto& [name, value] : m_portOverrides)
    {
        port->SetAttribute(name, *value);
    }
    node->AddDevice(port);
    return port;
}

void
FabricBuilder::CreateHosts(Fabric& fabric) const
{
    const uint32_t hosts = m_spec.Hosts();
    fabric.m_hosts.Create(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        Ptr<RdmaNic> nic = CreateObject<RdmaNic>();
        nic->SetHostIndex(h);
        fabric.m_hosts.Get(h)->AggregateObject(nic);
        fabric.m_nics.push_back(nic);
    }
}

Ptr<FabricSwitch>
FabricBuilder::MakeSwitch(uint32_t vertex, uint32_t plane)
{
    Ptr<FabricSwitch> sw = m_switchFactory.Create<FabricSwitch>();
    sw->SetAttribute("Plane", UintegerValue(plane));
    sw->SetAttribute("BufferBytes", UintegerValue(m_spec.switches.bufferBytes));
    sw->SetAttribute("DetectionDelay", TimeValue(m_spec.switches.detectionDelay));
    const FabricPfcSpec& pfc = m_spec.switches.pfc;
    sw->SetAttribute("PfcEnabled", BooleanValue(pfc.enabled));
    sw->SetAttribute("PfcXoffBytes", UintegerValue(pfc.xoffBytes));
    sw->SetAttribute("PfcAlpha", DoubleValue(pfc.alpha));
    sw->SetAttribute("PfcXonDeltaBytes", UintegerValue(pfc.xonDeltaBytes));
    sw->SetAttribute("PfcHeadroomBytes", UintegerValue(pfc.headroomBytes));
    // A distinct, deterministic seed per switch: tiers hash independently.
    sw->SetAttribute(
        "HashSeed",
        UintegerValue(static_cast<uint32_t>(EcmpMix((uint64_t(m_hashSeed) << 32) | vertex))));
    for (const auto& [name, value] : m_switchOverrides)
    {
        sw->SetAttribute(name, *value);
    }
    return sw;
}

void
FabricBuilder::CreateSwitches(Fabric& fabric)
{
    const FabricGraph& graph = *fabric.m_graph;
    fabric.m_switchAt.resize(graph.NumVertices());
    for (uint32_t v : graph.SwitchVertices())
    {
        Ptr<Node> node = CreateObject<Node>();
        fabric.m_switchNodes.Add(node);
        Ptr<FabricSwitch> sw = MakeSwitch(v, graph.Vertex(v).plane);
        node->AggregateObject(sw);
        fabric.m_switchAt[v] = sw;
    }
}

void
FabricBuilder::ConnectLink(const Ptr<Fabric>& fabric, const FabricLinkDesc& d)
{
    const FabricLinkSpec& spec = d.tier == LinkTier::HostLeaf ? m_spec.hostLink : m_spec.fabricLink;
    const bool lowerIsHost = d.tier == LinkTier::HostLeaf;
    Ptr<Node> lowerNode =
        lowerIsHost ? fabric->m_hosts.Get(d.a) : fabric->m_switchAt[d.a]->GetObject<Node>();
    Ptr<Node> upperNode = fabric->m_switchAt[d.b]->GetObject<Node>();

    FabricLink link;
    link.desc = d;
    link.lower = MakePort(lowerNode, spec, !lowerIsHost);
    link.upper = MakePort(upperNode, spec, true);
    if (lowerIsHost)
    {
        link.lower->SetAddress(FabricAddress::HostMac(d.plane, fabric->m_graph->Vertex(d.a).index));
    }
    else
    {
        link.lower->SetAddress(Mac48Address::Allocate());
    }
    link.upper->SetAddress(Mac48Address::Allocate());

    link.channel = m_channelFactory.Create<FabricChannel>();
    link.channel->SetAttribute("Delay", TimeValue(spec.delay));
    for (const auto& [name, value] : m_channelOverrides)
    {
        link.channel->SetAttribute(name, *value);
    }
    link.lower->Attach(link.channel);
    link.upper->Attach(link.channel);
    link.channel->TraceConnectWithoutContext("LinkState",
                                             MakeCallback(&Fabric::LinkStateChanged, fabric));

    if (lowerIsHost)
    {
        fabric->m_nics[d.a]->AddPort(link.lower);
    }
    else
    {
        link.lowerSwitchPort = fabric->m_switchAt[d.a]->AddPort(link.lower);
    }
    link.upperSwitchPort = fabric->m_switchAt[d.b]->AddPort(link.upper);
    fabric->m_links.push_back(link);
}

void
FabricBuilder::AttachPfcObservers(const Ptr<Fabric>& fabric) const
{
    if (m_spec.switches.pfc.enabled)
    {
        Ptr<FabricPfcMonitor> monitor = CreateObject<FabricPfcMonitor>();
        monitor->Install(fabric);
        fabric->m_pfcMonitor = monitor;
    }
    if (Fabric::s_checkInvariantsOnDispose)
    {
        // What each port last told and heard of PFC, for the end-of-run
        // PFC checks (one callback per PAUSE frame; none without PFC).
        fabric->m_pfcLog = Create<FabricPfcLog>();
        fabric->m_pfcLog->Attach(fabric->GetAllPorts());
    }
}

Ptr<Fabric>
FabricBuilder::Build()
{
    Ptr<Fabric> fabric = CreateObject<Fabric>();
    // Disposed with the simulation (Simulator::Destroy), like ns-3's node and
    // channel lists, whether or not the caller still holds it.
    Simulator::ScheduleDestroy(&Fabric::Dispose, fabric);
    fabric->m_spec = m_spec;
    fabric->m_graph = std::make_unique<FabricGraph>(m_spec);
    fabric->m_convergenceDelay = m_spec.routingConvergenceDelay;

    CreateHosts(*fabric);
    CreateSwitches(*fabric);
    // NIC ports are added plane by plane, so NIC port k is plane k.
    for (const FabricLinkDesc& d : fabric->m_graph->Links())
    {
        ConnectLink(fabric, d);
    }

    fabric->RecomputeRoutes();
    AttachPfcObservers(fabric);
    NS_LOG_INFO("built " << m_spec.name << ": " << m_spec.Hosts() << " hosts, "
                         << fabric->m_switchNodes.GetN() << " switches, " << fabric->m_links.size()
                         << " links");
    return fabric;
}

void
FabricBuilder::EnablePcapInternal(std::string prefix,
                                  Ptr<NetDevice> nd,
                                  bool /* promiscuous: a port sees only its own link */,
                                  bool explicitFilename)
{
    Ptr<FabricPort> port = nd->GetObject<FabricPort>();
    if (!port)
    {
        NS_LOG_INFO("not a FabricPort: no pcap for device " << nd->GetIfIndex());
        return;
    }
    PcapHelper pcapHelper;
    std::string filename =
        explicitFilename ? prefix : pcapHelper.GetFilenameFromDevice(prefix, port);
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(filename, std::ios::out, PcapHelper::DLT_EN10MB);
    pcapHelper.HookDefaultSink<FabricPort>(port, "Sniffer", file);
    // Transmitted frames are captured when they start on the wire: that needs
    // the exact dequeue event (lazy departures would stamp them late).
    port->SetAttribute("EventPerDequeue", BooleanValue(true));
}

} // namespace ns3
