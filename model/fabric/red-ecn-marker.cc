#include "red-ecn-marker.h"

namespace ns3
{

RedEcnMarker::RedEcnMarker()
    : m_rng(CreateObject<UniformRandomVariable>())
{
}

int64_t
RedEcnMarker::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

void
RedEcnMarker::Dispose()
{
    m_rng = nullptr;
}

} // namespace ns3
