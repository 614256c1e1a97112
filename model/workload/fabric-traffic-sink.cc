#include "fabric-traffic-sink.h"

#include "fabric-test-header.h"
#include "fabric-traffic-source.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTrafficSink");
NS_OBJECT_ENSURE_REGISTERED(FabricTrafficSink);

TypeId
FabricTrafficSink::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricTrafficSink")
                            .SetParent<Application>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<FabricTrafficSink>()
                            .AddAttribute("Port",
                                          "UDP destination port to listen on",
                                          UintegerValue(FabricTrafficSource::kDefaultPort),
                                          MakeUintegerAccessor(&FabricTrafficSink::m_port),
                                          MakeUintegerChecker<uint16_t>())
                            .AddTraceSource("Rx",
                                            "A test packet arrived: payload, one-way delay, plane",
                                            MakeTraceSourceAccessor(&FabricTrafficSink::m_rxTrace),
                                            "ns3::FabricTrafficSink::RxTracedCallback");
    return tid;
}

FabricTrafficSink::FabricTrafficSink() = default;

void
FabricTrafficSink::DoDispose()
{
    m_nic = nullptr;
    Application::DoDispose();
}

void
FabricTrafficSink::StartApplication()
{
    m_nic = GetNode()->GetObject<RdmaNic>();
    NS_ABORT_MSG_UNLESS(m_nic, "FabricTrafficSink needs an RdmaNic on node " << GetNode()->GetId());
    m_bytesPerPlane.assign(m_nic->GetNPlanes(), 0);
    m_nic->RegisterFrameHandler(m_port, MakeCallback(&FabricTrafficSink::Receive, this));
}

void
FabricTrafficSink::StopApplication()
{
    if (m_nic)
    {
        m_nic->UnregisterUdpHandler(m_port);
    }
}

void
FabricTrafficSink::Receive(FrameRef& frame, const FrameInfo& info, uint32_t plane)
{
    // One copy of the frame and test headers, parsed in place (no header
    // objects removed from the Packet unless a trace wants the payload).
    uint8_t bytes[kFrameHeaderBytes + FabricTestHeader::kBytes];
    FabricTestHeader hdr;
    if (info.bytes < sizeof(bytes) || frame.CopyData(bytes, sizeof(bytes)) != sizeof(bytes) ||
        hdr.Parse(bytes + kFrameHeaderBytes, FabricTestHeader::kBytes) != FabricTestHeader::kBytes)
    {
        return; // not test traffic: too short to carry the header
    }
    const uint32_t payloadBytes = info.bytes - kFrameHeaderBytes;
    const Time delay = Simulator::Now() - hdr.GetSendTime();
    ++m_packets;
    m_bytes += payloadBytes;
    m_bytesPerPlane[plane] += payloadBytes;
    m_ceMarked += (info.ecn == Ecn::Ce);
    m_delaySum += delay;
    if (delay > m_maxDelay)
    {
        m_maxDelay = delay;
    }
    if (!m_rxTrace.IsEmpty())
    {
        Ptr<Packet> payload = frame.Release();
        StripFrame(payload);
        m_rxTrace(payload, delay, plane);
    }
}

uint64_t
FabricTrafficSink::GetReceivedBytes(uint32_t plane) const
{
    return plane < m_bytesPerPlane.size() ? m_bytesPerPlane[plane] : 0;
}

Time
FabricTrafficSink::GetMeanDelay() const
{
    return m_packets ? m_delaySum / int64_t(m_packets) : Time(0);
}

} // namespace ns3
