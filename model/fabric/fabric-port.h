/*
 * FabricPort: one end of a full-duplex fabric link (switch port or NIC port).
 *
 * Egress: frames are classified by DSCP into a control class and a data
 * class, each a FIFO; the scheduler serves control strictly first (or, if
 * StrictPriority is false, the two classes in packet round robin). Admission
 * is tail drop against the port's byte limit and, on a switch, the switch's
 * shared buffer. ECN-capable frames are marked CE on enqueue with the RED
 * probability of the port's queued bytes (Kmin, Kmax, Pmax), as DCQCN's
 * congestion point does. Serialisation takes WireBytes(size)*8/DataRate,
 * then the channel adds propagation delay.
 *
 * Events: one per frame per hop, its arrival at the peer. Departures need no
 * event of their own: a port decides which frame starts next lazily, the next
 * time anything touches it (an enqueue, the arrival of its previous frame at
 * the peer, a link change, a query), choosing among the frames that were
 * already queued at that start time, so the decisions and times are those of
 * an eagerly scheduled port (docs/fabric-model.md, "lazy departures"; a test
 * compares both). Only the Dequeue trace, QueueBytes decreases and the transmit side of the
 * Sniffer fire late (at most one propagation delay); EventPerDequeue = true
 * (set by the pcap helper) makes them exact at one extra event per frame.
 * The transmitter timeline is kept in picoseconds, so serialisation never
 * drifts; event times are that timeline rounded up to the nanosecond.
 *
 * Ingress: the receive-side ErrorModel (random loss) and link state are
 * applied, then the frame goes to the owning switch or NIC.
 *
 * Priority Flow Control (IEEE 802.1Qbb, docs/fabric-model.md "PFC"): each
 * class has an 802.1p priority (DataPriority, default 3; ControlPriority,
 * default 6). With PfcEnabled the data class is lossless: a received PAUSE
 * frame (PfcPauseHeader; consumed here, never passed to the owner) stops it
 * for quanta x 512 bit times (0: resume now); frames that started before the
 * PAUSE arrived complete; control frames keep flowing. A wake-up at the
 * expiry restarts the queue at that exact picosecond and tells the owner
 * (FabricPacketSink::PortResumed). PAUSE frames the owner sends (SendPfc) go
 * out after the frame on the wire, ahead of every queued frame, outside queue
 * admission and ECN. On a switch, lossless frames are admitted by the
 * switch's per-ingress accounting (FabricPacketSink::AdmitLossless) instead
 * of the port's tail drop. With PfcEnabled false nothing of this runs: a
 * received PAUSE is counted and ignored.
 */
#ifndef METAROCE_FABRIC_PORT_H
#define METAROCE_FABRIC_PORT_H

#include "drop-reason.h"
#include "fabric-channel.h"
#include "fabric-frame.h"
#include "flagged-traced-callback.h"
#include "ring-buffer.h"
#include "shared-buffer.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <array>

