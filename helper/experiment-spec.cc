#include "experiment-spec.h"

#include "rdma-transport-helper.h"
#include "rdma-workload.h"

#include "ns3/abort.h"
#include "ns3/attribute.h"
#include "ns3/object-factory.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

namespace ns3
{

namespace fs = std::filesystem;

namespace
{

constexpr uint64_t kMaxDurationNs = uint64_t(3600) * 1000000000; // an hour of simulated time
constexpr uint64_t kMaxMessageBytes = uint64_t(1) << 32;         // 4 GiB (32-bit lengths)

const std::vector<std::string> kWorkloadKeys = {"type",
                                                "attributes",
                                                "message_bytes",
                                                "outstanding",
                                                "messages_per_flow",
                                                "senders",
                                                "receiver",
                                                "flows",
                                                "ranks",
                                                "iterations",
                                                "slices",
                                                "bytes",
                                                "start"};

/** Checks "ns3::Type::Attribute" = value against ns-3's own attribute system. */
void
CheckAttribute(const JsonReader& r, const std::string& name, const std::string& value)
{
    const size_t sep = name.rfind("::");
    if (sep == std::string::npos || sep == 0)
    {
        r.Fail("an attribute name of the form ns3::TypeName::AttributeName");
    }
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name.substr(0, sep), &tid))
    {
        r.Fail("an attribute of a known ns-3 type (no type \"" + name.substr(0, sep) + "\")");
    }
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name.substr(sep + 2), &info))
    {
        r.Fail("an attribute " + tid.GetName() + " has (it has no \"" + name.substr(sep + 2) +
               "\")");
    }
    // ns-3 aborts the process on some malformed values (numbers, times,
    // rates, type names): check their syntax first, so a typo is an error.
    const std::string type = info.checker->GetValueTypeName();
    bool plausible = true;
    if (type == "ns3::UintegerValue" || type == "ns3::IntegerValue" || type == "ns3::DoubleValue")
    {
        char* end = nullptr;
        errno = 0;
        std::strtod(value.c_str(), &end);
        plausible = !value.empty() && end && *end == '\0' && errno == 0 &&
                    (type != "ns3::UintegerValue" || value[0] != '-') &&
                    (type == "ns3::DoubleValue" || value.find_first_of(".eE") == std::string::npos);
    }
    else if (type == "ns3::TimeValue")
    {
        plausible = ParseDurationString(value, nullptr).has_value();
    }
    else if (type == "ns3::DataRateValue")
    {
        plausible = ParseRateString(value, nullptr).has_value();
    }
    else if (type == "ns3::TypeIdValue")
    {
        TypeId ignored;
        plausible = TypeId::LookupByNameFailSafe(value, &ignored);
    }
    Ptr<AttributeValue> v = info.checker->Create();
    if (!plausible || !v->DeserializeFromString(value, info.checker) || !info.checker->Check(*v))
    {
        r.Fail("a valid " + info.checker->GetValueTypeName() + " for " + name,
               JsonReader::Describe(r.Json()));
    }
}

std::string
ValueAsString(const JsonReader& r)
{
    const nlohmann::json& j = r.Json();
    if (j.is_string())
    {
        return j.get<std::string>();
    }
    if (j.is_boolean())
    {
        return j.get<bool>() ? "true" : "false";
    }
    if (j.is_number_unsigned() || j.is_number_integer() || j.is_number_float())
    {
        return j.dump();
    }
    r.Fail("a string, number or boolean attribute value");
}

/**
 * "attributes" of one object: {"Name": value} for attributes of \p typeId
 * (or its parents), each checked as the top-level "attributes" are.
 */
