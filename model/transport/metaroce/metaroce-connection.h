/*
 * MetaRoceConnection: one endpoint of a MetaRoCE connection, the sending half
 * (streams above, paths below, one congestion controller) plus a
 * MetaRoceReceiver for the receiving half. It implements the verbs-like
 * RdmaConnection API and is the NIC scheduler's client for its packets.
 *
 * Sending (design decisions 1-4, 6, docs/metaroce-design.md) is split by role, as ns-3 splits
 * TcpSocketBase from TcpCongestionOps and TcpRecoveryOps:
 * - this class: posting and completions, building the packets the NIC
 *   pulls, pacing each plane to the congestion policy's rate (by default
 *   the receiver's fair-share hint from the latest ACK on that plane), the
 *   steps of an ACK, the congestion policy's calls, the traces, and the
 *   watchdog: outstanding work with no acknowledged packet for
 *   WatchdogTimeout fires the Stalled trace (connection, oldest message,
 *   the path holding the oldest unacknowledged packet, last progress time)
 *   and logs a warning, so the endpoint never hangs silently;
 * - MetaRoceSendQueue: the posted messages by stream, served round robin a
 *   chunk at a time, completions released per stream in post order;
 * - MetaRocePath: PathsPerPlane paths on every plane, each with its own UDP
 *   source port (ECMP entropy), sequence space, window, RTT estimator,
 *   retransmission timer state and ECN state;
 * - MetaRocePathSelector: which path of a plane carries its next packet;
 * - MetaRoceLossRecovery: SACK and gap detection, tail-loss timers,
 *   retransmission on the path that lost the packet, failure and repath.
 */
#ifndef METAROCE_CONNECTION_H
#define METAROCE_CONNECTION_H

#include "metaroce-ack-header.h"
#include "metaroce-data-header.h"
#include "metaroce-loss-recovery.h"
#include "metaroce-path-selector.h"
#include "metaroce-path.h"
#include "metaroce-receiver.h"
#include "metaroce-send-queue.h"
#include "nic-scheduler.h"
#include "rdma-congestion-ops.h"
#include "rdma-connection.h"
#include "ring-buffer.h"

#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <vector>

namespace ns3
{

class MetaRoceTransport;

/** Counters of one connection endpoint (sending side). */
struct MetaRoceConnectionStats
{
    uint64_t dataPackets = 0;     //!< all data packets sent, retransmissions included
    uint64_t payloadBytes = 0;    //!< payload bytes of those packets
    uint64_t retransmissions = 0; //!< gap + timeout retransmissions on the same path
    uint64_t resent = 0;          //!< packets moved to other paths after a path failure
    uint64_t rnrRetries = 0;
    uint64_t acks = 0;
    uint64_t staleAcks = 0; //!< for an old path epoch, ignored
    uint64_t acksSent = 0;
    uint64_t stalls = 0; //!< watchdog reports
};

class MetaRoceConnection : public RdmaConnection, public NicTxClient
{
  public:
    static TypeId GetTypeId();
    MetaRoceConnection();
    ~MetaRoceConnection() override;

    typedef void (*PathWindowTracedCallback)(uint32_t path, double cwnd);
    typedef void (*PathRttTracedCallback)(uint32_t path, Time rtt);
    typedef void (*PathRetransmitTracedCallback)(uint32_t path, uint32_t seq, bool timeout);
    typedef void (*PathFailedTracedCallback)(uint32_t path,
                                             uint32_t plane,
                                             uint16_t oldPort,
                                             uint16_t newPort);
    typedef void (*PlaneRateTracedCallback)(uint32_t plane, uint64_t bps);
    typedef void (*StalledTracedCallback)(uint32_t connection,
                                          uint64_t oldestWrId,
                                          int32_t path,
                                          Time lastProgress);

    /** Called by MetaRoceTransport when it creates the endpoint. */
    void Setup(Ptr<MetaRoceTransport> transport, uint32_t id, uint32_t remoteHost);

    /** Called by MetaRoceTransport::Bind. */
    void SetPeer(uint32_t remoteConnection)
    {
        m_remoteId = remoteConnection;
    }

    uint32_t GetId() const
    {
        return m_id;
    }

    uint32_t GetRemoteId() const
    {
        return m_remoteId;
    }

    // RdmaConnection
    void Post(const RdmaWorkRequest& wr) override;
    void PostRecv(const RdmaRecvRequest& rr) override;
    using RdmaConnection::PostRecv;

    uint64_t GetDeliveredBytes() const override
    {
        return m_receiver.GetStats().placedBytes;
    }

    uint64_t GetSentPackets() const override
    {
        return m_stats.dataPackets;
    }

    uint64_t GetRetransmittedPackets() const override
    {
        return m_stats.retransmissions + m_stats.resent;
    }

    // NicTxClient
    FramePayload PullPacket(uint32_t plane,
                            int64_t nowPs,
                            FrameAddress& addr,
                            int64_t& notBeforePs) override;