namespace ns3
{

class FabricPort;
class PfcPauseHeader;

/** A switch's answer to the admission of a lossless frame (FabricPacketSink::AdmitLossless). */
enum class PfcAdmission : uint8_t
{
    Lossy,    //!< the owner runs no PFC: use the port's ordinary tail drop
    Admitted, //!< charged to its (ingress, priority), in the shared pool or the headroom
    Drop,     //!< the ingress headroom is full (DropReason::PfcHeadroom)
};

/** What owns ports and consumes the frames they receive: a switch or a NIC. */
class FabricPacketSink
{
  public:
    virtual ~FabricPacketSink() = default;
    /**
     * A frame arrived on \p port and passed the error model; \p nowPs is the
     * current time. \p info holds its forwarding fields, parsed once when it
     * entered the fabric (and updated when a port marks it CE).
     */
    virtual void ReceiveFromPort(FabricPort* port,
                                 FrameRef frame,
                                 const FrameInfo& info,
                                 int64_t nowPs) = 0;
    /** \p port's link went up or down (called at the moment it happens). */
    virtual void PortLinkChanged(FabricPort* port, bool up) {}
    /** Brings every port sharing a buffer with the caller up to date (FabricPort::Sync). */
    virtual void SyncPorts() {}
    /**
     * PFC: admits a lossless frame of \p bytes that arrived on the owner's
     * port \p ingress (FabricPort::GetSinkIndex) with \p priority, charging
     * it to that (ingress, priority) until ReleaseLossless.
     */
    virtual PfcAdmission AdmitLossless(uint32_t ingress, uint8_t priority, uint32_t bytes)
    {
        return PfcAdmission::Lossy;
    }
    /** PFC: a frame admitted by AdmitLossless left the buffer (started, or was flushed). */
    virtual void ReleaseLossless(uint32_t ingress, uint8_t priority, uint32_t bytes) {}
    /** PFC: a pause \p port obeyed ended (expired or resumed); its lossless class may send. */
    virtual void PortResumed(FabricPort* port) {}
};

/** Counters of one port; the trace sources carry the same events one by one. */
struct FabricPortStats
{
    uint64_t txPackets = 0;
    uint64_t txBytes = 0;     //!< frame bytes (headers + payload)
    uint64_t txWireBytes = 0; //!< line bytes (padding, FCS, preamble, IFG included)
    uint64_t rxPackets = 0;
    uint64_t rxBytes = 0;
    uint64_t ecnMarked = 0;
    uint32_t peakQueueBytes = 0;
    DropCounters drops{};     //!< packets dropped by this port, per reason
    // PFC. PAUSE frames are not in tx/rxPackets or tx/rxBytes; their line
    // bytes are in txWireBytes (they occupy the line).
    uint64_t pfcTxFrames = 0;  //!< PAUSE frames sent (pauses and resumes)
    uint64_t pfcRxFrames = 0;  //!< PAUSE frames received (obeyed or not)
    uint64_t pfcPausedPs = 0;  //!< time the transmitter's lossless priorities were paused,
                               //!< over finished pauses (GetPausedTime adds the current one)
};

class FabricPort : public NetDevice
{
  public:
    static constexpr uint32_t kTrafficClasses = 2;
    static constexpr uint32_t kControlClass = 0;
    static constexpr uint32_t kDataClass = 1;
    static constexpr uint32_t kPfcPriorities = 8;
    static constexpr uint32_t kNoIngress = 0xffff; //!< Enqueue from the owner itself (a NIC)

    static TypeId GetTypeId();
    FabricPort();
    ~FabricPort() override;

    typedef void (*DropTracedCallback)(Ptr<const Packet> frame, DropReason reason);
    typedef void (*PfcStateTracedCallback)(uint8_t priority, bool paused);

    /** Connects this port to one side of \p channel. */
    void Attach(Ptr<FabricChannel> channel);
    /** The switch or NIC that receives this port's frames (not owned). */
    void SetPacketSink(FabricPacketSink* sink);
    /** The switch buffer this port reserves from (nullptr: port limit only). */
    void SetSharedBuffer(Ptr<SharedBuffer> buffer);
    /** Index of this port in its owner (set by the owner; switches use it for PFC accounting). */
    void SetSinkIndex(uint32_t index) { m_sinkIndex = index; }
    uint32_t GetSinkIndex() const { return m_sinkIndex; }

    /**
     * Queues a frame for transmission (already parsed by the caller).
     * \param ingress the owner's port it arrived on (switches), kNoIngress otherwise
     * \return false if it was dropped (counted and traced here).
     */
    bool Enqueue(Ptr<Packet> frame, const FrameInfo& info, uint32_t ingress = kNoIngress);
    /** Enqueue when the caller knows the current time \p nowPs (saves asking the simulator). */
    bool EnqueueAt(const Ptr<Packet>& frame, const FrameInfo& info, uint32_t ingress, int64_t nowPs);
    /**
     * EnqueueAt of a frame already in the fabric (a switch forwarding it):
     * \p info.bytes must be its size.
     */
    bool EnqueueAt(FrameRef frame, const FrameInfo& info, uint32_t ingress, int64_t nowPs);

    /** Traffic class of a frame with this DSCP. */
    uint32_t ClassOf(uint8_t dscp) const { return dscp == m_controlDscp ? kControlClass : kDataClass; }
    /** 802.1p priority of a traffic class (DataPriority, ControlPriority). */
    uint8_t PriorityOf(uint32_t cls) const
    {
        return cls == kControlClass ? m_controlPriority : m_dataPriority;
    }
    /** Whether PFC protects this class here (PfcEnabled and the data class). */
    bool IsLossless(uint32_t cls) const { return m_pfcEnabled && cls == kDataClass; }
    bool IsPfcEnabled() const { return m_pfcEnabled; }

