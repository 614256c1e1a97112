/*
 * FabricBufferAdmission: whether a fabric port accepts a frame into its
 * egress queue, and where the frame's bytes are charged until it starts.
 *
 * A lossless frame a switch forwards (PFC on, the data class) is admitted
 * by the switch's per-(ingress, priority) accounting
 * (FabricPacketSink::AdmitLossless): the port's own limit does not apply,
 * pausing the sender is the point. Every other frame is tail-dropped when
 * the port's queued frame bytes would exceed MaxQueueBytes or, on a switch,
 * when the switch's shared buffer has no room for it.
 */
#ifndef METAROCE_FABRIC_BUFFER_ADMISSION_H
#define METAROCE_FABRIC_BUFFER_ADMISSION_H

#include "drop-reason.h"
#include "fabric-egress-queue.h"
#include "fabric-packet-sink.h"
#include "shared-buffer.h"

#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class FabricBufferAdmission
{
  public:
    /**
     * Admits a frame of \p bytes behind \p queuedBytes, from the owner's port
     * \p ingress with PFC priority \p priority; \p lossless if the switch's
     * PFC accounting is to decide. On success \p charge says where its bytes
     * are charged; otherwise \p reason says why it is dropped.
     */
    bool Admit(FabricPacketSink* sink,
               uint32_t ingress,
               uint8_t priority,
               bool lossless,
               uint32_t bytes,
               uint32_t queuedBytes,
               BufferCharge& charge,
               DropReason& reason)
    {
        charge = m_sharedBuffer ? BufferCharge::Pool : BufferCharge::None;
        if (lossless)
        {
            const PfcAdmission admission = sink->AdmitLossless(ingress, priority, bytes);
            if (admission == PfcAdmission::Drop)
            {
                reason = DropReason::PfcHeadroom;
                return false;
            }
            if (admission == PfcAdmission::Admitted)
            {
                charge = BufferCharge::Lossless;
                return true;
            }
        }
        if (queuedBytes + bytes > m_maxQueueBytes)
        {
            reason = DropReason::Buffer;
            return false;
        }
        if (m_sharedBuffer && !m_sharedBuffer->TryReserve(bytes))
        {
            // Sibling ports may hold frames that have started by now but are not
            // yet released: bring them up to date before refusing.
            sink->SyncPorts();
            if (!m_sharedBuffer->TryReserve(bytes))
            {
                reason = DropReason::Buffer;
                return false;
            }
        }
        return true;
    }

    /** Gives back a started or flushed frame's charge. */
    void Release(FabricPacketSink* sink, const FabricQueuedFrame& q)
    {
        if (q.charge == BufferCharge::Pool)
        {
            m_sharedBuffer->Release(q.info.bytes);
        }
        else if (q.charge == BufferCharge::Lossless)
        {
            sink->ReleaseLossless(q.ingress, q.priority, q.info.bytes);
        }
    }

    /** The port's egress limit in frame bytes (MaxQueueBytes). */
    void SetMaxQueueBytes(uint32_t bytes)
    {
        m_maxQueueBytes = bytes;
    }

    uint32_t GetMaxQueueBytes() const
    {
        return m_maxQueueBytes;
    }

    /** The switch buffer lossy frames reserve from (nullptr: port limit only). */
    void SetSharedBuffer(Ptr<SharedBuffer> buffer)
    {
        m_sharedBuffer = buffer;
    }

  private:
    Ptr<SharedBuffer> m_sharedBuffer;
    uint32_t m_maxQueueBytes = 0;
};

} // namespace ns3

#endif
