/*
 * FabricTrafficHelper: installs fabric test traffic (FabricTrafficSource and
 * FabricTrafficSink) on a built Fabric: a sink on every host, and one source
 * per (host, plane) towards that host's destination at a fraction of the
 * host link's line rate.
 */
#ifndef METAROCE_FABRIC_TRAFFIC_HELPER_H
#define METAROCE_FABRIC_TRAFFIC_HELPER_H

#include "fabric-traffic-sink.h"
#include "fabric-traffic-source.h"
#include "fabric.h"

#include "ns3/application-container.h"
#include "ns3/object-factory.h"

#include <vector>

namespace ns3
{

class FabricTrafficHelper
{
  public:
    explicit FabricTrafficHelper(Ptr<Fabric> fabric);

    /** Sets an attribute of every source installed after this call. */
    void SetSourceAttribute(const std::string& name, const AttributeValue& value);

    /** A FabricTrafficSink on every host (default port). */
    ApplicationContainer InstallSinks(Time start, Time stop);

    /**
     * For every host h with destination[h] != h, one source per plane sending
     * to destination[h] at \p load times the host link rate. Source ports are
     * distinct per (host, plane): 10000 + (h * planes + p) * SourcePortCount.
     */
    ApplicationContainer InstallPattern(const std::vector<uint32_t>& destination,
                                        double load,
                                        Time start,
                                        Time stop);

    /** A random permutation of [0, n) with no fixed point, from \p seed (n >= 2). */
    static std::vector<uint32_t> RandomDerangement(uint32_t n, uint64_t seed);

  private:
    Ptr<Fabric> m_fabric;
    ObjectFactory m_sourceFactory;
};

} // namespace ns3

#endif
