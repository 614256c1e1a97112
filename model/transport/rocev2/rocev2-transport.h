/*
 * RoceV2Transport: RoCEv2 on one host. It owns the host's queue pairs (QPNs
 * from 0x100), the NIC scheduler that pulls their packets, and DCQCN's
 * notification point: a CE-marked data packet makes the receiving QP answer
 * with a CNP, at most one per QP per CnpInterval. Packets go to UDP
 * destination port 4791, so captures decode as InfiniBand in Wireshark.
 *
 * For tests, a drop filter sees every arriving data packet's BTH before its
 * QP and may discard it (deterministic loss at chosen PSNs).
 */
#ifndef METAROCE_ROCEV2_TRANSPORT_H
#define METAROCE_ROCEV2_TRANSPORT_H

#include "nic-scheduler.h"
#include "rdma-transport.h"
#include "roce-headers.h"
#include "rocev2-connection.h"

#include "ns3/object-factory.h"

#include <vector>

namespace ns3
{

class RoceV2Transport : public RdmaTransport
{
  public:
    static TypeId GetTypeId();
    RoceV2Transport();

    /** Returns true to drop the arriving data packet (plane given). */
    typedef Callback<bool, const RoceBthHeader&, uint32_t> DropFilter;

    void SetNic(Ptr<RdmaNic> nic) override;

    void SetDropFilter(DropFilter filter)
    {
        m_dropFilter = filter;
    }

    // For queue pairs
    Ptr<NicScheduler> GetScheduler() const
    {
        return m_scheduler;
    }

    /** Registers a QP; \return its QPN. */
    uint32_t AddQueuePair(RoceV2QueuePair* qp);

    uint32_t NextQpn() const
    {
        return kFirstQpn + m_qps.size();
    }

    FrameAddress DataAddress(uint32_t dstHost, uint32_t plane, uint16_t srcPort) const;
    void SendControl(Ptr<Packet> packet, uint32_t plane, uint32_t dstHost, uint16_t srcPort);

    Time GetCnpInterval() const
    {
        return m_cnpInterval;
    }

    /** UDP source port of a QP: a hash of the QP numbers, chosen once. */
    uint16_t SourcePortFor(uint32_t qpn, uint32_t peerHost) const;

    static constexpr uint32_t kFirstQpn = 0x100;

  protected:
    void DoDispose() override;
    void SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost) override;
    void Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote) override;

  private:
    void Receive(Ptr<Packet> frame, const FrameInfo& info, uint32_t plane);

    uint8_t m_dataDscp;
    uint8_t m_controlDscp;
    Time m_cnpInterval;
    Ptr<NicScheduler> m_scheduler;
    std::vector<RoceV2QueuePair*> m_qps; //!< by QPN - kFirstQpn (owned by connections)
    DropFilter m_dropFilter;
    uint64_t m_malformed = 0;
};

} // namespace ns3

#endif
