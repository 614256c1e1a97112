#include "metaroce-path.h"

#include <vector>

namespace ns3
{

namespace
{
/**
 * Spare outstanding parts. A window-limited path goes idle (ReleaseIfIdle)
 * at nearly every ACK and busy again at its next packet; a bounded pool of
 * parts, their packet arrays kept, saves two allocations per packet and
 * holds at most kPoolSize parts (per thread, not per connection). Off under
 * AddressSanitizer, which must see each lifetime.
 */
struct OutstandingPool
{
    static constexpr size_t kPoolSize = 256;
    std::vector<MetaRocePath::Outstanding*> spare;

    ~OutstandingPool()
    {
        for (MetaRocePath::Outstanding* o : spare)
        {
            delete o;
        }
    }
};

#if !defined(__SANITIZE_ADDRESS__)
OutstandingPool&
Pool()
{
    static thread_local OutstandingPool pool;
    return pool;
}
#endif
} // namespace

MetaRocePath::Outstanding&
MetaRocePath::AllocateOutstanding()
{
#if !defined(__SANITIZE_ADDRESS__)
    auto& spare = Pool().spare;
    if (!spare.empty())
    {
        outstanding.reset(spare.back()); // in the state ReleaseOutstanding left it: a fresh one's
        spare.pop_back();
        return *outstanding;
    }
#endif
    outstanding = std::make_unique<Outstanding>();
    return *outstanding;
}

MetaRocePath::History&
MetaRocePath::AllocateHistory()
{
    history = std::make_unique<History>();
    return *history;
}

void
MetaRocePath::ReleaseOutstanding()
{
    // A fresh Outstanding is equivalent to an idle one with any maxEchoPs:
    // every packet the path sends later leaves no earlier than now, so no
    // earlier than any send time an ACK has echoed so far.
#if !defined(__SANITIZE_ADDRESS__)
    auto& spare = Pool().spare;
    if (spare.size() < OutstandingPool::kPoolSize)
    {
        outstanding->maxEchoPs = Outstanding().maxEchoPs;
        spare.push_back(outstanding.release());
        return;
    }
#endif
    outstanding.reset();
}

MetaRocePathStats
MetaRocePath::GetStats() const
{
    MetaRocePathStats s;
    s.sent = sent;
    s.acked = acked;
    if (const History* h = history.get())
    {
        s.retransmitted = h->retransmitted;
        s.timeoutRetransmitted = h->timeoutRetransmitted;
        s.timeouts = h->timeouts;
        s.failures = h->failures;
        s.ecnEchoes = h->ecnEchoes;
        s.lost = h->lost;
        s.probes = h->probes;
    }
    return s;
}

} // namespace ns3
