#include "rdma-connection.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <sstream>
#include <unordered_map>

namespace ns3
{

RdmaCompletion
CompletionOf(const RdmaWorkRequest& wr, RdmaStatus status, Time posted)
{
    RdmaCompletion c;
    c.wrId = wr.wrId;
    c.opcode = wr.opcode;
    c.status = status;
    c.stream = wr.stream;
    c.bytes = wr.length;
    c.posted = posted;
    c.completed = Simulator::Now();
    return c;
}

RdmaCompletion
CompletionOf(const RdmaRecvRequest& rr, RdmaStatus status, uint32_t bytes, Time posted)
{
    RdmaCompletion c;
    c.wrId = rr.wrId;
    c.opcode = RdmaOpcode::Recv;
    c.status = status;
    c.stream = rr.stream;
    c.bytes = bytes;
    c.posted = posted;
    c.completed = Simulator::Now();
    return c;
}

NS_OBJECT_ENSURE_REGISTERED(RdmaConnection);

TypeId
RdmaConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaConnection")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddTraceSource("Completion",
                            "A work request completed (in stream post order)",
                            MakeTraceSourceAccessor(&RdmaConnection::m_completionTrace),
                            "ns3::RdmaConnection::CompletionTracedCallback");
    return tid;
}

// Per-request tracking (EnableWorkRequestTracking): posts and completions of
// every (opcode, stream, wrId). Entries stay, so that a second completion is
// told from one of a request never posted. Heap only when enabled (tests).
struct RdmaConnection::Tracker
{
    struct Key
    {
        uint64_t wrId;
        uint16_t stream;
        RdmaOpcode opcode;

        bool operator==(const Key& o) const
        {
            return wrId == o.wrId && stream == o.stream && opcode == o.opcode;
        }
    };

    struct KeyHash
    {
        std::size_t operator()(const Key& k) const
        {
            return std::hash<uint64_t>()(k.wrId * 0x9E3779B97F4A7C15ULL ^
                                         (uint64_t(k.stream) << 8 | uint64_t(k.opcode)));
        }
    };

    struct Counts
    {
        uint64_t posted = 0;
        uint64_t completed = 0;
    };

    std::unordered_map<Key, Counts, KeyHash> requests;
    uint64_t unknown = 0;
    uint64_t duplicates = 0;
    std::string firstViolation;
};

RdmaConnection::RdmaConnection() = default;
RdmaConnection::~RdmaConnection() = default;

void
RdmaConnection::DoDispose()
{
    m_memory = nullptr;
    m_completionCallback = CompletionCallback();
    Object::DoDispose();
}

void
RdmaConnection::SetEndpoints(uint32_t localHost, uint32_t remoteHost, Ptr<RdmaMemory> memory)
{
    m_localHost = localHost;
    m_remoteHost = remoteHost;
    m_memory = memory;
}

void
RdmaConnection::PostWrite(uint16_t stream,
                          uint64_t wrId,
                          uint64_t remoteAddress,
                          uint32_t rkey,
                          uint32_t length,
                          uint64_t localAddress,
                          uint32_t lkey)
{
    RdmaWorkRequest wr;
    wr.wrId = wrId;
    wr.opcode = RdmaOpcode::Write;
    wr.stream = stream;
    wr.length = length;
    wr.remoteAddress = remoteAddress;
    wr.rkey = rkey;
    wr.localAddress = localAddress;
    wr.lkey = lkey;
    Post(wr);
}

void
RdmaConnection::PostSend(uint16_t stream,
                         uint64_t wrId,
                         uint32_t length,
                         uint64_t localAddress,
                         uint32_t lkey)
{
    RdmaWorkRequest wr;
    wr.wrId = wrId;
    wr.opcode = RdmaOpcode::Send;
    wr.stream = stream;
    wr.length = length;
    wr.localAddress = localAddress;
    wr.lkey = lkey;
    Post(wr);
}

void
RdmaConnection::PostRecv(uint16_t stream,
                         uint64_t wrId,
                         uint64_t address,
                         uint32_t lkey,
                         uint32_t length)
{
    RdmaRecvRequest rr;
    rr.wrId = wrId;
    rr.stream = stream;
    rr.address = address;
    rr.lkey = lkey;
    rr.length = length;
    PostRecv(rr);
}

void
RdmaConnection::CountPosted(const RdmaWorkRequest& wr)
{
    ++m_posted;
    if (m_tracker)
    {
        ++m_tracker->requests[Tracker::Key{wr.wrId, wr.stream, wr.opcode}].posted;
    }
}

void
RdmaConnection::CountPosted(const RdmaRecvRequest& rr)
{
    ++m_posted;
    ++m_postedRecvs;
    if (m_tracker)
    {
        ++m_tracker->requests[Tracker::Key{rr.wrId, rr.stream, RdmaOpcode::Recv}].posted;
    }
}

void
RdmaConnection::EnableWorkRequestTracking()
{
    NS_ABORT_MSG_IF(m_posted > 0,
                    "RdmaConnection: work-request tracking must start before the first post");
    m_tracker = std::make_unique<Tracker>();
}

void
RdmaConnection::TrackCompletion(const RdmaCompletion& c)
{
    // O(1) on average: one hash lookup. A request posted n times (the same
    // wrId reused) may complete n times.
    Tracker& t = *m_tracker;
    auto it = t.requests.find(Tracker::Key{c.wrId, c.stream, c.opcode});
    const char* what = nullptr;
    if (it == t.requests.end())
    {
        ++t.unknown;
        what = "never posted";
    }
    else if (it->second.completed >= it->second.posted)
    {
        ++t.duplicates;
        what = "already completed";
    }
    else
    {
        ++it->second.completed;
        return;
    }
    if (t.firstViolation.empty())
    {
        std::ostringstream os;
        os << "completion of a request " << what << " at " << c.completed.As(Time::US) << ": " << c;
        t.firstViolation = os.str();
    }
}

RdmaConnection::WorkRequestAudit
RdmaConnection::GetWorkRequestAudit() const
{
    WorkRequestAudit a;
    a.posted = m_posted;
    a.postedRecvs = m_postedRecvs;
    a.completed = m_completed;
    a.completedRecvs = m_completedRecvs;
    a.unmatched = m_unmatched;
    if (m_tracker)
    {
        a.tracked = true;
        a.unknown = m_tracker->unknown;
        a.duplicates = m_tracker->duplicates;
        for (const auto& [key, n] : m_tracker->requests)
        {
            // A request completed more often than posted is counted in duplicates.
            a.trackedOutstanding += n.posted > n.completed ? n.posted - n.completed : 0;
        }
        a.firstViolation = m_tracker->firstViolation;
    }
    a.held = GetHeldWorkRequests();
    return a;
}

void
RdmaConnection::Complete(const RdmaCompletion& c)
{
    // Always on, O(1): a completion when nothing of its side (Write/Send or
    // Recv) is outstanding cannot match any posted request.
    const bool recv = c.opcode == RdmaOpcode::Recv;
    if (recv ? m_completedRecvs >= m_postedRecvs
             : m_completed - m_completedRecvs >= m_posted - m_postedRecvs)
    {
        ++m_unmatched;
    }
    if (recv)
    {
        ++m_completedRecvs;
    }
    if (m_tracker)
    {
        TrackCompletion(c);
    }
    ++m_completed;
    if (c.status == RdmaStatus::Success && c.opcode != RdmaOpcode::Recv)
    {
        m_completedBytes += c.bytes;
    }
    m_completionTrace(c);
    if (!m_completionCallback.IsNull())
    {
        m_completionCallback(c);
    }
}

} // namespace ns3
