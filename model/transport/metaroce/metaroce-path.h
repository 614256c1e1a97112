/*
 * MetaRocePath: one path of a MetaRoCE sender (design decision 2, docs/metaroce-design.md): a
 * UDP source port (its ECMP entropy, so one FIFO route through the fabric)
 * with its own sequence space, congestion window, RTT estimator,
 * retransmission timer state and ECN state. The connection keeps
 * PathsPerPlane of them per plane; MetaRocePathSelector picks among them and
 * MetaRoceLossRecovery detects and repairs their losses.
 *
 * A fabric of thousands of connections keeps most paths idle most of the
 * time, so the path itself is 56 bytes and what it needs only while packets
 * are outstanding (Outstanding) or only after a rare event (History) lives
 * in parts allocated then.
 */
#ifndef METAROCE_PATH_H
#define METAROCE_PATH_H

#include "rdma-congestion-ops.h"
#include "ring-buffer.h"
#include "sack-bitmap.h"

#include <algorithm>
#include <cstdint>
#include <memory>

namespace ns3
{

/** Counters of one path (all epochs). */
struct MetaRocePathStats
{
    uint64_t sent = 0;                 //!< data packets, first transmissions
    uint64_t retransmitted = 0;        //!< on this path after a gap in its bitmap
    uint64_t timeoutRetransmitted = 0; //!< on this path after its timer expired
    uint64_t timeouts = 0;
    uint64_t failures = 0; //!< times declared failed (each a repath)
    uint64_t acked = 0;    //!< packets newly acknowledged
    uint64_t ecnEchoes = 0;
    uint64_t lost = 0;   //!< packets found missing from the bitmap
    uint64_t probes = 0; //!< payload-less probes sent while failed
};

/** The part of a message one packet carries. */
struct MetaRoceChunkRef
{
    /** MetaRoceChunkRef::message of a probe (no data). */
    static constexpr uint64_t kProbe = UINT64_MAX;

    uint64_t message = 0; //!< connection-wide message index
    uint32_t chunk = 0;
};

class MetaRocePath
{
  public:
    /** Where a packet sent on the path stands. */
    enum class PacketState : uint8_t
    {
        InFlight,
        Acked,
        Lost,    //!< found missing, waiting in the path's retransmission queue
        RnrWait, //!< the receiver had no receive posted: retried after RnrDelay
    };

    /** One packet sent on the path and not yet released from its window. */
    struct SentPacket
    {
        MetaRoceChunkRef ref;
        int64_t sentPs = 0;
        PacketState state = PacketState::InFlight;
        bool byTimeout = false; //!< Lost because the path's timer expired
    };

    /**
     * The path's outstanding packets and retransmission timer: allocated by
     * its first packet, released as soon as every field is back at its
     * default (nothing unacknowledged, no retransmission queued, timer idle,
     * no timeout streak), so an idle path costs a null pointer.
     */
    struct Outstanding
    {
        RingBuffer<SentPacket, true> packets; //!< sequences [una, nextSeq); array kept (pool)
        RingBuffer<uint32_t> retx;            //!< sequences found lost, oldest first
        int64_t maxEchoPs = -1;               //!< latest send time an ACK has echoed (this epoch)
        int64_t rtoDeadlinePs = 0;            //!< 0: timer idle
        uint32_t inFlight = 0;
        uint32_t consecutiveTimeouts = 0;
        uint32_t backoff = 1;
    };

    /**
     * What the path has seen of congestion and loss: allocated by its first
     * ECN echo, loss, timeout, failure or probe, or by a congestion policy
     * that keeps a rate or extra state; kept.
     */
    struct History
    {
        int64_t lastEcnPs = INT64_MIN / 2;
        int64_t lastDecreasePs = INT64_MIN / 2; //!< RdmaFlowCc::lastDecreasePs
        uint64_t rateBps = 0;                   //!< RdmaFlowCc::rateBps
        std::unique_ptr<RdmaCcExtra> extra;     //!< RdmaFlowCc::extra
        // MetaRocePathStats, 32 bits: a path wraps after 4 G events
        uint32_t retransmitted = 0;
        uint32_t timeoutRetransmitted = 0;
        uint32_t timeouts = 0;
        uint32_t failures = 0;
        uint32_t ecnEchoes = 0;
        uint32_t lost = 0;
        uint32_t probes = 0;
    };

    // Inline tests, allocation and release out of line: these run for
    // nearly every packet and ACK.
    /** The outstanding part, allocated if the path has none. */
    Outstanding& GetOutstanding()
    {
        return outstanding ? *outstanding : AllocateOutstanding();
    }

