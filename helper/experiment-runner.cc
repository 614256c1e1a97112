#include "experiment-runner.h"

#include "source-revision.h"

#include "all-to-all-workload.h"
#include "bulk-workload.h"
#include "fabric-builder.h"
#include "fabric-stats.h"
#include "fabric-traffic-helper.h"
#include "rdma-transport-helper.h"
#include "ring-all-reduce-workload.h"
#include "run-metrics.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

double
WallNow()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/** Fixed formatting so that identical runs give identical bytes. */
double
Round(double v, int digits = 6)
{
    const double scale = std::pow(10.0, digits);
    return std::round(v * scale) / scale;
}

} // namespace

ExperimentRunner::ExperimentRunner(ExperimentSpec spec)
    : m_spec(std::move(spec))
{
}

void
ExperimentRunner::ApplyAttributes()
{
    if (m_spec.transport == "irn")
    {
        Config::SetDefault("ns3::RoceV2Connection::SelectiveRepeat", BooleanValue(true));
    }
    for (const auto& [name, value] : m_spec.attributes)
    {
        Config::SetDefault(name, StringValue(value)); // validated by the parser
    }
}

void
ExperimentRunner::Build()
{
    RngSeedManager::SetSeed(m_spec.seed);
    RngSeedManager::SetRun(1);
    // Takes effect when this is the first simulation since Simulator::Destroy
    // (always, in metaroce-run); otherwise the running implementation stays,
    // which gives the same results.
    GlobalValue::Bind("SimulatorImplementationType", StringValue(m_spec.simulator));
    ObjectFactory scheduler;
    scheduler.SetTypeId(m_spec.scheduler);
    Simulator::SetScheduler(scheduler);
    ApplyAttributes();
    FabricBuilder builder(m_spec.fabric);
    m_fabric = builder.Build();
    m_fabric->AssignStreams(1);
    InstallLoss();
    ScheduleFailures();
    RdmaTransportHelper rdma(m_spec.transport == "metaroce" ? "ns3::MetaRoceTransport"
                                                            : "ns3::RoceV2Transport");
    m_transports = rdma.Install(m_fabric);
    m_pool = CreateObject<RdmaConnectionPool>();
    m_pool->SetTransports(m_transports);
    // Transport state per connection (issue 6): the heap the transports'
    // endpoints took when the workload created them, per directed connection
    // (one endpoint: the sending half of its direction and the receiving
    // half of the other). The connection pool's and the workload's own
    // bookkeeping are not counted. Without a C library that reports its
    // heap, the resident-set growth over the whole creation stands in.
    const uint64_t rssBefore = RunMetrics::CurrentRssBytes();
    {
        struct Accounting // off again even if the workload is rejected
        {
            Accounting() { RdmaTransport::SetHeapAccounting(true); }
            ~Accounting() { RdmaTransport::SetHeapAccounting(false); }
        } accounting;
        CreateWorkload(); // creates the connections
    }
    const uint64_t rssAfter = RunMetrics::CurrentRssBytes();
    int64_t heap = 0;
    uint64_t directed = 0;
    for (const auto& t : m_transports)
    {
        heap += t->GetEndpointHeapBytes();
        directed += t->GetAccountedEndpoints();
    }
    if (RdmaTransport::HeapInUse() == 0)
    {
        heap = rssAfter > rssBefore ? int64_t(rssAfter - rssBefore) : 0;
    }
    m_bytesPerConnection = directed > 0 && heap > 0 ? double(heap) / directed : 0;

    m_lastPlaneTx.assign(m_fabric->GetNPlanes(), 0);
    m_connectionSeries = m_pool->GetEndpoints().size() <= 512;
    m_lastDelivered.assign(m_pool->GetEndpoints().size(), 0);
    Simulator::Schedule(m_spec.sampleInterval, &ExperimentRunner::Sample, this);
    Simulator::Schedule(m_spec.duration, &ExperimentRunner::EndRun, this);
}

