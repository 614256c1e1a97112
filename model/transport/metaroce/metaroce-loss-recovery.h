/*
 * MetaRoceLossRecovery: how a MetaRoCE sender finds and repairs its losses
 * (design decision 3, docs/metaroce-design.md).
 * - Gap = loss: one path is one FIFO route, so a packet is lost the moment
 *   an ACK echoes the timestamp of a packet sent after it on the same path
 *   while it is still missing (no duplicate-ACK threshold). Exactly that
 *   packet is queued for retransmission, on the path that lost it.
 * - Tail loss: each path has a retransmission timer (RTO = srtt + 4 rttvar,
 *   bounded by MinRto/MaxRto, InitialRto before the first sample, doubled
 *   per consecutive timeout); on expiry the oldest packet in flight on the
 *   path is resent on it. One event per connection serves the earliest
 *   deadline of all its paths.
 * - Failure: FailureThreshold consecutive timeouts (or a timeout while
 *   probing, or the NIC's own port going down) declare the path failed: what
 *   it still owes moves to the connection's resend queue (any healthy path),
 *   and it takes a new UDP source port and epoch (repath) and probes.
 * - Receiver not ready: the packet is resent on its path after RnrDelay.
 *
 * It works on its connection's paths; the connection keeps the traces and
 * the congestion policy, and applies what follows from a timeout or a
 * failure (TimeoutWindow, PathFailed).
 */
#ifndef METAROCE_LOSS_RECOVERY_H
#define METAROCE_LOSS_RECOVERY_H

#include "metaroce-ack-header.h"
#include "metaroce-path.h"
#include "ring-buffer.h"

#include "ns3/event-id.h"

#include <cstdint>

namespace ns3
{

class MetaRoceConnection;

class MetaRoceLossRecovery
{
  public:
    /** The connection whose paths this serves; called once, before any packet. */
    void Setup(MetaRoceConnection* connection)
    {
        m_connection = connection;
    }

    /** Cancels the timers (the connection is disposed). */
    void Cancel();

    /**
     * The ACK's cumulative sequence and SACK bitmap on \p pathIndex mark its
     * packets acknowledged (their chunks too); returns how many are newly.
     */
    uint32_t ApplySack(const MetaRoceAckHeader& h, uint32_t pathIndex);
    /**
     * Gap detection on \p pathIndex after an ACK: every packet in flight
     * sent before the latest send time an ACK echoed is lost and queued for
     * retransmission on the path. Returns how many.
     */
    uint32_t DetectLosses(uint32_t pathIndex);
    /**
     * An ACK on \p pathIndex: stops its timer if nothing is left to
     * recover there, else restarts it when the ACK acknowledged something.
     */
    void UpdateTimer(uint32_t pathIndex, bool progress, int64_t nowPs);
    /** A packet went out on \p pathIndex: its timer runs (armed if idle). */
    void ArmRto(uint32_t pathIndex);
    /** The receiver had no receive posted for \p seq: resent after RnrDelay. */
    void DeferRnr(uint32_t pathIndex, uint32_t seq, int64_t nowPs);
    /** Declares \p pathIndex failed: its packets go elsewhere, it repaths and probes. */
    void FailPath(uint32_t pathIndex);

    // Attributes of MetaRoceConnection (see its TypeId), in picoseconds.
    int64_t GetMinRtoPs() const
    {
        return m_minRtoPs;
    }

    void SetMinRtoPs(int64_t ps)
    {
        m_minRtoPs = ps;
    }

    int64_t GetMaxRtoPs() const
    {
        return m_maxRtoPs;
    }

    void SetMaxRtoPs(int64_t ps)
    {
        m_maxRtoPs = ps;
    }

    int64_t GetInitialRtoPs() const
    {
        return m_initialRtoPs;
    }

    void SetInitialRtoPs(int64_t ps)
    {
        m_initialRtoPs = ps;
    }

    int64_t GetRnrDelayPs() const
    {
        return m_rnrDelayPs;
    }

    void SetRnrDelayPs(int64_t ps)
    {
        m_rnrDelayPs = ps;
    }

    uint32_t GetFailureThreshold() const
    {
        return m_failureThreshold;
    }

    void SetFailureThreshold(uint32_t n)
    {
        m_failureThreshold = n;
    }

  private:
    /** The path's timeout now (its backoff included). */
    int64_t RtoPs(const MetaRocePath& p) const;
    void RtoTimer();
    void PathTimeout(uint32_t pathIndex);
    void RnrTimer();

    /** A packet the receiver was not ready for. */
    struct RnrEntry
    {
        int64_t readyPs;
        uint32_t path;
        uint8_t epoch;
        uint32_t seq;
    };

    // Read per packet and per ACK first; the rest only on rare events.
    MetaRoceConnection* m_connection = nullptr;
    int64_t m_rtoEventPs = 0; //!< when m_rtoEvent fires; 0: not scheduled
    int64_t m_minRtoPs = 0;
    int64_t m_maxRtoPs = 0;
    int64_t m_initialRtoPs = 0;
    int64_t m_rnrDelayPs = 0;
    uint32_t m_failureThreshold = 0;
    RingBuffer<RnrEntry> m_rnrWait; //!< by ready time
    EventId m_rnrEvent;
    EventId m_rtoEvent; //!< one retransmission timer for all paths
};

} // namespace ns3

#endif
