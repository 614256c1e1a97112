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
 */
#ifndef METAROCE_FABRIC_PORT_H
#define METAROCE_FABRIC_PORT_H

#include "drop-reason.h"
#include "fabric-channel.h"
#include "fabric-frame.h"
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
#include <deque>

namespace ns3
{

class FabricPort;

/** What owns ports and consumes the frames they receive: a switch or a NIC. */
class FabricPacketSink
{
  public:
    virtual ~FabricPacketSink() = default;
    /** A frame arrived on \p port and passed the error model. */
    virtual void ReceiveFromPort(FabricPort* port, Ptr<Packet> frame) = 0;
    /** \p port's link went up or down (called at the moment it happens). */
    virtual void PortLinkChanged(FabricPort* port, bool up) {}
    /** Brings every port sharing a buffer with the caller up to date (FabricPort::Sync). */
    virtual void SyncPorts() {}
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
    DropCounters drops{};     //!< packets dropped by this port, per reason
    uint32_t peakQueueBytes = 0;
};

class FabricPort : public NetDevice
{
  public:
    static constexpr uint32_t kTrafficClasses = 2;
    static constexpr uint32_t kControlClass = 0;
    static constexpr uint32_t kDataClass = 1;

    static TypeId GetTypeId();
    FabricPort();
    ~FabricPort() override;

    typedef void (*DropTracedCallback)(Ptr<const Packet> frame, DropReason reason);

    /** Connects this port to one side of \p channel. */
    void Attach(Ptr<FabricChannel> channel);
    /** The switch or NIC that receives this port's frames (not owned). */
    void SetPacketSink(FabricPacketSink* sink);
    /** The switch buffer this port reserves from (nullptr: port limit only). */
    void SetSharedBuffer(Ptr<SharedBuffer> buffer);

    /**
     * Queues a frame for transmission (already parsed by the caller).
     * \return false if it was dropped (counted and traced here).
     */
    bool Enqueue(Ptr<Packet> frame, const FrameInfo& info);

    /** Traffic class of a frame with this DSCP. */
    uint32_t ClassOf(uint8_t dscp) const { return dscp == m_controlDscp ? kControlClass : kDataClass; }

    /** Called by the channel: a frame's last bit arrived. \p epoch is the link epoch at send time. */
    void Receive(Ptr<Packet> frame, uint32_t epoch);
    /** Starts every frame whose start time has come (see "lazy departures"). */
    void Sync();
    /** Called by the channel when the link changes state. */
    void LinkStateChanged(bool up);

    /** Picoseconds to serialise a frame of \p packetBytes at this port's rate. */
    uint64_t TransmissionPs(uint32_t packetBytes) const;

    DataRate GetDataRate() const { return m_rate; }
    /** Frame bytes queued now (after starting what is due). */
    uint32_t GetQueueBytes();
    uint32_t GetQueuePackets();
    /**
     * Picoseconds at which the transmitter will have sent everything queued
     * now (the current time if idle). A NIC scheduler hands the port its next
     * frame then, so the NIC queue stays empty and the port never idles.
     */
    int64_t GetIdlePs();
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
    struct Queued
    {
        Ptr<Packet> frame;
        uint32_t bytes;
        int64_t enqueuedPs;
    };

    /** Picoseconds to serialise \p wireBytes line bytes. */
    uint64_t LinePs(uint64_t wireBytes) const;
    /** Starts, in order, every frame whose start time is at or before \p nowPs. */
    void CatchUp(int64_t nowPs);
    /** Class to serve at \p startPs among frames queued by then; -1 if none. */
    int32_t PickClass(int64_t startPs) const;
    /** Puts the head of class \p cls on the wire at \p startPs. */
    void Commit(uint32_t cls, int64_t startPs);
    /** EventPerDequeue: a wake-up at the end of the current frame. */
    void ArmWake();
    void Wake();
    uint32_t QueuedPackets() const;
    void Flush(DropReason reason);

    // Configuration (attributes)
    DataRate m_rate;
    uint32_t m_interframeBytes;
    uint32_t m_maxQueueBytes;
    bool m_ecnEnabled;
    uint32_t m_kminBytes;
    uint32_t m_kmaxBytes;
    double m_pmax;
    uint8_t m_controlDscp;
    bool m_strictPriority;
    bool m_eventPerDequeue;
    uint16_t m_mtu;
    Ptr<ErrorModel> m_receiveErrorModel;

    // Wiring
    Ptr<Node> m_node;
    Ptr<FabricChannel> m_channel;
    FabricPacketSink* m_sink = nullptr;
    Ptr<SharedBuffer> m_sharedBuffer;
    Mac48Address m_address;
    uint32_t m_ifIndex = 0;
    bool m_linkUp = false;
    TracedCallback<> m_linkChangeCallbacks;
    Ptr<UniformRandomVariable> m_ecnRng;

    // Egress state
    std::array<std::deque<Queued>, kTrafficClasses> m_queues;
    TracedValue<uint32_t> m_queueBytes;
    int64_t m_txFreePs = 0;    //!< end of the last frame put on the wire (exact, ps)
    EventId m_wake;            //!< EventPerDequeue only
    uint32_t m_rrNext = 0;     //!< next class to serve in round robin
    mutable uint64_t m_cachedBps = 0;      //!< rate m_psPerByte was computed for
    mutable uint64_t m_psPerByte = 0;      //!< exact ps per byte, 0 if not an integer

    FabricPortStats m_stats;

    TracedCallback<Ptr<const Packet>> m_enqueueTrace;
    TracedCallback<Ptr<const Packet>> m_dequeueTrace;
    TracedCallback<Ptr<const Packet>, DropReason> m_dropTrace;
    TracedCallback<Ptr<const Packet>> m_ecnMarkTrace;
    TracedCallback<Ptr<const Packet>> m_snifferTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
};

} // namespace ns3

#endif
