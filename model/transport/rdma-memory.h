/*
 * RdmaMemory: the registered memory regions of one host. A region is a
 * (base address, length, key) triple, as ibv_reg_mr returns; remote writes
 * and received sends are checked against it before anything is placed.
 *
 * By default regions are bookkeeping only (packets carry virtual payload, so
 * 4,000 connections cost no buffer memory). A region registered with bytes
 * holds a real buffer and a per-byte write counter: in payload-integrity mode
 * packets carry real bytes, and tests check that every byte landed exactly
 * once at the right address.
 */
#ifndef METAROCE_RDMA_MEMORY_H
#define METAROCE_RDMA_MEMORY_H

#include "fabric-frame.h"

#include "ns3/object.h"
#include "ns3/packet.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

struct RdmaMemoryRegion
{
    uint64_t base = 0;
    uint64_t length = 0;
    uint32_t key = 0;
    std::vector<uint8_t> bytes;  //!< empty unless registered with bytes
    std::vector<uint8_t> writes; //!< per-byte placement count (saturating), with bytes only

    bool Covers(uint64_t addr, uint64_t len) const
    {
        return addr >= base && len <= length && addr - base <= length - len;
    }

    bool HasBytes() const
    {
        return !bytes.empty();
    }
};

class RdmaMemory : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * Registers [base, base + length). With \p withBytes the region gets a
     * zero-filled buffer. \return its key (never 0).
     */
    uint32_t Register(uint64_t base, uint64_t length, bool withBytes = false);
    void Deregister(uint32_t key);

    /** The region with this key, or nullptr. */
    RdmaMemoryRegion* Find(uint32_t key);
    const RdmaMemoryRegion* Find(uint32_t key) const;

    /** True if key is registered and [addr, addr + len) lies inside its region. */
    bool CheckAccess(uint32_t key, uint64_t addr, uint64_t len) const;

    /**
     * Places \p len bytes at \p addr of region \p key. With a buffer, copies
     * \p data (if not null) and counts the write per byte; without, only
     * counts bytes. The caller has checked access.
     */
    void Place(uint32_t key, uint64_t addr, const uint8_t* data, uint64_t len);

    /**
     * Places bytes [from, from + len) of \p payload at \p addr of region
     * \p key: copied when the region has a buffer (payload-integrity mode),
     * only counted otherwise. The caller has checked access.
     */
    void PlaceFrom(uint32_t key,
                   uint64_t addr,
                   const FramePayload& payload,
                   uint32_t from,
                   uint32_t len);

    /** Pointer to the bytes at \p addr of region \p key (nullptr without a buffer). */
    uint8_t* Bytes(uint32_t key, uint64_t addr);

    uint64_t GetPlacedBytes() const
    {
        return m_placedBytes;
    }

  private:
    std::unordered_map<uint32_t, RdmaMemoryRegion> m_regions;
    uint32_t m_nextKey = 0x100;
    uint64_t m_placedBytes = 0;
    std::vector<uint8_t> m_scratch; //!< PlaceFrom's copy of a payload
};

} // namespace ns3

#endif
