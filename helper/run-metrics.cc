#include "run-metrics.h"

#include "ns3/simulator.h"

#include <sys/resource.h>

namespace ns3
{

RunMetrics::RunMetrics()
    : m_start(std::chrono::steady_clock::now()),
      m_startEvents(Simulator::GetEventCount())
{
}

double
RunMetrics::WallSeconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

uint64_t
RunMetrics::Events() const
{
    return Simulator::GetEventCount() - m_startEvents;
}

double
RunMetrics::PeakRssMb()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0; // Linux reports KiB
}

} // namespace ns3
