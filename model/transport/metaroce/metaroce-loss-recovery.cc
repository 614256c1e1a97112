#include "metaroce-loss-recovery.h"

#include "delay-until.h"
#include "metaroce-connection.h"
#include "metaroce-transport.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

namespace
{
constexpr uint32_t kMaxBackoff = 64;
} // namespace

void
MetaRoceLossRecovery::Cancel()
{
    m_rtoEvent.Cancel();
    m_rnrEvent.Cancel();
}

uint32_t
MetaRoceLossRecovery::ApplySack(const MetaRoceAckHeader& h, uint32_t pathIndex)
{
    MetaRoceConnection& c = *m_connection;
    MetaRocePath& p = c.m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // the ACK's path is busy
    const uint32_t una = p.Una();
    uint32_t newly = 0;
    auto ackSeq = [&](uint32_t seq) {
        MetaRocePath::SentPacket& pkt = o.packets[seq - una];
        if (pkt.state == MetaRocePath::PacketState::Acked)
        {
            return;
        }
        if (pkt.state == MetaRocePath::PacketState::InFlight)
        {
            --o.inFlight;
            --c.m_inFlight;
        }
        pkt.state = MetaRocePath::PacketState::Acked;
        ++newly;
        c.AckChunk(pkt.ref); // may complete messages, and Complete() may post more
    };
    const uint32_t cum = std::min(h.cumulativeSeq, p.nextSeq);
    for (uint32_t seq = una; seq < cum; ++seq)
    {
        ackSeq(seq);
    }
    const int32_t highest = h.sack.Highest();
    for (int32_t bit = 0; bit <= highest; ++bit)
    {
        const uint32_t seq = h.cumulativeSeq + 1 + bit;
        if (seq >= p.nextSeq)
        {
            break;
        }
        if (seq >= una && h.sack.Test(bit))
        {
            ackSeq(seq);
        }
    }
    while (!o.packets.empty() && o.packets.front().state == MetaRocePath::PacketState::Acked)
    {
        o.packets.pop_front();
    }
    p.acked += newly;
    return newly;
}

uint32_t
MetaRoceLossRecovery::DetectLosses(uint32_t pathIndex)
{
    MetaRoceConnection& c = *m_connection;
    MetaRocePath::Outstanding& o = *c.m_paths[pathIndex].outstanding; // the ACK's path is busy
    const uint32_t firstUnacked = c.m_paths[pathIndex].Una();
    uint32_t lost = 0;
    for (uint32_t k = 0; k < o.packets.size(); ++k)
    {
        MetaRocePath::SentPacket& pkt = o.packets[k];
        if (pkt.state == MetaRocePath::PacketState::InFlight && pkt.sentPs < o.maxEchoPs)
        {
            pkt.state = MetaRocePath::PacketState::Lost;
            --o.inFlight;
            --c.m_inFlight;
            o.retx.push_back(firstUnacked + k);
            c.Selector().MarkPathWork(pathIndex);
            ++lost;
        }
    }
    return lost;
}

int64_t
MetaRoceLossRecovery::RtoPs(const MetaRocePath& p) const
{
    const int64_t minPs = m_minRtoPs;
    const int64_t maxPs = m_maxRtoPs;
    int64_t rto = p.srttPs > 0 ? p.srttPs + 4 * p.rttvarPs : m_initialRtoPs;
    rto = std::clamp(rto, minPs, maxPs);
    const uint32_t backoff = p.outstanding ? p.outstanding->backoff : 1;
    return std::min(rto * int64_t(backoff), maxPs);
}

void
MetaRoceLossRecovery::UpdateTimer(uint32_t pathIndex, bool progress, int64_t nowPs)
{
    MetaRocePath& p = m_connection->m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // the ACK's path is busy
    if (o.inFlight == 0 && o.retx.empty())
    {
        o.rtoDeadlinePs = 0;
    }
    else if (progress)
    {
        o.rtoDeadlinePs = nowPs + RtoPs(p);
        ArmRto(pathIndex);
    }
}

