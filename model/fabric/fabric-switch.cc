#include "fabric-switch.h"

#include "ecmp-hash.h"
#include "fabric-address.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("Plane",
                          "Plane this switch belongs to (frames for other planes are dropped)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_plane),
                          MakeUintegerChecker<uint32_t>(0, 255))
            .AddAttribute("HashSeed",
                          "Seed mixed into the ECMP hash; distinct per switch so tiers do not "
                          "polarise",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BufferBytes",
                          "Shared packet buffer of the switch (all egress ports)",
                          UintegerValue(32u << 20),
                          MakeUintegerAccessor(&FabricSwitch::m_bufferBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("DetectionDelay",
                          "Time from a port's link going down (or up) to the switch "
                          "removing it from (or restoring it to) its ECMP groups",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&FabricSwitch::m_detectionDelay),
                          MakeTimeChecker(Time(0)));
    return tid;
}

FabricSwitch::FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
    m_ports.clear();
    m_buffer = nullptr;
    Object::DoDispose();
}

uint32_t
FabricSwitch::AddPort(Ptr<FabricPort> port)
{
    if (!m_buffer)
    {
        m_buffer = Create<SharedBuffer>(m_bufferBytes);
    }
    port->SetPacketSink(this);
    port->SetSharedBuffer(m_buffer);
    m_ports.push_back(port);
    m_portUsable.push_back(port->IsLinkUp());
    return m_ports.size() - 1;
}

void
FabricSwitch::SetRoutes(std::vector<std::vector<uint16_t>> routes)
{
    m_routes = std::move(routes);
    RebuildLiveGroups();
}

const std::vector<uint16_t>&
FabricSwitch::GetLiveGroup(uint32_t host) const
{
    static const std::vector<uint16_t> none;
    return host < m_live.size() ? m_live[host] : none;
}

int32_t
FabricSwitch::SelectPort(const FrameInfo& info) const
{
    if (FabricAddress::PlaneOf(info.dstIp) != m_plane)
    {
        return -1;
    }
    const uint32_t host = FabricAddress::HostOf(info.dstIp);
    if (host >= m_live.size())
    {
        return -1;
    }
    const auto& group = m_live[host];
    switch (group.size())
    {
    case 0:
        return -1;
    case 1:
        return group[0];
    default:
        return group[EcmpIndex(EcmpHash(info, m_seed), group.size())];
    }
}

void
FabricSwitch::ReceiveFromPort(FabricPort* port, Ptr<Packet> frame)
{
    FrameInfo info;
    if (!ParseFrame(*frame, info))
    {
        port->RecordDrop(frame, DropReason::Malformed);
        return;
    }
    int32_t out = SelectPort(info);
    if (out < 0)
    {
        NS_LOG_LOGIC("no route to " << Ipv4Address(info.dstIp));
        port->RecordDrop(frame, DropReason::NoRoute);
        return;
    }
    m_ports[out]->Enqueue(frame, info);
}

void
FabricSwitch::PortLinkChanged(FabricPort* port, bool up)
{
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (PeekPointer(m_ports[i]) == port)
        {
            if (m_detectionDelay.IsZero())
            {
                DetectLinkState(i);
            }
            else
            {
                Simulator::Schedule(m_detectionDelay, &FabricSwitch::DetectLinkState, this, i);
            }
            return;
        }
    }
}

void
FabricSwitch::SyncPorts()
{
    for (const auto& port : m_ports)
    {
        port->Sync();
    }
}

void
FabricSwitch::DetectLinkState(uint32_t portIndex)
{
    // The state at detection time wins: a flap shorter than the delay is
    // seen as whatever the link is when the detector looks.
    bool up = m_ports[portIndex]->IsLinkUp();
    if (m_portUsable[portIndex] != up)
    {
        m_portUsable[portIndex] = up;
        RebuildLiveGroups();
    }
}

void
FabricSwitch::RebuildLiveGroups()
{
    m_live.assign(m_routes.size(), {});
    for (std::size_t h = 0; h < m_routes.size(); ++h)
    {
        for (uint16_t p : m_routes[h])
        {
            if (m_portUsable[p])
            {
                m_live[h].push_back(p);
            }
        }
    }
}

} // namespace ns3
