/*
 * OracleTransport: the ideal RDMA transport of OracleConnection, one per
 * host. It owns the host's NIC timeline: the host's Writes and Sends are
 * serialised one after the other, in post order, at the sum of the NIC's
 * plane rates. It registers no UDP port and sends nothing on the fabric.
 *
 * It is also the smallest complete transport of this module: the steps to
 * add one are in docs/adding-a-transport.md.
 */
#ifndef METAROCE_ORACLE_TRANSPORT_H
#define METAROCE_ORACLE_TRANSPORT_H

#include "oracle-connection.h"
#include "rdma-transport.h"

#include <deque>
#include <vector>

namespace ns3
{

class OracleTransport : public RdmaTransport
{
  public:
    static TypeId GetTypeId();
    OracleTransport();

    /** Queues \p wr of \p connection on the NIC, posted now. */
    void Enqueue(Ptr<OracleConnection> connection, const RdmaWorkRequest& wr);
    /** The NIC's rate: the sum of its planes' line rates (bit/s). */
    double GetLineRateBps() const;

  protected:
    void DoDispose() override;
    void SetupEndpoint(Ptr<RdmaConnection> endpoint, uint32_t index, uint32_t remoteHost) override;
    void Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote) override;

  private:
    struct Queued
    {
        Ptr<OracleConnection> connection;
        RdmaWorkRequest wr;
    };

    void StartNext();
    void Finish();

    std::deque<Queued> m_queue;
    bool m_busy = false;
};

} // namespace ns3

#endif
