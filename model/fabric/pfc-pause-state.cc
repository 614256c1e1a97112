#include "pfc-pause-state.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

PfcPauseState::PfcPauseState(TracedCallback<uint8_t, bool>& stateTrace, uint64_t& finishedPs)
    : m_stateTrace(stateTrace),
      m_finishedPs(finishedPs)
{
}

bool
PfcPauseState::Obey(uint8_t priority, int64_t nowPs, int64_t untilPs)
{
    if (untilPs > nowPs)
    {
        if (!m_open[priority])
        {
            m_open[priority] = true;
            m_startPs[priority] = nowPs;
            m_stateTrace(priority, true);
        }
        m_untilPs[priority] = untilPs; // a refresh extends, a shorter one shortens
        return false;
    }
    if (m_open[priority])
    {
        EndPause(priority, nowPs);
        return true;
    }
    return false;
}

bool
PfcPauseState::ExpirePauses(int64_t nowPs)
{
    bool ended = false;
    for (uint8_t p = 0; p < kPriorities; ++p)
    {
        if (m_open[p] && m_untilPs[p] <= nowPs)
        {
            EndPause(p, m_untilPs[p]);
            ended = true;
        }
    }
    return ended;
}

void
PfcPauseState::EndAll(int64_t nowPs)
{
    for (uint8_t p = 0; p < kPriorities; ++p)
    {
        if (m_open[p])
        {
            EndPause(p, nowPs);
        }
    }
    m_wake.Cancel();
}

void
PfcPauseState::EndPause(uint8_t priority, int64_t endPs)
{
    m_finishedPs += uint64_t(endPs - m_startPs[priority]);
    m_open[priority] = false;
    m_untilPs[priority] = endPs;
    m_stateTrace(priority, false);
}

void
PfcPauseState::ArmWake()
{
    int64_t earliest = INT64_MAX;
    for (uint8_t p = 0; p < kPriorities; ++p)
    {
        if (m_open[p])
        {
            earliest = std::min(earliest, m_untilPs[p]);
        }
    }
    if (earliest == INT64_MAX)
    {
        m_wake.Cancel();
        return;
    }
    // A wake-up already due at or before the expiry re-arms itself when it
    // runs (a refreshed pause costs one event per refresh, not per frame).
    if (m_wake.IsRunning() && m_wakePs <= earliest)
    {
        return;
    }
    m_wake.Cancel();
    m_wakePs = earliest;
    const int64_t wakeNs = (earliest + 999) / 1000;
    m_wake =
        Simulator::Schedule(NanoSeconds(wakeNs) - Simulator::Now(), &PfcPauseState::Wake, this);
}

void
PfcPauseState::Wake()
{
    m_onExpiry();
}

uint64_t
PfcPauseState::GetPausedPs(int64_t nowPs) const
{
    uint64_t ps = m_finishedPs;
    for (uint8_t p = 0; p < kPriorities; ++p)
    {
        if (m_open[p])
        {
            ps += uint64_t(std::min(nowPs, m_untilPs[p]) - m_startPs[p]);
        }
    }
    return ps;
}

} // namespace ns3
