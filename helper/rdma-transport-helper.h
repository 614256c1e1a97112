/*
 * RdmaTransportHelper: installs one transport (chosen by TypeId: MetaRoCE,
 * RoCEv2, ...) on every host of a Fabric and connects hosts, so a workload or
 * experiment switches transport by changing one string.
 *
 *   RdmaTransportHelper rdma("ns3::MetaRoceTransport");
 *   rdma.SetConnectionAttribute("PathsPerPlane", UintegerValue(8));
 *   auto transports = rdma.Install(fabric);
 *   auto [a, b] = rdma.Connect(transports[0], transports[3]);
 */
#ifndef METAROCE_RDMA_TRANSPORT_HELPER_H
#define METAROCE_RDMA_TRANSPORT_HELPER_H

#include "fabric.h"
#include "rdma-transport.h"

#include "ns3/object-factory.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class RdmaTransportHelper
{
  public:
    /**
     * A short name experiments may use instead of a transport's TypeId, and
     * the attribute defaults it implies ("ns3::Type::Attribute" -> value).
     */
    struct Alias
    {
        std::string name;
        std::string typeId;
        std::vector<std::pair<std::string, std::string>> defaults;
        std::string description; //!< one line, for error messages and docs
    };

    /** The short names, in the order error messages list them. */
    static const std::vector<Alias>& GetAliases();

    explicit RdmaTransportHelper(const std::string& transportType = "ns3::MetaRoceTransport");

    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    /** Applied to every connection endpoint the installed transports create. */
    void SetConnectionAttribute(const std::string& name, const AttributeValue& value);

    /** One transport per host of \p fabric (index = host), aggregated to the host's node. */
    std::vector<Ptr<RdmaTransport>> Install(Ptr<Fabric> fabric);

    /** Connects two hosts; returns (endpoint on a, endpoint on b). */
    static std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>> Connect(Ptr<RdmaTransport> a,
                                                                       Ptr<RdmaTransport> b);

  private:
    ObjectFactory m_transportFactory;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_connectionAttributes;
};

} // namespace ns3

#endif
