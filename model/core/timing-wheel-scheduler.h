/*
 * TimingWheelScheduler: an ns-3 event scheduler for packet-level fabrics.
 *
 * Almost every event of a fabric simulation is a frame arriving one
 * serialisation plus one propagation delay after now (a microsecond or
 * two), and events are consumed in time order. A binary heap pays
 * O(log n) compares through cache-cold memory for every insert and every
 * removal; with tens of thousands of frames in flight that is the largest
 * single cost of a packet-hop. This scheduler keeps a ring of WheelSlots
 * buckets, one per time step (ns-3 timestamp unit) over the window
 * [now, now + WheelSlots): an event inside the window is appended to the
 * bucket of its exact timestamp; a later one (timers) goes to an ordinary
 * binary heap. A bitmap of non-empty buckets finds the next one with a few
 * word scans.
 *
 * Order is exactly ns-3's (timestamp, then uid): events of one timestamp
 * sit in one bucket in insertion order, and ns-3 hands out uids in
 * insertion order; the bucket head and the heap top are compared on the
 * full key at each removal. Any simulation gives the same results as with
 * ns3::MapScheduler or ns3::PriorityQueueScheduler (tested).
 */
#ifndef METAROCE_TIMING_WHEEL_SCHEDULER_H
#define METAROCE_TIMING_WHEEL_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class TimingWheelScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();
    TimingWheelScheduler();
    ~TimingWheelScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    static constexpr uint32_t kNil = 0xffffffffu;

    struct Node
    {
        Event ev;
        uint32_t next;
    };

    struct Bucket
    {
        uint32_t head = kNil;
        uint32_t tail = kNil;
    };

    /** Sets the number of buckets (a power of two); only before the first Insert. */
    void SetWheelSlots(uint32_t slots);
    uint32_t GetWheelSlots() const;

    /** First non-empty bucket at or after slot \p pos (no wrap-around), or kNil. */
    uint32_t FindFrom(uint32_t pos) const;
    /** Index of the first non-empty bucket at or after the window start, or kNil. */
    uint32_t FirstBucket() const;
    /** Whether the heap's top comes before the bucket \p b's head. */
    bool HeapFirst(uint32_t b) const;
    uint32_t AllocNode();
    /** Prefetches the next event's object after bucket \p b's head left. */
    void Prefetch(uint32_t b) const;
    void PopBucketHead(uint32_t b);

    std::vector<Bucket> m_buckets;
    std::vector<uint64_t> m_bitmap;  //!< one bit per bucket: non-empty
    std::vector<uint64_t> m_summary; //!< one bit per bitmap word: non-zero
    std::vector<Node> m_nodes;
    uint32_t m_freeNode = kNil;
    uint64_t m_mask = 0;       //!< buckets - 1
    uint64_t m_base = 0;       //!< window start: timestamp of the last removed event
    uint64_t m_inWheel = 0;    //!< events in buckets
    std::vector<Event> m_heap; //!< events at or beyond the window's end, min-heap
};

} // namespace ns3

#endif
