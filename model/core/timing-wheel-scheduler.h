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
 *
 * Keyed order (SetKeyed, for FabricSimulatorImpl's EventOrder "Keyed"):
 * ties are broken by a 64-bit key given with each event (InsertEntry)
 * instead of by insertion order. Events still join their bucket at its
 * tail; a bucket is sorted by key once, when it becomes the earliest (a
 * bucket holds the ties of one time step: ~9 events in a busy fabric), and
 * kept sorted while it is consumed.
 */
#ifndef METAROCE_TIMING_WHEEL_SCHEDULER_H
#define METAROCE_TIMING_WHEEL_SCHEDULER_H

#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class TimingWheelScheduler final : public Scheduler
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

    /** One queued event: its object, time, tie key (the uid unless keyed) and context. */
    struct Entry
    {
        EventImpl* impl;
        uint64_t ts;
        uint64_t order;
        uint32_t context;
    };
    /** Ties are broken by Entry::order, in any insertion order. Before the first Insert. */
    void SetKeyed();
    void InsertEntry(const Entry& e);
    /** The next event's entry (not empty). */
    Entry PeekEntry() const;
    /**
     * Removes the next event into \p out if it comes before (\p ts, \p order)
     * (\p order 0: before \p ts); else false.
     */
    bool PopBefore(uint64_t ts, uint64_t order, Entry& out);

    /** Whether \p impl is queued at \p ts (FabricSimulatorImpl's lanes ask; O(events at ts)). */
    bool Contains(uint64_t ts, const EventImpl* impl) const;

  private:
    static constexpr uint32_t kNil = 0xffffffffu;

    struct Node
    {
        EventImpl* impl;
        uint64_t ts;
        uint64_t order;
        uint32_t context;
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
    /** Keyed: sorts bucket \p b (the earliest) by key, unless it is already. */
    void EnsureSorted(uint32_t b);
    /** Removes the first event: the heap's top if \p heap, else bucket \p b's head. */
    Entry PopFirst(uint32_t b, bool heap);
    static Event ToEvent(const Entry& e);

    std::vector<Bucket> m_buckets;
    std::vector<uint64_t> m_bitmap;  //!< one bit per bucket: non-empty
    std::vector<uint64_t> m_summary; //!< one bit per bitmap word: non-zero
    std::vector<Node> m_nodes;
    uint32_t m_freeNode = kNil;
    uint64_t m_mask = 0;            //!< buckets - 1
    uint64_t m_base = 0;            //!< window start: timestamp of the last removed event
    uint64_t m_inWheel = 0;         //!< events in buckets
    std::vector<Entry> m_heap;      //!< events at or beyond the window's end, min-heap
    bool m_keyed = false;           //!< ties by Entry::order (else insertion order is)
    uint32_t m_sortedSlot = kNil;   //!< keyed: the bucket sorted (the earliest) ...
    uint64_t m_sortedTs = 0;        //!< ... and its time: insertions there keep it sorted
    std::vector<uint32_t> m_scratch; //!< EnsureSorted's
};

} // namespace ns3

#endif
