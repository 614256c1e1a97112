#include "fabric-egress-queue.h"

namespace ns3
{

uint32_t
FabricEgressQueue::GetPackets() const
{
    uint32_t n = 0;
    for (const auto& fifo : m_fifos)
    {
        n += fifo.size();
    }
    return n;
}

uint32_t
FabricEgressQueue::GetLosslessBytesFrom(uint32_t ingress) const
{
    uint32_t bytes = 0;
    ForEach([ingress, &bytes](uint32_t, const FabricQueuedFrame& q) {
        if (q.charge == BufferCharge::Lossless && q.ingress == ingress)
        {
            bytes += q.info.bytes;
        }
    });
    return bytes;
}

void
FabricEgressQueue::Clear()
{
    for (auto& fifo : m_fifos)
    {
        fifo.clear();
    }
}

} // namespace ns3
