#include "fabric-channel.h"

#include "fabric-port.h"
#include "fabric-simulator-impl.h"

#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricChannel");
NS_OBJECT_ENSURE_REGISTERED(FabricChannel);

TypeId
FabricChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricChannel")
            .SetParent<Channel>()
            .SetGroupName("MetaRoce")
            .AddConstructor<FabricChannel>()
            .AddAttribute("Delay",
                          "One-way propagation delay (models cable and switch pipeline latency)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&FabricChannel::SetDelay, &FabricChannel::GetDelay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("LinkState",
                            "The link went up (true) or down (false)",
                            MakeTraceSourceAccessor(&FabricChannel::m_linkStateTrace),
                            "ns3::FabricChannel::LinkStateTracedCallback");
    return tid;
}

void
FabricChannel::Attach(Ptr<FabricPort> port)
{
    NS_ABORT_MSG_IF(m_attached >= 2, "FabricChannel: a link has exactly two ports");
    // A port's frames are keyed by 2 x channel id + side (FabricSimulatorImpl::PortKey).
    NS_ABORT_MSG_IF(GetId() >= FabricSimulatorImpl::kPortSource / 2,
                    "FabricChannel: more than " << FabricSimulatorImpl::kPortSource / 2
                                                << " channels");
    m_ports[m_attached] = port;
    m_peerContext[m_attached] = port->GetNode() ? port->GetNode()->GetId() : 0;
    ++m_attached;
}

/**
 * A hand-written EventImpl that is reused rather than destroyed (ns-3's
 * EventImpl constructor and destructor are out-of-line library calls, ~50
 * instructions a hop). Reuse keeps the reference counting honest: Recycle,
 * last in Notify, takes a reference of its own before the simulator drops
 * its one, so a pooled event stays alive with a count of 1, and the next
 * Take hands that count to the simulator. One pool per thread
 * (FabricSimulatorImpl's lanes: an event made on one lane may run on
 * another), never shrinking (bounded by the peak in flight) and never
 * destroyed: events may be freed by Simulator::Destroy during static
 * destruction, and lane threads live until the process ends. An event still
 * scheduled when the simulator is destroyed is freed by it as any event is.
 */
template <class T>
class PooledEvent : public EventImpl
{
  protected:
    /** A pooled event, or a new one. */
    static T* Take()
    {
#if !defined(__SANITIZE_ADDRESS__)
        auto& pool = Pool();
        if (!pool.empty())
        {
            T* ev = pool.back();
            pool.pop_back();
            return ev;
        }
#endif
        return new T();
    }

    /** Last in Notify: nothing may take this event from the pool while it runs. */
    void Recycle()
    {
#if !defined(__SANITIZE_ADDRESS__)
        Ref(); // outlives the simulator's reference, dropped when Notify returns
        Pool().push_back(static_cast<T*>(this));
#endif
    }

  private:
    static std::vector<T*>& Pool()
    {
        if (t_pool == nullptr)
        {
            t_pool = new std::vector<T*>();
        }
        return *t_pool;
    }
    static thread_local std::vector<T*>* t_pool __attribute__((tls_model("initial-exec")));
};

template <class T>
thread_local std::vector<T*>* PooledEvent<T>::t_pool = nullptr;

/**
 * The one event of a packet-hop: a frame's last bit reaching the far port.
 * A hand-written EventImpl instead of MakeEvent: it carries its own arrival
 * time, so nothing on the receive path asks the simulator for the time, and
 * a finished one is reused (PooledEvent).
 */
class FabricChannel::FrameArrival : public PooledEvent<FabricChannel::FrameArrival>
{
  public:
    /** A pooled arrival set up for this frame, or a new one. */
    static FrameArrival* Make(FabricChannel* channel,
                              uint32_t to,
                              FrameRef frame,
                              const FrameInfo& info,
                              uint32_t epoch,
                              int64_t atNs,
                              bool syncSender)
    {
        FrameArrival* ev = Take();
        ev->m_channel = channel;
        ev->m_from = PeekPointer(channel->m_ports[1 - to]);
        ev->m_to = PeekPointer(channel->m_ports[to]);
        ev->m_frame = std::move(frame);
        ev->m_info = info;
        ev->m_toSide = to;
        ev->m_epoch = epoch;
        ev->m_atNs = atNs;
        ev->m_syncSender = syncSender;
        return ev;
    }

  protected:
    void Notify() override
    {
        // Both ports are out of cache by now (the frame left a microsecond
        // ago), and so are a compact frame's bytes: fetch them together
        // instead of one after the other.
        if (m_syncSender)
        {
            m_from->PrefetchHopState();
        }
        m_to->PrefetchHopState();
        m_frame.PrefetchBytes();
        m_channel->Deliver(m_toSide, std::move(m_frame), m_info, m_epoch, m_atNs, m_syncSender);
        Recycle();
    }

  private:
    friend class PooledEvent<FrameArrival>;
    FrameArrival() = default;

    FabricChannel* m_channel = nullptr;
    const FabricPort* m_from = nullptr; //!< the sending port (only prefetched here)
    const FabricPort* m_to = nullptr;   //!< the receiving port (only prefetched here)
    FrameRef m_frame;
    FrameInfo m_info;
    uint32_t m_toSide = 0;
    uint32_t m_epoch = 0;
    int64_t m_atNs = 0;
    bool m_syncSender = true; //!< false: a SenderSync on the sender's lane does it
};

