#include "fabric-traffic-helper.h"

#include "ns3/data-rate.h"
#include "ns3/integer.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace ns3
{

FabricTrafficHelper::FabricTrafficHelper(Ptr<Fabric> fabric)
    : m_fabric(fabric)
{
    m_sourceFactory.SetTypeId(FabricTrafficSource::GetTypeId());
}

void
FabricTrafficHelper::SetSourceAttribute(const std::string& name, const AttributeValue& value)
{
    m_sourceFactory.Set(name, value);
}

ApplicationContainer
FabricTrafficHelper::InstallSinks(Time start, Time stop)
{
    ApplicationContainer apps;
    for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
    {
        Ptr<FabricTrafficSink> sink = CreateObject<FabricTrafficSink>();
        m_fabric->GetHost(h)->AddApplication(sink);
        apps.Add(sink);
    }
    apps.Start(start);
    apps.Stop(stop);
    return apps;
}

ApplicationContainer
FabricTrafficHelper::InstallPattern(const std::vector<uint32_t>& destination,
                                    double load,
                                    Time start,
                                    Time stop)
{
    NS_ABORT_MSG_UNLESS(destination.size() == m_fabric->GetNHosts(),
                        "FabricTrafficHelper: one destination per host expected");
    ApplicationContainer apps;
    const uint32_t planes = m_fabric->GetNPlanes();
    const double lineBps = double(m_fabric->GetSpec().hostLink.rate.GetBitRate());
    const DataRate rate(static_cast<uint64_t>(lineBps * load));
    for (uint32_t h = 0; h < destination.size(); ++h)
    {
        if (destination[h] == h)
        {
            continue;
        }
        for (uint32_t p = 0; p < planes; ++p)
        {
            Ptr<FabricTrafficSource> src = m_sourceFactory.Create<FabricTrafficSource>();
            UintegerValue count;
            src->GetAttribute("SourcePortCount", count);
            src->SetAttribute("DataRate", DataRateValue(rate));
            src->SetAttribute("DestinationHost", UintegerValue(destination[h]));
            src->SetAttribute("Plane", IntegerValue(p));
            src->SetAttribute("SourcePort",
                              UintegerValue((10000 + (h * planes + p) * count.Get()) & 0xffff));
            m_fabric->GetHost(h)->AddApplication(src);
            apps.Add(src);
        }
    }
    apps.Start(start);
    apps.Stop(stop);
    return apps;
}

std::vector<uint32_t>
FabricTrafficHelper::RandomDerangement(uint32_t n, uint64_t seed)
{
    NS_ABORT_MSG_UNLESS(n >= 2, "a derangement needs at least 2 hosts");
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    // Sattolo's algorithm: a uniformly random single cycle, so no fixed point.
    std::mt19937_64 rng(seed);
    for (uint32_t i = n - 1; i > 0; --i)
    {
        std::uniform_int_distribution<uint32_t> pick(0, i - 1);
        std::swap(perm[i], perm[pick(rng)]);
    }
    return perm;
}

} // namespace ns3
