/*
 * ECMP hashing: picks one member of an equal-cost group from the flow's
 * 4-tuple (source IP, destination IP, UDP source port, UDP destination port).
 * Each switch mixes in its own seed so that consecutive tiers make
 * independent choices (no polarisation: with one shared hash, a leaf's choice
 * would fix the spine's choice too). The mixer is SplitMix64's finaliser,
 * whose output bits each depend on every input bit.
 */
#ifndef METAROCE_ECMP_HASH_H
#define METAROCE_ECMP_HASH_H

#include "fabric-frame.h"

#include <cstdint>

namespace ns3
{

inline uint64_t
EcmpMix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/** 32-bit flow hash of \p info under \p seed. */
inline uint32_t
EcmpHash(const FrameInfo& info, uint32_t seed)
{
    uint64_t h = EcmpMix((uint64_t(seed) << 32) ^ 0x9e3779b97f4a7c15ULL);
    h = EcmpMix(h ^ ((uint64_t(info.srcIp) << 32) | info.dstIp));
    h = EcmpMix(h ^ ((uint64_t(info.srcPort) << 16) | info.dstPort));
    return static_cast<uint32_t>(h >> 32);
}

/** Maps a 32-bit hash onto [0, n) without a division (multiply-shift). */
inline uint32_t
EcmpIndex(uint32_t hash, uint32_t n)
{
    return static_cast<uint32_t>((uint64_t(hash) * n) >> 32);
}

} // namespace ns3

#endif
