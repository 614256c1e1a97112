#include "experiment-results.h"

#include "fabric-stats.h"
#include "source-revision.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

nlohmann::json
CollectivesJson(const RdmaWorkload& workload)
{
    nlohmann::json collectives = nlohmann::json::array();
    for (const auto& c : workload.GetCollectives())
    {
        const double us = (c.end - c.start).GetNanoSeconds() / 1e3;
        collectives.push_back({{"name", c.name},
                               {"ranks", c.ranks},
                               {"bytes", c.bytes},
                               {"start_us", c.start.GetNanoSeconds() / 1e3},
                               {"completion_us", us},
                               {"bus_bandwidth_gbps", RoundForOutput(c.busBandwidthBps / 1e9)}});
    }
    return collectives;
}

} // namespace

ExperimentResults::ExperimentResults(const ExperimentSpec& spec,
                                     const ExperimentBuilder& built,
                                     const ExperimentSampler& sampler,
                                     const ExperimentRunInfo& run)
    : m_spec(spec),
      m_built(built),
      m_sampler(sampler),
      m_run(run)
{
}

double
ExperimentResults::OfferedLineRateBps() const
{
    const Ptr<Fabric> fabric = m_built.GetFabric();
    auto nicRate = [&fabric](uint32_t h) {
        double r = 0;
        for (uint32_t p = 0; p < fabric->GetNPlanes(); ++p)
        {
            r += fabric->GetNic(h)->GetPort(p)->GetDataRate().GetBitRate();
        }
        return r;
    };
    double send = 0;
    double recv = 0;
    for (uint32_t h : m_built.GetWorkload()->GetSenders())
    {
        send += nicRate(h);
    }
    for (uint32_t h : m_built.GetWorkload()->GetReceivers())
    {
        recv += nicRate(h);
    }
    return std::min(send, recv);
}

nlohmann::json
ExperimentResults::Summary(const nlohmann::json& collectives) const
{
    const Ptr<RdmaWorkload> workload = m_built.GetWorkload();
    const double seconds = std::max(1e-12, (m_run.end - m_spec.workload.start).GetSeconds());
    uint64_t delivered = 0;
    uint64_t sent = 0;
    uint64_t retransmitted = 0;
    for (const auto& e : m_built.GetPool()->GetEndpoints())
    {
        delivered += e->GetDeliveredBytes();
        sent += e->GetSentPackets();
        retransmitted += e->GetRetransmittedPackets();
    }
    const FabricStats stats = CollectFabricStats(*m_built.GetFabric(), m_run.end);
    nlohmann::json drops = nlohmann::json::object();
    for (size_t r = 0; r < kDropReasonCount; ++r)
    {
        drops[DropReasonName(DropReason(r))] = stats.drops[r];
    }
    const double goodput = double(delivered) * 8 / seconds;
    const double offered = OfferedLineRateBps();
    uint64_t completed = 0;
    uint64_t failed = 0;
    for (const auto& m : workload->GetMessages())
    {
        (m.status == RdmaStatus::Success ? completed : failed) += 1;
    }
    const double wall = m_run.wallSeconds;
    const double perConnection = m_built.GetBytesPerConnection();
    nlohmann::json summary = {
        {"goodput_gbps", RoundForOutput(goodput / 1e9)},
        {"offered_line_rate_gbps", RoundForOutput(offered / 1e9)},
        {"normalized_goodput", RoundForOutput(offered > 0 ? goodput / offered : 0)},
        {"delivered_bytes", delivered},
        {"sent_packets", sent},
        {"retransmitted_packets", retransmitted},
        {"dropped_packets", drops},
        {"ecn_marked_packets", stats.ecnMarked},
        {"pfc_pause_frames", stats.pfcFramesSent},
        {"pfc_paused_seconds", RoundForOutput(stats.pfcPausedSeconds, 9)},
        {"pfc_storms", stats.pfcStorms},
        {"completed_messages", completed},
        {"failed_messages", failed},
        {"incomplete_messages", workload->GetOutstanding()},
        {"workload_finished", !m_run.workloadEnd.IsZero()},
        {"simulated_us", m_run.end.GetNanoSeconds() / 1e3},
        {"connections", m_built.GetPool()->GetNConnections()},
        {"packet_hops", stats.packetHops},
        {"events", m_run.events},
        {"wall_seconds", RoundForOutput(wall, 3)},
        {"events_per_second", RoundForOutput(wall > 0 ? m_run.events / wall : 0, 0)},
        {"peak_rss_mb", RoundForOutput(m_run.peakRssMb, 1)},
        {"bytes_per_connection", RoundForOutput(perConnection, 0)},
        {"bytes_per_bidirectional_connection", RoundForOutput(2 * perConnection, 0)},
    };
    if (!collectives.empty())
    {
        double us = 0;
        double bus = 0;
        for (const auto& c : collectives)
        {
            us += c["completion_us"].get<double>();
            bus += c["bus_bandwidth_gbps"].get<double>();
        }
        summary["collective_completion_us"] = RoundForOutput(us / collectives.size(), 3);
        summary["bus_bandwidth_gbps"] = RoundForOutput(bus / collectives.size());
    }
    return summary;
}

