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
 *
 * The base keeps what every transport needs: the endpoints (created from an
 * ObjectFactory of the transport's connection type, which carries the
 * experiment's connection attributes) and their order. A subclass names its
 * connection type, sets each new endpoint up and binds it to its peer
 * (docs/adding-a-transport.md).
 */
#ifndef METAROCE_RDMA_TRANSPORT_H
#define METAROCE_RDMA_TRANSPORT_H

#include "rdma-connection.h"
#include "rdma-memory.h"
#include "rdma-nic.h"

#include "ns3/object-factory.h"
#include "ns3/object.h"

#include <utility>
#include <vector>

namespace ns3
{

class RdmaTransport : public Object
{
  public:
    static TypeId GetTypeId();

    /** Attaches the transport to its host's NIC (registers its UDP port). */
    virtual void SetNic(Ptr<RdmaNic> nic);

    Ptr<RdmaNic> GetNic() const
    {
        return m_nic;
    }

    /** GetNic without the reference count (per packet: no write to the NIC object). */
    RdmaNic* PeekNic() const
    {
        return PeekPointer(m_nic);
    }

    uint32_t GetHost() const
    {
        return m_nic->GetHostIndex();
    }

    Ptr<RdmaMemory> GetMemory() const
    {
        return m_memory;
    }

    /** Number of connection endpoints on this host. */
    uint32_t GetNConnections() const
    {
        return m_connections.size();
    }

    /** Endpoint \p index, in creation order. */
    Ptr<RdmaConnection> GetConnection(uint32_t index) const
    {
        return m_connections[index];
    }

    /** The TypeId of this transport's endpoints (a subclass of ns3::RdmaConnection). */
    TypeId GetConnectionTypeId() const
    {
        return m_connectionFactory.GetTypeId();
    }

    /**
     * Per-request completion tracking (RdmaConnection::EnableWorkRequestTracking)
     * on every endpoint Connect creates afterwards. RdmaTransportHelper turns
     * it on when Fabric::s_checkInvariantsOnDispose is set (the test suite).
     */
    void SetTrackWorkRequests(bool on)
    {
        m_trackWorkRequests = on;
    }

    bool GetTrackWorkRequests() const
    {
        return m_trackWorkRequests;
    }

    /** Sets an attribute of every connection endpoint this transport creates afterwards. */
    void SetConnectionAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Creates a connection between two hosts' transports (same TypeId) and
     * returns its two endpoints (first on \p a, second on \p b).
     */
    static std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>> Connect(Ptr<RdmaTransport> a,
                                                                       Ptr<RdmaTransport> b);

    /**
     * Heap accounting of connection set-up (the transport state a
     * connection costs). While on, Connect adds to each of the two transports the
     * heap its new endpoint took (glibc mallinfo2: arena plus mmap-ed
     * chunks), binding included. Off by default: mallinfo2 walks the
     * allocator's free lists. Does nothing where the C library cannot
     * report its heap (HeapInUse() returns 0 there).
     */
    static void SetHeapAccounting(bool on)
    {
        s_heapAccounting = on;
    }

    /** Heap bytes in use, or 0 where the C library cannot tell. */
    static uint64_t HeapInUse();

    /** Heap the endpoints created here took while accounting was on. */
    int64_t GetEndpointHeapBytes() const
    {
        return m_endpointHeapBytes;
    }

    /** Endpoints created here while accounting was on. */
    uint32_t GetAccountedEndpoints() const
    {
        return m_accountedEndpoints;
    }

  protected:
    /** \p connectionType: the endpoints' TypeId, a subclass of ns3::RdmaConnection. */
    explicit RdmaTransport(TypeId connectionType);
    void DoDispose() override;
    /** Disposes the endpoints (also done by DoDispose; for subclasses that must do it first). */
    void DisposeConnections();
    /** Sets up \p endpoint, just created as endpoint \p index of this host, towards \p remoteHost.
     */
    virtual void SetupEndpoint(Ptr<RdmaConnection> endpoint,
                               uint32_t index,
                               uint32_t remoteHost) = 0;
    /** Binds \p local (created here) to its peer \p remote. */
    virtual void Bind(Ptr<RdmaConnection> local, Ptr<RdmaConnection> remote) = 0;

    /** Endpoint \p index as the subclass's type, without a reference count (per packet). */
    template <class T>
    T* PeekConnection(uint32_t index) const
    {
        return static_cast<T*>(PeekPointer(m_connections[index]));
    }

    Ptr<RdmaNic> m_nic;
    Ptr<RdmaMemory> m_memory;

  private:
    /** A new endpoint towards \p remoteHost, set up, not yet bound. */
    Ptr<RdmaConnection> CreateEndpoint(uint32_t remoteHost);

    ObjectFactory m_connectionFactory;
    std::vector<Ptr<RdmaConnection>> m_connections;
    bool m_trackWorkRequests = false; //!< SetTrackWorkRequests
    static bool s_heapAccounting;
    int64_t m_endpointHeapBytes = 0;
    uint32_t m_accountedEndpoints = 0;
};

} // namespace ns3

#endif
