#include "rdma-nic.h"

#include "fabric-address.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaNic")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RdmaNic>();
    return tid;
}

RdmaNic::RdmaNic() = default;

void
RdmaNic::DoDispose()
{
    m_ports.clear();
    m_handlers.clear();
    m_linkListeners.clear();
    m_resumeListeners.clear();
    Object::DoDispose();
}

uint32_t
RdmaNic::AddPort(Ptr<FabricPort> port)
{
    port->SetPacketSink(this);
    port->SetSinkIndex(m_ports.size());
    m_ports.push_back(port);
    return m_ports.size() - 1;
}

void
RdmaNic::RegisterUdpHandler(uint16_t udpPort, UdpHandler handler)
{
    AddHandler(Handler{udpPort, handler, FrameHandler()});
}

void
RdmaNic::RegisterFrameHandler(uint16_t udpPort, FrameHandler handler)
{
    AddHandler(Handler{udpPort, UdpHandler(), handler});
}

void
RdmaNic::AddHandler(const Handler& handler)
{
    for (const auto& h : m_handlers)
    {
        NS_ABORT_MSG_IF(h.udpPort == handler.udpPort,
                        "RdmaNic of host " << m_host << ": UDP port " << handler.udpPort
                                           << " already has a handler");
    }
    m_handlers.push_back(handler);
}

void
RdmaNic::UnregisterUdpHandler(uint16_t udpPort)
{
    for (auto it = m_handlers.begin(); it != m_handlers.end(); ++it)
    {
        if (it->udpPort == udpPort)
        {
            m_handlers.erase(it);
            return;
        }
    }
}

FrameAddress
RdmaNic::AddressTo(uint32_t dstHost, uint32_t plane, uint16_t srcPort, uint16_t dstPort) const
{
    FrameAddress a;
    a.plane = plane;
    a.srcHost = m_host;
    a.dstHost = dstHost;
    a.srcPort = srcPort;
    a.dstPort = dstPort;
    return a;
}

bool
RdmaNic::Send(const FramePayload& payload, uint32_t plane, const FrameAddress& addr, int64_t nowPs)
{
    NS_ASSERT(plane < m_ports.size());
    ++m_framesSent;
    if (payload.packet || addr.inner)
    {
        const Ptr<Packet> packet =
            payload.packet ? payload.packet : Create<Packet>(payload.zeroBytes);
        const FrameInfo info = BuildFrame(packet, addr);
        return m_ports[plane]->Enqueue(packet, info, FabricPort::kNoIngress, nowPs);
    }
    FrameRef frame;
    const FrameInfo info = BuildCompactFrame(frame, payload.zeroBytes, addr);
    return m_ports[plane]->Enqueue(std::move(frame), info, FabricPort::kNoIngress, nowPs);
}

uint32_t
RdmaNic::PlaneOf(const FabricPort* port) const
{
    // AddPort numbered the port with its plane (no search of m_ports per frame).
    const uint32_t plane = port->GetSinkIndex();
    NS_ASSERT_MSG(plane < m_ports.size() && PeekPointer(m_ports[plane]) == port,
                  "RdmaNic: frame from a port this NIC does not own");
    return plane;
}

void
RdmaNic::ReceiveFromPort(FabricPort* port, FrameRef frame, const FrameInfo& info, int64_t)
{
    if (FabricAddress::HostOf(info.dstIp) != m_host)
    {
        port->RecordDrop(frame, DropReason::Malformed);
        return;
    }
    for (const auto& h : m_handlers)
    {
        if (h.udpPort == info.dstPort)
        {
            ++m_framesDelivered;
            if (!h.frame.IsNull())
            {
                h.frame(frame, info, PlaneOf(port));
            }
            else
            {
                h.packet(frame.Release(), info, PlaneOf(port));
            }
            return;
        }
    }
    port->RecordDrop(frame, DropReason::NoHandler);
}

} // namespace ns3

namespace ns3
{

void
RdmaNic::PortLinkChanged(FabricPort* port, bool up)
{
    const uint32_t plane = PlaneOf(port);
    for (auto& listener : m_linkListeners)
    {
        listener(plane, up);
    }
}

void
RdmaNic::PortResumed(FabricPort* port)
{
    const uint32_t plane = PlaneOf(port);
    for (auto& listener : m_resumeListeners)
    {
        listener(plane);
    }
}

} // namespace ns3
