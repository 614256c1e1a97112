#include "run-metrics.h"

#include "ns3/simulator.h"

#include <fstream>
#include <sys/resource.h>
#include <unistd.h>

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

uint64_t
RunMetrics::CurrentRssBytes()
{
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0;
    uint64_t resident = 0;
    statm >> size >> resident;
    return resident * uint64_t(sysconf(_SC_PAGESIZE));
}

} // namespace ns3
