/*
 * What the parts of a RoCEv2 queue pair share (RoceV2QueuePair, its
 * RoceV2Requester and RoceV2Responder, and its RoceV2Recovery policy): the
 * settings a connection hands to its QPs, the counters of each role, and the
 * BTH helpers both ends need (opcode classes, 24-bit PSN unwrapping).
 */
#ifndef METAROCE_ROCEV2_QP_TYPES_H
#define METAROCE_ROCEV2_QP_TYPES_H

#include "roce-headers.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/** Settings shared by the QPs of a connection (RoceV2Connection's attributes). */
struct RoceV2QpConfig
{
    uint32_t payloadSize = 4096;
    uint32_t ackInterval = 4;
    uint32_t timeoutExponent = 8; //!< go-back-N's timeout, 4.096 us x 2^exponent
    uint32_t retryLimit = 7;
    Time rnrDelay;
    uint32_t maxInflightPackets = 0; //!< go-back-N's in-flight cap; 0: none
    bool ecnCapable = true;
    bool payloadIntegrity = false;
    // Selective repeat (IRN, Mittal et al., SIGCOMM 2018)
    uint32_t bdpCapPackets = 0; //!< in-flight cap (IRN's BDP-FC); 0: none
    Time rtoLow;                //!< IRN's timeout with few packets in flight
    Time rtoHigh;               //!< IRN's timeout otherwise
    uint32_t rtoLowThreshold = 3;
};

/** Counters of a queue pair's requester. */
struct RoceV2RequesterStats
{
    uint64_t packets = 0; //!< data packets sent, retransmissions included
    uint64_t payloadBytes = 0;
    uint64_t retransmitted = 0; //!< data packets sent again
    uint64_t timeouts = 0;
    uint64_t naksReceived = 0;
    uint64_t rewoundPackets = 0; //!< sum over NAKs of the packets in flight past the NAK'ed PSN
    uint64_t rnrReceived = 0;
    uint64_t cnpsReceived = 0;
    uint64_t acksReceived = 0;
};

/** Counters of a queue pair's responder. */
struct RoceV2ResponderStats
{
    uint64_t received = 0;   //!< data packets arrived
    uint64_t outOfOrder = 0; //!< ahead of the expected PSN (discarded, or placed ahead)
    uint64_t duplicates = 0; //!< discarded: already received
    uint64_t placedBytes = 0;
    uint64_t naksSent = 0;
    uint64_t acksSent = 0;
    uint64_t cnpsSent = 0;
};

/** Counters of one queue pair: both roles'. */
struct RoceV2QpStats : RoceV2RequesterStats, RoceV2ResponderStats
{
};

/** The 24-bit PSN \p wirePsn nearest to \p reference (PSNs are 32-bit inside). */
inline uint32_t
RoceV2UnwrapPsn(uint32_t wirePsn, uint32_t reference)
{
    const int32_t diff = int32_t(((wirePsn - reference) & kRocePsnMask) << 8) >> 8;
    return reference + diff;
}

/** Whether \p op opens a message (FIRST or ONLY). */
inline bool
RoceV2IsFirst(uint8_t op)
{
    return op == RC_SEND_FIRST || op == RC_SEND_ONLY || op == RC_WRITE_FIRST || op == RC_WRITE_ONLY;
}

/** Whether \p op closes a message (LAST or ONLY). */
inline bool
RoceV2IsLast(uint8_t op)
{
    return op == RC_SEND_LAST || op == RC_SEND_ONLY || op == RC_WRITE_LAST || op == RC_WRITE_ONLY;
}

/** Whether \p op is an RDMA WRITE packet. */
inline bool
RoceV2IsWrite(uint8_t op)
{
    return op >= RC_WRITE_FIRST && op <= RC_WRITE_ONLY;
}

} // namespace ns3

#endif