    /**
     * Sends a PFC frame now: after the frame on the wire, ahead of every
     * queued frame (no admission, no ECN). The source MAC is this port's.
     */
    void SendPfc(PfcPauseHeader header);
    /** SendPfc of a frame pausing (or, with quanta 0, resuming) one priority. */
    void SendPfc(uint8_t priority, uint16_t quanta);
    /** Picoseconds of \p quanta pause quanta (512 bit times each) at this port's rate. */
    uint64_t PauseQuantaPs(uint32_t quanta) const;
    /** Whether a received pause stops \p priority now. */
    bool IsPaused(uint8_t priority) const;
    /** Whether a class is paused now (NIC schedulers check it before handing data over). */
    bool IsClassPaused(uint32_t cls) const;
    /** IsClassPaused when the caller knows the current time \p nowPs. */
    bool IsClassPausedAt(uint32_t cls, int64_t nowPs) const { return m_classPausedUntilPs[cls] > nowPs; }
    /** Total time this transmitter's lossless priorities have been paused, up to now. */
    Time GetPausedTime() const;
    /**
     * While on, the port schedules an event at every frame start (as
     * EventPerDequeue does), so its owner sees departures on time; a switch
     * turns it on while one of its ingresses is in XOFF (exact XON).
     */
    void SetTrackDepartures(bool on);
    /** Lossless frame bytes queued here that arrived on the owner's port \p ingress. */
    uint32_t GetLosslessBytesFrom(uint32_t ingress);

    /**
     * Called by the channel: a frame's last bit arrived at \p nowPs (the
     * current time). \p epoch is the link epoch at send time.
     */
    void Receive(FrameRef frame, const FrameInfo& info, uint32_t epoch, int64_t nowPs);
    /**
     * Asks the CPU to fetch the state a hop reads (the first member block)
     * without waiting for it: the channel calls it for both ends of a link
     * as a frame arrives, so the two ports' cache misses overlap.
     */
    void PrefetchHopState() const
    {
        const char* hot = reinterpret_cast<const char*>(&m_queues);
        __builtin_prefetch(hot);
        __builtin_prefetch(hot + 64);
        __builtin_prefetch(hot + 128);
    }
    /** Starts every frame whose start time has come (see "lazy departures"). */
    void Sync();
    /** Sync when the caller knows the current time \p nowPs. */
    void SyncAt(int64_t nowPs) { CatchUp(nowPs); }
    /** Called by the channel when the link changes state. */
    void LinkStateChanged(bool up);

    /** Picoseconds to serialise a frame of \p packetBytes at this port's rate. */
    uint64_t TransmissionPs(uint32_t packetBytes) const;

    DataRate GetDataRate() const { return m_rate; }
    /** The line rate in bit/s (GetDataRate().GetBitRate() without the library call). */
    uint64_t GetBitRate() const { return m_bps; }
    /** Sets the line rate (the DataRate attribute). */
    void SetDataRate(DataRate rate);
    /** Frame bytes queued now (after starting what is due). */
    uint32_t GetQueueBytes();
    uint32_t GetQueuePackets();
    /**
     * Picoseconds at which the transmitter will have sent everything queued
     * now (the current time if idle), and a data frame handed over now could
     * start: never before a pause of its class expires. A NIC scheduler hands
     * the port its next frame then, so the NIC queue stays empty and the port
     * never idles.
     */
    int64_t GetIdlePs();
    /** GetIdlePs when the caller knows the current time \p nowPs. */
    int64_t GetIdlePsAt(int64_t nowPs);
    const FabricPortStats& GetStats() const { return m_stats; }
    Ptr<FabricChannel> GetFabricChannel() const { return m_channel; }
    /** The port at the other end of the link (nullptr if unattached). */
    Ptr<FabricPort> GetPeer() const;

    /** RED marking probability for a queue of \p queueBytes (0 below Kmin, 1 at Kmax). */
    double EcnMarkProbability(uint32_t queueBytes) const;

    /** Fixes the random stream of the ECN marker; returns streams used. */
    int64_t AssignStreams(int64_t stream);

