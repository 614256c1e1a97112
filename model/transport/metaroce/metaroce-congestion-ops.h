/*
 * MetaRoceCongestionOps: the congestion-control policy of a MetaRoCE
 * connection, chosen by TypeId (MetaRoceConnection's CongestionOps attribute)
 * the way TcpSocketBase chooses a TcpCongestionOps. The connection owns the
 * state (one MetaRoceConnectionCc, one MetaRocePathCc per path) and reports
 * events; the policy only changes windows and picks pacing rates, so
 * alternatives can be compared without touching the connection.
 *
 * METAROCE.md decision 4: congestion control runs from both ends, sender ECN
 * AIMD on windows per path and per connection, and the receiver's fair-share
 * rate hint, to which the sender paces.
 */
#ifndef METAROCE_CONGESTION_OPS_H
#define METAROCE_CONGESTION_OPS_H

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <string>

namespace ns3
{

/** Congestion state of one path (windows in packets). */
struct MetaRocePathCc
{
    double cwnd = 1;
    int64_t lastDecreasePs = INT64_MIN / 2; //!< at most one decrease per RTT
};

/** Congestion state of the whole connection. */
struct MetaRoceConnectionCc
{
    double cwnd = 1;     //!< packets in flight over all paths
    uint32_t nPaths = 1;
};

/** What one ACK reported about a path. */
struct MetaRoceAckEvent
{
    uint32_t packets = 0;       //!< newly acknowledged
    bool ecnEcho = false;       //!< the packet that triggered the ACK arrived CE-marked
    Time srtt;                  //!< the path's smoothed RTT
    bool pathLimited = false;   //!< the path's window was full when the ACK came
    bool connectionLimited = false; //!< the connection window was full
};

class MetaRoceCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();

    virtual std::string GetName() const = 0;
    /** Sets the initial windows of a connection with \p nPaths paths. */
    virtual void Init(MetaRoceConnectionCc& conn, uint32_t nPaths) = 0;
    /** Sets a path's window when it starts, or carries full load again after a probe. */
    virtual void InitPath(MetaRocePathCc& path) = 0;
    /**
     * An ACK on \p path. Windows should only grow when they limited sending
     * (pathLimited / connectionLimited): a paced flow that never fills its
     * window learns nothing about it (RFC 7661's congestion-window validation).
     */
    virtual void PacketsAcked(MetaRoceConnectionCc& conn, MetaRocePathCc& path,
                              const MetaRoceAckEvent& ack) = 0;
    /** \p packets were found missing from \p path's SACK bitmap (loss, not reordering). */
    virtual void PacketsLost(MetaRoceConnectionCc& conn, MetaRocePathCc& path, uint32_t packets) = 0;
    /** \p path's retransmission timer expired. */
    virtual void Timeout(MetaRoceConnectionCc& conn, MetaRocePathCc& path) = 0;
    /**
     * Pacing rate for one plane, from the receiver's latest hint on that plane
     * (\p hintBps, 0 before the first ACK) and the port's line rate.
     */
    virtual uint64_t PacingRate(uint64_t hintBps, uint64_t lineBps) const = 0;
    /** Largest window a path may have: its 256-bit SACK bitmap. */
    static constexpr uint32_t kMaxPathWindow = 256;
};

} // namespace ns3

#endif