void
ExperimentRunner::InstallLoss()
{
    if (m_spec.loss.rate <= 0)
    {
        return;
    }
    std::vector<Ptr<FabricPort>> ports;
    if (m_spec.loss.where == "nic")
    {
        for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
        {
            for (uint32_t p = 0; p < m_fabric->GetNPlanes(); ++p)
            {
                ports.push_back(m_fabric->GetNic(h)->GetPort(p));
            }
        }
    }
    else
    {
        for (const auto& link : m_fabric->GetLinks())
        {
            if (m_spec.loss.where == "plane" && link.desc.plane != m_spec.loss.plane)
            {
                continue;
            }
            if (m_spec.loss.where == "host_links" && link.lowerSwitchPort >= 0)
            {
                continue; // a leaf-spine link
            }
            ports.push_back(link.lower);
            ports.push_back(link.upper);
        }
    }
    int64_t stream = 1000000;
    for (auto& port : ports)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(m_spec.loss.rate);
        em->AssignStreams(stream++);
        port->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
}

void
ExperimentRunner::ScheduleFailures()
{
    for (size_t i = 0; i < m_spec.failures.size(); ++i)
    {
        const ExperimentFailure& f = m_spec.failures[i];
        const std::string where = m_spec.sourceFile + ": /failures/" + std::to_string(i) + "/target";
        if (f.what == "plane")
        {
            const uint32_t plane = std::stoul(f.target);
            m_fabric->SchedulePlaneUp(f.at, plane, false);
            if (!f.until.IsZero())
            {
                m_fabric->SchedulePlaneUp(f.until, plane, true);
            }
        }
        else if (f.what == "link")
        {
            const int32_t link = m_fabric->FindLink(f.target);
            if (link < 0)
            {
                throw ConfigError(where + ": expected a link of the fabric (e.g. \"p0/l0-s1#0\", "
                                          "\"p1/h3-l0\"), got \"" + f.target + "\"");
            }
            m_fabric->ScheduleLinkUp(f.at, link, false);
            if (!f.until.IsZero())
            {
                m_fabric->ScheduleLinkUp(f.until, link, true);
            }
        }
        else
        {
            int32_t vertex = -1;
            for (uint32_t v : m_fabric->GetGraph().SwitchVertices())
            {
                if (m_fabric->GetGraph().VertexName(v) == f.target)
                {
                    vertex = v;
                }
            }
            if (vertex < 0)
            {
                throw ConfigError(where + ": expected a switch of the fabric (e.g. \"p0/l2\", "
                                          "\"p1/s0\"), got \"" + f.target + "\"");
            }
            m_fabric->ScheduleSwitchUp(f.at, vertex, false);
            if (!f.until.IsZero())
            {
                m_fabric->ScheduleSwitchUp(f.until, vertex, true);
            }
        }
    }
}

