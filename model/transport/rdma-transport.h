/*
 * RdmaTransport: the per-host side of a transport (one per NIC): it owns the
 * host's registered memory and its connection endpoints, and demultiplexes
 * received packets to them. MetaRoceTransport and the RoCEv2 transport derive
 * from it, so helpers and workloads create and connect endpoints without
 * knowing which transport runs (RdmaTransportHelper picks it by TypeId).
 *
 * Connections are established out of band (as rdma_cm does before a job
 * starts): Connect creates both endpoints and binds them; no handshake
 * packets are simulated.
 */
#ifndef METAROCE_RDMA_TRANSPORT_H
#define METAROCE_RDMA_TRANSPORT_H

#include "rdma-connection.h"
#include "rdma-memory.h"
#include "rdma-nic.h"

#include "ns3/object.h"

#include <utility>

namespace ns3
{

class RdmaTransport : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaTransport();

    /** Attaches the transport to its host's NIC (registers its UDP port). */
    virtual void SetNic(Ptr<RdmaNic> nic);
    Ptr<RdmaNic> GetNic() const { return m_nic; }
    /** GetNic without the reference count (per packet: no write to the NIC object). */
    RdmaNic* PeekNic() const { return PeekPointer(m_nic); }
    uint32_t GetHost() const { return m_nic->GetHostIndex(); }
    Ptr<RdmaMemory> GetMemory() const { return m_memory; }

    /** Number of connection endpoints on this host. */
    virtual uint32_t GetNConnections() const = 0;
    virtual Ptr<RdmaConnection> GetConnection(uint32_t index) const = 0;
    /**
     * Per-request completion tracking (RdmaConnection::EnableWorkRequestTracking)
     * on every endpoint Connect creates afterwards. RdmaTransportHelper turns
     * it on when Fabric::s_checkInvariantsOnDispose is set (the test suite).
     */
    void SetTrackWorkRequests(bool on) { m_trackWorkRequests = on; }
    bool GetTrackWorkRequests() const { return m_trackWorkRequests; }
    /** Sets an attribute of every connection endpoint this transport creates afterwards. */
    virtual void SetConnectionAttribute(const std::string& name, const AttributeValue& value) = 0;

    /**
     * Creates a connection between two hosts' transports (same TypeId) and
     * returns its two endpoints (first on \p a, second on \p b).
     */
    static std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>> Connect(Ptr<RdmaTransport> a,
                                                                       Ptr<RdmaTransport> b);

    /**
     * Heap accounting of connection set-up (issue 6: transport state per
     * connection). While on, Connect adds to each of the two transports the
     * heap its new endpoint took (glibc mallinfo2: arena plus mmap-ed
     * chunks), binding included. Off by default: mallinfo2 walks the
     * allocator's free lists. Does nothing where the C library cannot
     * report its heap (HeapInUse() returns 0 there).
     */
    static void SetHeapAccounting(bool on) { s_heapAccounting = on; }
    /** Heap bytes in use, or 0 where the C library cannot tell. */
    static uint64_t HeapInUse();
    /** Heap the endpoints created here took while accounting was on. */
    int64_t GetEndpointHeapBytes() const { return m_endpointHeapBytes; }
    /** Endpoints created here while accounting was on. */
    uint32_t GetAccountedEndpoints() const { return m_accountedEndpoints; }

  protected:
    void DoDispose() override;
    /** A new endpoint towards \p remoteHost, not yet bound. */
    virtual Ptr<RdmaConnection> CreateEndpoint(uint32_t remoteHost) = 0;
    /** Binds \p local (created here) to its peer \p remote. */
    virtual void Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote) = 0;

    Ptr<RdmaNic> m_nic;
    Ptr<RdmaMemory> m_memory;

  private:
    bool m_trackWorkRequests = false; //!< SetTrackWorkRequests
    static bool s_heapAccounting;
    int64_t m_endpointHeapBytes = 0;
    uint32_t m_accountedEndpoints = 0;
};

} // namespace ns3

#endif
