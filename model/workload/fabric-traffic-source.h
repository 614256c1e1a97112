/*
 * FabricTrafficSource: constant-rate UDP test traffic from one host's NIC to
 * one destination host, for exercising and measuring the fabric before (and
 * without) any transport. DataRate counts line bytes (frame, FCS, preamble
 * and gap), so a source at the port's line rate saturates it exactly.
 * SourcePortCount > 1 cycles the UDP source port per packet over
 * [SourcePort, SourcePort + SourcePortCount): per-packet spraying across the
 * ECMP groups; Plane = -1 round-robins packets over every plane.
 */
#ifndef METAROCE_FABRIC_TRAFFIC_SOURCE_H
#define METAROCE_FABRIC_TRAFFIC_SOURCE_H

#include "rdma-nic.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"

namespace ns3
{

class FabricTrafficSource : public Application
{
  public:
    static constexpr uint16_t kDefaultPort = 5001;

    static TypeId GetTypeId();
    FabricTrafficSource();

    uint64_t GetSentPackets() const
    {
        return m_sent;
    }

    uint64_t GetSentBytes() const
    {
        return m_sentBytes;
    } //!< UDP payload bytes handed to the NIC

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void SendOne();

    DataRate m_rate;
    uint32_t m_payloadBytes;
    uint32_t m_dstHost;
    int32_t m_plane;
    uint16_t m_srcPort;
    uint16_t m_srcPortCount;
    uint16_t m_dstPort;
    bool m_ecnCapable;
    uint8_t m_dscp;
    uint64_t m_maxPackets;

    Ptr<RdmaNic> m_nic;
    EventId m_next;
    Time m_interval;
    uint64_t m_sent = 0;
    uint64_t m_sentBytes = 0;
};

} // namespace ns3

#endif