std::vector<std::pair<std::string, std::string>>
ParseObjectAttributes(const JsonReader& attrs, const std::string& typeId)
{
    if (!attrs.Json().is_object())
    {
        attrs.Fail("an object of \"AttributeName\": value for " + typeId);
    }
    std::vector<std::string> keys;
    for (auto it = attrs.Json().begin(); it != attrs.Json().end(); ++it)
    {
        keys.push_back(it.key());
    }
    JsonReader a = attrs;
    a.ExpectObject(keys);
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& key : keys)
    {
        const std::string value = ValueAsString(a[key]);
        CheckAttribute(a[key], typeId + "::" + key, value);
        out.emplace_back(key, value);
    }
    return out;
}

/** Whether \p name is the TypeId of a subclass of \p base that can be created. */
bool
NamesSubclass(const std::string& name, TypeId base)
{
    TypeId tid;
    return TypeId::LookupByNameFailSafe(name, &tid) && tid.IsChildOf(base) && tid.HasConstructor();
}

/**
 * "transport"."congestion" / "recovery": the TypeId of a policy, set as the
 * endpoints' TypeId attribute \p attribute. It must derive from what the
 * default policy derives from (e.g. ns3::RdmaCongestionOps).
 */
void
ParsePolicy(const JsonReader& key,
            const std::string& keyName,
            const std::string& attribute,
            ExperimentTransport& out)
{
    const std::string value = key.AsString();
    Ptr<RdmaTransport> transport = ObjectFactory(out.typeId).Create<RdmaTransport>();
    const TypeId connection = transport->GetConnectionTypeId();
    transport->Dispose();
    TypeId::AttributeInformation info;
    if (!connection.LookupAttributeByName(attribute, &info))
    {
        key.Fail("no " + keyName + " (" + connection.GetName() + " has no " + attribute +
                     " attribute)",
                 "\"" + value + "\"");
    }
    const auto* initial = dynamic_cast<const TypeIdValue*>(PeekPointer(info.initialValue));
    NS_ABORT_MSG_IF(initial == nullptr,
                    connection.GetName() << "::" << attribute << " is not a TypeId attribute");
    const TypeId base = initial->Get().GetParent();
    if (!NamesSubclass(value, base))
    {
        key.Fail("the TypeId of an " + base.GetName(), "\"" + value + "\"");
    }
    out.defaults.emplace_back(connection.GetName() + "::" + attribute, value);
}

/**
 * "transport": a short name (RdmaTransportHelper::GetAliases) or a
 * transport's TypeId, and optionally the TypeIds of its endpoints'
 * congestion control and loss recovery.
 */
ExperimentTransport
ParseTransport(JsonReader transport)
{
    transport.ExpectObject({"type", "congestion", "recovery"});
    ExperimentTransport out;
    out.name = transport["type"].AsString();
    for (const auto& alias : RdmaTransportHelper::GetAliases())
    {
        if (alias.name == out.name)
        {
            out.typeId = alias.typeId;
            out.defaults = alias.defaults;
        }
    }
    if (out.typeId.empty() && NamesSubclass(out.name, RdmaTransport::GetTypeId()))
    {
        out.typeId = out.name;
    }
    if (out.typeId.empty())
    {
        std::string names;
        for (const auto& alias : RdmaTransportHelper::GetAliases())
        {
            names += "\"" + alias.name + "\" (" + alias.description + "), ";
        }
        transport["type"].Fail("one of " + names + "or the TypeId of an ns3::RdmaTransport");
    }
    if (transport["congestion"].IsPresent())
    {
        ParsePolicy(transport["congestion"], "congestion", "CongestionOps", out);
    }
    if (transport["recovery"].IsPresent())
    {
        ParsePolicy(transport["recovery"], "recovery", "Recovery", out);
    }
    return out;
}

