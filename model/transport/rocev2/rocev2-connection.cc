#include "rocev2-connection.h"

#include "dcqcn.h"
#include "rocev2-go-back-n.h"
#include "rocev2-selective-repeat.h"
#include "rocev2-transport.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceV2Connection");
NS_OBJECT_ENSURE_REGISTERED(RoceV2Connection);

TypeId
RoceV2Connection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceV2Connection")
            .SetParent<RdmaConnection>()
            .SetGroupName("MetaRoce")
            .AddConstructor<RoceV2Connection>()
            .AddAttribute("QueuePairs",
                          "Queue pairs per connection (0: one per plane, QP i on plane i)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceV2Connection::m_queuePairs),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PayloadSize",
                          "Payload bytes per packet (the RoCE MTU, 4096)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RoceV2Connection::m_payloadSize),
                          MakeUintegerChecker<uint32_t>(256, 8900))
            .AddAttribute("AckInterval",
                          "The responder acknowledges every this many in-order packets, and "
                          "every packet with the AckReq bit (the last of each message): NICs "
                          "coalesce ACKs this way (4: a 16 KiB granularity)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&RoceV2Connection::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TimeoutExponent",
                          "Local ACK timeout = 4.096 us x 2^exponent (IB spec). Default 8 = "
                          "1.05 ms, the range of NICs with adaptive retransmission; NCCL's "
                          "default 18 (1.07 s) would make every tail loss a one-second stall",
                          UintegerValue(8),
                          MakeUintegerAccessor(&RoceV2Connection::m_timeoutExponent),
                          MakeUintegerChecker<uint32_t>(0, 31))
            .AddAttribute("RetryLimit",
                          "Timeouts in a row without progress before the work fails (IB "
                          "retry_cnt, at most 7)",
                          UintegerValue(7),
                          MakeUintegerAccessor(&RoceV2Connection::m_retryLimit),
                          MakeUintegerChecker<uint32_t>(0, 7))
            .AddAttribute("RnrDelay",
                          "Wait after an RNR NAK before retrying",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&RoceV2Connection::m_rnrDelay),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MaxInflightPackets",
                          "Cap on unacknowledged packets per QP (0: none, as RoCEv2 NICs)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceV2Connection::m_maxInflightPackets),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("EcnCapable",
                          "Send data ECT(0), so switches mark (DCQCN's congestion point)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceV2Connection::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("PayloadIntegrity",
                          "Packets carry the real bytes of the local buffer (posts with lkey)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceV2Connection::m_payloadIntegrity),
                          MakeBooleanChecker())
            .AddAttribute("Recovery",
                          "Loss-recovery policy (a RoceV2Recovery TypeId): ns3::RoceV2GoBackN "
                          "(RoCEv2 NICs) or ns3::RoceV2SelectiveRepeat (IRN, run without PFC)",
                          TypeIdValue(RoceV2GoBackN::GetTypeId()),
                          MakeTypeIdAccessor(&RoceV2Connection::m_recoveryTypeId),
                          MakeTypeIdChecker())
            .AddAttribute("SelectiveRepeat",
                          "Shorthand: true selects Recovery = ns3::RoceV2SelectiveRepeat "
                          "(overriding Recovery); false leaves Recovery's choice",
                          BooleanValue(false),
                          MakeBooleanAccessor(&RoceV2Connection::m_selectiveRepeat),
                          MakeBooleanChecker())
            .AddAttribute("BdpCapPackets",
                          "Selective repeat: cap on packets in flight per QP (IRN's BDP-FC); "
                          "0 = the plane's line rate x BdpRtt / MTU",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceV2Connection::m_bdpCapPackets),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("BdpRtt",
                          "Selective repeat: the round trip the BDP cap is sized for (the "
                          "64-host fabric's longest base RTT, ~10 us, with margin)",
                          TimeValue(MicroSeconds(12)),
                          MakeTimeAccessor(&RoceV2Connection::m_bdpRtt),
                          MakeTimeChecker())
            .AddAttribute("RtoLow",
                          "Selective repeat: timeout with at most three packets in flight "
                          "(IRN: 100 us)",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&RoceV2Connection::m_rtoLow),
                          MakeTimeChecker())
            .AddAttribute("RtoHigh",
                          "Selective repeat: timeout otherwise (IRN: 320 us)",
                          TimeValue(MicroSeconds(320)),
                          MakeTimeAccessor(&RoceV2Connection::m_rtoHigh),
                          MakeTimeChecker())
            .AddAttribute("CongestionOps",
                          "Congestion-control policy (an RdmaCongestionOps TypeId)",
                          TypeIdValue(Dcqcn::GetTypeId()),
                          MakeTypeIdAccessor(&RoceV2Connection::m_ccTypeId),
                          MakeTypeIdChecker());
    return tid;
}