void
ExperimentRunner::CreateWorkload()
{
    const ExperimentWorkload& w = m_spec.workload;
    const uint32_t hosts = m_fabric->GetNHosts();
    if (w.type == "all_to_all")
    {
        Ptr<AllToAllWorkload> a = CreateObject<AllToAllWorkload>();
        a->SetAttribute("MessageBytes", UintegerValue(w.messageBytes));
        a->SetAttribute("Iterations", UintegerValue(w.iterations));
        a->SetAttribute("Ranks", UintegerValue(w.ranks));
        m_workload = a;
        for (uint32_t h = 0; h < (w.ranks ? w.ranks : hosts); ++h)
        {
            m_senders.push_back(h);
            m_receivers.push_back(h);
        }
    }
    else if (w.type == "all_reduce")
    {
        Ptr<RingAllReduceWorkload> r = CreateObject<RingAllReduceWorkload>();
        r->SetAttribute("Bytes", UintegerValue(w.messageBytes));
        r->SetAttribute("Iterations", UintegerValue(w.iterations));
        r->SetAttribute("Ranks", UintegerValue(w.ranks));
        r->SetAttribute("Slices", UintegerValue(w.slices));
        m_workload = r;
        for (uint32_t h = 0; h < (w.ranks ? w.ranks : hosts); ++h)
        {
            m_senders.push_back(h);
            m_receivers.push_back(h);
        }
    }
    else
    {
        Ptr<BulkWorkload> b = CreateObject<BulkWorkload>();
        b->SetAttribute("MessageBytes", UintegerValue(w.messageBytes));
        b->SetAttribute("Outstanding", UintegerValue(w.outstanding));
        b->SetAttribute("MessagesPerFlow", UintegerValue(w.messagesPerFlow));
        std::vector<std::pair<uint32_t, uint32_t>> flows = w.flows;
        if (w.type == "permutation")
        {
            const auto dst = FabricTrafficHelper::RandomDerangement(hosts, m_spec.seed);
            for (uint32_t h = 0; h < hosts; ++h)
            {
                flows.emplace_back(h, dst[h]);
            }
        }
        else if (w.type == "incast")
        {
            for (uint32_t h = 0, n = 0; n < w.senders; ++h)
            {
                if (h != w.receiver)
                {
                    flows.emplace_back(h, w.receiver);
                    ++n;
                }
            }
        }
        for (const auto& [s, d] : flows)
        {
            b->AddFlow(s, d);
            m_senders.push_back(s);
            m_receivers.push_back(d);
        }
        m_workload = b;
    }
    std::sort(m_senders.begin(), m_senders.end());
    m_senders.erase(std::unique(m_senders.begin(), m_senders.end()), m_senders.end());
    std::sort(m_receivers.begin(), m_receivers.end());
    m_receivers.erase(std::unique(m_receivers.begin(), m_receivers.end()), m_receivers.end());
    m_workload->SetAttribute("StartTime", TimeValue(w.start));
    m_workload->Install(m_pool);
    m_workload->SetFinishedCallback(MakeCallback(&ExperimentRunner::WorkloadFinished, this));
    m_workload->Schedule();
}

void
ExperimentRunner::WorkloadFinished()
{
    m_workloadEnd = Simulator::Now();
    if (m_spec.stopWhenDone)
    {
        Simulator::ScheduleNow(&ExperimentRunner::EndRun, this);
    }
}

void
ExperimentRunner::EndRun()
{
    if (!m_end.IsZero())
    {
        return;
    }
    m_end = Simulator::Now();
    if (m_samples.empty() || m_samples.back().timeNs < m_end.GetNanoSeconds())
    {
        Sample(); // the last (possibly partial) interval
    }
    m_workload->StopPosting();
    Simulator::Stop();
}