/** Sets \p out's type and TypeId from "type": a short name or a TypeId. */
void
ResolveWorkloadType(const JsonReader& typeKey, ExperimentWorkload& out)
{
    const std::string type = typeKey.AsString();
    // A built-in workload by its short name or its TypeId; any other
    // RdmaWorkload subclass by TypeId, configured through "attributes".
    // A TypeId names the first kind of its type ("bulk": explicit flows).
    static const std::vector<std::pair<std::string, std::string>> kinds = {
        {"bulk", "ns3::BulkWorkload"},
        {"permutation", "ns3::BulkWorkload"},
        {"incast", "ns3::BulkWorkload"},
        {"all_to_all", "ns3::AllToAllWorkload"},
        {"all_reduce", "ns3::RingAllReduceWorkload"},
    };
    for (const auto& [kind, typeId] : kinds)
    {
        if (type == kind || type == typeId)
        {
            out.type = kind;
            out.typeId = typeId;
            return;
        }
    }
    if (NamesSubclass(type, RdmaWorkload::GetTypeId()))
    {
        out.typeId = type;
        return;
    }
    typeKey.Fail("one of \"permutation\", \"bulk\", \"incast\", \"all_to_all\", "
                 "\"all_reduce\", or the TypeId of an ns3::RdmaWorkload");
}

/** The built-in workloads' keys. */
void
ParseWorkloadKeys(JsonReader& w, ExperimentWorkload& out)
{
    if (w["message_bytes"].IsPresent())
    {
        out.messageBytes = w["message_bytes"].AsUnsigned(1,
                                                         kMaxMessageBytes - 1,
                                                         "a message "
                                                         "length is 32 bits");
    }
    if (w["bytes"].IsPresent())
    {
        out.messageBytes = w["bytes"].AsUnsigned(1, uint64_t(1) << 40);
    }
    if (w["outstanding"].IsPresent())
    {
        out.outstanding = w["outstanding"].AsUnsigned(1, 1024);
    }
    if (w["messages_per_flow"].IsPresent())
    {
        out.messagesPerFlow = w["messages_per_flow"].AsUnsigned(0, 1u << 30);
    }
    if (w["senders"].IsPresent())
    {
        out.senders = w["senders"].AsUnsigned(1, 65535);
    }
    if (w["receiver"].IsPresent())
    {
        out.receiver = w["receiver"].AsUnsigned(0, 65535);
    }
    if (w["flows"].IsPresent())
    {
        for (const JsonReader& f : w["flows"].AsArray(1))
        {
            std::vector<JsonReader> pair = f.AsArray(2, 2);
            out.flows.emplace_back(pair[0].AsUnsigned(0, 65535), pair[1].AsUnsigned(0, 65535));
            if (out.flows.back().first == out.flows.back().second)
            {
                f.Fail("a flow between two different hosts");
            }
        }
    }
    if (w["ranks"].IsPresent())
    {
        out.ranks = w["ranks"].AsUnsigned(2, 65535);
    }
    if (w["iterations"].IsPresent())
    {
        out.iterations = w["iterations"].AsUnsigned(1, 1000000);
    }
    if (w["slices"].IsPresent())
    {
        out.slices = w["slices"].AsUnsigned(1, 1024);
    }
}

/** What the built-in workloads need, host indices checked against the fabric's \p hosts. */
void
CheckWorkload(JsonReader& w, const ExperimentWorkload& out, uint32_t hosts)
{
    if (out.type == "bulk" && out.flows.empty())
    {
        w["flows"].Fail("a list of [source, destination] host pairs for a bulk workload");
    }
    if (out.type == "incast" && out.senders == 0)
    {
        w["senders"].Fail("the number of incast senders (>= 1)");
    }
    auto checkHost = [hosts](uint32_t h, const JsonReader& where) {
        if (h >= hosts)
        {
            where.Fail("a host index below " + std::to_string(hosts) + " (the fabric's hosts)");
        }
    };
    if (w["flows"].IsPresent())
    {
        const std::vector<JsonReader> flows = w["flows"].AsArray();
        for (size_t i = 0; i < out.flows.size(); ++i)
        {
            checkHost(out.flows[i].first, flows[i]);
            checkHost(out.flows[i].second, flows[i]);
        }
    }
    if (out.type == "incast")
    {
        checkHost(out.receiver, w["receiver"]);
        if (out.senders >= hosts)
        {
            w["senders"].Fail("fewer incast senders than hosts (" + std::to_string(hosts) + ")");
        }
    }
    if (out.ranks > hosts)
    {
        w["ranks"].Fail("at most " + std::to_string(hosts) + " ranks (the fabric's hosts)");
    }
}