RoceV2Connection::RoceV2Connection() = default;
RoceV2Connection::~RoceV2Connection() = default;

void
RoceV2Connection::DoDispose()
{
    for (auto& qp : m_qps)
    {
        qp->Dispose();
    }
    m_qps.clear();
    m_ccOps = nullptr;
    RdmaConnection::DoDispose();
}

void
RoceV2Connection::Setup(Ptr<RoceV2Transport> transport, uint32_t remoteHost)
{
    SetEndpoints(transport->GetHost(), remoteHost, transport->GetMemory());
    m_config.payloadSize = m_payloadSize;
    m_config.ackInterval = m_ackInterval;
    m_config.timeoutExponent = m_timeoutExponent;
    m_config.retryLimit = m_retryLimit;
    m_config.rnrDelay = m_rnrDelay;
    m_config.maxInflightPackets = m_maxInflightPackets;
    m_config.ecnCapable = m_ecnCapable;
    m_config.payloadIntegrity = m_payloadIntegrity;
    m_config.rtoLow = m_rtoLow;
    m_config.rtoHigh = m_rtoHigh;
    m_config.bdpCapPackets = m_bdpCapPackets;
    if (m_bdpCapPackets == 0) // only a policy with a BDP cap reads it
    {
        const double bdpBytes =
            double(transport->GetNic()->GetPort(0)->GetDataRate().GetBitRate()) / 8 *
            m_bdpRtt.GetSeconds();
        m_config.bdpCapPackets =
            std::max<uint32_t>(1, uint32_t(std::ceil(bdpBytes / m_payloadSize)));
    }
    NS_ABORT_MSG_IF(!m_ccTypeId.IsChildOf(RdmaCongestionOps::GetTypeId()),
                    "RoceV2Connection::CongestionOps: " << m_ccTypeId.GetName()
                                                        << " is not an RdmaCongestionOps");
    ObjectFactory factory;
    factory.SetTypeId(m_ccTypeId);
    m_ccOps = factory.Create<RdmaCongestionOps>();
    const TypeId recoveryTypeId =
        m_selectiveRepeat ? RoceV2SelectiveRepeat::GetTypeId() : m_recoveryTypeId;
    NS_ABORT_MSG_IF(!recoveryTypeId.IsChildOf(RoceV2Recovery::GetTypeId()),
                    "RoceV2Connection::Recovery: " << recoveryTypeId.GetName()
                                                   << " is not a RoceV2Recovery");
    factory.SetTypeId(recoveryTypeId);
    // QP 0 takes this instance; the others a Fork of it (their own state).
    const Ptr<RoceV2Recovery> recovery = factory.Create<RoceV2Recovery>();
    const uint32_t planes = transport->GetNic()->GetNPlanes();
    const uint32_t n = m_queuePairs == 0 ? planes : m_queuePairs;
    m_ccOps->Init(m_cc, n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const uint32_t qpn = transport->NextQpn();
        const uint32_t plane = i % planes;
        auto qp = std::make_unique<RoceV2QueuePair>(this,
                                                    transport,
                                                    qpn,
                                                    plane,
                                                    transport->SourcePortFor(qpn, remoteHost),
                                                    m_config,
                                                    i == 0 ? recovery : recovery->Fork(),
                                                    m_ccOps,
                                                    &m_cc);
        transport->AddQueuePair(qp.get());
        m_qps.push_back(std::move(qp));
    }
}

void
RoceV2Connection::Bind(Ptr<RoceV2Connection> peer)
{
    NS_ABORT_MSG_IF(peer->m_qps.size() != m_qps.size(),
                    "RoceV2Connection::Bind: both ends need the same number of queue pairs");
    for (uint32_t i = 0; i < m_qps.size(); ++i)
    {
        m_qps[i]->SetPeer(peer->m_qps[i]->GetQpn());
    }
}

