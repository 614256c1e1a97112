/*
 * PfcPauseState: the PAUSE frames a fabric port obeys (IEEE 802.1Qbb,
 * docs/fabric-model.md "PFC"). Per 802.1p priority it keeps the current
 * pause episode: when it started and the exact picosecond it ends. A PAUSE
 * opens an episode or moves its end (a refresh extends it, a shorter one
 * shortens it); quanta 0 ends it now. One wake-up is pending at the
 * earliest end of an open episode; when it runs, the owner (the port) ends
 * what expired and lets the paused class start at its exact picosecond.
 * The episodes' time is added to the port's pfcPausedPs counter as each
 * ends, and each start and end fires the port's PfcPauseState trace.
 */
#ifndef METAROCE_PFC_PAUSE_STATE_H
#define METAROCE_PFC_PAUSE_STATE_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>

namespace ns3
{

class PfcPauseState
{
  public:
    static constexpr uint32_t kPriorities = 8;

    /**
     * \p stateTrace fires (priority, paused) as episodes start and end;
     * \p finishedPs accumulates the length of the episodes that ended.
     */
    PfcPauseState(TracedCallback<uint8_t, bool>& stateTrace, uint64_t& finishedPs);

    /** What runs when the pending wake-up fires (at the earliest expiry). */
    void SetExpiryCallback(Callback<void> cb)
    {
        m_onExpiry = cb;
    }

    /**
     * A PAUSE for \p priority arrived at \p nowPs, pausing it until
     * \p untilPs (nowPs: a resume). \return true if that ended an episode.
     */
    bool Obey(uint8_t priority, int64_t nowPs, int64_t untilPs);
    /** Ends the episodes whose time is up at \p nowPs; \return true if any ended. */
    bool ExpirePauses(int64_t nowPs);
    /** Ends every open episode at \p nowPs and cancels the wake-up (the link went down). */
    void EndAll(int64_t nowPs);
    /** Schedules the wake-up at the earliest end of an open episode (one per episode). */
    void ArmWake();

    /** Cancels the pending wake-up. */
    void Cancel()
    {
        m_wake.Cancel();
    }

    /** Whether a pause stops \p priority at \p nowPs. */
    bool IsPaused(uint8_t priority, int64_t nowPs) const
    {
        return m_open[priority] && m_untilPs[priority] > nowPs;
    }

    /** Whether an episode of \p priority is open (from its PAUSE until its end). */
    bool IsOpen(uint8_t priority) const
    {
        return m_open[priority];
    }

    /** Start of the open episode of \p priority (ps). */
    int64_t GetStartPs(uint8_t priority) const
    {
        return m_startPs[priority];
    }

    /** End of the pause of \p priority (ps): set by the last PAUSE, or when it ended. */
    int64_t GetPausedUntilPs(uint8_t priority) const
    {
        return m_untilPs[priority];
    }

    /** The exact expiry the pending wake-up serves (ps); -1 if none is pending. */
    int64_t GetWakePs() const
    {
        return m_wake.IsRunning() ? m_wakePs : -1;
    }

    /** Time paused up to \p nowPs, over every priority: finished episodes and open ones. */
    uint64_t GetPausedPs(int64_t nowPs) const;

  private:
    void EndPause(uint8_t priority, int64_t endPs);
    void Wake();

    std::array<int64_t, kPriorities> m_untilPs{}; //!< exact end of the pause, ps
    std::array<int64_t, kPriorities> m_startPs{}; //!< start of the current episode
    std::array<bool, kPriorities> m_open{};       //!< an episode is open
    EventId m_wake;
    int64_t m_wakePs = 0;
    Callback<void> m_onExpiry;
    TracedCallback<uint8_t, bool>& m_stateTrace;
    uint64_t& m_finishedPs;
};

} // namespace ns3

#endif
