/*
 * A switch's packet memory, shared by all its egress ports. Ports reserve
 * a frame's bytes when it is queued and release them when it starts
 * transmission (store-and-forward: the frame leaves the buffer as it is
 * serialised; modelling it as gone at the start is the usual simplification).
 *
 * Under PFC the switch reserves every ingress port's headroom out of the
 * capacity (SetReserved): the shared pool is what remains, and lossy and
 * lossless frames below XOFF both live in it (FabricSwitch keeps the
 * per-ingress accounting and the headroom itself).
 */
#ifndef METAROCE_SHARED_BUFFER_H
#define METAROCE_SHARED_BUFFER_H

#include "ns3/simple-ref-count.h"

#include <cstdint>

namespace ns3
{

class SharedBuffer : public SimpleRefCount<SharedBuffer>
{
  public:
    explicit SharedBuffer(uint64_t capacityBytes)
        : m_capacity(capacityBytes)
    {
    }

    /** Reserves \p bytes if they fit; false (nothing reserved) otherwise. */
    bool TryReserve(uint32_t bytes)
    {
        if (m_used + bytes > m_capacity - m_reserved)
        {
            return false;
        }
        m_used += bytes;
        if (m_used > m_peak)
        {
            m_peak = m_used;
        }
        return true;
    }

    void Release(uint32_t bytes)
    {
        m_used -= bytes;
    }

    uint64_t Capacity() const
    {
        return m_capacity;
    }

    uint64_t Used() const
    {
        return m_used;
    }

    uint64_t Peak() const
    {
        return m_peak;
    }

    /** Sets aside \p bytes of the capacity (PFC headroom); must not exceed it. */
    void SetReserved(uint64_t bytes)
    {
        m_reserved = bytes;
    }

    uint64_t Reserved() const
    {
        return m_reserved;
    }

    /** Bytes of the shared pool still free (capacity - reserved - used). */
    uint64_t Free() const
    {
        const uint64_t pool = m_capacity - m_reserved;
        return m_used < pool ? pool - m_used : 0;
    }

  private:
    uint64_t m_capacity;
    uint64_t m_reserved = 0;
    uint64_t m_used = 0;
    uint64_t m_peak = 0;
};

} // namespace ns3

#endif
