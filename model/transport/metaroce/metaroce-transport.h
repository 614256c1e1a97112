/*
 * MetaRoceTransport: MetaRoCE on one host. It owns the host's connection
 * endpoints, the NIC scheduler that pulls their packets plane by plane, and
 * the receiver's fair-share state per port; it demultiplexes MetaRoCE packets
 * (UDP destination port UdpPort) to endpoints by connection id.
 *
 * Fault injection (for the conformance suite, docs/conformance.md): a test
 * may install a callback that sees every arriving data packet or ACK before
 * the endpoint does and decides to deliver, drop, delay or duplicate it.
 */
#ifndef METAROCE_TRANSPORT_H
#define METAROCE_TRANSPORT_H

#include "metaroce-ack-header.h"
#include "metaroce-connection.h"
#include "metaroce-data-header.h"
#include "metaroce-fair-share.h"
#include "nic-scheduler.h"
#include "rdma-transport.h"

#include "ns3/object-factory.h"

#include <vector>

namespace ns3
{

/** What a fault injector does with one arriving packet. */
struct MetaRoceFault
{
    enum Kind : uint8_t
    {
        Deliver,
        Drop,
        Delay,     //!< deliver after `delay`
        Duplicate, //!< deliver now and again after `delay`
    };

    Kind kind = Deliver;
    Time delay;
};

class MetaRoceTransport : public RdmaTransport
{
  public:
    static TypeId GetTypeId();
    MetaRoceTransport();

    /** Sees each data packet arriving at this host (plane given) before its endpoint. */
    typedef Callback<MetaRoceFault, const MetaRoceDataHeader&, uint32_t> DataFaultInjector;
    /** Sees each ACK arriving at this host before its endpoint. */
    typedef Callback<MetaRoceFault, const MetaRoceAckHeader&, uint32_t> AckFaultInjector;

    void SetNic(Ptr<RdmaNic> nic) override;

    Ptr<MetaRoceConnection> GetMetaRoceConnection(uint32_t index) const
    {
        return PeekConnection<MetaRoceConnection>(index);
    }

    void SetDataFaultInjector(DataFaultInjector injector)
    {
        m_dataFault = injector;
    }

    void SetAckFaultInjector(AckFaultInjector injector)
    {
        m_ackFault = injector;
    }

    // For endpoints
    Ptr<NicScheduler> GetScheduler() const
    {
        return m_scheduler;
    }

    FrameAddress DataAddress(uint32_t dstHost, uint32_t plane, uint16_t srcPort) const;
    /** Sends an ACK (the header is written with the frame headers, in one pass). */
    void SendAck(const MetaRoceAckHeader& ack, uint32_t plane, uint32_t dstHost, uint16_t srcPort);

    /**
     * The data header an endpoint fills for the packet it is handing to the
     * NIC scheduler (FrameAddress::inner points here): one per host, since
     * the scheduler frames each pulled packet before it pulls the next.
     */
    MetaRoceDataHeader& TxHeader()
    {
        return m_txHeader;
    }

    /** Room for an ACK being built (every field is set before it is sent). */
    MetaRoceAckHeader& AckScratch()
    {
        return m_ackScratch;
    }

    /** Room for TxHeader's bytes (a compact frame's header, until the NIC builds it). */
    uint8_t* TxHeaderBytes()
    {
        return m_txHeaderBytes;
    }

    /** A UDP source port for a new path or repath: distinct across this host's recent paths. */
    uint16_t AllocateSourcePort();

    uint16_t GetUdpPort() const
    {
        return m_udpPort;
    }

    /** Connections counted as sending to this host's port on \p plane now. */
    uint32_t GetActiveSenders(uint32_t plane);

    uint64_t GetMalformedPackets() const
    {
        return m_malformed;
    }

  protected:
    void DoDispose() override;
    void SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost) override;
    void Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote) override;

  private:
    void Receive(FrameRef& frame, const FrameInfo& info, uint32_t plane);
    void DeliverData(const MetaRoceDataHeader& h,
                     const FramePayload& payload,
                     bool ce,
                     uint32_t plane);
    void DeliverAck(const MetaRoceAckHeader& h, uint32_t plane);
    void LinkChanged(uint32_t plane, bool up);

    uint16_t m_udpPort;
    uint8_t m_dataDscp;
    uint8_t m_ackDscp;
    double m_hintUtilisation;
    Time m_activeWindow;
    uint16_t m_sourcePortBase;

    Ptr<NicScheduler> m_scheduler;
    std::vector<MetaRoceFairShare> m_fairShare; //!< by plane
    uint32_t m_portCounter = 0;
    uint64_t m_malformed = 0;
    DataFaultInjector m_dataFault;
    AckFaultInjector m_ackFault;
    MetaRoceDataHeader m_txHeader;
    // Received headers are parsed into these and an ACK is built in the
    // third, instead of an ns3::Header made and destroyed per packet (a
    // costly construction in the library). Nothing receives or
    // builds another one before the packet's handling returns.
    MetaRoceAckHeader m_rxAck;
    MetaRoceDataHeader m_rxData;
    MetaRoceAckHeader m_ackScratch;
    uint8_t m_txHeaderBytes[MetaRoceDataHeader::kBytes];
};

} // namespace ns3

#endif