/** The workload; host indices are checked against the fabric's \p hosts. */
ExperimentWorkload
ParseWorkload(JsonReader w, uint32_t hosts)
{
    w.ExpectObject(kWorkloadKeys);
    ExperimentWorkload out;
    ResolveWorkloadType(w["type"], out);
    if (w["attributes"].IsPresent())
    {
        out.attributes = ParseObjectAttributes(w["attributes"], out.typeId);
    }
    if (w["start"].IsPresent())
    {
        out.start = w["start"].AsDuration(0, kMaxDurationNs);
    }
    if (out.type.empty())
    {
        // A workload of its own: the built-in keys mean nothing to it.
        w.ExpectObject({"type", "attributes", "start"});
        return out;
    }
    ParseWorkloadKeys(w, out);
    CheckWorkload(w, out, hosts);
    return out;
}

/** "fabric": a topology file (looked up in \p baseDir, then \p repoDir) or an inline object. */
FabricSpec
ParseFabric(const JsonReader& fabric,
            const std::string& source,
            const std::string& baseDir,
            const std::string& repoDir)
{
    if (!fabric.IsPresent())
    {
        fabric.Fail("a fabric: a topology file name or an inline fabric object");
    }
    if (fabric.Json().is_string())
    {
        const std::string name = fabric.AsString();
        std::string path;
        for (const std::string& dir : {baseDir, repoDir})
        {
            const fs::path p = fs::path(dir) / name;
            std::error_code ec;
            if (fs::is_regular_file(p, ec))
            {
                path = p.string();
                break;
            }
        }
        std::error_code ec;
        if (path.empty() && fs::is_regular_file(name, ec))
        {
            path = name;
        }
        if (path.empty())
        {
            fabric.Fail("a fabric file that exists (a regular file; looked in " + baseDir +
                            " and " + repoDir + ")",
                        "\"" + name + "\"");
        }
        return LoadFabricSpec(path);
    }
    else if (fabric.Json().is_object())
    {
        return ParseFabricSpec(fabric.Json(), source + " " + fabric.Path());
    }
    else
    {
        fabric.Fail("a topology file name or an inline fabric object");
    }
}

/** "attributes": {"ns3::Type::Attribute": value}, each checked against ns-3's attribute system. */
std::vector<std::pair<std::string, std::string>>
ParseAttributes(const JsonReader& attrs)
{
    std::vector<std::pair<std::string, std::string>> out;
    if (!attrs.Json().is_object())
    {
        attrs.Fail("an object of \"ns3::Type::Attribute\": value");
    }
    std::vector<std::string> keys;
    for (auto it = attrs.Json().begin(); it != attrs.Json().end(); ++it)
    {
        keys.push_back(it.key());
    }
    JsonReader a = attrs;
    a.ExpectObject(keys);
    for (const auto& key : keys)
    {
        const std::string value = ValueAsString(a[key]);
        CheckAttribute(a[key], key, value);
        out.emplace_back(key, value);
    }
    return out;
}

/** "loss": random loss at the receive ports of one part of the fabric. */
ExperimentLoss
ParseLoss(JsonReader loss, uint32_t planes)
{
    ExperimentLoss out;
    loss.ExpectObject({"rate", "where", "plane"});
    out.rate = loss["rate"].AsNumber(0, 1, "a probability");
    if (loss["where"].IsPresent())
    {
        out.where = loss["where"].AsString();
        if (out.where != "nic" && out.where != "host_links" && out.where != "all" &&
            out.where != "plane")
        {
            loss["where"].Fail("one of \"nic\" (host receive ports), \"host_links\" (both "
                               "ends of host-leaf links), \"all\" (every port), \"plane\"");
        }
    }
    if (out.where == "plane")
    {
        out.plane = loss["plane"].AsUnsigned(0, planes - 1, "a plane of the fabric");
    }
    return out;
}

