#include "fabric-channel.h"

#include "fabric-port.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricChannel")
            .SetParent<Channel>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricChannel>()
            .AddAttribute("Delay",
                          "One-way propagation delay (models cable and switch pipeline latency)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&FabricChannel::m_delay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("LinkState",
                            "The link went up (true) or down (false)",
                            MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                            "ns3::FabricChannel::LinkStateTracedCallback");
    return tid;
}

FabricChannel::FabricChannel() = default;

void
FabricChannel::Attach(Ptr<FabricPort> port)
{
    NS_ABORT_MSG_IF(m_attached >= 2, "FabricChannel: a link has exactly two ports");
    m_ports[m_attached] = port;
    m_peerContext[m_attached] = port->GetNode() ? port->GetNode()->GetId() : 0;
    ++m_attached;
}

void
FabricChannel::Transmit(const FabricPort* from, Ptr<Packet> frame, int64_t txEndPs)
{
    const uint32_t to = (m_ports[0] == from) ? 1 : 0;
    const int64_t endNs = (txEndPs + 999) / 1000;
    const Time delay = NanoSeconds(endNs) + m_delay - Simulator::Now();
    ++m_inFlight;
    Simulator::ScheduleWithContext(m_peerContext[to],
                                   delay,
                                   &FabricChannel::Deliver,
                                   this,
                                   to,
                                   frame,
                                   m_epoch);
}

void
FabricChannel::Deliver(uint32_t to, Ptr<Packet> frame, uint32_t epoch)
{
    // The sender's next frame started at the latest when this one's last bit
    // left, one propagation delay ago: this arrival is the event that drives
    // the sender's lazy departures (fabric-port.h).
    --m_inFlight;
    m_ports[1 - to]->Sync();
    m_ports[to]->Receive(frame, epoch);
}

void
FabricChannel::SetLinkUp(bool up)
{
    if (up == m_up)
    {
        return;
    }
    NS_LOG_INFO("link " << (up ? "up" : "down") << " at " << Simulator::Now());
    // Frames due to start before this instant went out under the old epoch
    // (and are lost in flight if it goes down before they arrive).
    for (uint32_t i = 0; i < m_attached; ++i)
    {
        m_ports[i]->Sync();
    }
    m_up = up;
    ++m_epoch; // frames sent before the change are lost in flight
    for (uint32_t i = 0; i < m_attached; ++i)
    {
        m_ports[i]->LinkStateChanged(up);
    }
    m_linkStateTrace(up);
}

Ptr<FabricPort>
FabricChannel::GetPort(uint32_t side) const
{
    return side < m_attached ? m_ports[side] : nullptr;
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_attached;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < m_attached ? m_ports[i] : nullptr;
}

void
FabricChannel::DoDispose()
{
    m_ports[0] = nullptr;
    m_ports[1] = nullptr;
    Channel::DoDispose();
}

} // namespace ns3
