#include "timing-wheel-scheduler.h"

#include "ns3/abort.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TimingWheelScheduler);

namespace
{

/** Heap order: true if \p a comes after \p b (std heaps keep the largest on top). */
inline bool
Later(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return a.key.m_ts > b.key.m_ts || (a.key.m_ts == b.key.m_ts && a.key.m_uid > b.key.m_uid);
}

inline bool
Before(const Scheduler::EventKey& a, const Scheduler::EventKey& b)
{
    return a.m_ts < b.m_ts || (a.m_ts == b.m_ts && a.m_uid < b.m_uid);
}

} // namespace

TypeId
TimingWheelScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TimingWheelScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("MetaRoce")
            .AddConstructor<TimingWheelScheduler>()
            .AddAttribute("WheelSlots",
                          "Buckets of the wheel, one per time step (a power of two): events "
                          "less than this many steps (ns by default) ahead of now go to a "
                          "bucket, later ones to a heap. Any value gives the same order.",
                          UintegerValue(1u << 14),
                          MakeUintegerAccessor(&TimingWheelScheduler::SetWheelSlots,
                                               &TimingWheelScheduler::GetWheelSlots),
                          MakeUintegerChecker<uint32_t>(64, 1u << 24));
    return tid;
}

TimingWheelScheduler::TimingWheelScheduler()
{
    SetWheelSlots(1u << 14);
}

TimingWheelScheduler::~TimingWheelScheduler() = default;

void
TimingWheelScheduler::SetWheelSlots(uint32_t slots)
{
    NS_ABORT_MSG_IF(slots < 64 || (slots & (slots - 1)) != 0,
                    "TimingWheelScheduler: WheelSlots must be a power of two >= 64, got " << slots);
    NS_ABORT_MSG_IF(m_inWheel > 0 || !m_heap.empty(),
                    "TimingWheelScheduler: WheelSlots set after events were scheduled");
    m_buckets.assign(slots, Bucket{});
    m_bitmap.assign(slots / 64, 0);
    m_summary.assign((m_bitmap.size() + 63) / 64, 0);
    m_mask = slots - 1;
}

uint32_t
TimingWheelScheduler::GetWheelSlots() const
{
    return static_cast<uint32_t>(m_mask + 1);
}