/** "failures": links, switches or planes that go down (and come back) at given times. */
std::vector<ExperimentFailure>
ParseFailures(const JsonReader& failures, uint32_t planes)
{
    std::vector<ExperimentFailure> out;
    for (JsonReader f : failures.AsArray())
    {
        f.ExpectObject({"what", "target", "at", "until"});
        ExperimentFailure failure;
        failure.what = f["what"].AsString();
        if (failure.what != "link" && failure.what != "switch" && failure.what != "plane")
        {
            f["what"].Fail("one of \"link\", \"switch\", \"plane\"");
        }
        if (failure.what == "plane")
        {
            failure.target =
                std::to_string(f["target"].AsUnsigned(0, planes - 1, "a plane of the fabric"));
        }
        else
        {
            failure.target = f["target"].AsString(); // checked against the built fabric
        }
        failure.at = f["at"].AsDuration(0, kMaxDurationNs);
        if (f["until"].IsPresent())
        {
            failure.until = f["until"].AsDuration(1, kMaxDurationNs);
            if (failure.until <= failure.at)
            {
                f["until"].Fail("a time after \"at\"");
            }
        }
        out.push_back(failure);
    }
    return out;
}

/** How the run goes: duration, stop, seed, sampling, scheduler, event loop. */
void
ParseRunControl(JsonReader& root, ExperimentSpec& spec)
{
    spec.duration = root["duration"].AsDuration(1, kMaxDurationNs);
    if (root["stop"].IsPresent())
    {
        const std::string stop = root["stop"].AsString();
        if (stop != "duration" && stop != "workload_done")
        {
            root["stop"].Fail("\"duration\" or \"workload_done\"");
        }
        spec.stopWhenDone = stop == "workload_done";
    }
    if (root["seed"].IsPresent())
    {
        spec.seed = root["seed"].AsUnsigned(1, 0xFFFFFFFF);
    }
    if (root["scheduler"].IsPresent())
    {
        spec.scheduler = root["scheduler"].AsString();
        static const std::vector<std::string> schedulers = {"ns3::MapScheduler",
                                                            "ns3::HeapScheduler",
                                                            "ns3::ListScheduler",
                                                            "ns3::CalendarScheduler",
                                                            "ns3::PriorityQueueScheduler",
                                                            "ns3::TimingWheelScheduler"};
        if (std::find(schedulers.begin(), schedulers.end(), spec.scheduler) == schedulers.end())
        {
            root["scheduler"].Fail("one of ns3::MapScheduler, ns3::HeapScheduler, "
                                   "ns3::ListScheduler, ns3::CalendarScheduler, "
                                   "ns3::PriorityQueueScheduler, ns3::TimingWheelScheduler");
        }
    }
    if (root["simulator"].IsPresent())
    {
        spec.simulator = root["simulator"].AsString();
        if (spec.simulator == "ns3::FabricSimulatorImpl")
        {
            // It saved under 6 % of the instructions of ns-3's own loop, not
            // enough to keep a second event loop correct.
            root["simulator"].Fail("ns3::DefaultSimulatorImpl (this project's "
                                   "ns3::FabricSimulatorImpl was removed: ns-3's own loop runs "
                                   "the same events in the same order)");
        }
        if (spec.simulator != "ns3::DefaultSimulatorImpl")
        {
            root["simulator"].Fail("ns3::DefaultSimulatorImpl");
        }
    }
    // One simulation runs on one thread in ns-3's event order; parallelism
    // is the sweep's (one process per point, or a Slurm array).
    for (const char* removed : {"threads", "event_order"})
    {
        if (root[removed].IsPresent())
        {
            root[removed].Fail("no such key (multi-threaded runs and keyed event order were "
                               "removed: a run uses one thread; run points in parallel with "
                               "analysis/sweep.py --jobs N or on Slurm)");
        }
    }
    spec.sampleInterval = root["sample_interval"].IsPresent()
                              ? root["sample_interval"].AsDuration(100, kMaxDurationNs)
                              : spec.duration / 100;
}

} // namespace

