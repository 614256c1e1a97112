#include "rocev2-transport.h"

#include "fabric-frame.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceV2Transport");
NS_OBJECT_ENSURE_REGISTERED(RoceV2Transport);

TypeId
RoceV2Transport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceV2Transport")
            .SetParent<RdmaTransport>()
            .SetGroupName("MetaRoce")
            .AddConstructor<RoceV2Transport>()
            .AddAttribute("DataDscp",
                          "DSCP of data packets (26, the RoCE data class of common deployments)",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RoceV2Transport::m_dataDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("ControlDscp",
                          "DSCP of ACKs, NAKs and CNPs (48: the fabric's control class)",
                          UintegerValue(48),
                          MakeUintegerAccessor(&RoceV2Transport::m_controlDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("CnpInterval",
                          "At most one CNP per queue pair per interval (DCQCN paper: 50 us)",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&RoceV2Transport::m_cnpInterval),
                          MakeTimeChecker());
    return tid;
}

RoceV2Transport::RoceV2Transport()
    : RdmaTransport(RoceV2Connection::GetTypeId())
{
}

void
RoceV2Transport::DoDispose()
{
    DisposeConnections();
    m_qps.clear();
    if (m_scheduler)
    {
        m_scheduler->Dispose();
        m_scheduler = nullptr;
    }
    m_dropFilter = DropFilter();
    RdmaTransport::DoDispose();
}

void
RoceV2Transport::SetNic(Ptr<RdmaNic> nic)
{
    RdmaTransport::SetNic(nic);
    m_scheduler = CreateObject<NicScheduler>();
    m_scheduler->SetNic(nic);
    nic->RegisterUdpHandler(kRoceV2UdpPort, MakeCallback(&RoceV2Transport::Receive, this));
}

void
RoceV2Transport::SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost)
{
    PeekConnection<RoceV2Connection>(index)->Setup(this, remoteHost);
}

void
RoceV2Transport::Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote)
{
    Ptr<RoceV2Connection> l = DynamicCast<RoceV2Connection>(local);
    Ptr<RoceV2Connection> r = DynamicCast<RoceV2Connection>(remote);
    NS_ABORT_MSG_IF(!l || !r, "RoceV2Transport::Bind: not RoCEv2 endpoints");
    l->Bind(r);
}

uint32_t
RoceV2Transport::AddQueuePair(RoceV2QueuePair* qp)
{
    m_qps.push_back(qp);
    return kFirstQpn + m_qps.size() - 1;
}

uint16_t
RoceV2Transport::SourcePortFor(uint32_t qpn, uint32_t peerHost) const
{
    // Hashed once from the QP's identity (as NICs derive it from the QPNs):
    // the QP keeps this port, hence one ECMP path, for its whole life.
    uint32_t h = qpn * 2654435761u ^ (GetHost() << 16) ^ (peerHost * 40503u);
    h ^= h >> 15;
    return uint16_t(49152 + h % 16384);
}

FrameAddress
RoceV2Transport::DataAddress(uint32_t dstHost, uint32_t plane, uint16_t srcPort) const
{
    FrameAddress a = m_nic->AddressTo(dstHost, plane, srcPort, kRoceV2UdpPort);
    a.dscp = m_dataDscp;
    return a;
}

void
RoceV2Transport::SendControl(Ptr<Packet> packet, uint32_t plane, uint32_t dstHost, uint16_t srcPort)
{
    FrameAddress a = m_nic->AddressTo(dstHost, plane, srcPort, kRoceV2UdpPort);
    a.dscp = m_controlDscp;
    m_nic->Send(packet, plane, a);
}

void
RoceV2Transport::Receive(Ptr<Packet> frame, const FrameInfo& info, uint32_t plane)
{
    const bool ce = info.ecn == Ecn::Ce;
    StripFrame(frame);
    RoceBthHeader bth;
    if (frame->RemoveHeader(bth) == 0 || bth.destQp < kFirstQpn ||
        bth.destQp - kFirstQpn >= m_qps.size())
    {
        ++m_malformed;
        return;
    }
    RoceV2QueuePair* qp = m_qps[bth.destQp - kFirstQpn];
    if (bth.opcode == ROCE_CNP)
    {
        qp->ReceiveCnp();
        return;
    }
    if (bth.opcode == RC_ACKNOWLEDGE)
    {
        RoceAethHeader aeth;
        if (frame->RemoveHeader(aeth) == 0)
        {
            ++m_malformed;
            return;
        }
        qp->ReceiveAck(bth, aeth);
        return;
    }
    if (!m_dropFilter.IsNull() && m_dropFilter(bth, plane))
    {
        return;
    }
    qp->ReceiveData(bth, frame, ce);
}

} // namespace ns3
