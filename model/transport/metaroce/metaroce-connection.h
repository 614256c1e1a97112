/*
 * MetaRoceConnection: one endpoint of a MetaRoCE connection, the sending half
 * (streams above, paths below, one congestion controller) plus a
 * MetaRoceReceiver for the receiving half. It implements the verbs-like
 * RdmaConnection API.
 *
 * Sending (METAROCE.md decisions 1-4, 6):
 * - Streams: each posted Write/Send gets the next message sequence of its
 *   stream; streams are served round robin, a packet at a time, so one
 *   stream's long message does not hold up another's; completions are
 *   released per stream in post order.
 * - Paths: PathsPerPlane paths on every plane of the NIC, each with its own
 *   UDP source port (ECMP entropy), sequence space, window, RTT estimate,
 *   retransmission timer and ECN state. A path never has more than 256
 *   packets between its oldest unacknowledged one and its next (the SACK
 *   bitmap). The NIC scheduler pulls a packet per plane when the port is
 *   free; the connection picks a path of that plane with window room,
 *   preferring paths with no recent ECN echo ("new packets go to clear
 *   paths"), round robin among equals.
 * - Loss: one path is one FIFO route, so a packet is lost when an ACK
 *   echoes the timestamp of a packet sent after it on the same path while it
 *   is still missing (no duplicate-ACK threshold: "the moment the gap
 *   appears"). Exactly that packet is retransmitted, on the same path, once
 *   per detection. Tail loss: the path's timer (each path has its own
 *   deadline; one connection event serves the earliest) (RTO = srtt + 4 rttvar,
 *   bounded by MinRto/MaxRto, doubled per consecutive timeout) retransmits
 *   the oldest missing packet. FailureThreshold consecutive timeouts declare
 *   the path failed: its outstanding packets move to the connection's resend
 *   queue (any healthy path), it takes a new source port and epoch (repath)
 *   and carries one probe packet at a time until an ACK comes back.
 * - Rates: each plane is paced to the congestion policy's rate (by default
 *   the receiver's fair-share hint from the latest ACK on that plane).
 * - Watchdog: a connection with outstanding work and no acknowledged packet
 *   for WatchdogTimeout fires the Stalled trace (connection, oldest message,
 *   the path holding the oldest unacknowledged packet, last progress time)
 *   and logs a warning; it never hangs silently.
 */
#ifndef METAROCE_CONNECTION_H
#define METAROCE_CONNECTION_H

#include "metaroce-ack-header.h"
#include "rdma-congestion-ops.h"
#include "metaroce-data-header.h"
#include "metaroce-receiver.h"
#include "nic-scheduler.h"
#include "rdma-connection.h"
#include "ring-buffer.h"

