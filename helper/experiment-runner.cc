#include "experiment-runner.h"

#include "run-metrics.h"

#include "ns3/simulator.h"

#include <chrono>
#include <iomanip>

namespace ns3
{

namespace
{
double
WallNow()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}
} // namespace

ExperimentRunner::ExperimentRunner(ExperimentSpec spec)
    : m_spec(std::move(spec)),
      m_builder(m_spec)
{
}

void
ExperimentRunner::Build()
{
    m_builder.Build();
    Ptr<RdmaWorkload> workload = m_builder.GetWorkload();
    workload->SetFinishedCallback(MakeCallback(&ExperimentRunner::WorkloadFinished, this));
    workload->Schedule();
    m_sampler = std::make_unique<ExperimentSampler>(m_builder.GetFabric(), m_builder.GetPool());
    m_sampler->Start(m_spec.sampleInterval, m_spec.duration, [this] { PrintProgress(); });
    Simulator::Schedule(m_spec.duration, &ExperimentRunner::EndRun, this);
}

void
ExperimentRunner::WorkloadFinished()
{
    m_run.workloadEnd = Simulator::Now();
    if (m_spec.stopWhenDone)
    {
        Simulator::ScheduleNow(&ExperimentRunner::EndRun, this);
    }
}

void
ExperimentRunner::EndRun()
{
    if (!m_run.end.IsZero())
    {
        return;
    }
    m_run.end = Simulator::Now();
    m_sampler->Finish();
    m_builder.GetWorkload()->StopPosting();
    Simulator::Stop();
}

void
ExperimentRunner::PrintProgress()
{
    if (!m_progress)
    {
        return;
    }
    const double now = WallNow();
    if (now - m_lastProgressWall < 1.0)
    {
        return;
    }
    m_lastProgressWall = now;
    const double simDone = Simulator::Now().GetSeconds() / m_spec.duration.GetSeconds();
    const double wall = now - m_wallStart;
    const double eta = simDone > 0 ? wall * (1 - simDone) / simDone : 0;
    *m_progress << "\r" << m_spec.name << ": " << std::fixed << std::setprecision(1)
                << Simulator::Now().GetMicroSeconds() << " / " << m_spec.duration.GetMicroSeconds()
                << " us simulated, " << std::setprecision(2)
                << double(Simulator::GetEventCount()) / wall / 1e6 << " M events/s, ETA "
                << std::setprecision(0) << eta << " s   " << std::flush;
}

void
ExperimentRunner::Run(std::ostream* progress)
{
    m_progress = progress;
    m_wallStart = WallNow();
    m_lastProgressWall = m_wallStart;
    RunMetrics metrics;
    Simulator::Run();
    m_run.wallSeconds = metrics.WallSeconds();
    m_run.events = metrics.Events();
    m_run.peakRssMb = RunMetrics::PeakRssMb(); // once: Results() must return the same every call
    if (m_run.end.IsZero())
    {
        m_run.end = Simulator::Now();
    }
    if (m_progress)
    {
        *m_progress << "\r" << std::string(80, ' ') << "\r" << std::flush;
    }
}

nlohmann::json
ExperimentRunner::Results() const
{
    return ExperimentResults(m_spec, m_builder, *m_sampler, m_run).ToJson();
}

void
ExperimentRunner::Write(const std::string& dir) const
{
    ExperimentResults(m_spec, m_builder, *m_sampler, m_run).Write(dir);
}

} // namespace ns3
