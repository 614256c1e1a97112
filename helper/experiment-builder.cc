#include "experiment-builder.h"

#include "bulk-workload.h"
#include "fabric-builder.h"
#include "fabric-traffic-helper.h"
#include "json-reader.h"
#include "rdma-transport-helper.h"
#include "run-metrics.h"

#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/global-value.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

ExperimentBuilder::ExperimentBuilder(const ExperimentSpec& spec)
    : m_spec(spec)
{
}

void
ExperimentBuilder::Build()
{
    RngSeedManager::SetSeed(m_spec.seed);
    RngSeedManager::SetRun(1);
    // Takes effect when this is the first simulation since Simulator::Destroy
    // (always, in metaroce-run); otherwise the running implementation stays.
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
    CreateTransports();
    CreateWorkload();
}

std::vector<std::pair<std::string, std::string>>
ExperimentBuilder::GetNonDefaultAttributes() const
{
    // In the order they are applied: the experiment's own win.
    std::vector<std::pair<std::string, std::string>> attrs = m_spec.transport.defaults;
    attrs.insert(attrs.end(), m_spec.attributes.begin(), m_spec.attributes.end());
    return attrs;
}

void
ExperimentBuilder::ApplyAttributes()
{
    for (const auto& [name, value] : m_spec.transport.defaults)
    {
        Config::SetDefault(name, StringValue(value));
    }
    for (const auto& [name, value] : m_spec.attributes)
    {
        Config::SetDefault(name, StringValue(value)); // validated by the parser
    }
}

void
ExperimentBuilder::InstallLoss()
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
ExperimentBuilder::ScheduleFailures()
{
    for (size_t i = 0; i < m_spec.failures.size(); ++i)
    {
        const ExperimentFailure& f = m_spec.failures[i];
        const std::string where =
            m_spec.sourceFile + ": /failures/" + std::to_string(i) + "/target";
        // Down at "at", and up again at "until" if there is one.
        auto outage = [&f](auto setUp) {
            setUp(f.at, false);
            if (!f.until.IsZero())
            {
                setUp(f.until, true);
            }
        };
        if (f.what == "plane")
        {
            const uint32_t plane = std::stoul(f.target);
            outage([&](Time t, bool up) { m_fabric->SchedulePlaneUp(t, plane, up); });
        }
        else if (f.what == "link")
        {
            const int32_t link = m_fabric->FindLink(f.target);
            if (link < 0)
            {
                throw ConfigError(where +
                                  ": expected a link of the fabric (e.g. \"p0/l0-s1#0\", "
                                  "\"p1/h3-l0\"), got \"" +
                                  f.target + "\"");
            }
            outage([&](Time t, bool up) { m_fabric->ScheduleLinkUp(t, link, up); });
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
                throw ConfigError(where +
                                  ": expected a switch of the fabric (e.g. \"p0/l2\", "
                                  "\"p1/s0\"), got \"" +
                                  f.target + "\"");
            }
            outage([&](Time t, bool up) { m_fabric->ScheduleSwitchUp(t, vertex, up); });
        }
    }
}

void
ExperimentBuilder::CreateTransports()
{
    RdmaTransportHelper rdma(m_spec.transport.typeId);
    m_transports = rdma.Install(m_fabric);
    m_pool = CreateObject<RdmaConnectionPool>();
    m_pool->SetTransports(m_transports);
}

Ptr<RdmaWorkload>
ExperimentBuilder::MakeWorkload() const
{
    const ExperimentWorkload& w = m_spec.workload;
    ObjectFactory factory(w.typeId);
    if (w.type == "all_to_all")
    {
        factory.Set("MessageBytes", UintegerValue(w.messageBytes));
        factory.Set("Iterations", UintegerValue(w.iterations));
        factory.Set("Ranks", UintegerValue(w.ranks));
    }
    else if (w.type == "all_reduce")
    {
        factory.Set("Bytes", UintegerValue(w.messageBytes));
        factory.Set("Iterations", UintegerValue(w.iterations));
        factory.Set("Ranks", UintegerValue(w.ranks));
        factory.Set("Slices", UintegerValue(w.slices));
    }
    else if (!w.type.empty())
    {
        factory.Set("MessageBytes", UintegerValue(w.messageBytes));
        factory.Set("Outstanding", UintegerValue(w.outstanding));
        factory.Set("MessagesPerFlow", UintegerValue(w.messagesPerFlow));
    }
    for (const auto& [name, value] : w.attributes)
    {
        factory.Set(name, StringValue(value)); // validated by the parser
    }
    Ptr<RdmaWorkload> workload = factory.Create<RdmaWorkload>();
    Ptr<BulkWorkload> bulk = DynamicCast<BulkWorkload>(workload);
    if (!bulk || w.type.empty())
    {
        return workload;
    }
    const uint32_t hosts = m_fabric->GetNHosts();
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
        bulk->AddFlow(s, d);
    }
    return workload;
}

void
ExperimentBuilder::CreateWorkload()
{
    m_workload = MakeWorkload();
    // Transport state per connection: the heap the endpoints take while the
    // workload creates its connections.
    const uint64_t rssBefore = RunMetrics::CurrentRssBytes();
    {
        struct Accounting // off again even if the workload is rejected
        {
            Accounting()
            {
                RdmaTransport::SetHeapAccounting(true);
            }

            ~Accounting()
            {
                RdmaTransport::SetHeapAccounting(false);
            }
        } accounting;

        m_workload->SetAttribute("StartTime", TimeValue(m_spec.workload.start));
        m_workload->Install(m_pool); // creates the connections
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
}

} // namespace ns3
