/*
 * ExperimentRunner: builds and runs one ExperimentSpec and writes its results
 * (schema in docs/results-format.md): DIR/results.json (summary, collectives,
 * effective configuration, provenance) and tidy CSV time series beside it
 * (throughput per plane, queue depths, per-connection rates). Files are
 * written under temporary names and renamed at the end, so a failed run
 * leaves nothing half-written. Same experiment and seed give byte-identical
 * files apart from the wall-clock fields (wall_seconds, events_per_second,
 * peak_rss_mb, bytes_per_connection, bytes_per_bidirectional_connection).
 */
#ifndef METAROCE_EXPERIMENT_RUNNER_H
#define METAROCE_EXPERIMENT_RUNNER_H

#include "experiment-spec.h"
#include "fabric.h"
#include "rdma-connection-pool.h"
#include "rdma-workload.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

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

    Ptr<Fabric> GetFabric() const { return m_fabric; }
    Ptr<RdmaWorkload> GetWorkload() const { return m_workload; }

  private:
    void ApplyAttributes();
    void InstallLoss();
    void ScheduleFailures();
    void CreateWorkload();
    void Sample();
    void WorkloadFinished();
    void EndRun();
    double OfferedLineRateBps() const;

    struct SampleRow
    {
        int64_t timeNs;
        std::vector<double> planeGbps;
        std::vector<uint32_t> planeMaxQueue;
        std::vector<uint64_t> planeQueueBytes;
    };

    ExperimentSpec m_spec;
    Ptr<Fabric> m_fabric;
    std::vector<Ptr<RdmaTransport>> m_transports;
    Ptr<RdmaConnectionPool> m_pool;
    Ptr<RdmaWorkload> m_workload;
    std::vector<uint32_t> m_senders;   //!< hosts that send
    std::vector<uint32_t> m_receivers; //!< hosts that receive
    std::vector<SampleRow> m_samples;
    std::vector<uint64_t> m_lastPlaneTx;
    std::vector<std::vector<double>> m_connectionGbps; //!< per sample, per endpoint
    std::vector<uint64_t> m_lastDelivered;
    bool m_connectionSeries = false;
    std::ostream* m_progress = nullptr;
    double m_wallStart = 0;
    double m_lastProgressWall = 0;
    double m_wallSeconds = 0;
    double m_peakRssMb = 0;
    double m_bytesPerConnection = 0; //!< heap growth creating the connections, per directed connection
    uint64_t m_events = 0;
    Time m_end;
    Time m_workloadEnd; //!< when the workload finished (zero if it did not)
};

} // namespace ns3

#endif
