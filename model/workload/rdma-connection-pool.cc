#include "rdma-connection-pool.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaConnectionPool);

TypeId
RdmaConnectionPool::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaConnectionPool")
                            .SetParent<Object>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RdmaConnectionPool>();
    return tid;
}

void
RdmaConnectionPool::DoDispose()
{
    m_fanouts.clear();
    m_pairs.clear();
    m_endpoints.clear();
    m_transports.clear();
    Object::DoDispose();
}

void
RdmaConnectionPool::SetTransports(const std::vector<Ptr<RdmaTransport>>& transports)
{
    m_transports = transports;
    m_regionKeys.clear();
    for (auto& t : transports)
    {
        m_regionKeys.push_back(t->GetMemory()->Register(0, kRegionBytes));
    }
}

std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>>
RdmaConnectionPool::Get(uint32_t a, uint32_t b)
{
    NS_ABORT_MSG_IF(a == b || a >= m_transports.size() || b >= m_transports.size(),
                    "RdmaConnectionPool::Get: no connection between hosts " << a << " and " << b);
    const auto key = std::make_pair(std::min(a, b), std::max(a, b));
    auto it = m_pairs.find(key);
    if (it == m_pairs.end())
    {
        auto ends = RdmaTransport::Connect(m_transports[key.first], m_transports[key.second]);
        for (auto& e : {ends.first, ends.second})
        {
            m_endpoints.push_back(e);
            auto f = std::make_unique<Fanout>();
            e->SetCompletionCallback(MakeCallback(&Fanout::Deliver, f.get()));
            m_fanouts[PeekPointer(e)] = std::move(f);
        }
        it = m_pairs.emplace(key, ends).first;
    }
    return a < b ? it->second : std::make_pair(it->second.second, it->second.first);
}

void
RdmaConnectionPool::Listen(Ptr<RdmaConnection> endpoint, RdmaConnection::CompletionCallback cb)
{
    auto it = m_fanouts.find(PeekPointer(endpoint));
    NS_ABORT_MSG_IF(it == m_fanouts.end(), "RdmaConnectionPool::Listen: not a pool endpoint");
    it->second->listeners.push_back(cb);
}

} // namespace ns3
