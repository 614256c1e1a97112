#include "experiment-sampler.h"

#include "json-reader.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

ExperimentSampler::ExperimentSampler(Ptr<Fabric> fabric, Ptr<RdmaConnectionPool> pool)
    : m_fabric(fabric),
      m_pool(pool)
{
}

void
ExperimentSampler::Start(Time interval, Time duration, std::function<void()> onSample)
{
    m_interval = interval;
    m_duration = duration;
    m_onSample = std::move(onSample);
    m_lastPlaneTx.assign(m_fabric->GetNPlanes(), 0);
    m_connectionSeries = m_pool->GetEndpoints().size() <= kMaxConnectionSeries;
    m_lastDelivered.assign(m_pool->GetEndpoints().size(), 0);
    Simulator::Schedule(m_interval, &ExperimentSampler::Sample, this);
}

void
ExperimentSampler::Finish()
{
    m_finished = true;
    if (m_rows.empty() || m_rows.back().timeNs < Simulator::Now().GetNanoSeconds())
    {
        Sample();
    }
}

void
ExperimentSampler::Sample()
{
    const uint32_t planes = m_fabric->GetNPlanes();
    Row s;
    s.timeNs = Simulator::Now().GetNanoSeconds();
    s.planeGbps.assign(planes, 0);
    s.planeMaxQueue.assign(planes, 0);
    s.planeQueueBytes.assign(planes, 0);
    const int64_t lastNs = m_rows.empty() ? 0 : m_rows.back().timeNs;
    const double seconds = std::max(1e-12, double(s.timeNs - lastNs) * 1e-9);
    for (uint32_t p = 0; p < planes; ++p)
    {
        uint64_t tx = 0;
        for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
        {
            tx += m_fabric->GetNic(h)->GetPort(p)->GetStats().txWireBytes;
        }
        s.planeGbps[p] = RoundForOutput(double(tx - m_lastPlaneTx[p]) * 8 / seconds / 1e9);
        m_lastPlaneTx[p] = tx;
    }
    for (const auto& link : m_fabric->GetLinks())
    {
        for (const auto& port : {link.lower, link.upper})
        {
            if (link.lowerSwitchPort < 0 && port == link.lower)
            {
                continue; // a NIC port: its queue is the transport's business
            }
            const uint32_t q = port->GetQueueBytes();
            const uint32_t plane = link.desc.plane;
            s.planeMaxQueue[plane] = std::max(s.planeMaxQueue[plane], q);
            s.planeQueueBytes[plane] += q;
        }
    }
    m_rows.push_back(s);
    if (m_connectionSeries)
    {
        const auto& eps = m_pool->GetEndpoints();
        std::vector<double> row(eps.size());
        for (size_t i = 0; i < eps.size(); ++i)
        {
            const uint64_t d = eps[i]->GetDeliveredBytes();
            row[i] = RoundForOutput(double(d - m_lastDelivered[i]) * 8 / seconds / 1e9);
            m_lastDelivered[i] = d;
        }
        m_connectionGbps.push_back(row);
    }
    if (m_onSample)
    {
        m_onSample();
    }
    if (!m_finished && Simulator::Now() + m_interval <= m_duration)
    {
        Simulator::Schedule(m_interval, &ExperimentSampler::Sample, this);
    }
}

} // namespace ns3
