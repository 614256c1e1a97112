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
 * A hand-written EventImpl instead of MakeEvent so the hop costs one small
 * allocation from a free list (frames in flight reuse the same blocks) and
 * carries its own arrival time, so nothing on the receive path asks the
 * simulator for the time.
 */
class FabricChannel::FrameArrival : public EventImpl
{
  public:
    FrameArrival(FabricChannel* channel,
                 uint32_t to,
                 FrameRef frame,
                 const FrameInfo& info,
                 uint32_t epoch,
                 int64_t atNs)
        : m_channel(channel),
          m_from(PeekPointer(channel->m_ports[1 - to])),
          m_to(PeekPointer(channel->m_ports[to])),
          m_frame(std::move(frame)),
          m_info(info),
          m_toSide(to),
          m_epoch(epoch),
          m_atNs(atNs)
    {
    }

#if !defined(__SANITIZE_ADDRESS__)
    static void* operator new(std::size_t size)
    {
        auto& pool = FreeList();
        if (size == sizeof(FrameArrival) && !pool.empty())
        {
            void* block = pool.back();
            pool.pop_back();
            return block;
        }
        return ::operator new(size);
    }

    static void operator delete(void* block, std::size_t size)
    {
        if (size == sizeof(FrameArrival))
        {
            FreeList().push_back(block);
            return;
        }
        ::operator delete(block);
    }
#endif

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
    }

  private:
    /** Blocks of finished arrivals; never shrinks (bounded by the peak of frames in flight). */
    static std::vector<void*>& FreeList()
    {
        // Deliberately never destroyed: events may be freed by Simulator::Destroy
        // during static destruction.
        static auto* pool = new std::vector<void*>();
        return *pool;
    }

    FabricChannel* m_channel;
    const FabricPort* m_from; //!< the sending port (only prefetched here)
    const FabricPort* m_to;   //!< the receiving port (only prefetched here)
    FrameRef m_frame;
    FrameInfo m_info;
    uint32_t m_toSide;
    uint32_t m_epoch;
    int64_t m_atNs;
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
    Simulator::ScheduleWithContext(
        m_peerContext[to],
        NanoSeconds(atNs) - PicoSeconds(nowPs),
        new FrameArrival(this, to, std::move(frame), info, m_epoch, atNs));
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
    m_ports[1 - to]->SyncAt(nowPs);
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