    /** The history part, allocated if the path has none. */
    History& GetHistory()
    {
        return history ? *history : AllocateHistory();
    }

    /** Releases the outstanding part once it holds only defaults. */
    void ReleaseIfIdle()
    {
        const Outstanding* o = outstanding.get();
        if (o && o->packets.empty() && o->retx.empty() && o->inFlight == 0 &&
            o->rtoDeadlinePs == 0 && o->consecutiveTimeouts == 0 && o->backoff == 1)
        {
            ReleaseOutstanding();
        }
    }

    /** Packets between the oldest unacknowledged one and the next to send. */
    uint32_t CountOutstanding() const
    {
        return outstanding ? outstanding->packets.size() : 0;
    }

    /** The oldest unacknowledged sequence. */
    uint32_t Una() const
    {
        return nextSeq - CountOutstanding();
    }

    uint32_t InFlight() const
    {
        return outstanding ? outstanding->inFlight : 0;
    }

    /** A lost packet waits for its retransmission on this path. */
    bool HasRetransmission() const
    {
        return outstanding && !outstanding->retx.empty();
    }

    /** The window and the receiver's bitmap admit another packet. */
    bool HasRoom() const;

    /** No ECN echo within the last RTT ("new packets go to clear paths"). */
    bool IsClear(int64_t nowPs) const
    {
        const int64_t lastEcnPs = history ? history->lastEcnPs : History().lastEcnPs;
        return nowPs - lastEcnPs > std::max<int64_t>(srttPs, 1);
    }

    /** RFC 6298 smoothing of the path's RTT with a new sample. */
    void UpdateRtt(int64_t samplePs)
    {
        if (srttPs == 0)
        {
            srttPs = samplePs;
            rttvarPs = samplePs / 2;
        }
        else
        {
            const int64_t err = srttPs > samplePs ? srttPs - samplePs : samplePs - srttPs;
            rttvarPs = (3 * rttvarPs + err) / 4;
            srttPs = (7 * srttPs + samplePs) / 8;
        }
    }

    MetaRocePathStats GetStats() const;

    /**
     * Calls \p f with the path's congestion state as an RdmaFlowCc (its
     * plane's line rate \p lineBps), then stores it back: the policy sees an
     * ordinary flow while the path keeps only a window inline.
     */
    template <typename F>
    void WithFlowCc(uint64_t lineBps, F f);

  private:
    Outstanding& AllocateOutstanding();
    History& AllocateHistory();
    /** Frees the idle outstanding part (to the spare pool if it has room). */
    void ReleaseOutstanding();

  public:
    double cwnd = 1; //!< RdmaFlowCc::cwnd
    int64_t srttPs = 0;
    int64_t rttvarPs = 0;
    std::unique_ptr<Outstanding> outstanding; //!< null: nothing outstanding
    std::unique_ptr<History> history;         //!< null: no rare event yet
    uint32_t nextSeq = 0;
    uint32_t sent = 0;  //!< MetaRocePathStats::sent (32 bits)
    uint32_t acked = 0; //!< MetaRocePathStats::acked (32 bits)
    uint16_t srcPort = 0;
    uint8_t epoch = 0; //!< changes at each repath; the receiver restarts its bitmap
    bool probing = false;
};

inline bool
MetaRocePath::HasRoom() const
{
    if (CountOutstanding() >= SackBitmap::kBits)
    {
        return false; // the receiver's bitmap could not describe another packet
    }
    if (probing)
    {
        return false; // carries only its probe until an ACK comes back
    }
    return InFlight() < std::max(1u, uint32_t(cwnd));
}

template <typename F>
void
MetaRocePath::WithFlowCc(uint64_t lineBps, F f)
{
    RdmaFlowCc cc;
    cc.cwnd = cwnd;
    cc.lineBps = lineBps;
    if (history)
    {
        cc.lastDecreasePs = history->lastDecreasePs;
        cc.rateBps = history->rateBps;
        cc.extra = std::move(history->extra);
    }
    f(cc);
    cwnd = cc.cwnd;
    if (history || cc.lastDecreasePs != RdmaFlowCc().lastDecreasePs || cc.rateBps != 0 || cc.extra)
    {
        History& h = GetHistory();
        h.lastDecreasePs = cc.lastDecreasePs;
        h.rateBps = cc.rateBps;
        h.extra = std::move(cc.extra);
    }
}

} // namespace ns3

#endif
