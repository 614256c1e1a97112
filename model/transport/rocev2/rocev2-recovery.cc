#include "rocev2-recovery.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceV2Recovery);

TypeId
RoceV2Recovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceV2Recovery").SetParent<Object>().SetGroupName("MetaRoce");
    return tid;
}

RoceV2Recovery::~RoceV2Recovery() = default;

} // namespace ns3
