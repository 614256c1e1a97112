/*
 * RdmaCongestionOps: the congestion-control policy of an RDMA transport,
 * chosen by TypeId (MetaRoceConnection::CongestionOps,
 * RoceV2Connection::CongestionOps) the way TcpSocketBase chooses a
 * TcpCongestionOps. The transport owns the state (one RdmaConnectionCc per
 * connection, one RdmaFlowCc per flow: a MetaRoCE path or a RoCEv2 queue
 * pair) and reports events; the policy only changes windows and rates, so
 * alternatives are compared without touching the transport.
 *
 * Policies: MetaRoceAimd (window AIMD + receiver hints, METAROCE.md decision
 * 4), MetaRoceStaticWindow (ablation), Dcqcn (rate-based, SIGCOMM 2015).
 */
#ifndef METAROCE_RDMA_CONGESTION_OPS_H
#define METAROCE_RDMA_CONGESTION_OPS_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

/** Per-flow state of a policy that needs more than a window and a rate. */
struct RdmaCcExtra
{
    virtual ~RdmaCcExtra() = default;
};

/** Congestion state of one flow (a MetaRoCE path, a RoCEv2 queue pair). */
struct RdmaFlowCc
{
    double cwnd = 1;                        //!< packets in flight allowed
    uint64_t rateBps = 0;                   //!< rate the policy wants (0: not rate-based)
    uint64_t lineBps = 0;                   //!< line rate of the flow's port (set by the transport)
    int64_t lastDecreasePs = INT64_MIN / 2; //!< at most one window decrease per RTT
    std::unique_ptr<RdmaCcExtra> extra;     //!< policy-specific (InitFlow creates it)
};

/** Congestion state of the whole connection. */
struct RdmaConnectionCc
{
    double cwnd = 1;     //!< packets in flight over all flows
    uint32_t nPaths = 1; //!< flows of the connection
};

/** What one ACK reported about a flow. */
struct RdmaAckEvent
{
    uint32_t packets = 0;           //!< newly acknowledged
    bool ecnEcho = false;           //!< the packet that triggered the ACK arrived CE-marked
    Time srtt;                      //!< the flow's smoothed RTT
    bool pathLimited = false;       //!< the flow's window was full when the ACK came
    bool connectionLimited = false; //!< the connection window was full
};

class RdmaCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();

    virtual std::string GetName() const = 0;
    /** Sets the initial windows of a connection with \p nFlows flows. */
    virtual void Init(RdmaConnectionCc& conn, uint32_t nFlows) = 0;
    /**
     * Sets a flow's window and rate when it starts, or carries full load
     * again after a probe (flow.lineBps is set before the call).
     */
    virtual void InitFlow(RdmaFlowCc& flow) = 0;
    /**
     * An ACK on \p flow. Windows should only grow when they limited sending
     * (pathLimited / connectionLimited): a paced flow that never fills its
     * window learns nothing about it (RFC 7661's congestion-window validation).
     */
    virtual void PacketsAcked(RdmaConnectionCc& conn, RdmaFlowCc& flow,
                              const RdmaAckEvent& ack) = 0;
    /** \p packets of \p flow were found lost (a gap, a NAK). */
    virtual void PacketsLost(RdmaConnectionCc& conn, RdmaFlowCc& flow, uint32_t packets) = 0;
    /** \p flow's retransmission timer expired. */
    virtual void Timeout(RdmaConnectionCc& conn, RdmaFlowCc& flow) = 0;
    /** A congestion notification packet (CNP) arrived for \p flow. */
    virtual void CongestionNotified(RdmaConnectionCc& conn, RdmaFlowCc& flow) {}
    /** \p bytes (line bytes) of \p flow went out. */
    virtual void PacketSent(RdmaConnectionCc& conn, RdmaFlowCc& flow, uint32_t bytes) {}
    /** Period of Timer(), zero for none. */
    virtual Time GetTimerInterval() const { return Time(); }
    /** Called every GetTimerInterval() while \p flow has data to send. */
    virtual void Timer(RdmaConnectionCc& conn, RdmaFlowCc& flow) {}
    /**
     * Pacing rate from the receiver's latest hint (\p hintBps, 0 if none) and
     * the line rate; \p flow may be null when the rate is per plane.
     */
    virtual uint64_t PacingRate(const RdmaFlowCc* flow, uint64_t hintBps,
                                uint64_t lineBps) const = 0;
    /** Largest window a MetaRoCE path may have: its 256-bit SACK bitmap. */
    static constexpr uint32_t kMaxPathWindow = 256;
};

} // namespace ns3

#endif
