/*
 * RunMetrics: the cost of a simulation run (wall time, scheduler events, peak
 * memory), for benchmarks and results files. Wall-clock figures are the only
 * non-deterministic fields of a run; keep them apart from simulated results.
 */
#ifndef METAROCE_RUN_METRICS_H
#define METAROCE_RUN_METRICS_H

#include <chrono>
#include <cstdint>

namespace ns3
{

class RunMetrics
{
  public:
    /** Starts the wall clock and remembers the scheduler's event count. */
    RunMetrics();

    double WallSeconds() const;
    /** Events executed by the scheduler since construction. */
    uint64_t Events() const;
    /** Peak resident set size of this process so far, in MiB. */
    static double PeakRssMb();
    /** Resident set size now, in bytes (/proc/self/statm). */
    static uint64_t CurrentRssBytes();

  private:
    std::chrono::steady_clock::time_point m_start;
    uint64_t m_startEvents;
};

} // namespace ns3

#endif
