/*
 * MetaRoceSendQueue: the work requests a MetaRoCE sender has accepted and
 * not yet completed, by stream (design decision 6, docs/metaroce-design.md): each message gets
 * the next message sequence of its stream (and a send the next send
 * sequence, its receive match); new data is taken round robin over the
 * streams, a chunk (one packet's payload) at a time, so one stream's long
 * message does not hold up another's; chunks a failed path still owed are
 * taken first, by any path; completions are released per stream in post
 * order.
 *
 * Messages live in one ring indexed by a connection-wide message number, so
 * a packet's record names its chunk in 12 bytes and a lookup is an index.
 */
#ifndef METAROCE_SEND_QUEUE_H
#define METAROCE_SEND_QUEUE_H

#include "metaroce-data-header.h"
#include "metaroce-path.h"
#include "rdma-connection.h"
#include "ring-buffer.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class MetaRoceSendQueue
{
  public:
    /** A posted Write or Send. */
    struct Message
    {
        RdmaWorkRequest wr;
        uint32_t messageSeq = 0;
        uint32_t sendSeq = 0;
        uint32_t chunks = 0;
        uint32_t nextChunk = 0; //!< first chunk never sent
        uint32_t ackedChunks = 0;
        std::vector<uint64_t> ackedBits;
        RdmaStatus status = RdmaStatus::Success;
        bool done = false;
        bool released = false;
        Time posted;
    };

    /**
     * Accepts \p wr (cut into chunks of \p payloadSize bytes) at the end of
     * its stream's completion order; returns its message index. Nothing of
     * it is sent before Admit.
     */
    uint64_t Add(const RdmaWorkRequest& wr, uint32_t payloadSize);
    /** Gives message \p index its sequences and queues it for sending. */
    void Admit(uint64_t index);

    /** Queues a chunk a failed path still owed, for any path. */
    void Resend(const MetaRoceChunkRef& ref)
    {
        m_resend.push_back(ref);
    }

    /** Whether a chunk waits to be sent as new data. */
    bool HasNewData() const
    {
        return !m_resend.empty() || !m_activeStreams.empty();
    }

    /** Takes the next chunk to send as new data (resend queue first); false if none. */
    bool NextChunk(MetaRoceChunkRef& ref);

    /**
     * Writes what data header \p h says of chunk \p ref (at byte \p offset
     * of its message; \p flags: RETX or none): opcode, flags, stream,
     * message fields, and the write's address and key or the send's match.
     */
    void DescribeChunk(const MetaRoceChunkRef& ref,
                       uint32_t offset,
                       uint8_t flags,
                       MetaRoceDataHeader& h) const;

    /** Whether message \p index is not yet released (completed and dropped). */
    bool Holds(uint64_t index) const
    {
        return index >= m_base;
    }

    const Message& Get(uint64_t index) const
    {
        return m_messages[index - m_base];
    }

    /**
     * Chunk \p ref arrived; returns its message's stream if that message is
     * now complete (release its completions), else -1.
     */
    int32_t AckChunk(const MetaRoceChunkRef& ref)
    {
        // Inline: once per acknowledged packet.
        if (ref.message == MetaRoceChunkRef::kProbe || ref.message < m_base)
        {
            return -1;
        }
        Message& m = At(ref.message);
        uint64_t& word = m.ackedBits[ref.chunk >> 6];
        const uint64_t bit = uint64_t(1) << (ref.chunk & 63);
        if (m.done || (word & bit))
        {
            return -1;
        }
        word |= bit;
        if (++m.ackedChunks == m.chunks)
        {
            m.done = true;
            --m_outstandingMessages;
            return m.wr.stream;
        }
        return -1;
    }

    /** Fails message \p index with \p status; false if it was done already. */
    bool Fail(uint64_t index, RdmaStatus status);
    /**
     * The completion of the oldest message of \p stream if it is done (every
     * field of \p c set), which is then released; false if none is. Delivering a completion may
     * post more work: call again for the next.
     */
    bool PopCompletion(uint16_t stream, RdmaCompletion& c);
    /** Drops released messages from the front of the ring. */
    void TrimReleased();

    /** Messages posted and not done. */
    uint64_t GetOutstandingMessages() const
    {
        return m_outstandingMessages;
    }

    /** Work request id of the oldest message not done (0 if none). */
    uint64_t GetOldestPendingWrId() const;
    /** Messages not yet completed, over all streams. */
    uint64_t CountUncompleted() const;

  private:
    struct Stream
    {
        uint32_t nextMessageSeq = 0;
        uint32_t nextSendSeq = 0;
        RingBuffer<uint64_t> unsent; //!< messages with chunks never sent, in post order
        RingBuffer<uint64_t> order;  //!< messages not yet completed, in post order
        bool active = false;         //!< in m_activeStreams
    };

    Message& At(uint64_t index)
    {
        return m_messages[index - m_base];
    }

    /** Whether the first unsent message of \p s has nothing left to send. */
    bool FrontExhausted(const Stream& s) const;

    RingBuffer<Message> m_messages;
    uint64_t m_base = 0;                   //!< index of m_messages.front()
    RingBuffer<uint16_t> m_activeStreams;  //!< streams with unsent chunks, round robin
    RingBuffer<MetaRoceChunkRef> m_resend; //!< from failed paths, any path may take them
    std::vector<Stream> m_streams;
    uint64_t m_outstandingMessages = 0;
};

} // namespace ns3

#endif
