/*
 * Why the fabric lost a packet. Every drop is counted under exactly one
 * reason, in the element that dropped it, so that packets are conserved:
 * sent = delivered + dropped (by reason) + in flight.
 */
#ifndef METAROCE_DROP_REASON_H
#define METAROCE_DROP_REASON_H

#include <array>
#include <cstdint>
#include <string>

namespace ns3
{

enum class DropReason : uint8_t
{
    Buffer = 0,  //!< egress port limit or switch shared buffer full (tail drop)
    ErrorModel,  //!< receive-side ErrorModel corrupted it (random loss)
    LinkDown,    //!< queued, on the wire, or sent while the link was down
    NoRoute,     //!< switch had no live next hop for the destination
    Malformed,   //!< not an Ethernet/IPv4/UDP frame for this fabric
    NoHandler,   //!< reached a NIC with no endpoint for its UDP port
    PfcHeadroom, //!< lossless (PFC) frame found its ingress headroom full: 0 in a sized fabric
    Count
};

constexpr std::size_t kDropReasonCount = static_cast<std::size_t>(DropReason::Count);

/** Stable lower-case name used in traces, results files and CSV headers. */
std::string DropReasonName(DropReason reason);

/** Per-reason packet counters. */
using DropCounters = std::array<uint64_t, kDropReasonCount>;

} // namespace ns3

#endif
