#include "rdma-transport-helper.h"

#include "ns3/abort.h"

namespace ns3
{

const std::vector<RdmaTransportHelper::Alias>&
RdmaTransportHelper::GetAliases()
{
    static const std::vector<Alias> aliases = {
        {"metaroce", "ns3::MetaRoceTransport", {}, "MetaRoCE"},
        {"rocev2", "ns3::RoceV2Transport", {}, "RoCEv2, go-back-N"},
        {"irn",
         "ns3::RoceV2Transport",
         {{"ns3::RoceV2Connection::SelectiveRepeat", "true"}},
         "RoCEv2 with IRN selective repeat"},
    };
    return aliases;
}

RdmaTransportHelper::RdmaTransportHelper(const std::string& transportType)
{
    TypeId tid;
    NS_ABORT_MSG_IF(!TypeId::LookupByNameFailSafe(transportType, &tid),
                    "RdmaTransportHelper: unknown transport type '" << transportType << "'");
    NS_ABORT_MSG_IF(!tid.IsChildOf(RdmaTransport::GetTypeId()),
                    "RdmaTransportHelper: '" << transportType << "' is not an RdmaTransport");
    m_transportFactory.SetTypeId(tid);
}

void
RdmaTransportHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

void
RdmaTransportHelper::SetConnectionAttribute(const std::string& name, const AttributeValue& value)
{
    m_connectionAttributes.emplace_back(name, value.Copy());
}

std::vector<Ptr<RdmaTransport>>
RdmaTransportHelper::Install(Ptr<Fabric> fabric)
{
    std::vector<Ptr<RdmaTransport>> transports;
    for (uint32_t host = 0; host < fabric->GetNHosts(); ++host)
    {
        Ptr<RdmaTransport> t = m_transportFactory.Create<RdmaTransport>();
        for (const auto& [name, value] : m_connectionAttributes)
        {
            t->SetConnectionAttribute(name, *value);
        }
        t->SetNic(fabric->GetNic(host));
        // Tests check at the end that every completion matched one posted request.
        t->SetTrackWorkRequests(Fabric::s_checkInvariantsOnDispose);
        fabric->GetHost(host)->AggregateObject(t);
        transports.push_back(t);
    }
    return transports;
}

std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>>
RdmaTransportHelper::Connect(Ptr<RdmaTransport> a, Ptr<RdmaTransport> b)
{
    return RdmaTransport::Connect(a, b);
}

} // namespace ns3
