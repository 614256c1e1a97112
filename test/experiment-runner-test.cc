// The experiment runner: a tiny experiment end to end, the results schema,
// determinism, and clear errors for bad experiment files.
#include "experiment-runner.h"
#include "test-fabric-util.h"
#include "test-runner-util.h"

#include "ns3/config.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

using namespace ns3;
using test::Deterministic;
using test::RunOnce;
using test::Spec;
namespace fs = std::filesystem;

namespace
{

nlohmann::json
TinyExperiment()
{
    return nlohmann::json::parse(R"({
      "name": "runner-test",
      "fabric": "topologies/tiny-2p.json",
      "transport": {"type": "metaroce"},
      "workload": {"type": "permutation", "message_bytes": 65536, "outstanding": 2},
      "loss": {"rate": 0.01, "where": "nic"},
      "duration": "100us",
      "seed": 3,
      "sample_interval": "10us"
    })");
}

std::string
Slurp(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("runner: a tiny experiment writes every summary field the schema promises", "[runner]")
{
    const fs::path dir = fs::temp_directory_path() / "metaroce-runner-test";
    fs::remove_all(dir);
    const nlohmann::json r = RunOnce(TinyExperiment(), dir.string());
    const auto& s = r["summary"];
    for (const char* key : {"goodput_gbps",
                            "offered_line_rate_gbps",
                            "normalized_goodput",
                            "retransmitted_packets",
                            "dropped_packets",
                            "ecn_marked_packets",
                            "pfc_pause_frames",
                            "completed_messages",
                            "incomplete_messages",
                            "packet_hops",
                            "events",
                            "wall_seconds",
                            "bytes_per_connection",
                            "bytes_per_bidirectional_connection"})
    {
        CAPTURE(key);
        CHECK(s.contains(key));
    }
    // Transport state: heap per directed connection (an endpoint), and per
    // bidirectional connection (two endpoints).
    const double perDirected = s["bytes_per_connection"].get<double>();
    CHECK(perDirected > 0);
    CHECK(std::abs(s["bytes_per_bidirectional_connection"].get<double>() - 2 * perDirected) <= 1);
    // 4 hosts x 2 planes x 100 Gb/s can be offered at most.
    CHECK(s["offered_line_rate_gbps"].get<double>() == 800);
    CHECK(s["normalized_goodput"].get<double>() > 0);
    CHECK(s["normalized_goodput"].get<double>() <= 1.0);
    // 1 % loss at the NICs: some packets lost and resent.
    CHECK(s["dropped_packets"]["error_model"].get<uint64_t>() > 0);
    CHECK(s["retransmitted_packets"].get<uint64_t>() > 0);
    CHECK(r["provenance"]["seed"] == 3);
    CHECK(r["provenance"]["git_revision"].get<std::string>().size() > 0);
    CHECK(r["config"]["workload"]["type"] == "permutation");
    for (const char* f : {"results.json", "throughput.csv", "queues.csv", "connections.csv"})
    {
        CAPTURE(f);
        CHECK(fs::exists(dir / f));
    }
    // Ten samples (every 10 us of 100 us) x two planes, plus the header.
    const std::string csv = Slurp(dir / "throughput.csv");
    CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + 10 * 2);
    CHECK(nlohmann::json::parse(Slurp(dir / "results.json")) == r);
    fs::remove_all(dir);
}

TEST_CASE("runner: same experiment and seed give identical results, another seed differs",
          "[runner]")
{
    const fs::path a = fs::temp_directory_path() / "metaroce-det-a";
    const fs::path b = fs::temp_directory_path() / "metaroce-det-b";
    const nlohmann::json first = RunOnce(TinyExperiment(), a.string());
    const nlohmann::json second = RunOnce(TinyExperiment(), b.string());
    CHECK(Deterministic(first) == Deterministic(second));
    for (const char* f : {"throughput.csv", "queues.csv", "connections.csv"})
    {
        CAPTURE(f);
        CHECK(Slurp(a / f) == Slurp(b / f));
    }
    nlohmann::json other = TinyExperiment();
    other["seed"] = 4;
    const nlohmann::json third = RunOnce(other);
    CHECK(Deterministic(third)["summary"] != Deterministic(first)["summary"]);
    fs::remove_all(a);
    fs::remove_all(b);
}