void
MetaRoceLossRecovery::ArmRto(uint32_t pathIndex)
{
    MetaRocePath& p = m_connection->m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // called for a path with something outstanding
    // Once per packet: the time is read once and the timer's nanosecond
    // computed in integers (DelayNsUntilPs, without Time arithmetic).
    const int64_t nowPs = Simulator::Now().GetPicoSeconds();
    if (o.rtoDeadlinePs == 0)
    {
        o.rtoDeadlinePs = nowPs + RtoPs(p);
    }
    // One timer per connection, at the earliest path deadline, re-armed
    // lazily: a deadline that moves later is picked up when the timer fires;
    // only an earlier one needs a new event.
    const int64_t delayNs = DelayNsUntilPs(nowPs, o.rtoDeadlinePs);
    const int64_t atPs = nowPs + delayNs * 1000;
    if (m_rtoEventPs != 0 && m_rtoEventPs <= atPs)
    {
        return;
    }
    m_rtoEvent.Cancel();
    m_rtoEventPs = atPs;
    m_rtoEvent = Simulator::Schedule(NanoSeconds(delayNs), &MetaRoceLossRecovery::RtoTimer, this);
}

void
MetaRoceLossRecovery::RtoTimer()
{
    m_rtoEventPs = 0;
    const std::vector<MetaRocePath>& paths = m_connection->m_paths;
    const int64_t now = Simulator::Now().GetPicoSeconds();
    for (uint32_t i = 0; i < paths.size(); ++i)
    {
        const MetaRocePath::Outstanding* o = paths[i].outstanding.get();
        if (o && o->rtoDeadlinePs != 0 && o->rtoDeadlinePs <= now)
        {
            PathTimeout(i);
        }
    }
    for (uint32_t i = 0; i < paths.size(); ++i)
    {
        const MetaRocePath::Outstanding* o = paths[i].outstanding.get();
        if (o && o->rtoDeadlinePs != 0)
        {
            ArmRto(i); // keeps the earliest
        }
    }
}

void
MetaRoceLossRecovery::PathTimeout(uint32_t pathIndex)
{
    MetaRoceConnection& c = *m_connection;
    MetaRocePath& p = c.m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // its deadline was set
    const int64_t now = Simulator::Now().GetPicoSeconds();
    if (o.inFlight == 0 && o.retx.empty())
    {
        o.rtoDeadlinePs = 0; // only receiver-not-ready waits left: the RNR timer owns them
        p.ReleaseIfIdle();
        return;
    }
    ++p.GetHistory().timeouts;
    ++o.consecutiveTimeouts;
    if (p.probing || o.consecutiveTimeouts >= m_failureThreshold)
    {
        FailPath(pathIndex);
        return;
    }
    o.backoff = std::min(o.backoff * 2, kMaxBackoff);
    c.TimeoutWindow(pathIndex);
    // Tail loss: resend the oldest packet still in flight on this path.
    int32_t oldest = -1;
    for (uint32_t k = 0; k < o.packets.size(); ++k)
    {
        const MetaRocePath::SentPacket& pkt = o.packets[k];
        if (pkt.state == MetaRocePath::PacketState::InFlight &&
            (oldest < 0 || pkt.sentPs < o.packets[oldest].sentPs))
        {
            oldest = int32_t(k);
        }
    }
    if (oldest >= 0)
    {
        o.packets[oldest].state = MetaRocePath::PacketState::Lost;
        o.packets[oldest].byTimeout = true;
        --o.inFlight;
        --c.m_inFlight;
        o.retx.push_front(p.Una() + oldest);
        c.Selector().MarkPathWork(pathIndex);
    }
    o.rtoDeadlinePs = now + RtoPs(p); // armed by RtoTimer
    c.KickPlane(c.Selector().GetPlane(pathIndex));
}

