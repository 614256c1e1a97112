/*
 * RdmaConnectionPool: the connections a workload runs on, one per unordered
 * host pair, created on first use over whatever transport the hosts run.
 * Each host gets one large registered region (virtual payload), so workloads
 * address remote memory without bookkeeping. Completions of an endpoint are
 * fanned out to every listener registered for it, so several workloads (or a
 * workload and a recorder) can share connections.
 */
#ifndef METAROCE_RDMA_CONNECTION_POOL_H
#define METAROCE_RDMA_CONNECTION_POOL_H

#include "rdma-transport.h"

#include "ns3/callback.h"
#include "ns3/object.h"

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

class RdmaConnectionPool : public Object
{
  public:
    static TypeId GetTypeId();

    /** Size of the region registered on every host (virtual: costs no memory). */
    static constexpr uint64_t kRegionBytes = uint64_t(1) << 40;

    void SetTransports(const std::vector<Ptr<RdmaTransport>>& transports);

    uint32_t GetNHosts() const
    {
        return m_transports.size();
    }

    /** The connection between hosts a and b: (endpoint on a, endpoint on b). */
    std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>> Get(uint32_t a, uint32_t b);

    /** Key of host h's region (base address 0, kRegionBytes long). */
    uint32_t RegionKey(uint32_t host) const
    {
        return m_regionKeys[host];
    }

    /** Calls \p cb for every completion of \p endpoint. */
    void Listen(Ptr<RdmaConnection> endpoint, RdmaConnection::CompletionCallback cb);

    /** Every endpoint created so far (both ends of each connection). */
    const std::vector<Ptr<RdmaConnection>>& GetEndpoints() const
    {
        return m_endpoints;
    }

    uint32_t GetNConnections() const
    {
        return m_pairs.size();
    }

  protected:
    void DoDispose() override;

  private:
    struct Fanout
    {
        std::vector<RdmaConnection::CompletionCallback> listeners;

        void Deliver(const RdmaCompletion& c)
        {
            for (auto& l : listeners)
            {
                l(c);
            }
        }
    };

    std::vector<Ptr<RdmaTransport>> m_transports;
    std::vector<uint32_t> m_regionKeys;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>>>
        m_pairs;
    std::vector<Ptr<RdmaConnection>> m_endpoints;
    std::map<RdmaConnection*, std::unique_ptr<Fanout>> m_fanouts;
};

} // namespace ns3

#endif