uint32_t
TimingWheelScheduler::AllocNode()
{
    if (m_freeNode != kNil)
    {
        const uint32_t n = m_freeNode;
        m_freeNode = m_nodes[n].next;
        return n;
    }
    m_nodes.push_back(Node{});
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

void
TimingWheelScheduler::Insert(const Event& ev)
{
    const uint64_t ts = ev.key.m_ts;
    if (ts < m_base || ts - m_base > m_mask)
    {
        // Beyond the window (or, never in ns-3, before its start): the heap.
        m_heap.push_back(ev);
        std::push_heap(m_heap.begin(), m_heap.end(), Later);
        return;
    }
    const uint32_t b = static_cast<uint32_t>(ts & m_mask);
    const uint32_t n = AllocNode();
    m_nodes[n].ev = ev;
    m_nodes[n].next = kNil;
    Bucket& bucket = m_buckets[b];
    if (bucket.tail == kNil)
    {
        bucket.head = n;
        const uint32_t w = b >> 6;
        m_bitmap[w] |= uint64_t(1) << (b & 63);
        m_summary[w >> 6] |= uint64_t(1) << (w & 63);
    }
    else
    {
        m_nodes[bucket.tail].next = n;
    }
    bucket.tail = n;
    ++m_inWheel;
}

uint32_t
TimingWheelScheduler::FindFrom(uint32_t pos) const
{
    uint32_t w = pos >> 6;
    uint64_t bits = m_bitmap[w] & (~uint64_t(0) << (pos & 63));
    if (bits)
    {
        return (w << 6) + __builtin_ctzll(bits);
    }
    ++w;
    if (w >= m_bitmap.size())
    {
        return kNil;
    }
    uint32_t s = w >> 6;
    uint64_t sbits = m_summary[s] & (~uint64_t(0) << (w & 63));
    while (true)
    {
        if (sbits)
        {
            const uint32_t word = (s << 6) + __builtin_ctzll(sbits);
            return (word << 6) + __builtin_ctzll(m_bitmap[word]);
        }
        if (++s >= m_summary.size())
        {
            return kNil;
        }
        sbits = m_summary[s];
    }
}

uint32_t
TimingWheelScheduler::FirstBucket() const
{
    if (m_inWheel == 0)
    {
        return kNil;
    }
    // Buckets at or after the window start's slot hold the earlier times;
    // those before it (wrapped) the later ones.
    const uint32_t start = static_cast<uint32_t>(m_base & m_mask);
    const uint32_t b = FindFrom(start);
    return b != kNil ? b : FindFrom(0);
}

bool
TimingWheelScheduler::HeapFirst(uint32_t b) const
{
    if (m_heap.empty())
    {
        return false;
    }
    if (b == kNil)
    {
        return true;
    }
    return Before(m_heap.front().key, m_nodes[m_buckets[b].head].ev.key);
}

void
TimingWheelScheduler::PopBucketHead(uint32_t b)
{
    Bucket& bucket = m_buckets[b];
    const uint32_t n = bucket.head;
    bucket.head = m_nodes[n].next;
    if (bucket.head == kNil)
    {
        bucket.tail = kNil;
        const uint32_t w = b >> 6;
        m_bitmap[w] &= ~(uint64_t(1) << (b & 63));
        if (m_bitmap[w] == 0)
        {
            m_summary[w >> 6] &= ~(uint64_t(1) << (w & 63));
        }
    }
    m_nodes[n].next = m_freeNode;
    m_freeNode = n;
    --m_inWheel;
}

void
TimingWheelScheduler::Prefetch(uint32_t b) const
{
    // The next event's object (and the node after it) are cold by the time
    // they run: bring them in while the current event runs.
    if (m_inWheel == 0)
    {
        return;
    }
    uint32_t n = b != kNil ? m_buckets[b].head : kNil;
    if (n == kNil)
    {
        b = FirstBucket();
        n = m_buckets[b].head;
    }
    // Two lines: an event object with its bound arguments rarely fits one.
    const char* impl = reinterpret_cast<const char*>(m_nodes[n].ev.impl);
    __builtin_prefetch(impl);
    __builtin_prefetch(impl + 64);
    uint32_t after = m_nodes[n].next;
    if (after == kNil)
    {
        // Most buckets hold one event: the one after next is the head of the
        // next non-empty bucket (wrapping round the wheel).
        uint32_t nb = b < m_mask ? FindFrom(b + 1) : kNil;
        if (nb == kNil)
        {
            nb = FindFrom(0);
        }
        after = nb != kNil ? m_buckets[nb].head : kNil;
    }
    if (after != kNil)
    {
        __builtin_prefetch(&m_nodes[after]);
    }
}

bool
TimingWheelScheduler::IsEmpty() const
{
    return m_inWheel == 0 && m_heap.empty();
}

Scheduler::Event
TimingWheelScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    const uint32_t b = FirstBucket();
    return HeapFirst(b) ? m_heap.front() : m_nodes[m_buckets[b].head].ev;
}

Scheduler::Event
TimingWheelScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    const uint32_t b = FirstBucket();
    Event ev;
    if (HeapFirst(b))
    {
        ev = m_heap.front();
        std::pop_heap(m_heap.begin(), m_heap.end(), Later);
        m_heap.pop_back();
    }
    else
    {
        ev = m_nodes[m_buckets[b].head].ev;
        PopBucketHead(b);
    }
    // Every remaining event is at or after this one: the window moves up.
    m_base = std::max(m_base, ev.key.m_ts);
    Prefetch(b);
    return ev;
}

void
TimingWheelScheduler::Remove(const Event& ev)
{
    const uint64_t ts = ev.key.m_ts;
    if (ts >= m_base && ts - m_base <= m_mask)
    {
        const uint32_t b = static_cast<uint32_t>(ts & m_mask);
        Bucket& bucket = m_buckets[b];
        uint32_t prev = kNil;
        for (uint32_t n = bucket.head; n != kNil; prev = n, n = m_nodes[n].next)
        {
            if (m_nodes[n].ev.key.m_uid != ev.key.m_uid)
            {
                continue;
            }
            if (prev == kNil)
            {
                PopBucketHead(b);
                return;
            }
            m_nodes[prev].next = m_nodes[n].next;
            if (bucket.tail == n)
            {
                bucket.tail = prev;
            }
            m_nodes[n].next = m_freeNode;
            m_freeNode = n;
            --m_inWheel;
            return;
        }
    }
    for (auto it = m_heap.begin(); it != m_heap.end(); ++it)
    {
        if (it->key.m_uid == ev.key.m_uid)
        {
            m_heap.erase(it);
            std::make_heap(m_heap.begin(), m_heap.end(), Later);
            return;
        }
    }
    NS_ABORT_MSG("TimingWheelScheduler: removing an event that is not scheduled (uid "
                 << ev.key.m_uid << ")");
}

} // namespace ns3
