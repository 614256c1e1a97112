#include "rdma-congestion-ops.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionOps);

TypeId
RdmaCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionOps").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

} // namespace ns3
