#include "nic-scheduler.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NicScheduler");
NS_OBJECT_ENSURE_REGISTERED(NicScheduler);

/**
 * A plane's wake-up, scheduled again each time instead of a new event
 * object per packet. A cancelled one stays cancelled (ns-3 has no reset), so
 * a cancel replaces it.
 */
class NicScheduler::WakeEvent : public EventImpl
{
  public:
    WakeEvent(NicScheduler* scheduler, uint32_t plane)
        : m_scheduler(scheduler),
          m_plane(plane)
    {
    }

  protected:
    void Notify() override
    {
        m_scheduler->Wake(m_plane);
    }

  private:
    NicScheduler* m_scheduler;
    uint32_t m_plane;
};

TypeId
NicScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NicScheduler")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<NicScheduler>();
    return tid;
}

void
NicScheduler::DoDispose()
{
    for (auto& p : m_planes)
    {
        p.wake.Cancel();
    }
    m_planes.clear();
    m_inRing.clear();
    m_clients.clear();
    m_nic = nullptr;
    Object::DoDispose();
}

void
NicScheduler::SetNic(Ptr<RdmaNic> nic)
{
    NS_ABORT_MSG_IF(nic->GetNPlanes() > 64,
                    "NicScheduler: at most 64 planes per NIC (one bit each), got "
                        << nic->GetNPlanes());
    m_nic = nic;
    m_planes.resize(nic->GetNPlanes());
    for (uint32_t plane = 0; plane < m_planes.size(); ++plane)
    {
        m_planes[plane].wakeEvent = Create<WakeEvent>(this, plane);
    }
    nic->AddLinkListener(MakeCallback(&NicScheduler::LinkChanged, this));
    nic->AddResumeListener(MakeCallback(&NicScheduler::Resumed, this));
}

uint32_t
NicScheduler::AddClient(NicTxClient* client)
{
    m_clients.push_back(client);
    m_inRing.push_back(0);
    for (auto& p : m_planes)
    {
        p.firmWaitPs.push_back(0);
    }
    return m_clients.size() - 1;
}

void
NicScheduler::Activate(uint32_t index, uint32_t plane)
{
    const uint64_t bit = uint64_t(1) << plane;
    if (m_inRing[index] & bit)
    {
        return; // a non-empty ring always has its wake armed (or waits for the link)
    }
    m_inRing[index] |= bit;
    m_planes[plane].ring.push_back(index);
    ArmWake(plane);
}

void
NicScheduler::ActivateAll(uint32_t index)
{
    const uint64_t all =
        m_planes.size() >= 64 ? ~uint64_t(0) : (uint64_t(1) << m_planes.size()) - 1;
    uint64_t missing = all & ~m_inRing[index];
    while (missing != 0)
    {
        Activate(index, uint32_t(__builtin_ctzll(missing)));
        missing &= missing - 1;
    }
}

void
NicScheduler::ArmWake(uint32_t plane)
{
    ArmWakeAt(plane, Simulator::Now().GetPicoSeconds());
}

void
NicScheduler::ArmWakeAt(uint32_t plane, int64_t nowPs)
{
    Plane& p = m_planes[plane];
    if (p.wakePending || p.ring.empty() || !m_nic->IsPlaneUp(plane))
    {
        return;
    }
    // Wake at the nanosecond the port goes idle, rounded down: a frame handed
    // over a fraction of a nanosecond early waits in the port and starts at
    // the exact picosecond the previous one ends, so rounding never idles the
    // line.
    const int64_t idlePs = m_nic->PeekPort(plane)->GetIdlePs(nowPs);
    const int64_t nowNs = nowPs / 1000;
    const int64_t wakeNs = std::max(nowNs, idlePs / 1000);
    p.wake = Simulator::Schedule(NanoSeconds(wakeNs - nowNs), p.wakeEvent);
    p.wakePending = true;
}

void
NicScheduler::Wake(uint32_t plane)
{
    Plane& p = m_planes[plane];
    p.wakePending = false;
    if (!m_nic->IsPlaneUp(plane))
    {
        return; // the ring waits for the link (LinkChanged)
    }
    FabricPort* port = m_nic->PeekPort(plane);
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    if (port->IsClassPaused(FabricPort::kDataClass, nowPs) &&
        port->GetIdlePs(nowPs) / 1000 > nowPs / 1000)
    {
        // Paused (a refresh arrived since the wake was armed): wait for the
        // expiry or the resume instead of queueing behind the pause.
        ArmWakeAt(plane, nowPs);
        return;
    }
    size_t tries = p.ring.size();
    int64_t notBefore = INT64_MAX; // earliest time a waiting client may send
    bool sent = false;
    const uint64_t bit = uint64_t(1) << plane;
    while (tries-- > 0)
    {
        const uint32_t index = p.ring.front();
        p.ring.pop_front();
        if (p.firmWaitPs[index] > nowPs)
        {
            // A firm wait (HasFirmWaits): the pull would answer the same.
            // It keeps its place in the ring (its bit stays set).
            p.ring.push_back(index);
            notBefore = std::min(notBefore, p.firmWaitPs[index]);
            continue;
        }
        m_inRing[index] &= ~bit; // before the pull: the client may re-activate itself
        FrameAddress addr;
        int64_t wait = 0;
        FramePayload packet = m_clients[index]->PullPacket(plane, nowPs, addr, wait);
        if (!packet)
        {
            if (wait > 0 && m_clients[index]->HasFirmWaits())
            {
                p.firmWaitPs[index] = wait;
            }
            if (wait > 0 && !(m_inRing[index] & bit))
            {
                m_inRing[index] |= bit; // only waiting for time: keep its turn
                p.ring.push_back(index);
                notBefore = std::min(notBefore, wait);
            }
            continue;
        }
        if (!(m_inRing[index] & bit))
        {
            m_inRing[index] |= bit;
            p.ring.push_back(index);
        }
        ++m_sent;
        m_nic->Send(packet, plane, addr, nowPs);
        sent = true;
        break;
    }
    if (!sent && notBefore != INT64_MAX && !p.ring.empty())
    {
        // Nobody could send now: wake when the first waiting client may.
        const int64_t nowNs = nowPs / 1000;
        const int64_t atNs = std::max(nowNs + 1, (notBefore + 999) / 1000);
        p.wake = Simulator::Schedule(NanoSeconds(atNs - nowNs), p.wakeEvent);
        p.wakePending = true;
        return;
    }
    ArmWakeAt(plane, nowPs);
}

void
NicScheduler::Resumed(uint32_t plane)
{
    if (plane < m_planes.size())
    {
        Plane& p = m_planes[plane];
        if (p.wakePending)
        {
            p.wake.Cancel();
            p.wakeEvent = Create<WakeEvent>(this, plane); // the cancelled one is spent
            p.wakePending = false;
        }
        ArmWake(plane);
    }
}

void
NicScheduler::LinkChanged(uint32_t plane, bool up)
{
    if (plane < m_planes.size() && up)
    {
        ArmWake(plane);
    }
}

} // namespace ns3