/**
 * The sender's half of a frame arrival when the two ports run on different
 * lanes of FabricSimulatorImpl: the far port's arrival is what drives the
 * sender's lazy departures (Deliver), but that port belongs to another
 * thread. Scheduled as the arrival's twin (same time and uid, on the
 * sender's lane, run just before it and not counted as an event), so the
 * sender catches up at the same point of the event order as on one thread.
 */
class FabricChannel::SenderSync : public PooledEvent<FabricChannel::SenderSync>
{
  public:
    static SenderSync* Make(FabricPort* port, int64_t nowPs)
    {
        SenderSync* ev = Take();
        ev->m_port = port;
        ev->m_nowPs = nowPs;
        return ev;
    }

  protected:
    void Notify() override
    {
        m_port->SyncAt(m_nowPs);
        Recycle();
    }

  private:
    friend class PooledEvent<SenderSync>;
    SenderSync() = default;

    FabricPort* m_port = nullptr;
    int64_t m_nowPs = 0;
};


FabricChannel::FabricChannel() = default;

void
FabricChannel::SetDelay(Time delay)
{
    m_delay = delay;
    // Arrival events are scheduled in whole nanoseconds (fabric-port.h).
    m_delayNs = (delay.GetPicoSeconds() + 999) / 1000;
}

void
FabricChannel::Transmit(const FabricPort* from,
                        FrameRef frame,
                        const FrameInfo& info,
                        int64_t txEndPs,
                        int64_t nowPs)
{
    const uint32_t to = (m_ports[0] == from) ? 1 : 0;
    const int64_t atNs = (txEndPs + 999) / 1000 + m_delayNs;
    ++m_sent[1 - to];
    const Time delay = NanoSeconds(atNs) - PicoSeconds(nowPs);
    if (FabricSimulatorImpl* sim = FabricSimulatorImpl::Running())
    {
        const uint32_t fromContext = m_peerContext[1 - to];
        const bool cut = sim->CrossLane(fromContext, m_peerContext[to]);
        if (sim->Keyed())
        {
            // The n-th frame of this port: the same key whoever computes the
            // departure, and whenever (a port between lanes catches up at
            // each barrier instead of at its previous frame's arrival).
            FrameArrival* arrival =
                FrameArrival::Make(this, to, std::move(frame), info, m_epoch, atNs, !cut);
            sim->ScheduleKeyedHere(m_peerContext[to],
                                   static_cast<uint64_t>(NanoSeconds(atNs).GetTimeStep()),
                                   arrival,
                                   FabricSimulatorImpl::PortKey(2 * GetId() + (1 - to),
                                                                m_sent[1 - to]));
            return;
        }
        FrameArrival* arrival =
            FrameArrival::Make(this, to, std::move(frame), info, m_epoch, atNs, !cut);
        sim->ScheduleWithContextHere(m_peerContext[to], delay, arrival); // one call a hop
        if (cut)
        {
            sim->ScheduleTwinOfLast(fromContext,
                                    SenderSync::Make(PeekPointer(m_ports[1 - to]), atNs * 1000));
        }
    }
    else
    {
        FrameArrival* arrival =
            FrameArrival::Make(this, to, std::move(frame), info, m_epoch, atNs, true);
        Simulator::ScheduleWithContext(m_peerContext[to], delay, arrival);
    }
}

void
FabricChannel::Deliver(uint32_t to,
                       FrameRef frame,
                       const FrameInfo& info,
                       uint32_t epoch,
                       int64_t nowNs,
                       bool syncSender)
{
    // The sender's next frame started at the latest when this one's last bit
    // left, one propagation delay ago: this arrival is the event that drives
    // the sender's lazy departures (fabric-port.h).
    ++m_delivered[to];
    const int64_t nowPs = nowNs * 1000;
    if (syncSender)
    {
        m_ports[1 - to]->SyncAt(nowPs);
    }
    m_ports[to]->Receive(std::move(frame), info, epoch, nowPs);
}

void
FabricChannel::SetLinkUp(bool up)
{
    if (up == m_up)
    {
        return;
    }
    NS_LOG_INFO("link " << (up ? "up" : "down") << " at " << Simulator::Now());
    // Frames due to start before this instant went out under the old epoch
    // (and are lost in flight if it goes down before they arrive).
    for (uint32_t i = 0; i < m_attached; ++i)
    {
        m_ports[i]->Sync();
    }
    m_up = up;
    ++m_epoch; // frames sent before the change are lost in flight
    for (uint32_t i = 0; i < m_attached; ++i)
    {
        m_ports[i]->LinkStateChanged(up);
    }
    m_linkStateTrace(up);
}

Ptr<FabricPort>
FabricChannel::GetPort(uint32_t side) const
{
    return side < m_attached ? m_ports[side] : nullptr;
}

std::size_t
FabricChannel::GetNDevices() const
{
    return m_attached;
}

Ptr<NetDevice>
FabricChannel::GetDevice(std::size_t i) const
{
    return i < m_attached ? m_ports[i] : nullptr;
}

void
FabricChannel::DoDispose()
{
    m_ports[0] = nullptr;
    m_ports[1] = nullptr;
    Channel::DoDispose();
}

} // namespace ns3
