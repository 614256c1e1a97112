#include "drop-reason.h"

namespace ns3
{

std::string
DropReasonName(DropReason reason)
{
    switch (reason)
    {
    case DropReason::Buffer:
        return "buffer";
    case DropReason::ErrorModel:
        return "error_model";
    case DropReason::LinkDown:
        return "link_down";
    case DropReason::NoRoute:
        return "no_route";
    case DropReason::Malformed:
        return "malformed";
    case DropReason::NoHandler:
        return "no_handler";
    case DropReason::PfcHeadroom:
        return "pfc_headroom";
    case DropReason::Count:
        break;
    }
    return "unknown";
}

} // namespace ns3
