#include "metaroce-receiver.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
MetaRoceReceiver::Configure(Ptr<RdmaMemory> memory,
                            CompletionSink sink,
                            uint32_t maxMessagesAhead,
                            uint32_t expectedPaths)
{
    m_memory = memory;
    m_sink = std::move(sink);
    m_maxMessagesAhead = maxMessagesAhead;
    m_expectedPaths = expectedPaths;
}

SackBitmap&
MetaRoceReceiver::Sack(uint32_t pathId, RxPath& path)
{
    if (path.hasSack)
    {
        for (auto& s : m_sacks)
        {
            if (s.path == pathId)
            {
                return s.bits;
            }
        }
    }
    path.hasSack = true;
    m_sacks.push_back(RxSack{pathId, SackBitmap()});
    return m_sacks.back().bits;
}

void
MetaRoceReceiver::DropSack(uint32_t pathId, RxPath& path)
{
    if (!path.hasSack)
    {
        return;
    }
    path.hasSack = false;
    for (auto& s : m_sacks)
    {
        if (s.path == pathId)
        {
            s = m_sacks.back();
            m_sacks.pop_back();
            break;
        }
    }
    if (m_sacks.empty())
    {
        std::vector<RxSack>().swap(m_sacks); // releases the array
    }
}

MetaRoceReceiver::RxStream&
MetaRoceReceiver::Stream(uint16_t stream)
{
    if (stream >= m_streams.size())
    {
        m_streams.resize(stream + 1);
    }
    return m_streams[stream];
}

void
MetaRoceReceiver::PostRecv(const RdmaRecvRequest& rr)
{
    Stream(rr.stream).receives.push_back(PostedRecv{rr, Simulator::Now()});
}

uint64_t
MetaRoceReceiver::GetPostedReceives() const
{
    uint64_t n = 0;
    for (const auto& s : m_streams)
    {
        n += s.receives.size();
    }
    return n;
}

uint64_t
MetaRoceReceiver::GetPendingMessages() const
{
    uint64_t n = 0;
    for (const auto& s : m_streams)
    {
        for (size_t i = 0; i < s.messages.size(); ++i)
        {
            n += s.messages[i].known ? 1 : 0;
        }
    }
    return n;
}

bool
MetaRoceReceiver::OnData(const MetaRoceDataHeader& h,
                         const FramePayload& payload,
                         bool ce,
                         MetaRoceAckHeader& ack)
{
    ++m_stats.packets;
    m_stats.payloadBytes += payload.GetSize();
    if (h.pathId >= m_paths.size())
    {
        m_paths.resize(std::max<size_t>(h.pathId + 1, m_expectedPaths));
    }
    RxPath& path = m_paths[h.pathId];
    bool stale = false;
    if (!path.started || path.epoch != h.pathEpoch)
    {
        // Epochs are compared modulo 256: the sender moves forward only.
        if (!path.started || int8_t(h.pathEpoch - path.epoch) > 0)
        {
            path.started = true;
            path.epoch = h.pathEpoch;
            path.cumulative = 0;
            DropSack(h.pathId, path);
        }
        else
        {
            stale = true;
        }
    }
    if (!stale && h.pathSeq > path.cumulative &&
        h.pathSeq - path.cumulative - 1 >= SackBitmap::kBits)
    {
        ++m_stats.outOfWindow; // the sender never has more than the bitmap outstanding
        return false;
    }
    bool outOfWindow = false;
    // A probe (PROBE flag, no payload) tests the path; there is nothing to place.
    const bool probe = (h.flags & MetaRoceDataHeader::PROBE) && payload.GetSize() == 0;
    const uint8_t flags = probe ? 0 : Place(h, payload, outOfWindow);
    if (outOfWindow)
    {
        ++m_stats.outOfWindow;
        return false;
    }
    if (stale)
    {
        // The sender has moved this packet to another path; its data is
        // placed (idempotently) but the old epoch is not acknowledged.
        ++m_stats.stalePackets;
        return false;
    }
    if (!(flags & MetaRoceAckHeader::RNR))
    {
        Advance(h, path);
    }
    ack.flags = flags | (ce ? MetaRoceAckHeader::ECE : 0);
    ack.pathId = h.pathId;
    ack.pathEpoch = path.epoch;
    ack.cumulativeSeq = path.cumulative;
    ack.triggerSeq = h.pathSeq;
    ack.timestampEchoPs = h.timestampPs;
    ack.sack = path.hasSack ? Sack(h.pathId, path) : SackBitmap();
    return true;
}

void
MetaRoceReceiver::Advance(const MetaRoceDataHeader& h, RxPath& path)
{
    if (h.pathSeq == path.cumulative && !path.hasSack)
    {
        ++path.cumulative; // in order, nothing ahead: the common case
    }
    else if (h.pathSeq == path.cumulative)
    {
        SackBitmap& sack = Sack(h.pathId, path);
        const uint32_t ones = sack.LeadingOnes();
        path.cumulative += 1 + ones;
        sack.ShiftDown(1 + ones);
        if (sack.Empty())
        {
            DropSack(h.pathId, path);
        }
    }
    else if (h.pathSeq > path.cumulative)
    {
        Sack(h.pathId, path).Set(h.pathSeq - path.cumulative - 1);
    }
}

