/*
 * ExperimentRunner: runs one ExperimentSpec. ExperimentBuilder instantiates
 * it, ExperimentSampler records its time series, ExperimentResults writes
 * what it measured (docs/results-format.md); the runner schedules the end
 * of the run (the duration, or the workload's end with "stop":
 * "workload_done") and reports progress.
 */
#ifndef METAROCE_EXPERIMENT_RUNNER_H
#define METAROCE_EXPERIMENT_RUNNER_H

#include "experiment-builder.h"
#include "experiment-results.h"
#include "experiment-sampler.h"
#include "experiment-spec.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace ns3
{

class ExperimentRunner
{
  public:
    explicit ExperimentRunner(ExperimentSpec spec);

    /**
     * Instantiates everything (fabric, loss, failures, transports, workload,
     * sampling). \throws ConfigError for what only the built fabric can
     * check (link and switch names of failures).
     */
    void Build();
    /** Runs to the end; prints progress to \p progress (if not null) about once a second. */
    void Run(std::ostream* progress);
    /** The results document (after Run). */
    nlohmann::json Results() const;
    /** Writes results.json and the CSVs into \p dir (created if needed). */
    void Write(const std::string& dir) const;

    Ptr<Fabric> GetFabric() const
    {
        return m_builder.GetFabric();
    }

    Ptr<RdmaWorkload> GetWorkload() const
    {
        return m_builder.GetWorkload();
    }

  private:
    void WorkloadFinished();
    void EndRun();
    void PrintProgress();

    ExperimentSpec m_spec;
    ExperimentBuilder m_builder;
    std::unique_ptr<ExperimentSampler> m_sampler;
    ExperimentRunInfo m_run;
    std::ostream* m_progress = nullptr;
    double m_wallStart = 0;
    double m_lastProgressWall = 0;
};

} // namespace ns3

#endif