    /** Pacing is PullPacket's first check, and only a sending pull moves a plane's next send. */
    bool HasFirmWaits() const override
    {
        return true;
    }

    /** From the transport: a data packet for this endpoint (header removed). */
    void ReceiveData(const MetaRoceDataHeader& h,
                     const FramePayload& payload,
                     bool ce,
                     uint32_t plane,
                     uint64_t hintBps);
    /** From the transport: an ACK for this endpoint. */
    void ReceiveAck(const MetaRoceAckHeader& h, uint32_t plane);
    /** From the transport: the NIC port of \p plane went up or down. */
    void PlaneLinkChanged(uint32_t plane, bool up);

    uint32_t GetNPaths() const
    {
        return m_paths.size();
    }

    /** Consecutive paths alternate planes: path i is on plane i mod planes. */
    uint32_t GetPathPlane(uint32_t path) const
    {
        return path % m_planes.size();
    }

    uint16_t GetPathSourcePort(uint32_t path) const
    {
        return m_paths[path].srcPort;
    }

    double GetPathWindow(uint32_t path) const
    {
        return m_paths[path].cwnd;
    }

    Time GetPathSrtt(uint32_t path) const
    {
        return PicoSeconds(m_paths[path].srttPs);
    }

    bool IsPathProbing(uint32_t path) const
    {
        return m_paths[path].probing;
    }

    MetaRocePathStats GetPathStats(uint32_t path) const
    {
        return m_paths[path].GetStats();
    }

    const MetaRoceConnectionStats& GetStats() const
    {
        return m_stats;
    }

    const MetaRoceReceiverStats& GetReceiverStats() const
    {
        return m_receiver.GetStats();
    }

    double GetConnectionWindow() const
    {
        return m_cc.cwnd;
    }

    uint64_t GetPlaneRate(uint32_t plane) const
    {
        return m_planes[plane].rateBps;
    }

    uint32_t GetPayloadSize() const
    {
        return m_payloadSize;
    }

    Ptr<RdmaCongestionOps> GetCongestionOps() const
    {
        return m_ccOps;
    }

    /** Packets in flight over all paths. */
    uint32_t GetInFlight() const
    {
        return m_inFlight;
    }

    /** Invariant checks: messages not yet completed (in post order) plus receives posted. */
    int64_t GetHeldWorkRequests() const override;

  protected:
    void DoDispose() override;

  private:
    // Loss recovery works on the paths and moves what a failed path owes.
    friend class MetaRoceLossRecovery;

    MetaRocePathSelector Selector()
    {
        return MetaRocePathSelector(m_paths, m_planes);
    }

    bool HasNewData() const
    {
        return m_sendQueue.HasNewData();
    }

    /** No new packet may go: the window is full or there is nothing new to send. */
    bool NewDataBlocked() const
    {
        return m_inFlight >= std::max(1u, uint32_t(m_cc.cwnd)) || !HasNewData();
    }

    // Sending (PullPacket's steps)
    /** A probe on failed path \p pathIndex. */
    FramePayload SendProbe(uint32_t pathIndex, FrameAddress& addr, int64_t nowPs);
    /** The first lost packet still lost in path \p pathIndex's queue, or none. */
    FramePayload SendRetransmission(uint32_t pathIndex, FrameAddress& addr, int64_t nowPs);
    /** The next new chunk on a path of \p plane, or none (\p pathIndex: the path). */
    FramePayload SendNew(uint32_t plane, int32_t& pathIndex, FrameAddress& addr, int64_t nowPs);
    /** Spaces the plane's next packet after \p packet at its pacing rate. */
    void Pace(uint32_t plane, const FramePayload& packet, int64_t nowPs);
    /** The packet of \p seq on the path (header in the transport's), sent at \p nowPs. */
    FramePayload BuildPacket(const MetaRocePath& path,
                             uint32_t pathIndex,
                             uint32_t seq,
                             const MetaRoceChunkRef& ref,
                             uint8_t flags,
                             FrameAddress& addr,
                             int64_t nowPs);
    /** Line rate of the NIC port of \p plane. */
    uint64_t LineBps(uint32_t plane) const;
    void Kick();
    void KickPlane(uint32_t plane);

    // Acknowledgements (ReceiveAck's steps)
    /** The receiver's rate hint sets the plane's pacing rate (decision 4). */
    void ApplyRateHint(const MetaRoceAckHeader& h, uint32_t plane);
    /** RTT sample, echoed send time, timeout streak, end of probing. */
    void UpdatePath(const MetaRoceAckHeader& h, uint32_t pathIndex, int64_t nowPs);
    /** Receiver not ready and error NAKs of the packet the ACK answers. */
    void HandleNaks(const MetaRoceAckHeader& h, uint32_t pathIndex, int64_t nowPs);
    /** The congestion policy sees the ACK (decision 4). */
    void CongestionOnAck(uint32_t pathIndex,
                         uint32_t newly,
                         bool ecn,
                         bool pathLimited,
                         bool connLimited,
                         int64_t nowPs);
    /** The congestion policy sees \p lost packets found missing on the path. */
    void CongestionOnLoss(uint32_t pathIndex, uint32_t lost);