TEST_CASE("runner: --set overrides a value by dotted path", "[runner]")
{
    nlohmann::json j = TinyExperiment();
    ApplyOverride(j, "loss.rate=0.05", "test.json");
    ApplyOverride(j, "transport.type=rocev2", "test.json");
    ApplyOverride(j, "attributes.ns3::Dcqcn::G=0.01", "test.json");
    CHECK(j["loss"]["rate"] == 0.05);
    CHECK(j["transport"]["type"] == "rocev2");
    CHECK(j["attributes"]["ns3::Dcqcn::G"] == 0.01);
    const ExperimentSpec s = Spec(j);
    CHECK(s.loss.rate == 0.05);
    REQUIRE(s.attributes.size() == 1);
    CHECK(s.attributes[0].first == "ns3::Dcqcn::G");
    CHECK_THROWS_WITH(ApplyOverride(j, "loss.rate", "test.json"),
                      Catch::Contains("expected path=value"));
}

TEST_CASE("runner: bad experiments are refused with the file, the JSON path and the "
          "expectation",
          "[runner]")
{
    struct Case
    {
        const char* set; //!< an override making the experiment bad
        const char* path;
        const char* expected;
    };

    const std::vector<Case> cases = {
        {"name=\"\"", "/name", "non-empty"},
        {"transport.type=\"tcp\"", "/transport/type", "\"metaroce\""},
        {"transport.kind=1", "/transport", "kind"},
        {"workload.type=\"scatter\"", "/workload/type", "one of"},
        {"workload.message_bytes=0", "/workload/message_bytes", "expected"},
        {"workload.outstanding=-1", "/workload/outstanding", "expected"},
        {"loss.rate=1.5", "/loss/rate", "probability"},
        {"loss.rate=\"1%\"", "/loss/rate", "expected"},
        {"loss.where=\"everywhere\"", "/loss/where", "one of"},
        {"duration=\"-5us\"", "/duration", "expected"},
        {"duration=0", "/duration", "expected"},
        {"seed=0", "/seed", "expected"},
        {"fabric=\"no-such-topology.json\"", "/fabric", "exists"},
        {"fabric=42", "/fabric", "inline fabric"},
        {"attributes.ns3::MetaRoceConnection::NoSuchThing=1", "/attributes", "has"},
        {"attributes.ns3::NoSuchType::X=1", "/attributes", "known ns-3 type"},
        {"attributes.ns3::MetaRoceConnection::PathsPerPlane=\"many\"", "/attributes", "valid"},
        {"workload.type=\"incast\"", "/workload/senders", "incast senders"},
        {"workload.type=\"bulk\"", "/workload/flows", "pairs"},
        {"workload.ranks=99", "/workload/ranks", "at most 4"},
        {"failures=[{\"what\":\"plane\",\"target\":7,\"at\":\"10us\"}]",
         "/failures/0/target",
         "plane"},
        {"failures=[{\"what\":\"meteor\",\"target\":\"x\",\"at\":\"10us\"}]",
         "/failures/0/what",
         "one of"},
        {"failures=[{\"what\":\"link\",\"target\":\"p0/"
         "l0-s0#0\",\"at\":\"10us\",\"until\":\"5us\"}]",
         "/failures/0/until",
         "after"},
        {"stop=\"never\"", "/stop", "workload_done"},
        {"colour=\"red\"", "/", "colour"},
        {"scheduler=\"ns3::FastestScheduler\"", "/scheduler", "PriorityQueueScheduler"},
        {"simulator=\"ns3::RealtimeSimulatorImpl\"", "/simulator", "DefaultSimulatorImpl"},
        {"simulator=\"ns3::FabricSimulatorImpl\"", "/simulator", "was removed"},
        {"sample_interval=\"10ns\"", "/sample_interval", "expected"},
        {"loss={\"rate\":0.1,\"where\":\"plane\",\"plane\":5}", "/loss/plane", "plane"},
        {"workload={\"type\":\"bulk\",\"flows\":[[1,1]]}", "/workload/flows/0", "two different"},
        {"workload={\"type\":\"bulk\",\"flows\":[[0,9]]}", "/workload/flows/0", "below 4"},
        {"workload={\"type\":\"incast\",\"senders\":2,\"receiver\":4}",
         "/workload/receiver",
         "below 4"},
        {"fabric={\"name\":\"x\",\"planes\":0}", "/fabric: /description", "expected a string"},
        {"duration=\"2h\"", "/duration", "expected"},
        // Multi-threaded runs were removed: the keys say so instead of "unknown key".
        {"threads=2", "/threads", "sweep.py --jobs"},
        {"event_order=\"keyed\"", "/event_order", "were removed"},
    };
    for (const auto& c : cases)
    {
        CAPTURE(c.set);
        nlohmann::json j = TinyExperiment();
        ApplyOverride(j, c.set, "test.json");
        try
        {
            Spec(j);
            FAIL("accepted");
        }
        catch (const ConfigError& e)
        {
            const std::string what = e.what();
            CAPTURE(what);
            CHECK(what.rfind("test.json", 0) == 0);
            CHECK(what.find(c.path) != std::string::npos);
            CHECK(what.find(c.expected) != std::string::npos);
        }
    }
    // A failure naming a link the fabric does not have: caught at Build.
    nlohmann::json j = TinyExperiment();
    ApplyOverride(j,
                  "failures=[{\"what\":\"link\",\"target\":\"p9/l0-s0#0\",\"at\":\"10us\"}]",
                  "test.json");
    Config::Reset();
    ExperimentRunner runner(Spec(j));
    CHECK_THROWS_WITH(runner.Build(),
                      Catch::Contains("/failures/0/target") && Catch::Contains("p9/l0-s0#0"));
    Simulator::Destroy();
}