#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace ns3
{

class MetaRoceTransport;

/** Counters of one path (all epochs). */
struct MetaRocePathStats
{
    uint64_t sent = 0;          //!< data packets, first transmissions
    uint64_t retransmitted = 0; //!< on this path after a gap in its bitmap
    uint64_t timeoutRetransmitted = 0; //!< on this path after its timer expired
    uint64_t timeouts = 0;
    uint64_t failures = 0;      //!< times declared failed (each a repath)
    uint64_t acked = 0;         //!< packets newly acknowledged
    uint64_t ecnEchoes = 0;
    uint64_t lost = 0;          //!< packets found missing from the bitmap
    uint64_t probes = 0;        //!< payload-less probes sent while failed
};

/** Counters of one connection endpoint (sending side). */
struct MetaRoceConnectionStats
{
    uint64_t dataPackets = 0;   //!< all data packets sent, retransmissions included
    uint64_t payloadBytes = 0;  //!< payload bytes of those packets
    uint64_t retransmissions = 0; //!< gap + timeout retransmissions on the same path
    uint64_t resent = 0;        //!< packets moved to other paths after a path failure
    uint64_t rnrRetries = 0;
    uint64_t acks = 0;
    uint64_t staleAcks = 0;     //!< for an old path epoch, ignored
    uint64_t acksSent = 0;
    uint64_t stalls = 0;        //!< watchdog reports
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
    typedef void (*PathFailedTracedCallback)(uint32_t path, uint32_t plane, uint16_t oldPort,
                                             uint16_t newPort);
    typedef void (*PlaneRateTracedCallback)(uint32_t plane, uint64_t bps);
    typedef void (*StalledTracedCallback)(uint32_t connection, uint64_t oldestWrId,
                                          int32_t path, Time lastProgress);

    /** Called by MetaRoceTransport when it creates the endpoint. */
    void Setup(Ptr<MetaRoceTransport> transport, uint32_t id, uint32_t remoteHost);
    /** Called by MetaRoceTransport::Bind. */
    void SetPeer(uint32_t remoteConnection) { m_remoteId = remoteConnection; }
    uint32_t GetId() const { return m_id; }
    uint32_t GetRemoteId() const { return m_remoteId; }

    // RdmaConnection
    void Post(const RdmaWorkRequest& wr) override;
    void PostRecv(const RdmaRecvRequest& rr) override;
    using RdmaConnection::PostRecv;

    uint64_t GetDeliveredBytes() const override { return m_receiver.GetStats().placedBytes; }
    uint64_t GetSentPackets() const override { return m_stats.dataPackets; }
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
    bool HasFirmWaits() const override { return true; }

    /** From the transport: a data packet for this endpoint (header removed). */
    void ReceiveData(const MetaRoceDataHeader& h, const FramePayload& payload, bool ce, uint32_t plane,
                     uint64_t hintBps);
    /** From the transport: an ACK for this endpoint. */
    void ReceiveAck(const MetaRoceAckHeader& h, uint32_t plane);
    /** From the transport: the NIC port of \p plane went up or down. */
    void PlaneLinkChanged(uint32_t plane, bool up);

    uint32_t GetNPaths() const { return m_paths.size(); }
    /** Consecutive paths alternate planes: path i is on plane i mod planes. */
    uint32_t GetPathPlane(uint32_t path) const { return path % m_planes.size(); }
    uint16_t GetPathSourcePort(uint32_t path) const { return m_paths[path].srcPort; }
    double GetPathWindow(uint32_t path) const { return m_paths[path].cwnd; }
    Time GetPathSrtt(uint32_t path) const { return PicoSeconds(m_paths[path].srttPs); }
    bool IsPathProbing(uint32_t path) const { return m_paths[path].probing; }
    MetaRocePathStats GetPathStats(uint32_t path) const;
    const MetaRoceConnectionStats& GetStats() const { return m_stats; }
    const MetaRoceReceiverStats& GetReceiverStats() const { return m_receiver.GetStats(); }
    double GetConnectionWindow() const { return m_cc.cwnd; }
    uint64_t GetPlaneRate(uint32_t plane) const { return m_planes[plane].rateBps; }
    uint32_t GetPayloadSize() const { return m_payloadSize; }
    Ptr<RdmaCongestionOps> GetCongestionOps() const { return m_ccOps; }
    /** Packets in flight over all paths. */
    uint32_t GetInFlight() const { return m_inFlight; }

  protected:
    void DoDispose() override;

  private:
    enum class TxState : uint8_t
    {
        InFlight,
        Acked,
        Lost,    //!< found missing, waiting in the path's retransmit queue
        RnrWait, //!< the receiver had no receive posted: retried after RnrDelay
    };

    /** ChunkRef::message of a probe (no data). */
    static constexpr uint64_t kProbe = UINT64_MAX;

    /** A chunk of a message: the unit a packet carries. */
    struct ChunkRef
    {
        uint64_t message = 0; //!< connection-wide message index
        uint32_t chunk = 0;
    };

    struct TxRecord
    {
        ChunkRef ref;
        int64_t sentPs = 0;
        TxState state = TxState::InFlight;
        bool byTimeout = false; //!< Lost because the path's timer expired
    };

    /**
     * What a path holds only while something is outstanding on it: allocated
     * by its first packet, released as soon as every field is back at its
     * default (nothing unacknowledged, no retransmission queued, timer idle,
     * no timeout streak), so an idle path costs a null pointer (issue 6).
     */
    struct PathFlight
    {
        RingBuffer<TxRecord, true> records; //!< sequences [una, nextSeq); array kept (FlightPool)
        RingBuffer<uint32_t> retx;    //!< sequences found lost, oldest first
        int64_t maxEchoPs = -1;       //!< latest send time an ACK has echoed (this epoch)
        int64_t rtoDeadlinePs = 0;    //!< 0: timer idle
        uint32_t inFlight = 0;
        uint32_t consecutiveTimeouts = 0;
        uint32_t backoff = 1;
    };

    /**
     * What a path holds only after a rare event (an ECN echo, a loss, a
     * timeout, a failure) or with a congestion policy that keeps a rate or
     * extra state: allocated then, kept.
     */
    struct PathCold
    {
        int64_t lastEcnPs = INT64_MIN / 2;
        int64_t lastDecreasePs = INT64_MIN / 2; //!< RdmaFlowCc::lastDecreasePs
        uint64_t rateBps = 0;                   //!< RdmaFlowCc::rateBps
        std::unique_ptr<RdmaCcExtra> extra;     //!< RdmaFlowCc::extra
        // MetaRocePathStats, 32 bits: a path wraps after 4 G events
        uint32_t retransmitted = 0;
        uint32_t timeoutRetransmitted = 0;
        uint32_t timeouts = 0;
        uint32_t failures = 0;
        uint32_t ecnEchoes = 0;
        uint32_t lost = 0;
        uint32_t probes = 0;
    };

    /**
     * A path, 56 bytes. Its plane is its index modulo the planes; its oldest
     * unacknowledged sequence is nextSeq minus the records outstanding; the
     * congestion policy sees an RdmaFlowCc assembled from cwnd, the plane's
     * line rate and the cold part (WithFlowCc).
     */
    struct Path
    {
        double cwnd = 1; //!< RdmaFlowCc::cwnd
        int64_t srttPs = 0;
        int64_t rttvarPs = 0;
        std::unique_ptr<PathFlight> flight; //!< null: nothing outstanding
        std::unique_ptr<PathCold> cold;     //!< null: no rare event yet
        uint32_t nextSeq = 0;
        uint32_t sent = 0;  //!< MetaRocePathStats::sent (32 bits)
        uint32_t acked = 0; //!< MetaRocePathStats::acked (32 bits)
        uint16_t srcPort = 0;
        uint8_t epoch = 0;
        bool probing = false;
    };

    struct TxMessage
    {
        RdmaWorkRequest wr;
        uint32_t messageSeq = 0;
        uint32_t sendSeq = 0;
        uint32_t chunks = 0;
        uint32_t nextChunk = 0;    //!< first chunk never sent
        uint32_t ackedChunks = 0;
        std::vector<uint64_t> ackedBits;
        RdmaStatus status = RdmaStatus::Success;
        bool done = false;
        bool released = false;
        Time posted;
    };

    struct TxStream
    {
        uint32_t nextMessageSeq = 0;
        uint32_t nextSendSeq = 0;
        RingBuffer<uint64_t> unsent; //!< messages with chunks never sent, in post order
        RingBuffer<uint64_t> order;  //!< messages not yet completed, in post order
        bool active = false;         //!< in m_activeStreams
    };

    /** A plane; its paths are plane, plane + planes, plane + 2 planes, ... */
    struct PlaneState
    {
        uint64_t rateBps = 0;
        int64_t nextSendPs = 0; //!< pacing
        uint32_t rrNext = 0;    //!< round robin over the plane's paths
        /**
         * False only when no path of the plane is probing or has a
         * retransmission queued (PlaneHasPathWork), so a pull need not read
         * every path of the plane: set by whatever gives a path such work
         * (MarkPathWork), recomputed by the next pull.
         */
        bool pathWork = false;
    };

    TxMessage& Message(uint64_t index) { return m_messages[index - m_messageBase]; }
    bool HasNewData() const { return !m_resend.empty() || !m_activeStreams.empty(); }
    /** No new packet may go: the window is full or there is nothing new to send. */
    bool NewDataBlocked() const
    {
        return m_inFlight >= std::max(1u, uint32_t(m_cc.cwnd)) || !HasNewData();
    }
    /** Takes the next chunk to send as new data (resend queue first); false if none. */
    bool NextChunk(ChunkRef& ref);
    /** The packet of \p seq on the path (header in the transport's), sent at \p nowPs. */
    FramePayload BuildPacket(Path& path,
                             uint32_t pathIndex,
                             uint32_t seq,
                             const ChunkRef& ref,
                             uint8_t flags,
                             FrameAddress& addr,
                             int64_t nowPs);
    int32_t ChoosePath(uint32_t plane, bool forRetransmit, int64_t nowPs);
    /** Whether a path of \p plane is probing or has a retransmission queued. */
    bool PlaneHasPathWork(uint32_t plane) const;
    /** Path \p pathIndex is probing or has a retransmission queued now. */
    void MarkPathWork(uint32_t pathIndex);
    bool HasRoom(const Path& p) const;
    /** Line rate of the NIC port of \p plane. */
    uint64_t LineBps(uint32_t plane) const;
    /**
     * Spare in-flight parts. A window-limited path goes idle (ReleaseIfIdle)
     * at nearly every ACK and busy again at its next packet; a bounded pool
     * of parts, their record arrays kept, saves two allocations per packet
     * and holds at most kFlightPoolSize parts (per thread, not per
     * connection). Off under AddressSanitizer, which must see each lifetime.
     */
    struct FlightPool
    {
        static constexpr size_t kFlightPoolSize = 256;
        std::vector<PathFlight*> spare;
        ~FlightPool();
    };
    static FlightPool& Pool();
    /** The path's in-flight part, allocated if it has none. */
    static PathFlight& Flight(Path& p);
    /** The path's cold part, allocated if it has none. */
    static PathCold& Cold(Path& p);
    /** Releases the in-flight part once it holds only defaults. */
    static void ReleaseIfIdle(Path& p);
    static uint32_t Outstanding(const Path& p) { return p.flight ? p.flight->records.size() : 0; }
    static uint32_t Una(const Path& p) { return p.nextSeq - Outstanding(p); }
    static uint32_t InFlight(const Path& p) { return p.flight ? p.flight->inFlight : 0; }
    /** Calls \p f with the path's congestion state as an RdmaFlowCc, then stores it back. */
    template <typename F>
    void WithFlowCc(Path& p, uint32_t pathIndex, F f);
    void AckChunk(const ChunkRef& ref);
    void FailMessage(uint64_t index, RdmaStatus status);
    void ReleaseCompletions(uint16_t stream);
    void UpdateRtt(Path& p, int64_t samplePs);
    int64_t RtoPs(const Path& p) const;
    void ArmRto(uint32_t pathIndex);
    void RtoTimer();
    void PathTimeout(uint32_t pathIndex);
    void FailPath(uint32_t pathIndex);
    void RnrTimer();
    void Kick();
    void KickPlane(uint32_t plane);
    void ArmWatchdog();
    void Watchdog();
    void SendAck(MetaRoceAckHeader& ack, uint32_t plane, uint16_t srcPort);

    // Time attributes, kept in picoseconds: ns-3 records every Time object
    // that exists before Simulator::Run in a set (a 48-byte node each), so
    // Time members cost 240 bytes per endpoint at set-up.
    void SetMinRto(Time t) { m_minRtoPs = t.GetPicoSeconds(); }
    Time GetMinRto() const { return PicoSeconds(m_minRtoPs); }
    void SetMaxRto(Time t) { m_maxRtoPs = t.GetPicoSeconds(); }
    Time GetMaxRto() const { return PicoSeconds(m_maxRtoPs); }
    void SetInitialRto(Time t) { m_initialRtoPs = t.GetPicoSeconds(); }
    Time GetInitialRto() const { return PicoSeconds(m_initialRtoPs); }
    void SetRnrDelay(Time t) { m_rnrDelayPs = t.GetPicoSeconds(); }
    Time GetRnrDelay() const { return PicoSeconds(m_rnrDelayPs); }
    void SetWatchdogTimeout(Time t) { m_watchdogTimeoutPs = t.GetPicoSeconds(); }
    Time GetWatchdogTimeout() const { return PicoSeconds(m_watchdogTimeoutPs); }

    // Members are grouped by use (issue 6): a pull, an ACK and a received
    // packet read the first block and the receiver after it, a few adjacent
    // cache lines, instead of one line per member on a fabric of thousands
    // of connections whose state is all out of cache.

    // Hot: sending, acknowledging, receiving
    Ptr<MetaRoceTransport> m_transport;
    Ptr<NicScheduler> m_scheduler;
    Ptr<RdmaCongestionOps> m_ccOps;
    std::vector<Path> m_paths;
    std::vector<PlaneState> m_planes;
    RingBuffer<TxMessage> m_messages;
    uint64_t m_messageBase = 0; //!< index of m_messages.front()
    RingBuffer<uint16_t> m_activeStreams; //!< streams with unsent chunks, round robin
    RingBuffer<ChunkRef> m_resend;        //!< from failed paths, any path may take them
    std::vector<TxStream> m_streams;
    RdmaConnectionCc m_cc;
    uint32_t m_inFlight = 0;
    uint32_t m_schedulerIndex = 0;
    uint32_t m_id = 0;
    uint32_t m_remoteId = 0;
    uint32_t m_payloadSize;
    bool m_ecnCapable;
    bool m_payloadIntegrity;
    int64_t m_rtoEventPs = 0; //!< when m_rtoEvent fires; 0: not scheduled
    int64_t m_lastProgressPs = 0;
    int64_t m_minRtoPs;
    int64_t m_maxRtoPs;
    uint64_t m_outstandingMessages = 0;
    MetaRoceConnectionStats m_stats;
    TracedCallback<uint32_t, double> m_pathWindowTrace;
    TracedCallback<uint32_t, Time> m_pathRttTrace;
    TracedCallback<double> m_connectionWindowTrace;
    MetaRoceReceiver m_receiver;

    // Configuration (attributes) the hot path does not read
    uint32_t m_pathsPerPlane;
    int64_t m_initialRtoPs;
    uint32_t m_failureThreshold;
    int64_t m_rnrDelayPs;
    int64_t m_watchdogTimeoutPs;
    uint32_t m_maxMessagesAhead;
    TypeId m_ccTypeId;

    // Rare events
    struct RnrEntry
    {
        int64_t readyPs;
        uint32_t path;
        uint8_t epoch;
        uint32_t seq;
    };
    RingBuffer<RnrEntry> m_rnrWait; //!< packets the receiver was not ready for, by ready time
    EventId m_rnrEvent;
    EventId m_rtoEvent;      //!< one retransmission timer for all paths
    EventId m_watchdog;

    TracedCallback<uint32_t, uint32_t, bool> m_retransmitTrace;
    TracedCallback<uint32_t, uint32_t, uint16_t, uint16_t> m_pathFailedTrace;
    TracedCallback<uint32_t, uint64_t> m_planeRateTrace;
    TracedCallback<uint32_t, uint64_t, int32_t, Time> m_stalledTrace;

  public:
    /** Invariant checks: messages not yet completed (in post order) plus receives posted. */
    int64_t GetHeldWorkRequests() const override
    {
        uint64_t n = m_receiver.GetPostedReceives();
        for (const auto& s : m_streams)
        {
            n += s.order.size();
        }
        return int64_t(n);
    }
};

} // namespace ns3

#endif
