#include "rdma-verbs.h"

namespace ns3
{

const char*
ToString(RdmaOpcode op)
{
    switch (op)
    {
    case RdmaOpcode::Write:
        return "write";
    case RdmaOpcode::Send:
        return "send";
    case RdmaOpcode::Recv:
        return "recv";
    }
    return "?";
}

const char*
ToString(RdmaStatus status)
{
    switch (status)
    {
    case RdmaStatus::Success:
        return "success";
    case RdmaStatus::RemoteAccessError:
        return "remote_access_error";
    case RdmaStatus::LengthError:
        return "length_error";
    case RdmaStatus::LocalProtectionError:
        return "local_protection_error";
    case RdmaStatus::RetryExceeded:
        return "retry_exceeded";
    }
    return "?";
}

std::ostream&
operator<<(std::ostream& os, const RdmaCompletion& c)
{
    return os << ToString(c.opcode) << " wr=" << c.wrId << " stream=" << c.stream
              << " bytes=" << c.bytes << " " << ToString(c.status)
              << " posted=" << c.posted.GetNanoSeconds()
              << "ns completed=" << c.completed.GetNanoSeconds() << "ns";
}

} // namespace ns3