void
ExperimentRunner::Sample()
{
    const uint32_t planes = m_fabric->GetNPlanes();
    SampleRow s;
    s.timeNs = Simulator::Now().GetNanoSeconds();
    s.planeGbps.assign(planes, 0);
    s.planeMaxQueue.assign(planes, 0);
    s.planeQueueBytes.assign(planes, 0);
    const int64_t lastNs = m_samples.empty() ? 0 : m_samples.back().timeNs;
    const double seconds = std::max(1e-12, double(s.timeNs - lastNs) * 1e-9);
    for (uint32_t p = 0; p < planes; ++p)
    {
        uint64_t tx = 0;
        for (uint32_t h = 0; h < m_fabric->GetNHosts(); ++h)
        {
            tx += m_fabric->GetNic(h)->GetPort(p)->GetStats().txWireBytes;
        }
        s.planeGbps[p] = Round(double(tx - m_lastPlaneTx[p]) * 8 / seconds / 1e9);
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
    m_samples.push_back(s);
    if (m_connectionSeries)
    {
        const auto& eps = m_pool->GetEndpoints();
        std::vector<double> row(eps.size());
        for (size_t i = 0; i < eps.size(); ++i)
        {
            const uint64_t d = eps[i]->GetDeliveredBytes();
            row[i] = Round(double(d - m_lastDelivered[i]) * 8 / seconds / 1e9);
            m_lastDelivered[i] = d;
        }
        m_connectionGbps.push_back(row);
    }
    if (m_progress)
    {
        const double now = WallNow();
        if (now - m_lastProgressWall >= 1.0)
        {
            m_lastProgressWall = now;
            const double simDone = Simulator::Now().GetSeconds() / m_spec.duration.GetSeconds();
            const double wall = now - m_wallStart;
            const double eta = simDone > 0 ? wall * (1 - simDone) / simDone : 0;
            *m_progress << "\r" << m_spec.name << ": " << std::fixed << std::setprecision(1)
                        << Simulator::Now().GetMicroSeconds() << " / "
                        << m_spec.duration.GetMicroSeconds() << " us simulated, "
                        << std::setprecision(2) << double(Simulator::GetEventCount()) / wall / 1e6
                        << " M events/s, ETA " << std::setprecision(0) << eta << " s   "
                        << std::flush;
        }
    }
    if (m_end.IsZero() && Simulator::Now() + m_spec.sampleInterval <= m_spec.duration)
    {
        Simulator::Schedule(m_spec.sampleInterval, &ExperimentRunner::Sample, this);
    }
}

void
ExperimentRunner::Run(std::ostream* progress)
{
    m_progress = progress;
    m_wallStart = WallNow();
    m_lastProgressWall = m_wallStart;
    RunMetrics metrics;
    Simulator::Run();
    m_wallSeconds = metrics.WallSeconds();
    m_events = metrics.Events();
    m_peakRssMb = RunMetrics::PeakRssMb(); // once: Results() must return the same every call
    if (m_end.IsZero())
    {
        m_end = Simulator::Now();
    }
    if (m_progress)
    {
        *m_progress << "\r" << std::string(80, ' ') << "\r" << std::flush;
    }
}

double
ExperimentRunner::OfferedLineRateBps() const
{
    // What the workload could move at most: its senders' NIC line rate, or
    // its receivers', whichever is smaller.
    auto nicRate = [this](uint32_t h) {
        double r = 0;
        for (uint32_t p = 0; p < m_fabric->GetNPlanes(); ++p)
        {
            r += m_fabric->GetNic(h)->GetPort(p)->GetDataRate().GetBitRate();
        }
        return r;
    };
    double send = 0;
    double recv = 0;
    for (uint32_t h : m_senders)
    {
        send += nicRate(h);
    }
    for (uint32_t h : m_receivers)
    {
        recv += nicRate(h);
    }
    return std::min(send, recv);
}

nlohmann::json
ExperimentRunner::Results() const
{
    const Time start = m_spec.workload.start;
    const double seconds = std::max(1e-12, (m_end - start).GetSeconds());
    uint64_t delivered = 0;
    uint64_t sent = 0;
    uint64_t retransmitted = 0;
    for (const auto& e : m_pool->GetEndpoints())
    {
        delivered += e->GetDeliveredBytes();
        sent += e->GetSentPackets();
        retransmitted += e->GetRetransmittedPackets();
    }
    const FabricStats stats = CollectFabricStats(*m_fabric, m_end);
    nlohmann::json drops = nlohmann::json::object();
    for (size_t r = 0; r < kDropReasonCount; ++r)
    {
        drops[DropReasonName(DropReason(r))] = stats.drops[r];
    }
    const double goodput = double(delivered) * 8 / seconds;
    const double offered = OfferedLineRateBps();
    uint64_t completed = 0;
    uint64_t failed = 0;
    for (const auto& m : m_workload->GetMessages())
    {
        (m.status == RdmaStatus::Success ? completed : failed) += 1;
    }
    nlohmann::json collectives = nlohmann::json::array();
    double collectiveUs = 0;
    for (const auto& c : m_workload->GetCollectives())
    {
        const double us = (c.end - c.start).GetNanoSeconds() / 1e3;
        collectiveUs += us;
        collectives.push_back({{"name", c.name},
                               {"ranks", c.ranks},
                               {"bytes", c.bytes},
                               {"start_us", c.start.GetNanoSeconds() / 1e3},
                               {"completion_us", us},
                               {"bus_bandwidth_gbps", Round(c.busBandwidthBps / 1e9)}});
    }
    nlohmann::json summary = {
        {"goodput_gbps", Round(goodput / 1e9)},
        {"offered_line_rate_gbps", Round(offered / 1e9)},
        {"normalized_goodput", Round(offered > 0 ? goodput / offered : 0)},
        {"delivered_bytes", delivered},
        {"sent_packets", sent},
        {"retransmitted_packets", retransmitted},
        {"dropped_packets", drops},
        {"ecn_marked_packets", stats.ecnMarked},
        {"pfc_pause_frames", stats.pfcFramesSent},
        {"pfc_paused_seconds", Round(stats.pfcPausedSeconds, 9)},
        {"pfc_storms", stats.pfcStorms},
        {"completed_messages", completed},
        {"failed_messages", failed},
        {"incomplete_messages", m_workload->GetOutstanding()},
        {"workload_finished", !m_workloadEnd.IsZero()},
        {"simulated_us", m_end.GetNanoSeconds() / 1e3},
        {"connections", m_pool->GetNConnections()},
        {"packet_hops", stats.packetHops},
        {"events", m_events},
        {"wall_seconds", Round(m_wallSeconds, 3)},
        {"events_per_second", Round(m_wallSeconds > 0 ? m_events / m_wallSeconds : 0, 0)},
        {"peak_rss_mb", Round(m_peakRssMb, 1)},
        {"bytes_per_connection", Round(m_bytesPerConnection, 0)},
        {"bytes_per_bidirectional_connection", Round(2 * m_bytesPerConnection, 0)},
    };
    if (!collectives.empty())
    {
        summary["collective_completion_us"] = Round(collectiveUs / collectives.size(), 3);
        double bus = 0;
        for (const auto& c : collectives)
        {
            bus += c["bus_bandwidth_gbps"].get<double>();
        }
        summary["bus_bandwidth_gbps"] = Round(bus / collectives.size());
    }
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& [k, v] : m_spec.attributes)
    {
        attrs[k] = v;
    }
    if (m_spec.transport == "irn")
    {
        attrs["ns3::RoceV2Connection::SelectiveRepeat"] = "true";
    }
    return {{"schema", "metaroce-results/1"},
            {"experiment", m_spec.name},
            {"description", m_spec.description},
            {"summary", summary},
            {"collectives", collectives},
            {"config", m_spec.effective},
            {"provenance",
             {{"seed", m_spec.seed},
              {"git_revision", MetaRoceSourceRevision()},
              {"ns3_version", "3.37"},
              {"experiment_file", m_spec.sourceFile},
              {"fabric", m_spec.fabric.name},
              {"transport", m_spec.transport},
              {"non_default_attributes", attrs}}},
            {"files",
             {{"throughput", "throughput.csv"},
              {"queues", "queues.csv"},
              {"connections", m_connectionSeries ? "connections.csv" : ""}}}};
}

