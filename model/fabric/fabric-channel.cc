#include "fabric-channel.h"

#include "fabric-port.h"

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
    m_ports[m_attached] = port;
    m_peerContext[m_attached] = port->GetNode() ? port->GetNode()->GetId() : 0;
    ++m_attached;
}

/**
 * The one event of a packet-hop: a frame's last bit reaching the far port.
 * A hand-written EventImpl instead of MakeEvent: it carries its own arrival
 * time, so nothing on the receive path asks the simulator for the time, and
 * a finished one is reused rather than destroyed (ns-3's EventImpl
 * constructor and destructor are out-of-line library calls, paid at every
 * hop otherwise). Reuse keeps the reference counting honest: Notify
 * takes a reference of its own before the simulator drops its one, so a
 * pooled arrival stays alive with a count of 1, and the next Make hands
 * that count to the simulator. An arrival still scheduled when the
 * simulator is destroyed is freed by it as any event is.
 */
class FabricChannel::FrameArrival : public EventImpl
{
  public:
    /** A pooled arrival set up for this frame, or a new one. */
    static FrameArrival* Make(FabricChannel* channel,
                              uint32_t to,
                              FrameRef frame,
                              const FrameInfo& info,
                              uint32_t epoch,
                              int64_t atNs)
    {
        FrameArrival* ev = nullptr;
#if !defined(__SANITIZE_ADDRESS__)
        auto& pool = Pool();
        if (!pool.empty())
        {
            ev = pool.back();
            pool.pop_back();
        }
#endif
        if (!ev)
        {
            ev = new FrameArrival();
        }
        ev->m_channel = channel;
        ev->m_from = PeekPointer(channel->m_ports[1 - to]);
        ev->m_to = PeekPointer(channel->m_ports[to]);
        ev->m_frame = std::move(frame);
        ev->m_info = info;
        ev->m_toSide = to;
        ev->m_epoch = epoch;
        ev->m_atNs = atNs;
        return ev;
    }

  protected:
    void Notify() override
    {
        // Both ports are out of cache by now (the frame left a microsecond
        // ago), and so are a compact frame's bytes: fetch them together
        // instead of one after the other.
        m_from->PrefetchHopState();
        m_to->PrefetchHopState();
        m_frame.PrefetchBytes();
        m_channel->Deliver(m_toSide, std::move(m_frame), m_info, m_epoch, m_atNs);
#if !defined(__SANITIZE_ADDRESS__)
        // Last: nothing may take this arrival from the pool while it runs.
        Ref(); // outlives the simulator's reference, dropped when this returns
        Pool().push_back(this);
#endif
    }

  private:
    FrameArrival() = default;

    /** Finished arrivals, each holding one reference; never shrinks (bounded by the peak of frames
     * in flight). */
    static std::vector<FrameArrival*>& Pool()
    {
        // Deliberately never destroyed: events may be freed by Simulator::Destroy
        // during static destruction.
        static auto* pool = new std::vector<FrameArrival*>();
        return *pool;
    }

    FabricChannel* m_channel = nullptr;
    const FabricPort* m_from = nullptr; //!< the sending port (only prefetched here)
    const FabricPort* m_to = nullptr;   //!< the receiving port (only prefetched here)
    FrameRef m_frame;
    FrameInfo m_info;
    uint32_t m_toSide = 0;
    uint32_t m_epoch = 0;
    int64_t m_atNs = 0;
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
    ++m_inFlight;
    const Time delay = NanoSeconds(atNs) - PicoSeconds(nowPs);
    FrameArrival* arrival = FrameArrival::Make(this, to, std::move(frame), info, m_epoch, atNs);
    Simulator::ScheduleWithContext(m_peerContext[to], delay, arrival);
}

void
FabricChannel::Deliver(uint32_t to,
                       FrameRef frame,
                       const FrameInfo& info,
                       uint32_t epoch,
                       int64_t nowNs)
{
    // The sender's next frame started at the latest when this one's last bit
    // left, one propagation delay ago: this arrival is the event that drives
    // the sender's lazy departures (fabric-port.h).
    --m_inFlight;
    const int64_t nowPs = nowNs * 1000;
    m_ports[1 - to]->Sync(nowPs);
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