    /** Counts and traces a drop at this port (also used by its owner, e.g. no route at ingress). */
    void RecordDrop(Ptr<const Packet> frame, DropReason reason);
    /** RecordDrop of a frame in the fabric (reads the Packet only if the trace is connected). */
    void RecordDrop(const FrameRef& frame, DropReason reason);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    /** Sends a complete Ethernet/IPv4/UDP frame (as built by BuildFrame). */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;

  private:
    /** Where a queued frame is charged (released when it starts or is flushed). */
    enum Charge : uint8_t
    {
        kChargeNone = 0, //!< nowhere (NIC port)
        kChargePool,     //!< the switch's shared pool (lossy, tail drop)
        kChargeLossless, //!< the switch's PFC accounting of (ingress, priority)
    };

    struct Queued
    {
        FrameRef frame;
        FrameInfo info;    //!< its forwarding fields (and size), handed to the next hop with it
        uint16_t ingress;  //!< owner's port it arrived on (kChargeLossless)
        uint8_t priority;  //!< its PFC priority (kChargeLossless)
        uint8_t charge;    //!< Charge
        int64_t enqueuedPs;
    };

    /** Picoseconds to serialise \p wireBytes line bytes. */
    uint64_t LinePs(uint64_t wireBytes) const;
    /** Starts, in order, every frame whose start time is at or before \p nowPs. */
    void CatchUp(int64_t nowPs);
    /** Class to serve at \p startPs among frames queued by then; -1 if none. */
    int32_t PickClass(int64_t startPs) const;
    /** Puts the head of class \p cls on the wire at \p startPs (the time is \p nowPs). */
    void Commit(uint32_t cls, int64_t startPs, int64_t nowPs);
    /** Sets the queued bytes, firing the QueueBytes trace if anyone listens. */
    void SetQueueBytes(uint32_t bytes)
    {
        if (m_hopTraced && !m_queueBytesTrace.IsEmpty())
        {
            m_queueBytesTrace(m_queueBytes, bytes);
        }
        m_queueBytes = bytes;
    }
    /** EventPerDequeue: a wake-up at the end of the current frame. */
    void ArmWake();
    void Wake();
    uint32_t QueuedPackets() const;
    void Flush(DropReason reason);
    /** Gives back a started or flushed frame's buffer charge. */
    void ReleaseCharge(const Queued& q);
    /** Consumes a received PFC frame; false if \p frame is not one. */
    bool ReceivePfc(Ptr<Packet> frame);
    /** Ends the pauses whose time is up at \p nowPs; true if any ended. */
    bool ExpirePauses(int64_t nowPs);
    void EndPause(uint8_t priority, int64_t endPs);
    /** Recomputes the per-class pause ends from the per-priority ones. */
    void UpdateClassPauses();
    /** Schedules the wake-up at the earliest pause expiry (one per pause episode). */
    void ArmPauseWake();
    void PauseWake();

    // Members are grouped by use: a frame's hop touches the first block (and
    // the port's stats and the traces it checks), so those few cache lines
    // are all a hop misses on a fabric too large for the cache.

    // Hot: egress state and what every enqueue, start and arrival reads
    std::array<RingBuffer<Queued, true>, kTrafficClasses> m_queues;
    std::array<uint64_t, kTrafficClasses> m_queuedPs{}; //!< serialisation time of each class's queue
    std::array<int64_t, kTrafficClasses> m_classPausedUntilPs{}; //!< 0 when PFC is off
    int64_t m_txFreePs = 0;    //!< end of the last frame put on the wire (exact, ps)
    static constexpr uint64_t kBitPs = 8'000'000'000'000ULL; //!< ps in 8 s: ps per byte at 1 b/s
    uint64_t m_psPerByte = 0;              //!< exact ps per byte, 0 if not an integer
    uint64_t m_bps = 1;                    //!< m_rate in bit/s
    Ptr<FabricChannel> m_channel;
    FabricPacketSink* m_sink = nullptr;
    Ptr<SharedBuffer> m_sharedBuffer;
    Ptr<ErrorModel> m_receiveErrorModel;
    uint32_t m_queueBytes = 0;
    uint32_t m_maxQueueBytes;
    uint32_t m_interframeBytes;
    uint32_t m_kminBytes;
    uint32_t m_kmaxBytes;
    uint32_t m_rrNext = 0;     //!< next class to serve in round robin
    double m_pmax;
    bool m_linkUp = false;
    bool m_ecnEnabled;
    bool m_strictPriority;
    bool m_eventPerDequeue;
    bool m_trackDepartures = false;        //!< SetTrackDepartures
    bool m_pfcEnabled;
    bool m_hopTraced = false; //!< something connected to a trace a hop checks
    uint8_t m_controlDscp;
    uint8_t m_dataPriority;
    uint8_t m_controlPriority;

