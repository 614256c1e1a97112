#include "metaroce-congestion-ops.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceCongestionOps);

TypeId
MetaRoceCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceCongestionOps").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

} // namespace ns3