void
MetaRoceLossRecovery::FailPath(uint32_t pathIndex)
{
    MetaRoceConnection& c = *m_connection;
    MetaRocePath& p = c.m_paths[pathIndex];
    MetaRocePath::Outstanding& o = p.GetOutstanding(); // keeps the doubled backoff below
    const uint16_t oldPort = p.srcPort;
    // Everything the path still owes moves to the healthy paths.
    for (size_t k = 0; k < o.packets.size(); ++k)
    {
        const MetaRocePath::SentPacket& pkt = o.packets[k];
        if (pkt.state == MetaRocePath::PacketState::Acked)
        {
            continue;
        }
        if (pkt.state == MetaRocePath::PacketState::InFlight)
        {
            --c.m_inFlight;
        }
        if (pkt.ref.message == MetaRoceChunkRef::kProbe)
        {
            continue;
        }
        c.m_sendQueue.Resend(pkt.ref);
        ++c.m_stats.resent;
    }
    o.packets.clear();
    o.retx.clear();
    o.inFlight = 0;
    p.nextSeq = 0;
    ++p.epoch; // the receiver restarts the path's bitmap; late packets and ACKs are stale
    p.srcPort = c.m_transport->AllocateSourcePort();
    o.maxEchoPs = -1;
    p.probing = true;
    c.Selector().MarkPathWork(pathIndex);
    p.cwnd = 1;
    o.backoff = std::min(o.backoff * 2, kMaxBackoff); // probes of a dead route spread out
    o.rtoDeadlinePs = 0;
    ++p.GetHistory().failures;
    c.PathFailed(pathIndex, oldPort);
}

void
MetaRoceLossRecovery::DeferRnr(uint32_t pathIndex, uint32_t seq, int64_t nowPs)
{
    MetaRoceConnection& c = *m_connection;
    MetaRocePath& p = c.m_paths[pathIndex];
    MetaRocePath::Outstanding& o = *p.outstanding; // seq is outstanding
    MetaRocePath::SentPacket& pkt = o.packets[seq - p.Una()];
    if (pkt.state != MetaRocePath::PacketState::InFlight)
    {
        return;
    }
    pkt.state = MetaRocePath::PacketState::RnrWait;
    --o.inFlight;
    --c.m_inFlight;
    ++c.m_stats.rnrRetries;
    m_rnrWait.push_back(RnrEntry{nowPs + m_rnrDelayPs, pathIndex, p.epoch, seq});
    if (!m_rnrEvent.IsRunning())
    {
        m_rnrEvent =
            Simulator::Schedule(PicoSeconds(m_rnrDelayPs), &MetaRoceLossRecovery::RnrTimer, this);
    }
}

void
MetaRoceLossRecovery::RnrTimer()
{
    MetaRoceConnection& c = *m_connection;
    const int64_t now = Simulator::Now().GetPicoSeconds();
    while (!m_rnrWait.empty() && m_rnrWait.front().readyPs <= now)
    {
        const RnrEntry e = m_rnrWait.front();
        m_rnrWait.pop_front();
        MetaRocePath& p = c.m_paths[e.path];
        if (p.epoch != e.epoch || e.seq < p.Una() || e.seq >= p.nextSeq)
        {
            continue; // the path failed meanwhile: its packets were moved
        }
        MetaRocePath::Outstanding& o = *p.outstanding; // e.seq is outstanding
        MetaRocePath::SentPacket& pkt = o.packets[e.seq - p.Una()];
        if (pkt.state == MetaRocePath::PacketState::RnrWait)
        {
            pkt.state = MetaRocePath::PacketState::Lost;
            o.retx.push_back(e.seq);
            c.Selector().MarkPathWork(e.path);
            c.KickPlane(c.Selector().GetPlane(e.path));
        }
    }
    if (!m_rnrWait.empty())
    {
        m_rnrEvent = Simulator::Schedule(DelayUntilPs(m_rnrWait.front().readyPs),
                                         &MetaRoceLossRecovery::RnrTimer,
                                         this);
    }
}

} // namespace ns3