TEST_CASE("runner: transports and workloads named by TypeId run as their short names", "[runner]")
{
    // A short name is only an alias: "metaroce" is ns3::MetaRoceTransport,
    // "all_to_all" is ns3::AllToAllWorkload with the same keys, so the two
    // spellings must build the same simulation and give the same results.
    auto run = [](const std::string& transport, const std::string& workload) {
        nlohmann::json j = TinyExperiment();
        j["transport"]["type"] = transport;
        j["workload"] = {{"type", workload}, {"message_bytes", 32768}};
        j["duration"] = "400us"; // long enough for every message despite the loss
        nlohmann::json r = Deterministic(RunOnce(j));
        r.erase("config");
        r.erase("provenance");
        return r;
    };
    const nlohmann::json shortNames = run("metaroce", "all_to_all");
    CHECK(shortNames["summary"]["completed_messages"].get<uint64_t>() == 12); // 4 x 3 pairs
    CHECK(run("ns3::MetaRoceTransport", "ns3::AllToAllWorkload") == shortNames);
    // "irn" is RoCEv2 with selective repeat: the same as naming the type and
    // setting the attribute the alias implies.
    nlohmann::json irn = TinyExperiment();
    irn["transport"]["type"] = "irn";
    nlohmann::json byType = TinyExperiment();
    byType["transport"]["type"] = "ns3::RoceV2Transport";
    byType["attributes"] = {{"ns3::RoceV2Connection::SelectiveRepeat", true}};
    const nlohmann::json a = RunOnce(irn);
    const nlohmann::json b = RunOnce(byType);
    CHECK(a["provenance"]["non_default_attributes"] == b["provenance"]["non_default_attributes"]);
    CHECK(Deterministic(a)["summary"] == Deterministic(b)["summary"]);
    CHECK(a["summary"]["retransmitted_packets"].get<uint64_t>() > 0);
    // The recovery policy named by TypeId is IRN's too: same run as "irn".
    nlohmann::json byPolicy = TinyExperiment();
    byPolicy["transport"] = {{"type", "rocev2"}, {"recovery", "ns3::RoceV2SelectiveRepeat"}};
    const nlohmann::json c = RunOnce(byPolicy);
    CHECK(Deterministic(c)["summary"] == Deterministic(a)["summary"]);
    CHECK(c["provenance"]["non_default_attributes"]["ns3::RoceV2Connection::Recovery"] ==
          "ns3::RoceV2SelectiveRepeat");
}

TEST_CASE("runner: congestion and recovery policies are checked against the transport", "[runner]")
{
    for (const auto& [transport, path, expected] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             // MetaRoCE has no separate recovery policy (its recovery is the spec's).
             {R"({"type":"metaroce","recovery":"ns3::RoceV2SelectiveRepeat"})",
              "/transport/recovery",
              "has no Recovery attribute"},
             {R"({"type":"metaroce","congestion":"ns3::RoceV2GoBackN"})",
              "/transport/congestion",
              "TypeId of an ns3::RdmaCongestionOps"},
             {R"({"type":"rocev2","recovery":"ns3::Dcqcn"})",
              "/transport/recovery",
              "TypeId of an ns3::RoceV2Recovery"},
             {R"({"type":"rocev2","colour":"red"})", "/transport", "colour"},
         })
    {
        CAPTURE(transport);
        nlohmann::json bad = TinyExperiment();
        bad["transport"] = nlohmann::json::parse(transport);
        CHECK_THROWS_WITH(Spec(bad), Catch::Contains(path) && Catch::Contains(expected));
    }
    // A congestion policy by TypeId reaches the endpoints as their attribute.
    nlohmann::json j = TinyExperiment();
    j["transport"] = {{"type", "metaroce"}, {"congestion", "ns3::MetaRoceStaticWindow"}};
    const ExperimentSpec spec = Spec(j);
    REQUIRE(spec.transport.defaults.size() == 1);
    CHECK(spec.transport.defaults[0].first == "ns3::MetaRoceConnection::CongestionOps");
    CHECK(spec.transport.defaults[0].second == "ns3::MetaRoceStaticWindow");
}

