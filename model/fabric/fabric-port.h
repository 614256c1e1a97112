/*
 * FabricPort: one end of a full-duplex fabric link (switch port or NIC port),
 * the NetDevice and its transmitter's timeline. It holds, by value so that a
 * hop touches few cache lines, the parts that decide what it sends:
 *  - FabricEgressQueue: DSCP classes (control, data), their FIFOs and the
 *    scheduler between them (strict priority or packet round robin);
 *  - FabricBufferAdmission: tail drop against MaxQueueBytes and the switch's
 *    shared buffer, or the switch's PFC accounting for lossless frames;
 *  - RedEcnMarker: ECN-capable frames are marked CE on enqueue with the RED
 *    probability of the port's queued bytes (Kmin, Kmax, Pmax), as DCQCN's
 *    congestion point does;
 *  - PfcPauseState: the pauses this transmitter obeys.
 * Their settings are attributes of ns3::FabricPort, which forwards them.
 * Serialisation takes WireBytes(size)*8/DataRate, then the channel adds
 * propagation delay.
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
#include "fabric-buffer-admission.h"
#include "fabric-channel.h"
#include "fabric-egress-queue.h"
#include "fabric-frame.h"
#include "fabric-packet-sink.h"
#include "flagged-traced-callback.h"
#include "pfc-pause-state.h"
#include "red-ecn-marker.h"
#include "shared-buffer.h"

#include "ns3/assert.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/simulator.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <array>

namespace ns3
{

class FabricPort;
class PfcPauseHeader;

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
    DropCounters drops{}; //!< packets dropped by this port, per reason
    // PFC. PAUSE frames are not in tx/rxPackets or tx/rxBytes; their line
    // bytes are in txWireBytes (they occupy the line).
    uint64_t pfcTxFrames = 0; //!< PAUSE frames sent (pauses and resumes)
    uint64_t pfcRxFrames = 0; //!< PAUSE frames received (obeyed or not)
    uint64_t pfcPausedPs = 0; //!< time the transmitter's lossless priorities were paused,
                              //!< over finished pauses (GetPausedTime adds the current one)
};

class FabricPort : public NetDevice
{
  public:
    static constexpr uint32_t kTrafficClasses = FabricEgressQueue::kClasses;
    static constexpr uint32_t kControlClass = FabricEgressQueue::kControlClass;
    static constexpr uint32_t kDataClass = FabricEgressQueue::kDataClass;
    static constexpr uint32_t kPfcPriorities = PfcPauseState::kPriorities;
    static constexpr uint32_t kNoIngress = 0xffff; //!< Enqueue from the owner itself (a NIC)

    static TypeId GetTypeId();
    FabricPort();
    ~FabricPort() override;

    typedef void (*DropTracedCallback)(Ptr<const Packet> frame, DropReason reason);
    typedef void (*PfcStateTracedCallback)(uint8_t priority, bool paused);

    // Operations that depend on the time take it as their last argument,
    // \p nowPs, which must be the current time: callers that run in an
    // event knowing it (a frame's arrival, a NIC's send) pass it on, the
    // others leave the default, the simulator's clock.

    /** Connects this port to one side of \p channel. */
    void Attach(Ptr<FabricChannel> channel);
    /** The switch or NIC that receives this port's frames (not owned). */
    void SetPacketSink(FabricPacketSink* sink);
    /** The switch buffer this port reserves from (nullptr: port limit only). */
    void SetSharedBuffer(Ptr<SharedBuffer> buffer);

    /** Index of this port in its owner (set by the owner; switches use it for PFC accounting). */
    void SetSinkIndex(uint32_t index)
    {
        m_sinkIndex = index;
    }

    uint32_t GetSinkIndex() const
    {
        return m_sinkIndex;
    }

    /**
     * Queues a frame for transmission (already parsed by the caller):
     * \p info.bytes must be its size.
     * \param ingress the owner's port it arrived on (switches), kNoIngress otherwise
     * \return false if it was dropped (counted and traced here).
     */
    bool Enqueue(FrameRef frame,
                 const FrameInfo& info,
                 uint32_t ingress = kNoIngress,
                 int64_t nowPs = CurrentPs());

    /** Enqueue of a frame held as a Packet. */
    bool Enqueue(const Ptr<Packet>& frame,
                 const FrameInfo& info,
                 uint32_t ingress = kNoIngress,
                 int64_t nowPs = CurrentPs())
    {
        NS_ASSERT_MSG(info.bytes == frame->GetSize(), "FabricPort::Enqueue: wrong info.bytes");
        return Enqueue(FrameRef(frame), info, ingress, nowPs);
    }

    /** Traffic class of a frame with this DSCP. */
    uint32_t ClassOf(uint8_t dscp) const
    {
        return m_queue.ClassOf(dscp);
    }

    /** 802.1p priority of a traffic class (DataPriority, ControlPriority). */
    uint8_t PriorityOf(uint32_t cls) const
    {
        return m_queue.PriorityOf(cls);
    }

    /** Whether PFC protects this class here (PfcEnabled and the data class). */
    bool IsLossless(uint32_t cls) const
    {
        return m_queue.IsLossless(cls);
    }

    bool IsPfcEnabled() const
    {
        return m_queue.IsPfcEnabled();
    }

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
    bool IsPaused(uint8_t priority) const
    {
        return m_pfc.IsPaused(priority, CurrentPs());
    }

    /** Whether a class is paused (NIC schedulers check it before handing data over). */
    bool IsClassPaused(uint32_t cls, int64_t nowPs = CurrentPs()) const
    {
        return m_queue.IsPaused(cls, nowPs);
    }

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
        const char* hot = reinterpret_cast<const char*>(&m_queue);
        __builtin_prefetch(hot);
        __builtin_prefetch(hot + 64);
        __builtin_prefetch(hot + 128);
    }

    /** Starts every frame whose start time has come (see "lazy departures"). */
    void Sync(int64_t nowPs = CurrentPs());
    /** Called by the channel when the link changes state. */
    void LinkStateChanged(bool up);

    /** Picoseconds to serialise a frame of \p packetBytes at this port's rate. */
    uint64_t TransmissionPs(uint32_t packetBytes) const
    {
        return LinePs(WireBytes(packetBytes, m_interframeBytes));
    }

    DataRate GetDataRate() const
    {
        return m_rate;
    }

    /** The line rate in bit/s (GetDataRate().GetBitRate() without the library call). */
    uint64_t GetBitRate() const
    {
        return m_bps;
    }

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
    int64_t GetIdlePs(int64_t nowPs = CurrentPs());

    const FabricPortStats& GetStats() const
    {
        return m_stats;
    }

    Ptr<FabricChannel> GetFabricChannel() const
    {
        return m_channel;
    }

    /** The port at the other end of the link (nullptr if unattached). */
    Ptr<FabricPort> GetPeer() const;

    /** RED marking probability for a queue of \p queueBytes (0 below Kmin, 1 at Kmax). */
    double EcnMarkProbability(uint32_t queueBytes) const
    {
        return m_ecn.MarkProbability(queueBytes);
    }

    /** Fixes the random stream of the ECN marker; returns streams used. */
    int64_t AssignStreams(int64_t stream)
    {
        return m_ecn.AssignStreams(stream);
    }

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
    /** The simulator's clock in picoseconds (the default of every nowPs argument). */
    static int64_t CurrentPs()
    {
        return Simulator::Now().GetPicoSeconds();
    }

    /** Picoseconds to serialise \p wireBytes line bytes. */
    uint64_t LinePs(uint64_t wire) const
    {
        if (m_psPerByte)
        {
            return wire * m_psPerByte; // every common rate: exact
        }
        return static_cast<uint64_t>((static_cast<unsigned __int128>(wire) * kBitPs) / m_bps);
    }

    /** Starts, in order, every frame whose start time is at or before \p nowPs. */
    void CatchUp(int64_t nowPs);
    /** Puts the head of class \p cls on the wire at \p startPs (the time is \p nowPs). */
    void Commit(uint32_t cls, int64_t startPs, int64_t nowPs);

    /** Fires the QueueBytes trace for a change from \p oldBytes, if anyone listens. */
    void TraceQueueBytes(uint32_t oldBytes, uint32_t newBytes)
    {
        if (m_hopTraced && !m_queueBytesTrace.IsEmpty())
        {
            m_queueBytesTrace(oldBytes, newBytes);
        }
    }

    /** Marks \p frame CE (the ECN marker chose it), counts and traces it. */
    void MarkCe(FrameRef& frame);
    /** EventPerDequeue: a wake-up at the end of the current frame. */
    void ArmWake();
    void Wake();
    void Flush(DropReason reason);
    /** Consumes a received PFC frame at \p nowPs; false if \p frame is not one. */
    bool ReceivePfc(Ptr<Packet> frame, int64_t nowPs);
    /** Gates each class until its priority's pause ends (PfcPauseState). */
    void UpdateClassPauses();
    /** The pause wake-up: ends what expired and starts the frames it held. */
    void PauseWake();

    // Attribute accessors of the parts that hold them
    void SetMaxQueueBytes(uint32_t bytes)
    {
        m_admission.SetMaxQueueBytes(bytes);
    }

    uint32_t GetMaxQueueBytes() const
    {
        return m_admission.GetMaxQueueBytes();
    }

    void SetEcnEnabled(bool enabled)
    {
        m_ecn.SetEnabled(enabled);
    }

    bool GetEcnEnabled() const
    {
        return m_ecn.IsEnabled();
    }

    void SetEcnKmin(uint32_t bytes)
    {
        m_ecn.SetKminBytes(bytes);
    }

    uint32_t GetEcnKmin() const
    {
        return m_ecn.GetKminBytes();
    }

    void SetEcnKmax(uint32_t bytes)
    {
        m_ecn.SetKmaxBytes(bytes);
    }

    uint32_t GetEcnKmax() const
    {
        return m_ecn.GetKmaxBytes();
    }

    void SetEcnPmax(double pmax)
    {
        m_ecn.SetPmax(pmax);
    }

    double GetEcnPmax() const
    {
        return m_ecn.GetPmax();
    }

    void SetControlDscp(uint8_t dscp)
    {
        m_queue.SetControlDscp(dscp);
    }

    uint8_t GetControlDscp() const
    {
        return m_queue.GetControlDscp();
    }

    void SetStrictPriority(bool strict)
    {
        m_queue.SetStrictPriority(strict);
    }

    bool GetStrictPriority() const
    {
        return m_queue.IsStrictPriority();
    }

    void SetPfcEnabled(bool enabled)
    {
        m_queue.SetPfcEnabled(enabled);
    }

    bool GetPfcEnabled() const
    {
        return m_queue.IsPfcEnabled();
    }

    void SetDataPriority(uint8_t priority)
    {
        m_queue.SetDataPriority(priority);
    }

    uint8_t GetDataPriority() const
    {
        return m_queue.GetDataPriority();
    }

    void SetControlPriority(uint8_t priority)
    {
        m_queue.SetControlPriority(priority);
    }

    uint8_t GetControlPriority() const
    {
        return m_queue.GetControlPriority();
    }

    // Members are grouped by use: a frame's hop touches the first block (and
    // the port's stats and the traces it checks), so those few cache lines
    // are all a hop misses on a fabric too large for the cache.

    // Hot: egress state and what every enqueue, start and arrival reads
    FabricEgressQueue m_queue;
    int64_t m_txFreePs = 0; //!< end of the last frame put on the wire (exact, ps)
    static constexpr uint64_t kBitPs = 8'000'000'000'000ULL; //!< ps in 8 s: ps per byte at 1 b/s
    uint64_t m_psPerByte = 0; //!< exact ps per byte, 0 if not an integer
    uint64_t m_bps = 1;       //!< m_rate in bit/s
    Ptr<FabricChannel> m_channel;
    FabricPacketSink* m_sink = nullptr;
    Ptr<ErrorModel> m_receiveErrorModel;
    FabricBufferAdmission m_admission;
    uint32_t m_interframeBytes;
    bool m_linkUp = false;
    bool m_eventPerDequeue;
    bool m_trackDepartures = false; //!< SetTrackDepartures
    bool m_hopTraced = false;       //!< something connected to a trace a hop checks
    RedEcnMarker m_ecn;

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
    EventId m_wake; //!< EventPerDequeue only

    TracedCallback<Ptr<const Packet>, DropReason> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;
    TracedCallback<Ptr<const Packet>> m_pfcTxTrace;
    TracedCallback<Ptr<const Packet>> m_pfcRxTrace;
    TracedCallback<uint8_t, bool> m_pfcStateTrace;
    // PFC: pauses received (this transmitter obeys them)
    PfcPauseState m_pfc{m_pfcStateTrace, m_stats.pfcPausedPs};

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
        m_queue.ForEach([&f](uint32_t cls, const FabricQueuedFrame& q) {
            f(cls,
              q.info.bytes,
              uint32_t(q.ingress),
              q.priority,
              q.charge == BufferCharge::Pool,
              q.charge == BufferCharge::Lossless);
        });
    }

    /** The serialisation time of class \p cls's queue as the port counts it (ps). */
    uint64_t PeekQueuedPs(uint32_t cls) const
    {
        return m_queue.GetQueuedPs(cls);
    }

    /** The queued-bytes counter as it stands (GetQueueBytes without the Sync). */
    uint32_t PeekQueueBytes() const
    {
        return m_queue.GetBytes();
    }

    /** Whether a pause episode of \p priority is open (from its PAUSE until its end). */
    bool IsPauseOpen(uint8_t priority) const
    {
        return m_pfc.IsOpen(priority);
    }

    /** Start of the open pause episode of \p priority (ps). */
    int64_t GetPauseStartPs(uint8_t priority) const
    {
        return m_pfc.GetStartPs(priority);
    }

    /** End of the pause of \p priority (ps): set by the last PAUSE, or when it ended. */
    int64_t GetPausedUntilPs(uint8_t priority) const
    {
        return m_pfc.GetPausedUntilPs(priority);
    }

    /** The exact expiry the pending pause wake-up serves (ps); -1 if none is pending. */
    int64_t GetPauseWakePs() const
    {
        return m_pfc.GetWakePs();
    }

    /** Whether SetTrackDepartures is on. */
    bool IsTrackingDepartures() const
    {
        return m_trackDepartures;
    }
};

} // namespace ns3

#endif
