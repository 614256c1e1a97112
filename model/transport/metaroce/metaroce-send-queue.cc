#include "metaroce-send-queue.h"

#include "ns3/simulator.h"

namespace ns3
{

uint64_t
MetaRoceSendQueue::Add(const RdmaWorkRequest& wr, uint32_t payloadSize)
{
    if (wr.stream >= m_streams.size())
    {
        m_streams.resize(wr.stream + 1);
    }
    const uint64_t index = m_base + m_messages.size();
    m_messages.push_back(Message());
    Message& m = m_messages.back();
    m.wr = wr;
    m.posted = Simulator::Now();
    m.chunks = uint32_t((uint64_t(wr.length) + payloadSize - 1) / payloadSize);
    ++m_outstandingMessages;
    m_streams[wr.stream].order.push_back(index);
    return index;
}

void
MetaRoceSendQueue::Admit(uint64_t index)
{
    Message& m = At(index);
    Stream& s = m_streams[m.wr.stream];
    m.messageSeq = s.nextMessageSeq++;
    if (m.wr.opcode == RdmaOpcode::Send)
    {
        m.sendSeq = s.nextSendSeq++;
    }
    m.ackedBits.assign((m.chunks + 63) / 64, 0);
    s.unsent.push_back(index);
    if (!s.active)
    {
        s.active = true;
        m_activeStreams.push_back(m.wr.stream);
    }
}

bool
MetaRoceSendQueue::FrontExhausted(const Stream& s) const
{
    const uint64_t index = s.unsent.front();
    return index < m_base || Get(index).done || Get(index).nextChunk >= Get(index).chunks;
}

bool
MetaRoceSendQueue::NextChunk(MetaRoceChunkRef& ref)
{
    while (!m_resend.empty())
    {
        ref = m_resend.front();
        m_resend.pop_front();
        if (ref.message < m_base)
        {
            continue;
        }
        const Message& m = Get(ref.message);
        if (m.done || (m.ackedBits[ref.chunk >> 6] >> (ref.chunk & 63)) & 1)
        {
            continue;
        }
        return true;
    }
    while (!m_activeStreams.empty())
    {
        const uint16_t sid = m_activeStreams.front();
        Stream& s = m_streams[sid];
        while (!s.unsent.empty() && FrontExhausted(s))
        {
            s.unsent.pop_front();
        }
        if (s.unsent.empty())
        {
            m_activeStreams.pop_front();
            s.active = false;
            continue;
        }
        Message& m = At(s.unsent.front());
        ref.message = s.unsent.front();
        ref.chunk = m.nextChunk++;
        if (m.nextChunk >= m.chunks)
        {
            s.unsent.pop_front();
        }
        if (s.unsent.empty())
        {
            s.active = false;
        }
        else
        {
            // Round robin over streams, a packet at a time. Pushed before
            // the pop, so a lone stream does not empty the buffer (which
            // would free its array, to allocate it again at once).
            m_activeStreams.push_back(sid);
        }
        m_activeStreams.pop_front();
        return true;
    }
    return false;
}

void
MetaRoceSendQueue::DescribeChunk(const MetaRoceChunkRef& ref,
                                 uint32_t offset,
                                 uint8_t flags,
                                 MetaRoceDataHeader& h) const
{
    const Message& m = Get(ref.message);
    h.opcode =
        m.wr.opcode == RdmaOpcode::Write ? MetaRoceDataHeader::WRITE : MetaRoceDataHeader::SEND;
    h.flags = flags | (ref.chunk == 0 ? MetaRoceDataHeader::FIRST : 0) |
              (ref.chunk + 1 == m.chunks ? MetaRoceDataHeader::LAST : 0);
    h.stream = m.wr.stream;
    h.messageSeq = m.messageSeq;
    h.messageLength = m.wr.length;
    h.offset = offset;
    if (m.wr.opcode == RdmaOpcode::Write)
    {
        h.remoteAddress = m.wr.remoteAddress + offset;
        h.keyOrMatch = m.wr.rkey;
    }
    else
    {
        h.keyOrMatch = m.sendSeq;
    }
}

bool
MetaRoceSendQueue::Fail(uint64_t index, RdmaStatus status)
{
    Message& m = At(index);
    if (m.done)
    {
        return false;
    }
    m.done = true;
    m.status = status;
    m.nextChunk = m.chunks; // nothing more of it is sent
    --m_outstandingMessages;
    return true;
}

bool
MetaRoceSendQueue::PopCompletion(uint16_t stream, RdmaCompletion& c)
{
    Stream& s = m_streams[stream];
    if (s.order.empty())
    {
        return false;
    }
    Message& m = At(s.order.front());
    if (!m.done)
    {
        return false;
    }
    s.order.pop_front();
    m.released = true;
    c = CompletionOf(m.wr, m.status, m.posted);
    return true;
}

void
MetaRoceSendQueue::TrimReleased()
{
    while (!m_messages.empty() && m_messages.front().released)
    {
        m_messages.pop_front();
        ++m_base;
    }
}

uint64_t
MetaRoceSendQueue::GetOldestPendingWrId() const
{
    for (size_t i = 0; i < m_messages.size(); ++i)
    {
        if (!m_messages[i].done)
        {
            return m_messages[i].wr.wrId;
        }
    }
    return 0;
}

uint64_t
MetaRoceSendQueue::CountUncompleted() const
{
    uint64_t n = 0;
    for (const auto& s : m_streams)
    {
        n += s.order.size();
    }
    return n;
}

} // namespace ns3
