/*
 * ExperimentResults: the results of one run (schema in
 * docs/results-format.md): results.json (summary, collectives, effective
 * configuration, provenance) and tidy CSV time series beside it (throughput
 * per plane, queue depths, per-connection rates). Files are written under
 * temporary names and renamed at the end, so a failed run leaves nothing
 * half-written. Same experiment and seed give byte-identical files apart
 * from the wall-clock fields (wall_seconds, events_per_second, peak_rss_mb)
 * and the heap measurements (bytes_per_connection,
 * bytes_per_bidirectional_connection).
 */
#ifndef METAROCE_EXPERIMENT_RESULTS_H
#define METAROCE_EXPERIMENT_RESULTS_H

#include "experiment-builder.h"
#include "experiment-sampler.h"
#include "experiment-spec.h"

#include "ns3/nstime.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/** What the run itself measured (ExperimentRunner). */
struct ExperimentRunInfo
{
    Time end;         //!< simulation time the run ended
    Time workloadEnd; //!< when the workload finished (zero if it did not)
    double wallSeconds = 0;
    uint64_t events = 0;
    double peakRssMb = 0;
};

class ExperimentResults
{
  public:
    ExperimentResults(const ExperimentSpec& spec,
                      const ExperimentBuilder& built,
                      const ExperimentSampler& sampler,
                      const ExperimentRunInfo& run);

    /** The results document. */
    nlohmann::json ToJson() const;
    /** Writes results.json and the CSVs into \p dir (created if needed). */
    void Write(const std::string& dir) const;

  private:
    /** What the workload could move at most: its senders' or its receivers' line rate. */
    double OfferedLineRateBps() const;
    /** The summary; \p collectives: the collectives' records (CollectivesJson). */
    nlohmann::json Summary(const nlohmann::json& collectives) const;

    const ExperimentSpec& m_spec;
    const ExperimentBuilder& m_built;
    const ExperimentSampler& m_sampler;
    const ExperimentRunInfo& m_run;
};

} // namespace ns3

#endif
