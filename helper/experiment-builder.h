/*
 * ExperimentBuilder: instantiates what one ExperimentSpec describes, in a
 * fixed order (seed, scheduler, attribute defaults, fabric, loss, failures,
 * transports, workload), so that a spec always builds the same simulation.
 * Transports and workloads are created from their TypeIds
 * (ExperimentTransport, ExperimentWorkload): a new transport or workload
 * needs no change here.
 */
#ifndef METAROCE_EXPERIMENT_BUILDER_H
#define METAROCE_EXPERIMENT_BUILDER_H

#include "experiment-spec.h"
#include "fabric.h"
#include "rdma-connection-pool.h"
#include "rdma-transport.h"
#include "rdma-workload.h"

#include <vector>

namespace ns3
{

class ExperimentBuilder
{
  public:
    explicit ExperimentBuilder(const ExperimentSpec& spec);

    /**
     * Builds everything and schedules the workload's start and the failures.
     * \throws ConfigError for what only the built fabric can check (link and
     * switch names of failures).
     */
    void Build();

    Ptr<Fabric> GetFabric() const
    {
        return m_fabric;
    }

    const std::vector<Ptr<RdmaTransport>>& GetTransports() const
    {
        return m_transports;
    }

    Ptr<RdmaConnectionPool> GetPool() const
    {
        return m_pool;
    }

    Ptr<RdmaWorkload> GetWorkload() const
    {
        return m_workload;
    }

    /**
     * Heap the transports' endpoints took when the workload created them,
     * per directed connection (one endpoint: the sending half of its
     * direction and the receiving half of the other); the connection
     * pool's and the workload's own bookkeeping are not counted. Without a
     * C library that reports its heap, the resident-set growth over the
     * whole creation stands in.
     */
    double GetBytesPerConnection() const
    {
        return m_bytesPerConnection;
    }

    /** The attribute defaults the run changed, the transport's implied ones included. */
    std::vector<std::pair<std::string, std::string>> GetNonDefaultAttributes() const;

  private:
    void ApplyAttributes();
    void InstallLoss();
    void ScheduleFailures();
    void CreateTransports();
    void CreateWorkload();
    /** The workload's object, its built-in keys applied as attributes. */
    Ptr<RdmaWorkload> MakeWorkload() const;

    const ExperimentSpec& m_spec;
    Ptr<Fabric> m_fabric;
    std::vector<Ptr<RdmaTransport>> m_transports;
    Ptr<RdmaConnectionPool> m_pool;
    Ptr<RdmaWorkload> m_workload;
    double m_bytesPerConnection = 0;
};

} // namespace ns3

#endif