void
ApplyOverride(nlohmann::json& doc, const std::string& assignment, const std::string& source)
{
    const size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ConfigError(source + ": --set " + assignment + ": expected path=value");
    }
    const std::string path = assignment.substr(0, eq);
    const std::string text = assignment.substr(eq + 1);
    nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
    if (value.is_discarded())
    {
        value = text; // not JSON: a plain string
    }
    nlohmann::json* node = &doc;
    size_t start = 0;
    std::string walked;
    while (true)
    {
        // "::" is part of attribute names (ns3::Type::Attr), so only a single
        // dot separates keys.
        const size_t dot = path.find('.', start);
        const std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
        if (key.empty())
        {
            throw ConfigError(source + ": --set " + assignment +
                              ": expected a dotted path of keys");
        }
        if (!node->is_object())
        {
            throw ConfigError(source + ": --set " + assignment + ": expected an object at /" +
                              walked + ", got " + JsonReader::Describe(*node));
        }
        walked += (walked.empty() ? "" : "/") + key;
        if (dot == std::string::npos)
        {
            (*node)[key] = value;
            return;
        }
        node = &(*node)[key];
        if (node->is_null())
        {
            *node = nlohmann::json::object();
        }
        start = dot + 1;
    }
}

ExperimentSpec
ParseExperimentSpec(const nlohmann::json& doc,
                    const std::string& source,
                    const std::string& baseDir,
                    const std::string& repoDir)
{
    JsonReader root(doc, source);
    root.ExpectObject({"name",
                       "description",
                       "fabric",
                       "transport",
                       "attributes",
                       "workload",
                       "loss",
                       "failures",
                       "duration",
                       "stop",
                       "seed",
                       "sample_interval",
                       "scheduler",
                       "simulator",
                       "threads",
                       "event_order"});
    ExperimentSpec spec;
    spec.sourceFile = source;
    spec.effective = doc;
    spec.name = root["name"].AsString();
    if (spec.name.empty())
    {
        root["name"].Fail("a non-empty name");
    }
    if (root["description"].IsPresent())
    {
        spec.description = root["description"].AsString();
    }
    spec.fabric = ParseFabric(root["fabric"], source, baseDir, repoDir);
    spec.transport = ParseTransport(root["transport"]);

    if (root["attributes"].IsPresent())
    {
        spec.attributes = ParseAttributes(root["attributes"]);
    }

    const uint32_t hosts = spec.fabric.Hosts();
    spec.workload = ParseWorkload(root["workload"], hosts);
    if (hosts < 2)
    {
        root["fabric"].Fail("a fabric with at least two hosts");
    }

    if (root["loss"].IsPresent())
    {
        spec.loss = ParseLoss(root["loss"], spec.fabric.planes);
    }
    if (root["failures"].IsPresent())
    {
        spec.failures = ParseFailures(root["failures"], spec.fabric.planes);
    }
    ParseRunControl(root, spec);
    return spec;
}

ExperimentSpec
LoadExperimentSpec(const std::string& path,
                   const std::vector<std::string>& overrides,
                   const std::string& repoDir)
{
    nlohmann::json doc = LoadJsonFile(path);
    for (const auto& o : overrides)
    {
        ApplyOverride(doc, o, path);
    }
    const std::string base = fs::path(path).parent_path().string();
    return ParseExperimentSpec(doc, path, base.empty() ? "." : base, repoDir);
}

} // namespace ns3