nlohmann::json
ExperimentResults::ToJson() const
{
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& [k, v] : m_built.GetNonDefaultAttributes())
    {
        attrs[k] = v;
    }
    const nlohmann::json collectives = CollectivesJson(*m_built.GetWorkload());
    return {{"schema", "metaroce-results/1"},
            {"experiment", m_spec.name},
            {"description", m_spec.description},
            {"summary", Summary(collectives)},
            {"collectives", collectives},
            {"config", m_spec.effective},
            {"provenance",
             {{"seed", m_spec.seed},
              {"git_revision", MetaRoceSourceRevision()},
              {"ns3_version", "3.37"},
              {"experiment_file", m_spec.sourceFile},
              {"fabric", m_spec.fabric.name},
              {"transport", m_spec.transport.name},
              {"non_default_attributes", attrs}}},
            {"files",
             {{"throughput", "throughput.csv"},
              {"queues", "queues.csv"},
              {"connections", m_sampler.HasConnectionSeries() ? "connections.csv" : ""}}}};
}

void
ExperimentResults::Write(const std::string& dir) const
{
    fs::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> files; // (tmp, final)
    auto open = [&](const std::string& name) {
        const std::string tmp = (fs::path(dir) / ("." + name + ".tmp")).string();
        files.emplace_back(tmp, (fs::path(dir) / name).string());
        return std::ofstream(tmp);
    };
    const auto& rows = m_sampler.GetRows();
    {
        std::ofstream out = open("throughput.csv");
        out << "time_us,plane,gbps\n";
        for (const auto& s : rows)
        {
            for (size_t p = 0; p < s.planeGbps.size(); ++p)
            {
                out << s.timeNs / 1e3 << "," << p << "," << s.planeGbps[p] << "\n";
            }
        }
    }
    {
        std::ofstream out = open("queues.csv");
        out << "time_us,plane,max_queue_bytes,total_queue_bytes\n";
        for (const auto& s : rows)
        {
            for (size_t p = 0; p < s.planeMaxQueue.size(); ++p)
            {
                out << s.timeNs / 1e3 << "," << p << "," << s.planeMaxQueue[p] << ","
                    << s.planeQueueBytes[p] << "\n";
            }
        }
    }
    if (m_sampler.HasConnectionSeries())
    {
        std::ofstream out = open("connections.csv");
        out << "time_us,endpoint,host,peer,gbps\n";
        const auto& eps = m_built.GetPool()->GetEndpoints();
        const auto& gbps = m_sampler.GetConnectionGbps();
        for (size_t k = 0; k < gbps.size(); ++k)
        {
            for (size_t i = 0; i < eps.size(); ++i)
            {
                // delivered at endpoint i: data from its peer to its host
                out << rows[k].timeNs / 1e3 << "," << i << "," << eps[i]->GetRemoteHost() << ","
                    << eps[i]->GetLocalHost() << "," << gbps[k][i] << "\n";
            }
        }
    }
    {
        std::ofstream out = open("results.json");
        out << ToJson().dump(2) << "\n";
    }
    for (const auto& [tmp, final] : files)
    {
        fs::rename(tmp, final);
    }
}

} // namespace ns3
