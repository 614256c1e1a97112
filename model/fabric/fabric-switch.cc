#include "fabric-switch.h"

#include "ecmp-hash.h"
#include "fabric-address.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
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
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PfcEnabled",
                          "Priority Flow Control: per-ingress accounting of lossless frames, "
                          "PAUSE upstream at XOFF (set before AddPort; ports need PfcEnabled too)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&FabricSwitch::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("PfcXoffBytes",
                          "Static XOFF per (ingress, priority) in bytes; 0: dynamic, "
                          "PfcAlpha x free shared pool (as Broadcom switches and HPCC do)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_pfcXoffBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PfcAlpha",
                          "Dynamic XOFF = alpha x free shared pool (1/8: HPCC's pfc_a_shift 3)",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&FabricSwitch::m_pfcAlpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 64.0))
            .AddAttribute("PfcXonDeltaBytes",
                          "XON = XOFF - this hysteresis (default two 9000-byte MTUs)",
                          UintegerValue(18000),
                          MakeUintegerAccessor(&FabricSwitch::m_pfcXonDeltaBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PfcHeadroomBytes",
                          "Headroom per (ingress port, lossless priority), reserved out of the "
                          "buffer; 0: sized from the port's link, 2 x rate x (delay + 1 ns) + "
                          "3 x MTU + 132 bytes",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_pfcHeadroomBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PfcPauseQuanta",
                          "Pause time a PAUSE asks for, in quanta of 512 bit times (65535: the "
                          "longest, refreshed at half its duration while above XON)",
                          UintegerValue(0xffff),
                          MakeUintegerAccessor(&FabricSwitch::m_pfcQuanta),
                          MakeUintegerChecker<uint16_t>(2))
            .AddTraceSource("PfcIngress",
                            "An (ingress port, priority) entered (true) or left (false) XOFF",
                            MakeTraceSourceAccessor(&FabricSwitch::m_pfcIngressTrace),
                            "ns3::FabricSwitch::PfcIngressTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch() = default;

void
FabricSwitch::DoDispose()
{
    for (auto& in : m_pfc)
    {
        for (auto& e : in.refresh)
        {
            e.Cancel();
        }
    }
    m_pfc.clear();
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
    port->SetSinkIndex(m_ports.size());
    m_ports.push_back(port);
    m_portUsable.push_back(port->IsLinkUp());
    PfcIngress in;
    if (m_pfcEnabled)
    {
        // One lossless priority per port (the data class's): one headroom.
        in.headroomCap = m_pfcHeadroomBytes ? m_pfcHeadroomBytes : AutoHeadroomBytes(*port);
        const uint64_t reserved = m_buffer->Reserved() + in.headroomCap;
        NS_ABORT_MSG_IF(reserved >= m_buffer->Capacity(),
                        "FabricSwitch: PFC headroom of " << m_ports.size() << " ports (" << reserved
                                                         << " bytes) leaves no shared "
                                                         << "buffer out of "
                                                         << m_buffer->Capacity());
        m_buffer->SetReserved(reserved);
    }
    m_pfc.push_back(in);
    return m_ports.size() - 1;
}

uint32_t
FabricSwitch::AutoHeadroomBytes(const FabricPort& port)
{
    // After the frame that crosses XOFF (<= MTU) arrives, the upstream keeps
    // sending until the PAUSE reaches it: the PAUSE waits for the frame on
    // our wire (<= MTU + 24 line bytes), is serialised (84), propagates
    // (delay); the upstream finishes the frame it started (<= MTU + 24) and
    // everything it sent meanwhile propagates back (delay). Event times are
    // rounded up to the nanosecond twice on the way (+1 ns each way).
    // Total: 2 x rate x (delay + 1 ns) + 3 x MTU + 2 x 24 + 84 bytes.
    const Ptr<FabricChannel> channel = port.GetFabricChannel();
    return PfcAutoHeadroomBytes(port.GetDataRate().GetBitRate(),
                                channel ? channel->GetDelay() : Time(0),
                                port.GetMtu());
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
    if (host >= m_liveGroups.size())
    {
        return -1;
    }
    const LiveGroup& group = m_liveGroups[host];
    switch (group.count)
    {
    case 0:
        return -1;
    case 1:
        return group.port0;
    default:
        return m_livePorts[group.first + EcmpIndex(EcmpHash(info, m_seed), group.count)];
    }
}

void
FabricSwitch::ReceiveFromPort(FabricPort* port,
                              FrameRef frame,
                              const FrameInfo& info,
                              int64_t nowPs)
{
    int32_t out = SelectPort(info);
    if (out < 0)
    {
        NS_LOG_LOGIC("no route to " << Ipv4Address(info.dstIp));
        port->RecordDrop(frame, DropReason::NoRoute);
        return;
    }
    m_ports[out]->Enqueue(std::move(frame), info, port->GetSinkIndex(), nowPs);
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

// ---- PFC -------------------------------------------------------------------

uint64_t
FabricSwitch::GetPfcXoffBytes() const
{
    if (m_pfcXoffBytes > 0)
    {
        return m_pfcXoffBytes;
    }
    return static_cast<uint64_t>(m_pfcAlpha * double(m_buffer->Free()));
}

uint64_t
FabricSwitch::GetPfcIngressBytes(uint32_t port, uint8_t priority) const
{
    const PfcIngress& in = m_pfc.at(port);
    return uint64_t(in.shared[priority]) + in.headroom[priority];
}

bool
FabricSwitch::TryChargeShared(uint32_t ingress, uint8_t priority, uint32_t bytes)
{
    PfcIngress& in = m_pfc[ingress];
    if (in.shared[priority] + uint64_t(bytes) > GetPfcXoffBytes() || !m_buffer->TryReserve(bytes))
    {
        return false;
    }
    in.shared[priority] += bytes;
    return true;
}

PfcAdmission
FabricSwitch::AdmitLossless(uint32_t ingress, uint8_t priority, uint32_t bytes)
{
    if (!m_pfcEnabled)
    {
        return PfcAdmission::Lossy;
    }
    if (TryChargeShared(ingress, priority, bytes))
    {
        return PfcAdmission::Admitted;
    }
    // Ports release frames lazily, so the counts may still hold frames that
    // have started: they only overstate use. Bring them up to date first.
    SyncPorts();
    if (TryChargeShared(ingress, priority, bytes))
    {
        return PfcAdmission::Admitted;
    }
    PfcIngress& in = m_pfc[ingress];
    if (in.headroom[priority] + uint64_t(bytes) > in.headroomCap)
    {
        NS_LOG_WARN("PFC headroom of port " << ingress << " priority " << unsigned(priority)
                                            << " full (" << in.headroom[priority]
                                            << " bytes): drop");
        return PfcAdmission::Drop;
    }
    in.headroom[priority] += bytes;
    m_pfcPeakHeadroom = std::max(m_pfcPeakHeadroom, in.headroom[priority]);
    if (!in.xoff[priority])
    {
        StartXoff(ingress, priority);
    }
    return PfcAdmission::Admitted;
}

void
FabricSwitch::ReleaseLossless(uint32_t ingress, uint8_t priority, uint32_t bytes)
{
    // Headroom drains first, so it is free again as early as possible.
    PfcIngress& in = m_pfc[ingress];
    const uint32_t fromHeadroom = std::min(in.headroom[priority], bytes);
    in.headroom[priority] -= fromHeadroom;
    const uint32_t fromShared = bytes - fromHeadroom;
    NS_ASSERT(in.shared[priority] >= fromShared);
    in.shared[priority] -= fromShared;
    m_buffer->Release(fromShared);
    if (in.xoff[priority] && ShouldResume(ingress, priority))
    {
        EndXoff(ingress, priority);
    }
}

bool
FabricSwitch::ShouldResume(uint32_t ingress, uint8_t priority) const
{
    const PfcIngress& in = m_pfc[ingress];
    return in.headroom[priority] == 0 &&
           (in.shared[priority] == 0 ||
            in.shared[priority] + uint64_t(m_pfcXonDeltaBytes) <= GetPfcXoffBytes());
}

void
FabricSwitch::StartXoff(uint32_t ingress, uint8_t priority)
{
    PfcIngress& in = m_pfc[ingress];
    in.xoff[priority] = true;
    ++m_pfcXoffEpisodes;
    NS_LOG_LOGIC("XOFF port " << ingress << " priority " << unsigned(priority));
    m_pfcIngressTrace(ingress, priority, true);
    m_ports[ingress]->SendPfc(priority, m_pfcQuanta);
    ScheduleRefresh(ingress, priority);
    if (m_pfcXoffNow++ == 0)
    {
        for (const auto& port : m_ports)
        {
            port->SetTrackDepartures(true);
        }
    }
}

void
FabricSwitch::EndXoff(uint32_t ingress, uint8_t priority)
{
    PfcIngress& in = m_pfc[ingress];
    in.xoff[priority] = false;
    in.refresh[priority].Cancel();
    NS_LOG_LOGIC("XON port " << ingress << " priority " << unsigned(priority));
    m_pfcIngressTrace(ingress, priority, false);
    m_ports[ingress]->SendPfc(priority, 0);
    if (--m_pfcXoffNow == 0)
    {
        for (const auto& port : m_ports)
        {
            port->SetTrackDepartures(false);
        }
    }
}

void
FabricSwitch::ScheduleRefresh(uint32_t ingress, uint8_t priority)
{
    const uint64_t halfPs = m_ports[ingress]->PauseQuantaPs(m_pfcQuanta) / 2;
    m_pfc[ingress].refresh[priority] = Simulator::Schedule(NanoSeconds(halfPs / 1000),
                                                           &FabricSwitch::RefreshXoff,
                                                           this,
                                                           ingress,
                                                           priority);
}

void
FabricSwitch::RefreshXoff(uint32_t ingress, uint8_t priority)
{
    SyncPorts();
    if (!m_pfc[ingress].xoff[priority])
    {
        return; // the sync released enough to resume
    }
    if (ShouldResume(ingress, priority))
    {
        EndXoff(ingress, priority);
        return;
    }
    m_ports[ingress]->SendPfc(priority, m_pfcQuanta);
    ScheduleRefresh(ingress, priority);
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
    m_liveGroups.assign(m_live.size(), LiveGroup{});
    m_livePorts.clear();
    for (std::size_t h = 0; h < m_live.size(); ++h)
    {
        LiveGroup& g = m_liveGroups[h];
        g.count = static_cast<uint16_t>(m_live[h].size());
        g.port0 = m_live[h].empty() ? 0 : m_live[h][0];
        g.first = static_cast<uint32_t>(m_livePorts.size());
        m_livePorts.insert(m_livePorts.end(), m_live[h].begin(), m_live[h].end());
    }
}

} // namespace ns3
