#include "fabric-traffic-source.h"

#include "fabric-test-header.h"

#include "ns3/boolean.h"
#include "ns3/integer.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricTrafficSource");
NS_OBJECT_ENSURE_REGISTERED(FabricTrafficSource);

TypeId
FabricTrafficSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricTrafficSource")
            .SetParent<Application>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricTrafficSource>()
            .AddAttribute("DataRate",
                          "Sending rate in line bytes (frame + FCS + preamble + gap)",
                          DataRateValue(DataRate("10Gbps")),
                          MakeDataRateAccessor(&FabricTrafficSource::m_rate),
                          MakeDataRateChecker())
            .AddAttribute(
                "PacketSize",
                "UDP payload bytes per packet (includes the 12-byte test header)",
                UintegerValue(4096),
                MakeUintegerAccessor(&FabricTrafficSource::m_payloadBytes),
                MakeUintegerChecker<uint32_t>(FabricTestHeader::kBytes, 9000 - kFrameHeaderBytes))
            .AddAttribute("DestinationHost",
                          "Index of the destination host",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_dstHost),
                          MakeUintegerChecker<uint32_t>(0, 65535))
            .AddAttribute("Plane",
                          "Plane to send on; -1 spreads packets round-robin over all planes",
                          IntegerValue(0),
                          MakeIntegerAccessor(&FabricTrafficSource::m_plane),
                          MakeIntegerChecker<int32_t>(-1, 255))
            .AddAttribute("SourcePort",
                          "UDP source port (ECMP entropy) of the first packet",
                          UintegerValue(10000),
                          MakeUintegerAccessor(&FabricTrafficSource::m_srcPort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("SourcePortCount",
                          "Number of consecutive source ports cycled per packet (1: one flow)",
                          UintegerValue(1),
                          MakeUintegerAccessor(&FabricTrafficSource::m_srcPortCount),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("DestinationPort",
                          "UDP destination port (a FabricTrafficSink listens on it)",
                          UintegerValue(kDefaultPort),
                          MakeUintegerAccessor(&FabricTrafficSource::m_dstPort),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("EcnCapable",
                          "Send ECT(0) so switches may mark CE",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FabricTrafficSource::m_ecnCapable),
                          MakeBooleanChecker())
            .AddAttribute("Dscp",
                          "DSCP of the packets (selects the traffic class)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_dscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            .AddAttribute("MaxPackets",
                          "Stop after this many packets (0: no limit)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricTrafficSource::m_maxPackets),
                          MakeUintegerChecker<uint64_t>());
    return tid;
}

FabricTrafficSource::FabricTrafficSource() = default;

void
FabricTrafficSource::DoDispose()
{
    m_next.Cancel();
    m_nic = nullptr;
    Application::DoDispose();
}

void
FabricTrafficSource::StartApplication()
{
    m_nic = GetNode()->GetObject<RdmaNic>();
    NS_ABORT_MSG_UNLESS(m_nic,
                        "FabricTrafficSource needs an RdmaNic on node " << GetNode()->GetId());
    NS_ABORT_MSG_UNLESS(m_plane < int32_t(m_nic->GetNPlanes()),
                        "FabricTrafficSource: plane " << m_plane << " but the NIC has "
                                                      << m_nic->GetNPlanes());
    const uint32_t frameBytes = m_payloadBytes + kFrameHeaderBytes;
    m_interval = m_rate.CalculateBytesTxTime(WireBytes(frameBytes));
    SendOne();
}

void
FabricTrafficSource::StopApplication()
{
    m_next.Cancel();
}

void
FabricTrafficSource::SendOne()
{
    FabricTestHeader hdr;
    hdr.SetSequence(static_cast<uint32_t>(m_sent));
    hdr.SetSendTime(Simulator::Now());
    uint8_t hdrBytes[FabricTestHeader::kBytes];
    hdr.WriteTo(hdrBytes);

    const uint32_t plane = m_plane < 0 ? m_sent % m_nic->GetNPlanes() : uint32_t(m_plane);
    const uint16_t srcPort = static_cast<uint16_t>(m_srcPort + m_sent % m_srcPortCount);
    FrameAddress addr = m_nic->AddressTo(m_dstHost, plane, srcPort, m_dstPort);
    addr.dscp = m_dscp;
    addr.ecn = m_ecnCapable ? Ecn::Ect0 : Ecn::NotEct;
    // Nothing reads the payload: a compact frame (no Packet unless a trace asks).
    addr.innerBytes = hdrBytes;
    addr.innerSize = FabricTestHeader::kBytes;
    m_nic->Send(FramePayload::Zeros(m_payloadBytes - FabricTestHeader::kBytes), plane, addr);
    ++m_sent;
    m_sentBytes += m_payloadBytes;

    if (m_maxPackets == 0 || m_sent < m_maxPackets)
    {
        m_next = Simulator::Schedule(m_interval, &FabricTrafficSource::SendOne, this);
    }
}

} // namespace ns3