TEST_CASE("runner: a workload's own attributes are set on it and checked", "[runner]")
{
    // MessagesPerFlow = 1 through "attributes": each of the 4 permutation
    // flows sends exactly one 64 KiB message, and the workload finishes.
    nlohmann::json j = TinyExperiment();
    j["loss"]["rate"] = 0;
    j["workload"]["attributes"] = {{"MessagesPerFlow", 1}};
    const nlohmann::json r = RunOnce(j);
    CHECK(r["summary"]["completed_messages"].get<uint64_t>() == 4);
    CHECK(r["summary"]["workload_finished"].get<bool>());
    for (const auto& [set, path, expected] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"workload.attributes.NoSuchThing=1",
              "/workload/attributes/NoSuchThing",
              "ns3::BulkWorkload has"},
             {"workload.attributes.Outstanding=\"lots\"",
              "/workload/attributes/Outstanding",
              "valid"},
             {"workload.type=\"ns3::Node\"", "/workload/type", "TypeId of an ns3::RdmaWorkload"},
             {"transport.type=\"ns3::Node\"", "/transport/type", "TypeId of an ns3::RdmaTransport"},
         })
    {
        CAPTURE(set);
        nlohmann::json bad = TinyExperiment();
        ApplyOverride(bad, set, "test.json");
        CHECK_THROWS_WITH(Spec(bad), Catch::Contains(path) && Catch::Contains(expected));
    }
}

namespace
{
/**
 * A workload of a test's own, known to the runner only by its TypeId: host
 * 0 writes one message of Bytes to host 1.
 */
class OneWriteWorkload : public RdmaWorkload
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::OneWriteWorkload")
                                .SetParent<RdmaWorkload>()
                                .SetGroupName("MetaRoce")
                                .AddConstructor<OneWriteWorkload>()
                                .AddAttribute("Bytes",
                                              "Length of the one write",
                                              UintegerValue(4096),
                                              MakeUintegerAccessor(&OneWriteWorkload::m_bytes),
                                              MakeUintegerChecker<uint32_t>(1));
        return tid;
    }

    void Install(Ptr<RdmaConnectionPool> pool) override
    {
        m_pool = pool;
        m_sender = pool->Get(0, 1).first;
        pool->Listen(m_sender, MakeCallback(&OneWriteWorkload::Completed, this));
    }

    void Start() override
    {
        m_sender->PostWrite(0, 1, 0, m_pool->RegionKey(1), m_bytes);
        CountPost();
    }

    bool IsFinished() const override
    {
        return GetPosted() == 1 && GetOutstanding() == 0;
    }

  private:
    void Completed(const RdmaCompletion& c)
    {
        Record(0, 1, c);
        CheckFinished();
    }

    uint32_t m_bytes = 0;
    Ptr<RdmaConnection> m_sender;
};

NS_OBJECT_ENSURE_REGISTERED(OneWriteWorkload);
} // namespace

TEST_CASE("runner: a workload of one's own runs by its TypeId, with only its attributes",
          "[runner]")
{
    // The runner knows nothing of this type: it is built from its TypeId,
    // gets its attributes and start time, and reports what it recorded.
    // One 64 KiB write on a loss-free fabric: one message, all its bytes
    // delivered, the workload finished.
    nlohmann::json j = TinyExperiment();
    j["loss"]["rate"] = 0;
    j["workload"] = {{"type", "ns3::OneWriteWorkload"},
                     {"attributes", {{"Bytes", 65536}}},
                     {"start", "5us"}};
    const nlohmann::json r = RunOnce(j);
    CHECK(r["summary"]["completed_messages"].get<uint64_t>() == 1);
    CHECK(r["summary"]["delivered_bytes"].get<uint64_t>() == 65536);
    CHECK(r["summary"]["workload_finished"].get<bool>());
    // The built-in workloads' keys mean nothing to it: an error, not ignored.
    j["workload"]["message_bytes"] = 1024;
    CHECK_THROWS_WITH(Spec(j),
                      Catch::Contains("/workload/message_bytes") && Catch::Contains("unknown key"));
}