    // Completions
    /** Chunk \p ref arrived at the peer (inline: once per acknowledged packet). */
    void AckChunk(const MetaRoceChunkRef& ref)
    {
        const int32_t completedStream = m_sendQueue.AckChunk(ref);
        if (completedStream >= 0)
        {
            ReleaseCompletions(uint16_t(completedStream));
        }
    }

    void FailMessage(uint64_t index, RdmaStatus status);
    /** Delivers the completions of \p stream that are due, in post order. */
    void ReleaseCompletions(uint16_t stream);

    // What loss recovery's decisions imply beyond the path
    /** The path's timer expired: the congestion policy reacts. */
    void TimeoutWindow(uint32_t pathIndex);
    /** The path was declared failed and repathed from \p oldPort. */
    void PathFailed(uint32_t pathIndex, uint16_t oldPort);

    void ArmWatchdog();
    void Watchdog();
    /** The path holding the oldest unacknowledged packet, or -1. */
    int32_t StuckPath() const;

    // Time attributes, kept in picoseconds: ns-3 records every Time object
    // that exists before Simulator::Run in a set (a 48-byte node each), so
    // Time members cost 240 bytes per endpoint at set-up.
    void SetMinRto(Time t)
    {
        m_recovery.SetMinRtoPs(t.GetPicoSeconds());
    }

    Time GetMinRto() const
    {
        return PicoSeconds(m_recovery.GetMinRtoPs());
    }

    void SetMaxRto(Time t)
    {
        m_recovery.SetMaxRtoPs(t.GetPicoSeconds());
    }

    Time GetMaxRto() const
    {
        return PicoSeconds(m_recovery.GetMaxRtoPs());
    }

    void SetInitialRto(Time t)
    {
        m_recovery.SetInitialRtoPs(t.GetPicoSeconds());
    }

    Time GetInitialRto() const
    {
        return PicoSeconds(m_recovery.GetInitialRtoPs());
    }

    void SetRnrDelay(Time t)
    {
        m_recovery.SetRnrDelayPs(t.GetPicoSeconds());
    }

    Time GetRnrDelay() const
    {
        return PicoSeconds(m_recovery.GetRnrDelayPs());
    }

    void SetFailureThreshold(uint32_t n)
    {
        m_recovery.SetFailureThreshold(n);
    }

    uint32_t GetFailureThreshold() const
    {
        return m_recovery.GetFailureThreshold();
    }

    void SetWatchdogTimeout(Time t)
    {
        m_watchdogTimeoutPs = t.GetPicoSeconds();
    }

    Time GetWatchdogTimeout() const
    {
        return PicoSeconds(m_watchdogTimeoutPs);
    }

    // Members are grouped by use: a pull, an ACK and a received packet read
    // the first block, loss recovery's timer state and the receiver after
    // it, a few adjacent cache lines, instead of one line per member on a
    // fabric of thousands of connections whose state is all out of cache.

    // Hot: sending, acknowledging, receiving
    Ptr<MetaRoceTransport> m_transport;
    Ptr<NicScheduler> m_scheduler;
    Ptr<RdmaCongestionOps> m_ccOps;
    std::vector<MetaRocePath> m_paths;
    std::vector<MetaRocePlane> m_planes;
    MetaRoceSendQueue m_sendQueue;
    RdmaConnectionCc m_cc;
    uint32_t m_inFlight = 0;
    uint32_t m_schedulerIndex = 0;
    uint32_t m_id = 0;
    uint32_t m_remoteId = 0;
    uint32_t m_payloadSize;
    bool m_ecnCapable;
    bool m_payloadIntegrity;
    int64_t m_lastProgressPs = 0;
    MetaRoceConnectionStats m_stats;
    TracedCallback<uint32_t, double> m_pathWindowTrace;
    TracedCallback<uint32_t, Time> m_pathRttTrace;
    TracedCallback<double> m_connectionWindowTrace;
    MetaRoceLossRecovery m_recovery;
    MetaRoceReceiver m_receiver;

    // Configuration (attributes) the hot path does not read
    uint32_t m_pathsPerPlane;
    int64_t m_watchdogTimeoutPs;
    uint32_t m_maxMessagesAhead;
    TypeId m_ccTypeId;

    // Rare events
    EventId m_watchdog;
    TracedCallback<uint32_t, uint32_t, bool> m_retransmitTrace;
    TracedCallback<uint32_t, uint32_t, uint16_t, uint16_t> m_pathFailedTrace;
    TracedCallback<uint32_t, uint64_t> m_planeRateTrace;
    TracedCallback<uint32_t, uint64_t, int32_t, Time> m_stalledTrace;
};

} // namespace ns3

#endif