void
RoceV2Connection::Post(const RdmaWorkRequest& wr)
{
    NS_ABORT_MSG_IF(wr.length == 0, "RoceV2Connection::Post: zero-length work request");
    NS_ABORT_MSG_IF(wr.opcode == RdmaOpcode::Recv, "RoceV2Connection::Post: use PostRecv");
    NS_ABORT_MSG_IF(m_config.payloadIntegrity && wr.lkey == 0,
                    "RoceV2Connection::Post: PayloadIntegrity needs a local key (lkey)");
    if (wr.stream >= m_streamOrder.size())
    {
        m_streamOrder.resize(wr.stream + 1);
    }
    const uint64_t index = m_messageBase + m_messages.size();
    TxMessage m;
    m.wr = wr;
    m.posted = Simulator::Now();
    m_messages.push_back(m);
    m_streamOrder[wr.stream].push_back(index);
    CountPosted(wr);
    if (wr.lkey != 0 && !GetLocalMemory()->CheckAccess(wr.lkey, wr.localAddress, wr.length))
    {
        Message(index).done = true;
        Message(index).status = RdmaStatus::LocalProtectionError;
        ReleaseCompletions(wr.stream);
        return;
    }
    const uint32_t mtu = m_config.payloadSize;
    const uint32_t packets = (wr.length + mtu - 1) / mtu;
    RoceV2Requester::Segment seg;
    seg.message = index;
    seg.opcode = wr.opcode;
    seg.lkey = wr.lkey;
    seg.rkey = wr.rkey;
    if (wr.opcode == RdmaOpcode::Send || m_qps.size() == 1)
    {
        seg.length = wr.length;
        seg.localAddress = wr.localAddress;
        seg.remoteAddress = wr.remoteAddress;
        Message(index).partsLeft = 1;
        m_qps[wr.stream % m_qps.size()]->PostSegment(seg);
        return;
    }
    // Stripe a write: equal MTU-aligned parts, one per QP.
    const uint32_t parts = std::min<uint32_t>(m_qps.size(), packets);
    Message(index).partsLeft = parts;
    uint32_t packetOffset = 0;
    for (uint32_t k = 0; k < parts; ++k)
    {
        const uint32_t partPackets = packets / parts + (k < packets % parts ? 1 : 0);
        const uint64_t offset = uint64_t(packetOffset) * mtu;
        seg.localAddress = wr.localAddress + offset;
        seg.remoteAddress = wr.remoteAddress + offset;
        seg.length = uint32_t(std::min<uint64_t>(uint64_t(partPackets) * mtu, wr.length - offset));
        packetOffset += partPackets;
        m_qps[k]->PostSegment(seg);
    }
}

void
RoceV2Connection::PostRecv(const RdmaRecvRequest& rr)
{
    NS_ABORT_MSG_IF(rr.lkey != 0 && !GetLocalMemory()->CheckAccess(rr.lkey, rr.address, rr.length),
                    "RoceV2Connection::PostRecv: buffer outside region " << rr.lkey);
    CountPosted(rr);
    m_qps[rr.stream % m_qps.size()]->PostRecv(rr);
}

int64_t
RoceV2Connection::GetHeldWorkRequests() const
{
    uint64_t n = 0;
    for (const auto& order : m_streamOrder)
    {
        n += order.size();
    }
    for (const auto& qp : m_qps)
    {
        n += qp->GetPostedReceives();
    }
    return int64_t(n);
}

void
RoceV2Connection::SegmentDone(uint64_t message, RdmaStatus status)
{
    if (message < m_messageBase)
    {
        return;
    }
    TxMessage& m = Message(message);
    if (status != RdmaStatus::Success && m.status == RdmaStatus::Success)
    {
        m.status = status;
    }
    if (m.partsLeft > 0 && --m.partsLeft == 0)
    {
        m.done = true;
        ReleaseCompletions(m.wr.stream);
    }
}

void
RoceV2Connection::ReleaseCompletions(uint16_t stream)
{
    while (!m_streamOrder[stream].empty())
    {
        TxMessage& m = Message(m_streamOrder[stream].front());
        if (!m.done)
        {
            break;
        }
        m_streamOrder[stream].pop_front();
        m.released = true;
        Complete(CompletionOf(m.wr, m.status, m.posted)); // may post: containers looked up again
    }
    while (!m_messages.empty() && m_messages.front().released)
    {
        m_messages.pop_front();
        ++m_messageBase;
    }
}

RoceV2QpStats
RoceV2Connection::GetStats() const
{
    RoceV2QpStats t;
    for (const auto& qp : m_qps)
    {
        const RoceV2RequesterStats& s = qp->GetRequester().GetStats();
        t.packets += s.packets;
        t.payloadBytes += s.payloadBytes;
        t.retransmitted += s.retransmitted;
        t.timeouts += s.timeouts;
        t.naksReceived += s.naksReceived;
        t.rewoundPackets += s.rewoundPackets;
        t.rnrReceived += s.rnrReceived;
        t.cnpsReceived += s.cnpsReceived;
        t.acksReceived += s.acksReceived;
        const RoceV2ResponderStats& r = qp->GetResponder().GetStats();
        t.received += r.received;
        t.outOfOrder += r.outOfOrder;
        t.duplicates += r.duplicates;
        t.placedBytes += r.placedBytes;
        t.naksSent += r.naksSent;
        t.acksSent += r.acksSent;
        t.cnpsSent += r.cnpsSent;
    }
    return t;
}

} // namespace ns3
