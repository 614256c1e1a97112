/*
 * FabricTrafficSink: counts the test traffic a host receives on one UDP port
 * and its one-way delay (send time is in the FabricTestHeader).
 */
#ifndef METAROCE_FABRIC_TRAFFIC_SINK_H
#define METAROCE_FABRIC_TRAFFIC_SINK_H

#include "rdma-nic.h"

#include "ns3/application.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class FabricTrafficSink : public Application
{
  public:
    static TypeId GetTypeId();
    FabricTrafficSink();

    uint64_t GetReceivedPackets() const
    {
        return m_packets;
    }

    uint64_t GetReceivedBytes() const
    {
        return m_bytes;
    } //!< UDP payload bytes

    uint64_t GetReceivedBytes(uint32_t plane) const;

    uint64_t GetCeMarkedPackets() const
    {
        return m_ceMarked;
    }

    Time GetMaxDelay() const
    {
        return m_maxDelay;
    }

    Time GetMeanDelay() const;

    typedef void (*RxTracedCallback)(Ptr<const Packet> payload, Time delay, uint32_t plane);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void Receive(FrameRef& frame, const FrameInfo& info, uint32_t plane);

    uint16_t m_port;
    Ptr<RdmaNic> m_nic;
    uint64_t m_packets = 0;
    uint64_t m_bytes = 0;
    uint64_t m_ceMarked = 0;
    std::vector<uint64_t> m_bytesPerPlane;
    Time m_delaySum;
    Time m_maxDelay;
    TracedCallback<Ptr<const Packet>, Time, uint32_t> m_rxTrace;
};

} // namespace ns3

#endif
