/*
 * RdmaCongestionOps: the congestion-control policy of an RDMA transport,
 * chosen by TypeId (MetaRoceConnection::CongestionOps,
 * RoceV2Connection::CongestionOps) the way TcpSocketBase chooses a
 * TcpCongestionOps. The transport owns the state (one RdmaConnectionCc per
 * connection, one RdmaFlowCc per flow: a MetaRoCE path or a RoCEv2 queue
 * pair) and reports events; the policy only changes windows and rates, so
 * alternatives are compared without touching the transport.
 *
 * Policies: MetaRoceAimd (window AIMD + receiver hints, design decision 4,
 * docs/metaroce-design.md), MetaRoceStaticWindow (ablation), Dcqcn
 * (rate-based, SIGCOMM 2015). Nothing here belongs to one transport: the
 * limits of a transport (MetaRoCE's 256-packet SACK bitmap) are its
 * policies' business, and what its receiver advises is flow state.
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
    double cwnd = 1;         //!< packets in flight allowed
    uint64_t rateBps = 0;    //!< rate the policy wants (0: not rate-based)
    uint64_t lineBps = 0;    //!< line rate of the flow's port (set by the transport)
    uint64_t advisedBps = 0; //!< rate the receiver advised (0: none; set by the transport)
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

/**
 * Every event carries the simulation time it happens at, so a policy never
 * reads the clock and can be driven without a simulator.
 */
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
    virtual void InitFlow(RdmaFlowCc& flow, Time now) = 0;
    /**
     * An ACK on \p flow. Windows should only grow when they limited sending
     * (pathLimited / connectionLimited): a paced flow that never fills its
     * window learns nothing about it (RFC 7661's congestion-window validation).
     */
    virtual void PacketsAcked(RdmaConnectionCc& conn,
                              RdmaFlowCc& flow,
                              const RdmaAckEvent& ack,
                              Time now) = 0;
    /** \p packets of \p flow were found lost (a gap, a NAK). */
    virtual void PacketsLost(RdmaConnectionCc& conn,
                             RdmaFlowCc& flow,
                             uint32_t packets,
                             Time now) = 0;
    /** \p flow's retransmission timer expired. */
    virtual void Timeout(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now) = 0;

    /**
     * The transport gave \p flow up as failed (a path declared dead, a
     * queue pair out of retries). It carries nothing until InitFlow starts
     * it again; a policy that keeps history per flow may drop it here.
     */
    virtual void FlowFailed(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now)
    {
    }

    /** A congestion notification packet (CNP) arrived for \p flow. */
    virtual void CongestionNotified(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now)
    {
    }

    /** \p bytes (line bytes) of \p flow went out. */
    virtual void PacketSent(RdmaConnectionCc& conn, RdmaFlowCc& flow, uint32_t bytes, Time now)
    {
    }

    /** Period of Timer(), zero for none. */
    virtual Time GetTimerInterval() const
    {
        return Time();
    }

    /** Called every GetTimerInterval() while \p flow has data to send. */
    virtual void Timer(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now)
    {
    }

    /**
     * The rate to pace \p flow at, from its line rate, the rate the policy
     * set and the rate its receiver advised.
     */
    virtual uint64_t PacingRate(const RdmaFlowCc& flow) const = 0;
};

} // namespace ns3

#endif
