/*
 * ExperimentSampler: the time series of a run, one row per sample interval:
 * throughput each plane's NICs put on the wire, queue depths per plane (the
 * deepest switch port and the sum), and the rate each connection endpoint
 * delivers (for up to MaxConnectionSeries endpoints). It reads the
 * components' cumulative counters once per interval instead of following
 * per-packet traces: the series cost nothing per packet-hop.
 */
#ifndef METAROCE_EXPERIMENT_SAMPLER_H
#define METAROCE_EXPERIMENT_SAMPLER_H

#include "fabric.h"
#include "rdma-connection-pool.h"

#include "ns3/nstime.h"

#include <cmath>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \p v rounded to \p digits decimals: the figures a run writes, in a fixed
 * form so that identical runs give identical bytes.
 */
inline double
RoundForOutput(double v, int digits = 6)
{
    const double scale = std::pow(10.0, digits);
    return std::round(v * scale) / scale;
}

class ExperimentSampler
{
  public:
    /** One sample: the interval ending at timeNs. */
    struct Row
    {
        int64_t timeNs;
        std::vector<double> planeGbps;
        std::vector<uint32_t> planeMaxQueue;
        std::vector<uint64_t> planeQueueBytes;
    };

    /** Endpoints beyond this many get no per-connection series (its size grows as their square). */
    static constexpr size_t kMaxConnectionSeries = 512;

    ExperimentSampler(Ptr<Fabric> fabric, Ptr<RdmaConnectionPool> pool);

    /**
     * Samples every \p interval until \p duration; \p onSample (may be
     * empty) is called after each sample.
     */
    void Start(Time interval, Time duration, std::function<void()> onSample);
    /** Stops sampling; takes a last (partial) sample if the last one is older than now. */
    void Finish();

    const std::vector<Row>& GetRows() const
    {
        return m_rows;
    }

    /** Whether the per-connection series is kept (few enough endpoints). */
    bool HasConnectionSeries() const
    {
        return m_connectionSeries;
    }

    /** Per row, per endpoint of the pool: Gb/s delivered to it. */
    const std::vector<std::vector<double>>& GetConnectionGbps() const
    {
        return m_connectionGbps;
    }

  private:
    void Sample();

    Ptr<Fabric> m_fabric;
    Ptr<RdmaConnectionPool> m_pool;
    Time m_interval;
    Time m_duration;
    std::function<void()> m_onSample;
    bool m_finished = false;
    std::vector<Row> m_rows;
    std::vector<uint64_t> m_lastPlaneTx;
    bool m_connectionSeries = false;
    std::vector<std::vector<double>> m_connectionGbps;
    std::vector<uint64_t> m_lastDelivered;
};

} // namespace ns3

#endif