void
ExperimentRunner::Write(const std::string& dir) const
{
    fs::create_directories(dir);
    std::vector<std::pair<std::string, std::string>> files; // (tmp, final)
    auto open = [&](const std::string& name) {
        const std::string tmp = (fs::path(dir) / ("." + name + ".tmp")).string();
        files.emplace_back(tmp, (fs::path(dir) / name).string());
        return std::ofstream(tmp);
    };
    {
        std::ofstream out = open("throughput.csv");
        out << "time_us,plane,gbps\n";
        for (const auto& s : m_samples)
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
        for (const auto& s : m_samples)
        {
            for (size_t p = 0; p < s.planeMaxQueue.size(); ++p)
            {
                out << s.timeNs / 1e3 << "," << p << "," << s.planeMaxQueue[p] << ","
                    << s.planeQueueBytes[p] << "\n";
            }
        }
    }
    if (m_connectionSeries)
    {
        std::ofstream out = open("connections.csv");
        out << "time_us,endpoint,host,peer,gbps\n";
        const auto& eps = m_pool->GetEndpoints();
        for (size_t k = 0; k < m_connectionGbps.size(); ++k)
        {
            for (size_t i = 0; i < eps.size(); ++i)
            {
                // delivered at endpoint i: data from its peer to its host
                out << m_samples[k].timeNs / 1e3 << "," << i << "," << eps[i]->GetRemoteHost()
                    << "," << eps[i]->GetLocalHost() << "," << m_connectionGbps[k][i] << "\n";
            }
        }
    }
    {
        std::ofstream out = open("results.json");
        out << Results().dump(2) << "\n";
    }
    for (const auto& [tmp, final] : files)
    {
        fs::rename(tmp, final);
    }
}

} // namespace ns3
