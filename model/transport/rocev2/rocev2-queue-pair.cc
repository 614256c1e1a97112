#include "rocev2-queue-pair.h"

#include "rocev2-transport.h"

namespace ns3
{

RoceV2QueuePair::RoceV2QueuePair(RoceV2Connection* owner,
                                 Ptr<RoceV2Transport> transport,
                                 uint32_t qpn,
                                 uint32_t plane,
                                 uint16_t srcPort,
                                 const RoceV2QpConfig& config,
                                 Ptr<RoceV2Recovery> recovery,
                                 Ptr<RdmaCongestionOps> cc,
                                 RdmaConnectionCc* connCc)
    : m_owner(owner),
      m_transport(transport),
      m_qpn(qpn),
      m_plane(plane),
      m_srcPort(srcPort),
      m_config(config),
      m_recovery(recovery),
      m_requester(*this, cc, connCc),
      m_responder(*this)
{
}

RoceV2QueuePair::~RoceV2QueuePair() = default;

void
RoceV2QueuePair::Dispose()
{
    m_requester.Dispose();
    m_transport = nullptr;
}

RoceV2QpStats
RoceV2QueuePair::GetStats() const
{
    RoceV2QpStats s;
    static_cast<RoceV2RequesterStats&>(s) = m_requester.GetStats();
    static_cast<RoceV2ResponderStats&>(s) = m_responder.GetStats();
    return s;
}

} // namespace ns3