uint8_t
MetaRoceReceiver::Place(const MetaRoceDataHeader& h, const FramePayload& payload, bool& outOfWindow)
{
    RxStream& s = Stream(h.stream);
    const uint32_t len = payload.GetSize();
    if (h.messageSeq < s.baseMessage)
    {
        ++m_stats.duplicatePackets; // the whole message was placed and released
        return 0;
    }
    const uint32_t idx = h.messageSeq - s.baseMessage;
    if (idx >= m_maxMessagesAhead || h.messageLength == 0 || h.offset > h.messageLength ||
        len > h.messageLength - h.offset)
    {
        outOfWindow = true;
        return 0;
    }
    while (idx >= s.messages.size())
    {
        s.messages.push_back(RxMessage());
    }
    RxMessage& m = s.messages[idx];
    if (!m.known)
    {
        m.known = true;
        m.opcode = h.opcode;
        m.length = h.messageLength;
        m.sendSeq = h.opcode == MetaRoceDataHeader::SEND ? h.keyOrMatch : 0;
    }
    if (m.complete)
    {
        ++m_stats.duplicatePackets;
        return m.status == RdmaStatus::RemoteAccessError ? MetaRoceAckHeader::ACCESS_ERROR
               : m.status == RdmaStatus::LengthError     ? MetaRoceAckHeader::LENGTH_ERROR
                                                         : 0;
    }
    uint32_t key = 0;
    uint64_t base = 0; // address of message byte 0
    const uint8_t reject = Destination(h, s, m, key, base);
    if (reject == MetaRoceAckHeader::RNR)
    {
        return reject;
    }
    if (reject)
    {
        ++m_stats.rejectedPackets;
        m.complete = true; // failed: nothing placed, released in order with its error
        Release(h.stream);
        return reject;
    }
    // One scratch list for every receiver: no allocation per packet (Place
    // never runs inside another Place).
    static thread_local std::vector<ByteRangeSet::Range> fresh;
    fresh.clear();
    const uint64_t added = m.placed.Add(h.offset, uint64_t(h.offset) + len, &fresh);
    if (added == 0)
    {
        ++m_stats.duplicatePackets;
    }
    else
    {
        m_stats.placedBytes += added;
        if (key != 0)
        {
            for (const auto& [b, e] : fresh)
            {
                m_memory->PlaceFrom(key, base + b, payload, b - h.offset, e - b);
            }
        }
    }
    if (m.placed.Bytes() == m.length)
    {
        m.complete = true;
        ++m_stats.completedMessages;
        Release(h.stream);
    }
    return 0;
}

uint8_t
MetaRoceReceiver::Destination(const MetaRoceDataHeader& h,
                              const RxStream& s,
                              RxMessage& m,
                              uint32_t& key,
                              uint64_t& base)
{
    if (m.opcode == MetaRoceDataHeader::WRITE)
    {
        key = h.keyOrMatch;
        base = h.remoteAddress - h.offset;
        // The whole message must fit, not just this packet: a write that
        // would run past its region places nothing at all.
        if (h.remoteAddress < h.offset || !m_memory->CheckAccess(key, base, m.length))
        {
            m.status = RdmaStatus::RemoteAccessError;
            return MetaRoceAckHeader::ACCESS_ERROR;
        }
        return 0;
    }
    if (m.sendSeq < s.baseSend || m.sendSeq - s.baseSend >= s.receives.size())
    {
        ++m_stats.rnrPackets;
        return MetaRoceAckHeader::RNR;
    }
    const PostedRecv& r = s.receives[m.sendSeq - s.baseSend];
    key = r.rr.lkey;
    base = r.rr.address;
    if (m.length > r.rr.length)
    {
        m.status = RdmaStatus::LengthError;
        return MetaRoceAckHeader::LENGTH_ERROR;
    }
    if (key != 0 && !m_memory->CheckAccess(key, base, m.length))
    {
        m.status = RdmaStatus::LocalProtectionError;
        return MetaRoceAckHeader::ACCESS_ERROR;
    }
    return 0;
}

void
MetaRoceReceiver::Release(uint16_t stream)
{
    while (!m_streams[stream].messages.empty() && m_streams[stream].messages.front().complete)
    {
        RxStream& s = m_streams[stream];
        const RxMessage& m = s.messages.front();
        const bool isSend = m.opcode == MetaRoceDataHeader::SEND;
        RdmaCompletion c;
        if (isSend)
        {
            const PostedRecv& r = s.receives.front();
            c = CompletionOf(r.rr,
                             m.status,
                             m.status == RdmaStatus::Success ? m.length : 0,
                             r.posted);
            s.receives.pop_front();
            ++s.baseSend;
        }
        s.messages.pop_front();
        ++s.baseMessage;
        if (isSend)
        {
            m_sink(c); // may post receives: s is looked up again
        }
    }
}

} // namespace ns3
