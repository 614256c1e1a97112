/*
 * FabricEgressQueue: a fabric port's two traffic classes and the scheduler
 * between them, the port's counterpart of an ns-3 QueueDisc with two child
 * FIFOs.
 *
 * Classification: a frame whose DSCP is the control DSCP (ACKs, CNPs) is in
 * the control class, every other frame in the data class. Each class has an
 * 802.1p priority (the PFC priority its PAUSE frames name) and, with PFC,
 * the data class is lossless. Each class is a FIFO that also counts its
 * frame bytes and its serialisation time at the port's rate. A class can be
 * gated until a given picosecond (a PFC pause the port obeys).
 *
 * Scheduling: the port asks which class starts at a given time among the
 * frames queued by then (lazy departures decide later what an eagerly
 * scheduled port would have decided at that time). Strict priority serves
 * control first; otherwise the classes alternate packet by packet.
 *
 * Everything a hop reads is inline and kept together: the queue is the
 * first member block of FabricPort, the state a packet-hop touches.
 */
#ifndef METAROCE_FABRIC_EGRESS_QUEUE_H
#define METAROCE_FABRIC_EGRESS_QUEUE_H

#include "fabric-frame.h"
#include "ring-buffer.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace ns3
{

/** Where a queued frame is charged (FabricBufferAdmission); released as it leaves. */
enum class BufferCharge : uint8_t
{
    None,     //!< nowhere (NIC port)
    Pool,     //!< the switch's shared pool (lossy, tail drop)
    Lossless, //!< the switch's PFC accounting of (ingress, priority)
};

/** A frame waiting in a port's egress queue. */
struct FabricQueuedFrame
{
    FrameRef frame;
    FrameInfo info;      //!< its forwarding fields (and size), handed to the next hop with it
    uint16_t ingress;    //!< owner's port it arrived on (BufferCharge::Lossless)
    uint8_t priority;    //!< its PFC priority (BufferCharge::Lossless)
    BufferCharge charge; //!< where its bytes are charged
    int64_t enqueuedPs;  //!< when it was queued
};

class FabricEgressQueue
{
  public:
    static constexpr uint32_t kClasses = 2;
    static constexpr uint32_t kControlClass = 0;
    static constexpr uint32_t kDataClass = 1;

    /** Traffic class of a frame with this DSCP. */
    uint32_t ClassOf(uint8_t dscp) const
    {
        return dscp == m_controlDscp ? kControlClass : kDataClass;
    }

    /** 802.1p priority of a traffic class. */
    uint8_t PriorityOf(uint32_t cls) const
    {
        return cls == kControlClass ? m_controlPriority : m_dataPriority;
    }

    /** Whether PFC protects this class (the data class, when PFC is on). */
    bool IsLossless(uint32_t cls) const
    {
        return m_pfcEnabled && cls == kDataClass;
    }

    void SetControlDscp(uint8_t dscp)
    {
        m_controlDscp = dscp;
    }

    uint8_t GetControlDscp() const
    {
        return m_controlDscp;
    }

    void SetDataPriority(uint8_t priority)
    {
        m_dataPriority = priority;
    }

    uint8_t GetDataPriority() const
    {
        return m_dataPriority;
    }

    void SetControlPriority(uint8_t priority)
    {
        m_controlPriority = priority;
    }

    uint8_t GetControlPriority() const
    {
        return m_controlPriority;
    }

    /** PFC on: the data class is lossless. */
    void SetPfcEnabled(bool enabled)
    {
        m_pfcEnabled = enabled;
    }

    bool IsPfcEnabled() const
    {
        return m_pfcEnabled;
    }

    /** Strict priority for the control class (false: packet round robin). */
    void SetStrictPriority(bool strict)
    {
        m_strictPriority = strict;
    }

    bool IsStrictPriority() const
    {
        return m_strictPriority;
    }

    /** Frame bytes queued in both classes. */
    uint32_t GetBytes() const
    {
        return m_bytes;
    }

    /** Frames queued in both classes. */
    uint32_t GetPackets() const;

    /** Serialisation time of class \p cls's frames at the port's rate (ps). */
    uint64_t GetQueuedPs(uint32_t cls) const
    {
        return m_queuedPs[cls];
    }

    /** The class is gated until this picosecond (0: never gated). */
    int64_t GetPausedUntilPs(uint32_t cls) const
    {
        return m_pausedUntilPs[cls];
    }

    void SetPausedUntilPs(uint32_t cls, int64_t ps)
    {
        m_pausedUntilPs[cls] = ps;
    }

    /** Whether class \p cls is gated at \p nowPs. */
    bool IsPaused(uint32_t cls, int64_t nowPs) const
    {
        return m_pausedUntilPs[cls] > nowPs;
    }

    /** Appends \p frame (taking \p ps to serialise) to class \p cls. */
    void Push(uint32_t cls, FabricQueuedFrame&& frame, uint64_t ps)
    {
        m_bytes += frame.info.bytes;
        m_queuedPs[cls] += ps;
        m_fifos[cls].push_back(std::move(frame));
    }

    /** The frame last appended to class \p cls. */
    FabricQueuedFrame& Back(uint32_t cls)
    {
        return m_fifos[cls].back();
    }

    /** The head of class \p cls (not empty). */
    const FabricQueuedFrame& Front(uint32_t cls)
    {
        return m_fifos[cls].front();
    }

    /**
     * Removes the head of class \p cls (taking \p ps to serialise), which
     * the scheduler chose: round robin then serves the other class first.
     */
    FabricQueuedFrame Pop(uint32_t cls, uint64_t ps)
    {
        auto& fifo = m_fifos[cls];
        FabricQueuedFrame q = std::move(fifo.front());
        fifo.pop_front();
        if (!m_strictPriority)
        {
            m_rrNext = (cls + 1) % kClasses;
        }
        m_bytes -= q.info.bytes;
        m_queuedPs[cls] -= ps;
        return q;
    }

    /** Class to serve at \p startPs among frames queued and not gated by then; -1 if none. */
    int32_t Pick(int64_t startPs) const
    {
        auto eligible = [this, startPs](uint32_t cls) {
            return !m_fifos[cls].empty() && m_fifos[cls].front().enqueuedPs <= startPs &&
                   m_pausedUntilPs[cls] <= startPs;
        };
        if (m_strictPriority)
        {
            return eligible(kControlClass) ? int32_t(kControlClass)
                   : eligible(kDataClass)  ? int32_t(kDataClass)
                                           : -1;
        }
        const uint32_t other = (m_rrNext + 1) % kClasses;
        return eligible(m_rrNext) ? int32_t(m_rrNext) : eligible(other) ? int32_t(other) : -1;
    }

    /**
     * The earliest time a queued head becomes eligible: its arrival, or its
     * class's gate if later (INT64_MAX if both classes are empty).
     */
    int64_t NextEligiblePs() const
    {
        int64_t startPs = INT64_MAX;
        for (uint32_t c = 0; c < kClasses; ++c)
        {
            const auto& q = m_fifos[c];
            if (!q.empty())
            {
                startPs = std::min(startPs, std::max(q.front().enqueuedPs, m_pausedUntilPs[c]));
            }
        }
        return startPs;
    }

    /**
     * Empties both classes, class by class in FIFO order, handing each frame
     * to \p f once the counters no longer hold it.
     */
    template <typename F>
    void Drain(F&& f)
    {
        for (auto& fifo : m_fifos)
        {
            while (!fifo.empty())
            {
                FabricQueuedFrame q = std::move(fifo.front());
                fifo.pop_front();
                m_bytes -= q.info.bytes;
                f(q);
            }
        }
        m_queuedPs.fill(0);
    }

    /** Calls f(cls, frame) for every queued frame, class by class in FIFO order. */
    template <typename F>
    void ForEach(F&& f) const
    {
        for (uint32_t cls = 0; cls < kClasses; ++cls)
        {
            const auto& fifo = m_fifos[cls];
            for (size_t i = 0; i < fifo.size(); ++i)
            {
                f(cls, fifo[i]);
            }
        }
    }

    /** Recounts each class's serialisation time with \p framePs(bytes) (a new rate). */
    template <typename F>
    void RecountQueuedPs(F&& framePs)
    {
        for (uint32_t cls = 0; cls < kClasses; ++cls)
        {
            m_queuedPs[cls] = 0;
            ForEachIn(cls, [this, cls, &framePs](const FabricQueuedFrame& q) {
                m_queuedPs[cls] += framePs(q.info.bytes);
            });
        }
    }

    /** Lossless frame bytes queued that arrived on the owner's port \p ingress. */
    uint32_t GetLosslessBytesFrom(uint32_t ingress) const;
    /** Frees the frames (at the owner's disposal). */
    void Clear();

  private:
    template <typename F>
    void ForEachIn(uint32_t cls, F&& f) const
    {
        const auto& fifo = m_fifos[cls];
        for (size_t i = 0; i < fifo.size(); ++i)
        {
            f(fifo[i]);
        }
    }

    std::array<RingBuffer<FabricQueuedFrame, true>, kClasses> m_fifos;
    std::array<uint64_t, kClasses> m_queuedPs{};     //!< serialisation time of each class
    std::array<int64_t, kClasses> m_pausedUntilPs{}; //!< each class's gate; 0 when PFC is off
    uint32_t m_bytes = 0;
    uint32_t m_rrNext = 0; //!< next class to serve in round robin
    bool m_strictPriority = true;
    bool m_pfcEnabled = false;
    uint8_t m_controlDscp = 48;
    uint8_t m_dataPriority = 3;
    uint8_t m_controlPriority = 6;
};

} // namespace ns3

#endif
