#include "metaroce-transport.h"

#include "fabric-frame.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MetaRoceTransport");
NS_OBJECT_ENSURE_REGISTERED(MetaRoceTransport);

TypeId
MetaRoceTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceTransport")
            .SetParent<RdmaTransport>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceTransport>()
            .AddAttribute("UdpPort",
                          "UDP destination port of MetaRoCE packets (model assumption: the "
                          "specification's port is not public; 4792 sits next to RoCEv2's 4791)",
                          UintegerValue(4792),
                          MakeUintegerAccessor(&MetaRoceTransport::m_udpPort),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("DataDscp",
                          "DSCP of data packets (26, the data class of common RoCE deployments)",
                          UintegerValue(26),
                          MakeUintegerAccessor(&MetaRoceTransport::m_dataDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("AckDscp",
                          "DSCP of ACKs (48: the fabric's control class, served strictly first)",
                          UintegerValue(48),
                          MakeUintegerAccessor(&MetaRoceTransport::m_ackDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("HintUtilisation",
                          "Fraction of a port's line rate the receiver shares out in rate hints "
                          "(0.95: HPCC's target utilisation, so queues drain)",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&MetaRoceTransport::m_hintUtilisation),
                          MakeDoubleChecker<double>(0.01, 1.0))
            .AddAttribute("ActiveWindow",
                          "A sender counts in the fair share for between W/2 and W after its "
                          "last packet (50 us: longer than the packet spacing of 64 senders "
                          "sharing a 100 Gb/s port with 4 KiB packets, 21 us)",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&MetaRoceTransport::m_activeWindow),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("SourcePortBase",
                          "First UDP source port paths use (ephemeral range)",
                          UintegerValue(49152),
                          MakeUintegerAccessor(&MetaRoceTransport::m_sourcePortBase),
                          MakeUintegerChecker<uint16_t>(1024));
    return tid;
}

MetaRoceTransport::MetaRoceTransport()
    : RdmaTransport(MetaRoceConnection::GetTypeId())
{
}

void
MetaRoceTransport::DoDispose()
{
    DisposeConnections();
    if (m_scheduler)
    {
        m_scheduler->Dispose();
        m_scheduler = nullptr;
    }
    m_dataFault = DataFaultInjector();
    m_ackFault = AckFaultInjector();
    RdmaTransport::DoDispose();
}

void
MetaRoceTransport::SetNic(Ptr<RdmaNic> nic)
{
    RdmaTransport::SetNic(nic);
    m_scheduler = CreateObject<NicScheduler>();
    m_scheduler->SetNic(nic);
    m_fairShare.resize(nic->GetNPlanes());
    for (uint32_t p = 0; p < nic->GetNPlanes(); ++p)
    {
        m_fairShare[p].Configure(nic->GetPort(p)->GetDataRate().GetBitRate(),
                                 m_hintUtilisation,
                                 m_activeWindow.GetPicoSeconds());
    }
    nic->RegisterFrameHandler(m_udpPort, MakeCallback(&MetaRoceTransport::Receive, this));
    nic->AddLinkListener(MakeCallback(&MetaRoceTransport::LinkChanged, this));
}

void
MetaRoceTransport::SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost)
{
    // The index is the connection id the peer's packets carry.
    PeekConnection<MetaRoceConnection>(index)->Setup(this, index, remoteHost);
}

void
MetaRoceTransport::Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote)
{
    Ptr<MetaRoceConnection> l = DynamicCast<MetaRoceConnection>(local);
    Ptr<MetaRoceConnection> r = DynamicCast<MetaRoceConnection>(remote);
    NS_ABORT_MSG_IF(!l || !r, "MetaRoceTransport::Bind: not MetaRoCE endpoints");
    l->SetPeer(r->GetId());
}

FrameAddress
MetaRoceTransport::DataAddress(uint32_t dstHost, uint32_t plane, uint16_t srcPort) const
{
    FrameAddress a = m_nic->AddressTo(dstHost, plane, srcPort, m_udpPort);
    a.dscp = m_dataDscp;
    return a;
}

void
MetaRoceTransport::SendAck(const MetaRoceAckHeader& ack,
                           uint32_t plane,
                           uint32_t dstHost,
                           uint16_t srcPort)
{
    FrameAddress a = m_nic->AddressTo(dstHost, plane, srcPort, m_udpPort);
    a.dscp = m_ackDscp;
    // An ACK is headers only: a compact frame.
    uint8_t bytes[MetaRoceAckHeader::kBytes];
    ack.WriteTo(bytes);
    a.innerBytes = bytes;
    a.innerSize = MetaRoceAckHeader::kBytes;
    m_nic->Send(FramePayload::Zeros(0), plane, a);
}

uint16_t
MetaRoceTransport::AllocateSourcePort()
{
    const uint32_t span = 65536u - m_sourcePortBase;
    return uint16_t(m_sourcePortBase + (m_portCounter++ % span));
}

uint32_t
MetaRoceTransport::GetActiveSenders(uint32_t plane)
{
    return m_fairShare[plane].Active(Simulator::Now().GetPicoSeconds());
}

void
MetaRoceTransport::Receive(FrameRef& frame, const FrameInfo& info, uint32_t plane)
{
    const bool ce = info.ecn == Ecn::Ce;
    // One copy of every header byte (frame + the larger transport header),
    // parsed in place: cheaper than a RemoveHeader per header.
    constexpr uint32_t kMaxHeaders =
        kFrameHeaderBytes + std::max(MetaRoceAckHeader::kBytes, MetaRoceDataHeader::kBytes);
    uint8_t bytes[kMaxHeaders];
    const uint32_t n = frame.CopyData(bytes, kMaxHeaders);
    if (n <= kFrameHeaderBytes)
    {
        ++m_malformed;
        return;
    }
    const uint8_t* transportBytes = bytes + kFrameHeaderBytes;
    const uint32_t transportSize = n - kFrameHeaderBytes;
    if (transportBytes[0] == MetaRoceAckHeader::kOpcode)
    {
        MetaRoceAckHeader& h = m_rxAck;
        if (h.Parse(transportBytes, transportSize) == 0 || h.connection >= GetNConnections())
        {
            ++m_malformed;
            return;
        }
        MetaRoceFault f = m_ackFault.IsNull() ? MetaRoceFault{} : m_ackFault(h, plane);
        switch (f.kind)
        {
        case MetaRoceFault::Drop:
            return;
        case MetaRoceFault::Delay:
            Simulator::Schedule(f.delay, &MetaRoceTransport::DeliverAck, this, h, plane);
            return;
        case MetaRoceFault::Duplicate:
            Simulator::Schedule(f.delay, &MetaRoceTransport::DeliverAck, this, h, plane);
            break;
        case MetaRoceFault::Deliver:
            break;
        }
        DeliverAck(h, plane);
        return;
    }
    MetaRoceDataHeader& h = m_rxData;
    if (h.Parse(transportBytes, transportSize) == 0 || h.connection >= GetNConnections())
    {
        ++m_malformed;
        return;
    }
    // The payload: zeros for a compact frame, else the Packet past the headers.
    constexpr uint32_t kHeaders = kFrameHeaderBytes + MetaRoceDataHeader::kBytes;
    FramePayload payload = FramePayload::Zeros(info.bytes - kHeaders);
    if (!frame.IsCompact())
    {
        payload = FramePayload(frame.Release());
        payload.packet->RemoveAtStart(kHeaders);
    }
    MetaRoceFault f = m_dataFault.IsNull() ? MetaRoceFault{} : m_dataFault(h, plane);
    switch (f.kind)
    {
    case MetaRoceFault::Drop:
        return;
    case MetaRoceFault::Delay:
        Simulator::Schedule(f.delay, &MetaRoceTransport::DeliverData, this, h, payload, ce, plane);
        return;
    case MetaRoceFault::Duplicate:
        Simulator::Schedule(f.delay,
                            &MetaRoceTransport::DeliverData,
                            this,
                            h,
                            payload.Copy(),
                            ce,
                            plane);
        break;
    case MetaRoceFault::Deliver:
        break;
    }
    DeliverData(h, payload, ce, plane);
}

void
MetaRoceTransport::DeliverData(const MetaRoceDataHeader& h,
                               const FramePayload& payload,
                               bool ce,
                               uint32_t plane)
{
    const uint64_t hint =
        m_fairShare[plane].OnPacket(h.connection, Simulator::Now().GetPicoSeconds());
    PeekConnection<MetaRoceConnection>(h.connection)->ReceiveData(h, payload, ce, plane, hint);
}

void
MetaRoceTransport::DeliverAck(const MetaRoceAckHeader& h, uint32_t plane)
{
    PeekConnection<MetaRoceConnection>(h.connection)->ReceiveAck(h, plane);
}

void
MetaRoceTransport::LinkChanged(uint32_t plane, bool up)
{
    for (uint32_t i = 0; i < GetNConnections(); ++i)
    {
        PeekConnection<MetaRoceConnection>(i)->PlaneLinkChanged(plane, up);
    }
}

} // namespace ns3
