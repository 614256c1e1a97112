#include "rdma-memory.h"

#include "ns3/abort.h"

#include <cstring>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaMemory);

TypeId
RdmaMemory::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaMemory")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RdmaMemory>();
    return tid;
}

uint32_t
RdmaMemory::Register(uint64_t base, uint64_t length, bool withBytes)
{
    NS_ABORT_MSG_IF(length == 0, "RdmaMemory::Register: zero-length region");
    NS_ABORT_MSG_IF(base + length < base, "RdmaMemory::Register: region wraps the address space");
    const uint32_t key = m_nextKey++;
    RdmaMemoryRegion& r = m_regions[key];
    r.base = base;
    r.length = length;
    r.key = key;
    if (withBytes)
    {
        r.bytes.assign(length, 0);
        r.writes.assign(length, 0);
    }
    return key;
}

void
RdmaMemory::Deregister(uint32_t key)
{
    m_regions.erase(key);
}

RdmaMemoryRegion*
RdmaMemory::Find(uint32_t key)
{
    auto it = m_regions.find(key);
    return it == m_regions.end() ? nullptr : &it->second;
}

const RdmaMemoryRegion*
RdmaMemory::Find(uint32_t key) const
{
    auto it = m_regions.find(key);
    return it == m_regions.end() ? nullptr : &it->second;
}

bool
RdmaMemory::CheckAccess(uint32_t key, uint64_t addr, uint64_t len) const
{
    const RdmaMemoryRegion* r = Find(key);
    return r && r->Covers(addr, len);
}

void
RdmaMemory::Place(uint32_t key, uint64_t addr, const uint8_t* data, uint64_t len)
{
    RdmaMemoryRegion* r = Find(key);
    NS_ASSERT(r && r->Covers(addr, len));
    m_placedBytes += len;
    if (!r->HasBytes())
    {
        return;
    }
    const uint64_t at = addr - r->base;
    if (data)
    {
        std::memcpy(r->bytes.data() + at, data, len);
    }
    for (uint64_t i = 0; i < len; ++i)
    {
        uint8_t& w = r->writes[at + i];
        w = w == 255 ? 255 : w + 1;
    }
}

void
RdmaMemory::PlaceFrom(uint32_t key,
                      uint64_t addr,
                      const FramePayload& payload,
                      uint32_t from,
                      uint32_t len)
{
    const RdmaMemoryRegion* r = Find(key);
    if (!r || !r->HasBytes())
    {
        Place(key, addr, nullptr, len);
        return;
    }
    m_scratch.resize(from + len);
    payload.CopyData(m_scratch.data(), from + len);
    Place(key, addr, m_scratch.data() + from, len);
}

uint8_t*
RdmaMemory::Bytes(uint32_t key, uint64_t addr)
{
    RdmaMemoryRegion* r = Find(key);
    if (!r || !r->HasBytes() || !r->Covers(addr, 0))
    {
        return nullptr;
    }
    return r->bytes.data() + (addr - r->base);
}

} // namespace ns3
