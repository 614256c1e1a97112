/*
 * The vocabulary of the verbs-like API every transport implements
 * (RdmaConnection): work-request opcodes, completion statuses and the
 * completion record. Names follow libibverbs (IBV_WR_RDMA_WRITE, IBV_WC_...)
 * where a counterpart exists.
 */
#ifndef METAROCE_RDMA_VERBS_H
#define METAROCE_RDMA_VERBS_H

#include "ns3/nstime.h"

#include <cstdint>
#include <ostream>

namespace ns3
{

enum class RdmaOpcode : uint8_t
{
    Write, //!< one-sided write to (remote address, key); completes at the sender
    Send,  //!< two-sided: consumes the peer's next posted receive on the stream
    Recv,  //!< a posted receive, completed when a send has filled it
};

enum class RdmaStatus : uint8_t
{
    Success,
    RemoteAccessError,    //!< write with an unknown key or outside the region: nothing placed
    LengthError,          //!< send longer than the receive it matched: nothing placed
    LocalProtectionError, //!< local buffer (integrity mode) unknown or out of range
    RetryExceeded,        //!< RoCEv2: RetryLimit timeouts in a row without progress
};

const char* ToString(RdmaOpcode op);
const char* ToString(RdmaStatus status);

/** One completion, as a completion queue entry carries it. */
struct RdmaCompletion
{
    uint64_t wrId = 0; //!< the caller's work-request id
    RdmaOpcode opcode = RdmaOpcode::Write;
    RdmaStatus status = RdmaStatus::Success;
    uint16_t stream = 0;
    uint32_t bytes = 0; //!< message length (Recv: bytes received)
    Time posted;        //!< when the work request was posted
    Time completed;     //!< when the completion was delivered
};

std::ostream& operator<<(std::ostream& os, const RdmaCompletion& c);

} // namespace ns3

#endif
