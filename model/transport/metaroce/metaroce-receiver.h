/*
 * MetaRoceReceiver: the receiving half of a MetaRoCE connection endpoint.
 *
 * - Direct placement (design decision 1, docs/metaroce-design.md): a packet's payload is written
 *   at its final address on arrival, in any order; each message tracks the
 *   byte ranges placed (ByteRangeSet), so duplicates are placed once and a
 *   message completes exactly once, when all its bytes are in.
 * - Ordering is of completion, never of placement: a stream's messages are
 *   released in message-sequence order, so a Send's receive completion waits
 *   for every earlier message of its stream, even if its own data came first.
 * - A Send matches the receive posted on its stream with the same send
 *   sequence (the i-th Send of a stream fills the i-th receive posted there).
 *   If that receive is not posted yet, the packet is not placed and not
 *   acknowledged in the path's bitmap; the ACK says RNR and the sender
 *   retries the packet after its RnrDelay (InfiniBand's receiver-not-ready,
 *   retried indefinitely as rnr_retry = 7 does).
 * - Per path (decision 3): a cumulative sequence number and the 256-bit SACK
 *   bitmap above it, reset when the sender starts a new path epoch (repath).
 */
#ifndef METAROCE_RECEIVER_H
#define METAROCE_RECEIVER_H

#include "byte-range-set.h"
#include "metaroce-ack-header.h"
#include "metaroce-data-header.h"
#include "rdma-connection.h"
#include "ring-buffer.h"

#include "ns3/packet.h"

#include <functional>
#include <vector>

namespace ns3
{

struct MetaRoceReceiverStats
{
    uint64_t packets = 0;          //!< data packets handled (any epoch)
    uint64_t payloadBytes = 0;     //!< payload bytes of those packets
    uint64_t placedBytes = 0;      //!< new bytes placed (duplicates excluded)
    uint64_t duplicatePackets = 0; //!< packets whose bytes were all placed before
    uint64_t stalePackets = 0;     //!< from an old path epoch (placed, not acknowledged)
    uint64_t rnrPackets = 0;       //!< Sends that found no posted receive
    uint64_t rejectedPackets = 0;  //!< bad key / range / length: not placed
    uint64_t outOfWindow = 0;      //!< beyond the 256-bit bitmap or message window: dropped
    uint64_t completedMessages = 0;
};

class MetaRoceReceiver
{
  public:
    /** Where receive completions go (the connection's Complete). */
    typedef std::function<void(const RdmaCompletion&)> CompletionSink;

    /**
     * \param expectedPaths paths the peer is expected to use: the per-path
     *        state is allocated for that many on the first packet.
     */
    void Configure(Ptr<RdmaMemory> memory,
                   CompletionSink sink,
                   uint32_t maxMessagesAhead,
                   uint32_t expectedPaths);

    void PostRecv(const RdmaRecvRequest& rr);

    /**
     * Handles one data packet (\p payload: the bytes after the header).
     * \return true if an ACK must be sent; \p ack is then filled except for
     *         the connection id and rate hint.
     */
    bool OnData(const MetaRoceDataHeader& h,
                const FramePayload& payload,
                bool ce,
                MetaRoceAckHeader& ack);

    const MetaRoceReceiverStats& GetStats() const
    {
        return m_stats;
    }

    /** Posted receives not yet completed. */
    uint64_t GetPostedReceives() const;
    /** Messages with data in but not yet released (incomplete or waiting for order). */
    uint64_t GetPendingMessages() const;

  private:
    /**
     * A path, 8 bytes. Its SACK bitmap, empty unless a packet arrived ahead
     * of a gap (a loss on that path), is kept in m_sacks only while it has a
     * bit set: a path's packets follow one route, so they arrive in order.
     */
    struct RxPath
    {
        uint32_t cumulative = 0;
        uint8_t epoch = 0;
        bool started = false;
        bool hasSack = false; //!< an entry in m_sacks
    };

    /** The non-empty bitmap of one path. */
    struct RxSack
    {
        uint32_t path = 0;
        SackBitmap bits;
    };

    struct RxMessage
    {
        bool known = false;
        bool complete = false;
        uint8_t opcode = 0;
        uint32_t length = 0;
        uint32_t sendSeq = 0;
        RdmaStatus status = RdmaStatus::Success;
        ByteRangeSet placed;
    };

    struct PostedRecv
    {
        RdmaRecvRequest rr;
        Time posted;
    };

    struct RxStream
    {
        uint32_t baseMessage = 0; //!< next message sequence to release
        RingBuffer<RxMessage> messages;
        uint32_t baseSend = 0; //!< send sequence matched by receives.front()
        RingBuffer<PostedRecv> receives;
    };

    RxStream& Stream(uint16_t stream);
    /** Records the packet in its path's bitmap; false if it cannot be represented. */
    bool AcceptOnPath(const MetaRoceDataHeader& h,
                      bool record,
                      MetaRoceAckHeader& ack,
                      bool& stale);
    /** Places the packet; returns the ACK flags it earns (RNR, errors). */
    uint8_t Place(const MetaRoceDataHeader& h, const FramePayload& payload, bool& outOfWindow);
    /**
     * Where message \p m's byte 0 goes (\p key, \p base): a write names it,
     * a send lands in its matched receive. Returns 0, RNR (no receive
     * posted yet) or the error the message fails with.
     */
    uint8_t Destination(const MetaRoceDataHeader& h,
                        const RxStream& s,
                        RxMessage& m,
                        uint32_t& key,
                        uint64_t& base);
    /** Moves the path's cumulative sequence and bitmap past packet \p h. */
    void Advance(const MetaRoceDataHeader& h, RxPath& path);
    /** Releases the stream's completed messages in order (completion callbacks may post). */
    void Release(uint16_t stream);
    /** The bitmap of path \p pathId, created empty if it has none. */
    SackBitmap& Sack(uint32_t pathId, RxPath& path);
    /** Drops the (empty) bitmap of path \p pathId. */
    void DropSack(uint32_t pathId, RxPath& path);

    // What every packet reads first (adjacent cache lines), the
    // completion sink last.
    std::vector<RxPath> m_paths; //!< allocated by the first packet
    std::vector<RxStream> m_streams;
    std::vector<RxSack> m_sacks; //!< paths with a non-empty bitmap; released when none
    Ptr<RdmaMemory> m_memory;
    uint32_t m_maxMessagesAhead = 65536;
    uint32_t m_expectedPaths = 0;
    MetaRoceReceiverStats m_stats;
    CompletionSink m_sink;
};

} // namespace ns3

#endif