    FabricPortStats m_stats;

    // The traces a hop checks (fired only when connected; their lists are
    // read only once m_hopTraced is set)
    FlaggedTracedCallback<Ptr<const Packet>> m_enqueueTrace{&m_hopTraced};
    FlaggedTracedCallback<Ptr<const Packet>> m_dequeueTrace{&m_hopTraced};
    FlaggedTracedCallback<Ptr<const Packet>> m_snifferTrace{&m_hopTraced};
    FlaggedTracedCallback<Ptr<const Packet>> m_macRxTrace{&m_hopTraced};
    //! QueueBytes: (old, new)
    FlaggedTracedCallback<uint32_t, uint32_t> m_queueBytesTrace{&m_hopTraced};

    // Configuration (attributes) and wiring the hot path does not read
    DataRate m_rate;
    uint16_t m_mtu;
    Ptr<Node> m_node;
    uint32_t m_sinkIndex = 0;
    Mac48Address m_address;
    uint32_t m_ifIndex = 0;
    TracedCallback<> m_linkChangeCallbacks;
    Ptr<UniformRandomVariable> m_ecnRng;
    EventId m_wake;            //!< EventPerDequeue only

    // PFC: pauses received (this transmitter obeys them)
    std::array<int64_t, kPfcPriorities> m_pausedUntilPs{};  //!< exact end of the pause, ps
    std::array<int64_t, kPfcPriorities> m_pauseStartPs{};   //!< start of the current episode
    std::array<bool, kPfcPriorities> m_pauseActive{};       //!< an episode is open
    EventId m_pauseWake;
    int64_t m_pauseWakePs = 0;

    TracedCallback<Ptr<const Packet>, DropReason> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;
    TracedCallback<Ptr<const Packet>> m_pfcTxTrace;
    TracedCallback<Ptr<const Packet>> m_pfcRxTrace;
    TracedCallback<uint8_t, bool> m_pfcStateTrace;

  public:
    // Read-only views for the end-of-simulation invariant checks
    // (helper/fabric-invariants.cc). None of them brings the port up to date.

    /**
     * Calls f(cls, bytes, ingress, priority, pool, lossless) for every queued
     * frame of traffic class \p cls: \p pool if it is charged to the switch's
     * shared pool, \p lossless if to the switch's PFC accounting of
     * (\p ingress, \p priority).
     */
    template <typename F>
    void ForEachQueued(F&& f) const
    {
        for (uint32_t cls = 0; cls < kTrafficClasses; ++cls)
        {
            const auto& queue = m_queues[cls];
            for (size_t i = 0; i < queue.size(); ++i)
            {
                const Queued& q = queue[i];
                f(cls, q.info.bytes, uint32_t(q.ingress), q.priority, q.charge == kChargePool,
                  q.charge == kChargeLossless);
            }
        }
    }
    /** The serialisation time of class \p cls's queue as the port counts it (ps). */
    uint64_t PeekQueuedPs(uint32_t cls) const { return m_queuedPs[cls]; }
    /** The queued-bytes counter as it stands (GetQueueBytes without the Sync). */
    uint32_t PeekQueueBytes() const { return m_queueBytes; }
    /** Whether a pause episode of \p priority is open (from its PAUSE until its end). */
    bool IsPauseOpen(uint8_t priority) const { return m_pauseActive[priority]; }
    /** Start of the open pause episode of \p priority (ps). */
    int64_t GetPauseStartPs(uint8_t priority) const { return m_pauseStartPs[priority]; }
    /** End of the pause of \p priority (ps): set by the last PAUSE, or when it ended. */
    int64_t GetPausedUntilPs(uint8_t priority) const { return m_pausedUntilPs[priority]; }
    /** The exact expiry the pending pause wake-up serves (ps); -1 if none is pending. */
    int64_t GetPauseWakePs() const { return m_pauseWake.IsRunning() ? m_pauseWakePs : -1; }
    /** Whether SetTrackDepartures is on. */
    bool IsTrackingDepartures() const { return m_trackDepartures; }
};

} // namespace ns3

#endif
