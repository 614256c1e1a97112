/*
 * OracleConnection: an endpoint of OracleTransport, the ideal transport:
 * no packets, no loss, no congestion. A Write or Send is serialised by its
 * host's NIC (all planes together, in post order across the host's
 * connections) and completes when its last byte has left; a Send completes
 * with the peer's next Recv on its stream (it waits for one to be posted).
 * Bytes count as delivered while they are serialised, so goodput is the
 * NIC's line rate whenever the NIC has work: the upper bound against which
 * a real transport's curves can be read.
 */
#ifndef METAROCE_ORACLE_CONNECTION_H
#define METAROCE_ORACLE_CONNECTION_H

#include "rdma-connection.h"

#include "ns3/nstime.h"

#include <deque>
#include <map>

namespace ns3
{

class OracleTransport;

class OracleConnection : public RdmaConnection
{
  public:
    static TypeId GetTypeId();

    /** Called by OracleTransport when the endpoint is created and bound. */
    void Setup(Ptr<OracleTransport> transport, uint32_t remoteHost);

    void SetPeer(Ptr<OracleConnection> peer)
    {
        m_peer = peer;
    }

    void Post(const RdmaWorkRequest& wr) override;
    void PostRecv(const RdmaRecvRequest& rr) override;
    uint64_t GetDeliveredBytes() const override;

    uint64_t GetSentPackets() const override
    {
        return 0;
    }

    uint64_t GetRetransmittedPackets() const override
    {
        return 0;
    }

    /** The NIC finished serialising \p wr (OracleTransport). */
    void Serialised(const RdmaWorkRequest& wr);
    /** The NIC starts serialising \p length bytes of this connection's at \p start, for \p
     * duration. */
    void StartService(uint32_t length, Time start, Time duration);

  protected:
    void DoDispose() override;

  private:
    /** A posted Write or Send, waiting for its completion in post order. */
    struct Pending
    {
        RdmaWorkRequest wr;
        Time posted;
        bool done = false;
        RdmaStatus status = RdmaStatus::Success;
    };

    /** A posted Recv. */
    struct PostedRecv
    {
        RdmaRecvRequest rr;
        Time posted;
    };

    /** Bytes of this endpoint's messages the NIC has put out so far. */
    uint64_t TransmittedBytes() const;
    /** The peer's Send (\p wrId of its stream \p stream, \p length bytes) arrived here. */
    void SendArrived(uint16_t stream, uint64_t wrId, uint32_t length);
    /** Matches arrived Sends with posted Recvs of \p stream. */
    void Match(uint16_t stream);
    /** The peer matched this endpoint's Send \p wrId on \p stream with a Recv. */
    void SendMatched(uint16_t stream, uint64_t wrId, RdmaStatus status);
    /** Delivers the completions of \p stream that are done, in post order. */
    void Release(uint16_t stream);

    Ptr<OracleTransport> m_transport;
    Ptr<OracleConnection> m_peer;
    uint64_t m_transmitted = 0;  //!< bytes of messages fully serialised
    uint32_t m_serviceBytes = 0; //!< the message being serialised now (0: none)
    Time m_serviceStart;
    Time m_serviceDuration;
    std::map<uint16_t, std::deque<Pending>> m_pending; //!< per stream, in post order
    std::map<uint16_t, std::deque<PostedRecv>> m_recvs;
    //! Per stream: the peer's Sends that arrived before a Recv (wrId, length)
    std::map<uint16_t, std::deque<std::pair<uint64_t, uint32_t>>> m_arrived;
};

} // namespace ns3

#endif
