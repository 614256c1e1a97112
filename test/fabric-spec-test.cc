/*
 * Tests of the fabric description loader (helper/fabric-spec.h,
 * docs/fabric-format.md). Most cases break one thing in an otherwise valid
 * description and check that the error names the file, the exact JSON path
 * of the mistake and what was expected there: a message that points anywhere
 * else sends the user looking in the wrong place.
 */
#include "fabric-spec.h"
#include "json-reader.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3;
using nlohmann::json;

namespace
{

const std::string kFile = "t.json";

/** A valid two-tier description, the starting point of every mutation. */
json
ValidSpec()
{
    return json::parse(R"({
        "name": "test-2p",
        "description": "4 hosts, 2 planes of 2 leaves x 2 hosts and 2 spines",
        "planes": 2,
        "clos": { "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "links_per_leaf_spine": 1 },
        "hosts": 4,
        "links": {
            "host_leaf":  { "rate": "100Gbps", "delay": "1us" },
            "leaf_spine": { "rate": "100Gbps", "delay": "1us" }
        },
        "switch": {
            "buffer_bytes": 33554432,
            "port_buffer_bytes": 4194304,
            "ecn": { "enabled": true, "kmin_bytes": 102400, "kmax_bytes": 409600, "pmax": 0.2 },
            "detection_delay": "10us"
        },
        "host": { "port_buffer_bytes": 4194304 },
        "routing": { "convergence_delay": "1ms" }
    })");
}

/** A valid single-switch description (one leaf, no spines). */
json
ValidSingleSwitchSpec()
{
    json j = ValidSpec();
    j["clos"] = {{"leaves", 1}, {"spines", 0}, {"hosts_per_leaf", 4}};
    j["links"].erase("leaf_spine");
    return j;
}

json
With(json j, const std::string& pointer, const json& value)
{
    j[json::json_pointer(pointer)] = value;
    return j;
}

json
Without(json j, const std::string& parentPointer, const std::string& key)
{
    j[json::json_pointer(parentPointer)].erase(key);
    return j;
}

/** The message of the FabricSpecError that parsing j raises. */
std::string
ErrorOf(const json& j)
{
    try
    {
        ParseFabricSpec(j, kFile);
    }
    catch (const FabricSpecError& e)
    {
        return e.what();
    }
    FAIL("no FabricSpecError for " << j.dump());
    return "";
}

/**
 * Checks the error format "<file>: <path>: expected <...>": the path is
 * matched exactly because it is followed by ": expected".
 */
void
CheckError(const std::string& message, const std::string& path, const std::string& expected)
{
    INFO("message: " << message);
    CHECK_THAT(message, Catch::StartsWith(kFile + ": " + path + ": expected "));
    CHECK_THAT(message, Catch::Contains(expected));
}

/** A file under the system temp directory holding `text`, removed on destruction. */
class TempFile
{
  public:
    TempFile(const std::string& name, const std::string& text)
        : m_path(std::filesystem::temp_directory_path() /
                 ("metaroce-" + std::to_string(getpid()) + "-" + name))
    {
        std::ofstream(m_path) << text;
    }

    ~TempFile()
    {
        std::error_code ignored;
        std::filesystem::remove(m_path, ignored);
    }

    std::string Path() const
    {
        return m_path.string();
    }

  private:
    std::filesystem::path m_path;
};

void
CheckSameSpec(const FabricSpec& a, const FabricSpec& b)
{
    CHECK(a.name == b.name);
    CHECK(a.description == b.description);
    CHECK(a.planes == b.planes);
    CHECK(a.leavesPerPlane == b.leavesPerPlane);
    CHECK(a.spinesPerPlane == b.spinesPerPlane);
    CHECK(a.hostsPerLeaf == b.hostsPerLeaf);
    CHECK(a.linksPerLeafSpine == b.linksPerLeafSpine);
    CHECK(a.hostLink.rate == b.hostLink.rate);
    CHECK(a.hostLink.delay == b.hostLink.delay);
    CHECK(a.fabricLink.rate == b.fabricLink.rate);
    CHECK(a.fabricLink.delay == b.fabricLink.delay);
    CHECK(a.switches.bufferBytes == b.switches.bufferBytes);
    CHECK(a.switches.portBufferBytes == b.switches.portBufferBytes);
    CHECK(a.switches.ecn.enabled == b.switches.ecn.enabled);
    CHECK(a.switches.ecn.kminBytes == b.switches.ecn.kminBytes);
    CHECK(a.switches.ecn.kmaxBytes == b.switches.ecn.kmaxBytes);
    CHECK(a.switches.ecn.pmax == b.switches.ecn.pmax);
    CHECK(a.switches.detectionDelay == b.switches.detectionDelay);
    CHECK(a.host.portBufferBytes == b.host.portBufferBytes);
    CHECK(a.routingConvergenceDelay == b.routingConvergenceDelay);
}

std::string
TopologyPath(const std::string& name)
{
    return std::string(METAROCE_SOURCE_DIR) + "/topologies/" + name + ".json";
}

} // namespace

TEST_CASE("FabricSpec: a valid description parses into the documented fields", "[spec]")
{
    // The baseline every other case mutates: if it did not parse, their
    // errors could come from somewhere else than the mutation.
    FabricSpec spec = ParseFabricSpec(ValidSpec(), kFile);
    CHECK(spec.sourceFile == kFile);
    CHECK(spec.name == "test-2p");
    CHECK(spec.planes == 2);
    CHECK(spec.leavesPerPlane == 2);
    CHECK(spec.spinesPerPlane == 2);
    CHECK(spec.hostsPerLeaf == 2);
    CHECK(spec.linksPerLeafSpine == 1);
    CHECK(spec.Hosts() == 4);
    CHECK(spec.SwitchesPerPlane() == 4);
    CHECK(spec.hostLink.rate.GetBitRate() == 100000000000ULL);
    CHECK(spec.hostLink.delay == MicroSeconds(1));
    CHECK(spec.fabricLink.rate.GetBitRate() == 100000000000ULL);
    CHECK(spec.fabricLink.delay == MicroSeconds(1));
    CHECK(spec.switches.bufferBytes == 33554432);
    CHECK(spec.switches.portBufferBytes == 4194304);
    CHECK(spec.switches.ecn.enabled);
    CHECK(spec.switches.ecn.kminBytes == 102400);
    CHECK(spec.switches.ecn.kmaxBytes == 409600);
    CHECK(spec.switches.ecn.pmax == 0.2);
    CHECK(spec.switches.detectionDelay == MicroSeconds(10));
    CHECK(spec.host.portBufferBytes == 4194304);
    CHECK(spec.routingConvergenceDelay == MilliSeconds(1));
}

TEST_CASE("FabricSpec: a missing required field is reported at its path with its type", "[spec]")
{
    // No field is silently defaulted; the message says what to write where
    // the key is missing, not just that something is wrong.
    std::string m = ErrorOf(Without(ValidSpec(), "/clos", "leaves"));
    CheckError(m, "/clos/leaves", "an unsigned integer in [1, 65535]");
    CHECK_THAT(m, Catch::EndsWith("got nothing (required key is missing)"));

    CheckError(ErrorOf(Without(ValidSpec(), "/links/host_leaf", "rate")),
               "/links/host_leaf/rate",
               "a data rate");
    CheckError(ErrorOf(Without(ValidSpec(), "", "routing")),
               "/routing",
               "an object with keys convergence_delay");
    CheckError(ErrorOf(Without(ValidSpec(), "", "description")), "/description", "a string");
    CheckError(ErrorOf(Without(ValidSpec(), "/switch/ecn", "pmax")),
               "/switch/ecn/pmax",
               "a number in [0, 1]");
    CheckError(ErrorOf(Without(ValidSpec(), "/switch", "detection_delay")),
               "/switch/detection_delay",
               "a duration");
    // With spines, the leaf-spine links exist, so they must be described.
    CheckError(ErrorOf(Without(ValidSpec(), "/links", "leaf_spine")),
               "/links/leaf_spine",
               "required because /clos/spines > 0");
    CheckError(ErrorOf(Without(ValidSpec(), "/clos", "links_per_leaf_spine")),
               "/clos/links_per_leaf_spine",
               "an unsigned integer in [1, 64]");
}

TEST_CASE("FabricSpec: a value of the wrong JSON type is rejected, showing what was found",
          "[spec]")
{
    // Quoted numbers and the like are not coerced: a config that only works
    // by coercion hides the mistake from its reader too.
    CHECK(ErrorOf(With(ValidSpec(), "/planes", "4")) ==
          "t.json: /planes: expected an unsigned integer in [1, 64], got string \"4\"");

    std::string m = ErrorOf(With(ValidSpec(), "/switch/ecn/enabled", "yes"));
    CheckError(m, "/switch/ecn/enabled", "true or false");
    CHECK_THAT(m, Catch::EndsWith("got string \"yes\""));

    m = ErrorOf(With(ValidSpec(), "/links/host_leaf/rate", 100));
    CheckError(m, "/links/host_leaf/rate", "a data rate");
    CHECK_THAT(m, Catch::EndsWith("got 100"));

    m = ErrorOf(With(ValidSpec(), "/clos", json::array()));
    CheckError(m,
               "/clos",
               "an object with keys leaves, spines, hosts_per_leaf, links_per_leaf_spine");
    CHECK_THAT(m, Catch::EndsWith("got an array"));

    // A byte count written as a float is not an integer, even if whole.
    m = ErrorOf(With(ValidSpec(), "/switch/buffer_bytes", 33554432.0));
    CheckError(m, "/switch/buffer_bytes", "an unsigned integer");
    CHECK_THAT(m, Catch::EndsWith("got 33554432.0"));

    CheckError(ErrorOf(With(ValidSpec(), "/switch/ecn/pmax", "0.2")),
               "/switch/ecn/pmax",
               "a number");
    CheckError(ErrorOf(With(ValidSpec(), "/name", 5)), "/name", "a string");
    CheckError(ErrorOf(With(ValidSpec(), "/host/port_buffer_bytes", nullptr)),
               "/host/port_buffer_bytes",
               "an unsigned integer");
    CheckError(ErrorOf(json::array()), "/", "an object with keys name, description");
}

TEST_CASE("FabricSpec: an unknown key (a typo) is an error naming the key and the valid ones",
          "[spec]")
{
    // A misspelt optional key would otherwise be ignored and its default
    // used; a misspelt required key must be reported as the typo it is, not
    // as the correct key being missing.
    json j = Without(ValidSpec(), "/clos", "leaves");
    j["clos"]["leafs"] = 2;
    std::string m = ErrorOf(j);
    CheckError(m,
               "/clos/leafs",
               "one of the keys leaves, spines, hosts_per_leaf, links_per_leaf_spine");
    CHECK_THAT(m, Catch::Contains("got unknown key \"leafs\" (did you mean \"leaves\"?)"));

    m = ErrorOf(With(ValidSpec(), "/Planes", 2));
    CheckError(m, "/Planes", "one of the keys name, description, planes");
    CHECK_THAT(m, Catch::Contains("did you mean \"planes\""));

    // The optional "enabled" is exactly where a typo would go unnoticed.
    m = ErrorOf(With(ValidSpec(), "/switch/ecn/enable", false));
    CheckError(m, "/switch/ecn/enable", "one of the keys enabled, kmin_bytes, kmax_bytes, pmax");
    CHECK_THAT(m, Catch::Contains("did you mean \"enabled\""));

    m = ErrorOf(With(ValidSpec(), "/switch/ecn/kmin", 1));
    CHECK_THAT(m, Catch::Contains("did you mean \"kmin_bytes\""));

    // No suggestion when nothing is close: a wrong guess would mislead.
    m = ErrorOf(With(ValidSpec(), "/host/colour", "red"));
    CheckError(m, "/host/colour", "one of the keys port_buffer_bytes");
    CHECK_THAT(m, !Catch::Contains("did you mean"));
}

TEST_CASE("FabricSpec: an out-of-range value is rejected with the allowed range", "[spec]")
{
    // Bounds come from the model (at most 64 planes, 16-bit host index, a
    // port holds at least a jumbo frame) and from physics (pmax is a
    // probability); docs/fabric-format.md lists them.
    std::string m = ErrorOf(With(ValidSpec(), "/planes", 0));
    CheckError(m, "/planes", "an unsigned integer in [1, 64]");
    CHECK_THAT(m, Catch::EndsWith("got 0"));
    CheckError(ErrorOf(With(ValidSpec(), "/planes", 65)),
               "/planes",
               "an unsigned integer in [1, 64]");

    m = ErrorOf(With(ValidSpec(), "/switch/ecn/pmax", 1.5));
    CheckError(m, "/switch/ecn/pmax", "a number in [0, 1]");
    CHECK_THAT(m, Catch::EndsWith("got 1.5"));

    CheckError(ErrorOf(With(ValidSpec(), "/switch/port_buffer_bytes", 8999)),
               "/switch/port_buffer_bytes",
               "at least one 9000-byte jumbo frame");
    CheckError(ErrorOf(With(ValidSpec(), "/switch/buffer_bytes", (uint64_t(1) << 34) + 1)),
               "/switch/buffer_bytes",
               "an unsigned integer in [9000, 17179869184]");
    CheckError(ErrorOf(With(ValidSpec(), "/host/port_buffer_bytes", 100)),
               "/host/port_buffer_bytes",
               "an unsigned integer in [9000, 4294967295]");
    CheckError(ErrorOf(With(ValidSpec(), "/clos/links_per_leaf_spine", 0)),
               "/clos/links_per_leaf_spine",
               "an unsigned integer in [1, 64]");

    // 300 leaves x 300 hosts = 90000 hosts do not fit a 16-bit host index;
    // the bound on hosts_per_leaf follows from the leaf count.
    json j = With(With(Without(ValidSpec(), "", "hosts"), "/clos/leaves", 300),
                  "/clos/hosts_per_leaf",
                  300);
    CheckError(
        ErrorOf(j),
        "/clos/hosts_per_leaf",
        "an unsigned integer in [1, 218] (/clos/leaves * /clos/hosts_per_leaf is at most 65535");
    // 65535 hosts exactly is still allowed.
    j = With(With(Without(ValidSpec(), "", "hosts"), "/clos/leaves", 5),
             "/clos/hosts_per_leaf",
             13107);
    CHECK(ParseFabricSpec(j, kFile).Hosts() == 65535);

    m = ErrorOf(With(ValidSpec(), "/links/leaf_spine/rate", "20000Gbps"));
    CheckError(m, "/links/leaf_spine/rate", "a data rate in [1bps, 10000Gbps]");
    CHECK_THAT(m, Catch::EndsWith("got string \"20000Gbps\" (= 20000000000000 bit/s)"));
    CheckError(ErrorOf(With(ValidSpec(), "/links/host_leaf/rate", "0Gbps")),
               "/links/host_leaf/rate",
               "a data rate in [1bps, 10000Gbps]");
    CheckError(ErrorOf(With(ValidSpec(), "/routing/convergence_delay", "2s")),
               "/routing/convergence_delay",
               "a duration in [0ns, 1s]");
}

TEST_CASE("FabricSpec: values that contradict each other are rejected at the dependent field",
          "[spec]")
{
    // Each message names the field whose allowed range depends on another
    // and states that dependency, so the fix is clear whichever value is wrong.
    std::string m = ErrorOf(With(ValidSpec(), "/hosts", 5));
    CHECK(m == "t.json: /hosts: expected an unsigned integer equal to 4 "
               "(/clos/leaves * /clos/hosts_per_leaf = 2 * 2), got 5");

    // kmin > kmax: kmax is read against the kmin just read.
    json j = With(ValidSpec(), "/switch/ecn/kmin_bytes", 500000);
    m = ErrorOf(j);
    CheckError(m,
               "/switch/ecn/kmax_bytes",
               "an unsigned integer in [500000, 4194304] (at least kmin_bytes");
    CHECK_THAT(m, Catch::EndsWith("got 409600"));

    // Two leaves with no spines cannot reach each other.
    CheckError(ErrorOf(With(ValidSpec(), "/clos/spines", 0)),
               "/clos/spines",
               "an unsigned integer in [1, 65535] (/clos/leaves > 1, and leaves reach each other "
               "only through spines)");

    // A port's share cannot exceed the whole switch buffer.
    CheckError(
        ErrorOf(With(ValidSpec(), "/switch/port_buffer_bytes", 40000000)),
        "/switch/port_buffer_bytes",
        "an unsigned integer in [9000, 33554432] (at least one 9000-byte jumbo frame, at most "
        "/switch/buffer_bytes)");

    // Marking above the port's capacity could never trigger.
    CheckError(ErrorOf(With(ValidSpec(), "/switch/ecn/kmax_bytes", 5000000)),
               "/switch/ecn/kmax_bytes",
               "at most /switch/port_buffer_bytes");

    // Leaf-spine links described for a fabric that has none.
    j = ValidSingleSwitchSpec();
    REQUIRE_NOTHROW(ParseFabricSpec(j, kFile));
    CheckError(ErrorOf(With(j, "/links/leaf_spine", {{"rate", "100Gbps"}, {"delay", "1us"}})),
               "/links/leaf_spine",
               "no key here (/clos/spines is 0");
    CheckError(ErrorOf(With(j, "/clos/links_per_leaf_spine", 1)),
               "/clos/links_per_leaf_spine",
               "an unsigned integer equal to 0 (/clos/spines is 0");
    // An explicit 0 says the same as no key and is accepted.
    CHECK(ParseFabricSpec(With(j, "/clos/links_per_leaf_spine", 0), kFile).linksPerLeafSpine == 0);
}

TEST_CASE("FabricSpec: a malformed rate string is rejected with the reason", "[spec]")
{
    // Rates are parsed here, not by ns-3, whose DataRate(string) aborts the
    // process on bad input. The accepted syntax is ns-3's units after a plain
    // decimal number; each rejection names its reason.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"100 Gbps", "no space is allowed between the number and the unit"},
        {"100gbps", "unknown unit \"gbps\"; units are case-sensitive"},
        {"1Tbps", "unknown unit \"Tbps\""}, // ns-3 has no Tbps either
        {"Gbps", "no number before the unit"},
        {"100", "missing unit"},
        {"10e9bps", "exponents are not allowed"}, // nor does ns-3 accept them
        {"0.5bps", "not a whole number of bit/s"},
        {"-100Gbps", "negative values are not allowed"},
        {"1.Gbps", "a '.' must be followed by digits"},
        {"", "empty string"},
    };
    for (const auto& [text, reason] : cases)
    {
        std::string m = ErrorOf(With(ValidSpec(), "/links/host_leaf/rate", text));
        CheckError(m,
                   "/links/host_leaf/rate",
                   "a data rate in [1bps, 10000Gbps] such as \"100Gbps\"");
        CHECK_THAT(m, Catch::Contains("got string \"" + text + "\" (" + reason));
    }
}

TEST_CASE("FabricSpec: a malformed delay string is rejected with the reason", "[spec]")
{
    // Same reasoning as rates (ns-3's Time(string) aborts on bad input);
    // durations must also be whole nanoseconds, ns-3's default resolution.
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"1 us", "no space is allowed"},
        {"1usec", "unknown unit \"usec\"; units are ns, us, ms, s"},
        {"1\xC2\xB5s", "unknown unit"}, // "1µs"
        {"1", "missing unit"},
        {"0.5ns", "not a whole number of nanoseconds"},
        {"-1us", "negative values are not allowed"},
        {"1e-6s", "exponents are not allowed"},
    };
    for (const auto& [text, reason] : cases)
    {
        std::string m = ErrorOf(With(ValidSpec(), "/links/leaf_spine/delay", text));
        CheckError(m, "/links/leaf_spine/delay", "a duration in [0ns, 1s] such as \"1us\"");
        CHECK_THAT(m, Catch::Contains(" (" + reason));
    }
    CheckError(ErrorOf(With(ValidSpec(), "/switch/detection_delay", 10)),
               "/switch/detection_delay",
               "a duration in [0ns, 1s]");
}

TEST_CASE("FabricSpec: a negative number is rejected where a count or size is expected", "[spec]")
{
    // Negative JSON integers must not wrap around into huge unsigned values.
    CHECK(ErrorOf(With(ValidSpec(), "/clos/leaves", -3)) ==
          "t.json: /clos/leaves: expected an unsigned integer in [1, 65535], got -3");
    CheckError(ErrorOf(With(ValidSpec(), "/switch/buffer_bytes", -1)),
               "/switch/buffer_bytes",
               "an unsigned integer in [9000, 17179869184]");
    std::string m = ErrorOf(With(ValidSpec(), "/switch/ecn/kmin_bytes", -1));
    CheckError(m, "/switch/ecn/kmin_bytes", "an unsigned integer <= 4194304");
    CHECK_THAT(m, Catch::EndsWith("got -1"));
    CheckError(ErrorOf(With(ValidSpec(), "/switch/ecn/pmax", -0.1)),
               "/switch/ecn/pmax",
               "a number in [0, 1]");
}

TEST_CASE("FabricSpec: a missing or unreadable file names the file and the system error", "[spec]")
{
    // The message must come from the OS (strerror), not a guess.
    const std::string missing = "/nonexistent-metaroce-dir/none.json";
    REQUIRE_THROWS_WITH(LoadFabricSpec(missing),
                        missing + ": cannot open: No such file or directory");
    // A directory opens on Linux and fails only on read.
    const std::string dir = std::filesystem::temp_directory_path().string();
    REQUIRE_THROWS_WITH(LoadFabricSpec(dir), dir + ": cannot read: Is a directory");
}

TEST_CASE("FabricSpec: invalid JSON syntax names the file, line and column", "[spec]")
{
    // A trailing comma is the classic hand-editing mistake; the parser's own
    // position is passed through so the user can jump to it.
    TempFile comma("comma.json", "{\n  \"name\": \"x\",\n}\n");
    REQUIRE_THROWS_WITH(
        LoadFabricSpec(comma.Path()),
        Catch::StartsWith(comma.Path() + ": not valid JSON: parse error at line 3, column 1"));

    // Comments are not JSON (the format has none), so they fail the same way.
    TempFile comment("comment.json", "{ // a comment\n}\n");
    REQUIRE_THROWS_WITH(
        LoadFabricSpec(comment.Path()),
        Catch::StartsWith(comment.Path() + ": not valid JSON: parse error at line 1"));

    TempFile empty("empty.json", "");
    REQUIRE_THROWS_WITH(LoadFabricSpec(empty.Path()),
                        Catch::StartsWith(empty.Path() + ": not valid JSON: "));

    // Duplicate keys are valid to nlohmann::json, which keeps the last one
    // silently; they are rejected so that an edit cannot be shadowed.
    std::string text = ValidSpec().dump(2);
    text.replace(text.find("\"pmax\": 0.2"), 11, "\"pmax\": 0.2, \"pmax\": 0.5");
    TempFile duplicate("duplicate.json", text);
    REQUIRE_THROWS_WITH(LoadFabricSpec(duplicate.Path()),
                        duplicate.Path() +
                            ": /switch/ecn/pmax: expected each key once in an object, "
                            "got a duplicate key");
    // Inside arrays the path carries the element index.
    REQUIRE_THROWS_WITH(ParseJsonText(R"({"a": [1, [2], {"b": 1, "b": 2}]})", kFile),
                        "t.json: /a/2/b: expected each key once in an object, got a duplicate key");
    REQUIRE_THROWS_AS(LoadFabricSpec(duplicate.Path()), FabricSpecError);
}

TEST_CASE("FabricSpec: every shipped topology file loads with its documented sizing", "[spec]")
{
    // These files are what experiments run on; their sizes are stated in
    // their descriptions and docs/fabric-format.md, and must match.
    struct Expected
    {
        std::string name;
        uint32_t planes, leaves, spines, hostsPerLeaf, hosts, switchesTotal;
    };

    const std::vector<Expected> shipped = {
        {"tiny-2p", 2, 2, 2, 2, 4, 8},
        {"clos-64h-4p", 4, 8, 8, 8, 64, 64},
        {"clos-64h-8p", 8, 8, 8, 8, 64, 128},
        {"single-switch-2p", 2, 1, 0, 4, 4, 2},
    };
    for (const Expected& e : shipped)
    {
        INFO("topology " << e.name);
        FabricSpec spec = LoadFabricSpec(TopologyPath(e.name));
        CHECK(spec.name == e.name);
        CHECK(spec.sourceFile == TopologyPath(e.name));
        CHECK(spec.planes == e.planes);
        CHECK(spec.leavesPerPlane == e.leaves);
        CHECK(spec.spinesPerPlane == e.spines);
        CHECK(spec.hostsPerLeaf == e.hostsPerLeaf);
        CHECK(spec.Hosts() == e.hosts);
        CHECK(spec.planes * spec.SwitchesPerPlane() == e.switchesTotal);
        // All are non-blocking within a plane, at 100 Gb/s per plane port.
        CHECK(spec.LeafOversubscription() == 1.0);
        CHECK(spec.hostLink.rate.GetBitRate() == 100000000000ULL);
        CHECK(spec.hostLink.delay == MicroSeconds(1));
        if (e.spines > 0)
        {
            CHECK(spec.linksPerLeafSpine == 1);
            CHECK(spec.fabricLink.rate.GetBitRate() == 100000000000ULL);
            CHECK(spec.fabricLink.delay == MicroSeconds(1));
        }
        CHECK(spec.switches.bufferBytes == 32 * 1024 * 1024);
        CHECK(spec.switches.portBufferBytes == 4 * 1024 * 1024);
        CHECK(spec.switches.ecn.enabled);
        CHECK(spec.switches.ecn.kminBytes == 100 * 1024);
        CHECK(spec.switches.ecn.kmaxBytes == 400 * 1024);
        CHECK(spec.switches.ecn.pmax == 0.2);
        CHECK(spec.switches.detectionDelay == MicroSeconds(10));
        CHECK(spec.host.portBufferBytes == 4 * 1024 * 1024);
        CHECK(spec.routingConvergenceDelay == MilliSeconds(1));
    }

    // A file added to topologies/ without a row above still has to load and
    // be named after its file.
    size_t files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(METAROCE_SOURCE_DIR) + "/topologies"))
    {
        if (entry.path().extension() != ".json")
        {
            continue;
        }
        INFO("file " << entry.path());
        ++files;
        FabricSpec spec = LoadFabricSpec(entry.path().string());
        CHECK(spec.name == entry.path().stem().string());
    }
    CHECK(files >= shipped.size());
}

TEST_CASE("FabricSpec: FabricSpecToJson round-trips through ParseFabricSpec", "[spec]")
{
    // Results record the fabric they ran on as FabricSpecToJson output; it is
    // only a faithful record if parsing it gives back the same spec. Unusual
    // values (fractional rates, odd delays, ECN off, step marking) check that
    // the rate/delay formatting is exact, not just right for round numbers.
    std::vector<FabricSpec> specs;
    for (const char* name : {"tiny-2p", "clos-64h-4p", "clos-64h-8p", "single-switch-2p"})
    {
        specs.push_back(LoadFabricSpec(TopologyPath(name)));
    }
    json odd = ValidSpec();
    odd["clos"]["links_per_leaf_spine"] = 3;
    odd["links"]["host_leaf"] = {{"rate", "2.5Gbps"}, {"delay", "1500ns"}};
    odd["links"]["leaf_spine"] = {{"rate", "12.5GBps"}, {"delay", "0.000001s"}};
    odd["switch"]["ecn"] = {{"enabled", false},
                            {"kmin_bytes", 9000},
                            {"kmax_bytes", 9000},
                            {"pmax", 0.05}};
    odd["switch"]["detection_delay"] = "0ns";
    odd["routing"]["convergence_delay"] = "1234567ns";
    odd["host"]["port_buffer_bytes"] = 9000;
    odd["links"]["host_leaf"]["rate"] = "1Gib/s";
    specs.push_back(ParseFabricSpec(odd, kFile));

    for (const FabricSpec& spec : specs)
    {
        INFO("spec " << spec.name);
        json j = FabricSpecToJson(spec);
        FabricSpec back = ParseFabricSpec(j, "<inline>");
        CheckSameSpec(spec, back);
        CHECK(back.sourceFile == "<inline>");
        CHECK(FabricSpecToJson(back) == j);
    }
    // Exact formatting of the odd values.
    json j = FabricSpecToJson(specs.back());
    CHECK(j["links"]["host_leaf"]["rate"] == "1073741824bps");
    CHECK(j["links"]["host_leaf"]["delay"] == "1500ns");
    CHECK(j["links"]["leaf_spine"]["rate"] == "100Gbps");
    CHECK(j["links"]["leaf_spine"]["delay"] == "1us");
    CHECK(j["routing"]["convergence_delay"] == "1234567ns");
}

TEST_CASE("FabricSpec: the accepted rate and delay spellings mean what ns-3 means", "[spec]")
{
    // Same units and values as ns-3's DataRate parser (bytes are 8 bits,
    // "k"/"K" are 1000, "Ki"/"Mi"/"Gi" are powers of 1024), so a rate copied
    // from ns-3 code means the same here.
    const std::vector<std::pair<std::string, uint64_t>> rates = {
        {"25Gb/s", 25000000000ULL},
        {"1000Mbps", 1000000000ULL},
        {"12.5GBps", 100000000000ULL},
        {"1Gib/s", 1073741824ULL},
        {"100Kbps", 100000ULL},
        {"100kb/s", 100000ULL},
        {"2.5Gbps", 2500000000ULL},
        {"0100Gbps", 100000000000ULL},
        {"1KiB/s", 8192ULL},
        {"1.50Mbps", 1500000ULL},
        {"8bps", 8ULL},
        {"1B/s", 8ULL},
        {"10000Gbps", 10000000000000ULL},
    };
    for (const auto& [text, bps] : rates)
    {
        INFO("rate " << text);
        std::string reason;
        CHECK(ParseRateString(text, &reason) == std::optional<uint64_t>(bps));
        FabricSpec spec = ParseFabricSpec(With(ValidSpec(), "/links/leaf_spine/rate", text), kFile);
        CHECK(spec.fabricLink.rate.GetBitRate() == bps);
        // ns-3 agrees (the string is valid for it, so this cannot abort).
        CHECK(DataRate(text).GetBitRate() == bps);
    }
    const std::vector<std::pair<std::string, Time>> delays = {
        {"0.5us", NanoSeconds(500)},
        {"500ns", NanoSeconds(500)},
        {"1ms", MilliSeconds(1)},
        {"0s", Time(0)},
        {"1.000us", MicroSeconds(1)},
        {"1s", Seconds(1)},
    };
    for (const auto& [text, t] : delays)
    {
        INFO("delay " << text);
        FabricSpec spec = ParseFabricSpec(With(ValidSpec(), "/links/host_leaf/delay", text), kFile);
        CHECK(spec.hostLink.delay == t);
    }
}

TEST_CASE("FabricSpec: ecn.enabled is the only optional switch field and defaults to true",
          "[spec]")
{
    // DCQCN needs marking, so leaving the switch unspecified means marking on;
    // turning it off must be explicit.
    CHECK(ParseFabricSpec(Without(ValidSpec(), "/switch/ecn", "enabled"), kFile)
              .switches.ecn.enabled);
    CHECK_FALSE(ParseFabricSpec(With(ValidSpec(), "/switch/ecn/enabled", false), kFile)
                    .switches.ecn.enabled);
    // The optional "hosts" may be left out; it only cross-checks the Clos sizing.
    CHECK(ParseFabricSpec(Without(ValidSpec(), "", "hosts"), kFile).Hosts() == 4);
}

TEST_CASE("FabricSpec: name and description must be usable identifiers and text", "[spec]")
{
    // Names end up in result directory names; descriptions in one-line logs.
    CheckError(ErrorOf(With(ValidSpec(), "/name", "")), "/name", "a non-empty name");
    CheckError(ErrorOf(With(ValidSpec(), "/name", "a b")), "/name", "a non-empty name");
    CheckError(ErrorOf(With(ValidSpec(), "/name", "../x")), "/name", "a non-empty name");
    CheckError(ErrorOf(With(ValidSpec(), "/description", "")),
               "/description",
               "a non-empty one-line");
    CheckError(ErrorOf(With(ValidSpec(), "/description", "two\nlines")),
               "/description",
               "a non-empty one-line");
}

TEST_CASE("FabricSpec: LeafOversubscription compares a leaf's uplink to its downlink capacity",
          "[spec]")
{
    // Defined in fabric-spec.h as uplink / downlink: 1.0 is non-blocking,
    // below 1.0 the leaf is oversubscribed.
    CHECK(ParseFabricSpec(ValidSpec(), kFile).LeafOversubscription() == 1.0);
    json j =
        With(With(Without(ValidSpec(), "", "hosts"), "/clos/hosts_per_leaf", 4), "/clos/spines", 2);
    CHECK(ParseFabricSpec(j, kFile).LeafOversubscription() == 0.5);
    CHECK(ParseFabricSpec(With(j, "/clos/links_per_leaf_spine", 2), kFile).LeafOversubscription() ==
          1.0);
    CHECK(ParseFabricSpec(With(j, "/links/leaf_spine/rate", "400Gbps"), kFile)
              .LeafOversubscription() == 2.0);
    // A single switch has no uplinks and needs none.
    CHECK(ParseFabricSpec(ValidSingleSwitchSpec(), kFile).LeafOversubscription() == 1.0);
}

TEST_CASE("FabricSpec: FabricSpecError is a ConfigError", "[spec]")
{
    // Tools that load several kinds of configuration catch one type.
    REQUIRE_THROWS_AS(ParseFabricSpec(With(ValidSpec(), "/planes", 0), kFile), ConfigError);
    REQUIRE_THROWS_AS(LoadFabricSpec("/nonexistent-metaroce-dir/none.json"), ConfigError);
}

TEST_CASE("FabricSpec: JsonReader reports unbounded reads, arrays and escaped keys correctly",
          "[spec]")
{
    // The reader is shared with other configuration files, which use it
    // without the bounds the fabric fields have: a negative integer must not
    // wrap into a huge unsigned value even when any value would be in range.
    json j = json::parse(R"({"n": -1, "list": [1, "x"], "a/b~c": 1, "big": 18446744073709551615})");
    JsonReader root(j, kFile);
    root.ExpectObject({"n", "list", "a/b~c", "big", "absent"});
    REQUIRE_THROWS_WITH(root["n"].AsUnsigned(), "t.json: /n: expected an unsigned integer, got -1");
    CHECK(root["big"].AsUnsigned() == std::numeric_limits<uint64_t>::max());

    // Array elements carry their index in the path.
    std::vector<JsonReader> list = root["list"].AsArray(1, 2);
    REQUIRE(list.size() == 2);
    CHECK(list[0].AsUnsigned() == 1);
    REQUIRE_THROWS_WITH(list[1].AsUnsigned(),
                        "t.json: /list/1: expected an unsigned integer, got string \"x\"");
    REQUIRE_THROWS_WITH(
        root["list"].AsArray(3),
        "t.json: /list: expected an array of at least 3 elements, got an array of 2 elements");

    // RFC 6901 escaping: "/" is "~1" and "~" is "~0".
    CHECK(root["a/b~c"].Path() == "/a~1b~0c");
    CHECK(root.Path() == "/");
    CHECK_FALSE(root["absent"].IsPresent());
    REQUIRE_THROWS_WITH(
        root["absent"].AsBool(),
        "t.json: /absent: expected true or false, got nothing (required key is missing)");
}

namespace
{
/** ValidSpec with a /switch/pfc object (every field given, as required once present). */
json
WithPfc(const json& pfc)
{
    json j = ValidSpec();
    j["switch"]["pfc"] = pfc;
    return j;
}

const json kDynamicPfc = {{"enabled", true},
                          {"xoff", "dynamic"},
                          {"alpha", 0.125},
                          {"xon_delta_bytes", 18000},
                          {"headroom_bytes", nullptr},
                          {"lossless_priority", 3}};
} // namespace

TEST_CASE("FabricSpec: switch.pfc is optional, off by default, and parses both XOFF forms",
          "[spec][pfc]")
{
    // Absent: PFC off (the fabric is lossy, "resilient RoCE"), nothing reserved.
    FabricSpec off = ParseFabricSpec(ValidSpec(), kFile);
    CHECK_FALSE(off.switches.pfc.enabled);
    CHECK(off.MaxSwitchHeadroomBytes() == 0);

    // Dynamic XOFF with headroom from the links: a leaf has 2 host ports and
    // 2 uplinks, all 100 Gb/s, 1 us: 4 x (2 x 12,513 + 3 x 9,000 + 132) bytes.
    FabricSpec dyn = ParseFabricSpec(WithPfc(kDynamicPfc), kFile);
    CHECK(dyn.switches.pfc.enabled);
    CHECK(dyn.switches.pfc.xoffBytes == 0);
    CHECK(dyn.switches.pfc.alpha == 0.125);
    CHECK(dyn.switches.pfc.xonDeltaBytes == 18000);
    CHECK(dyn.switches.pfc.headroomBytes == 0);
    CHECK(dyn.switches.pfc.losslessPriority == 3);
    CHECK(dyn.MaxSwitchHeadroomBytes() == 4 * 52158);

    // Static XOFF (no alpha), explicit headroom, another priority.
    json s = kDynamicPfc;
    s["xoff"] = 100000;
    s.erase("alpha");
    s["headroom_bytes"] = 60000;
    s["lossless_priority"] = 4;
    FabricSpec st = ParseFabricSpec(WithPfc(s), kFile);
    CHECK(st.switches.pfc.xoffBytes == 100000);
    CHECK(st.switches.pfc.headroomBytes == 60000);
    CHECK(st.switches.pfc.losslessPriority == 4);
    CHECK(st.MaxSwitchHeadroomBytes() == 4 * 60000);

    // Disabled but fully described: nothing reserved, values kept.
    json d = kDynamicPfc;
    d["enabled"] = false;
    FabricSpec dis = ParseFabricSpec(WithPfc(d), kFile);
    CHECK_FALSE(dis.switches.pfc.enabled);
    CHECK(dis.MaxSwitchHeadroomBytes() == 0);

    // Round trip, both forms.
    for (const FabricSpec& spec : {off, dyn, st})
    {
        json j = FabricSpecToJson(spec);
        FabricSpec back = ParseFabricSpec(j, "<inline>");
        CHECK(back.switches.pfc.enabled == spec.switches.pfc.enabled);
        CHECK(back.switches.pfc.xoffBytes == spec.switches.pfc.xoffBytes);
        CHECK(back.switches.pfc.alpha == spec.switches.pfc.alpha);
        CHECK(back.switches.pfc.xonDeltaBytes == spec.switches.pfc.xonDeltaBytes);
        CHECK(back.switches.pfc.headroomBytes == spec.switches.pfc.headroomBytes);
        CHECK(back.switches.pfc.losslessPriority == spec.switches.pfc.losslessPriority);
        CHECK(FabricSpecToJson(back) == j);
    }
    CHECK(FabricSpecToJson(dyn)["switch"]["pfc"] == kDynamicPfc);
    CHECK_FALSE(FabricSpecToJson(st)["switch"]["pfc"].contains("alpha"));
}

TEST_CASE("FabricSpec: bad switch.pfc values are reported at their path", "[spec][pfc]")
{
    auto pfcWith = [](const std::string& key, const json& value) {
        json p = kDynamicPfc;
        p[key] = value;
        return WithPfc(p);
    };
    auto pfcWithout = [](const std::string& key) {
        json p = kDynamicPfc;
        p.erase(key);
        return WithPfc(p);
    };
    // Every field is required once "pfc" is given (like the ECN thresholds).
    CheckError(ErrorOf(pfcWithout("enabled")), "/switch/pfc/enabled", "true or false");
    CheckError(ErrorOf(pfcWithout("xoff")), "/switch/pfc/xoff", "\"dynamic\" or a static");
    CheckError(ErrorOf(pfcWithout("alpha")),
               "/switch/pfc/alpha",
               "required because xoff is \"dynamic\"");
    CheckError(ErrorOf(pfcWithout("headroom_bytes")), "/switch/pfc/headroom_bytes", "null");
    CheckError(ErrorOf(pfcWithout("lossless_priority")),
               "/switch/pfc/lossless_priority",
               "an unsigned integer <= 7 (an 802.1p priority)");
    // Typos and types.
    CHECK_THAT(ErrorOf(pfcWith("xon_delta", 1)),
               Catch::Contains("did you mean \"xon_delta_bytes\""));
    CheckError(ErrorOf(With(ValidSpec(), "/switch/pfc", true)), "/switch/pfc", "an object");
    CheckError(ErrorOf(pfcWith("enabled", "yes")), "/switch/pfc/enabled", "true or false");
    std::string m = ErrorOf(pfcWith("xoff", "static"));
    CheckError(m, "/switch/pfc/xoff", "\"dynamic\" or a static threshold in bytes");
    CHECK_THAT(m, Catch::EndsWith("got string \"static\""));
    CheckError(ErrorOf(pfcWith("xoff", -5)), "/switch/pfc/xoff", "\"dynamic\" or a static");
    CheckError(ErrorOf(pfcWith("xoff", 1.5e4)), "/switch/pfc/xoff", "\"dynamic\" or a static");
    // Ranges.
    CheckError(ErrorOf(pfcWith("xoff", 0)), "/switch/pfc/xoff", "an unsigned integer in [1, ");
    CheckError(ErrorOf(pfcWith("alpha", 0)), "/switch/pfc/alpha", "a number in [");
    CheckError(ErrorOf(pfcWith("alpha", 100)), "/switch/pfc/alpha", "a number in [");
    CheckError(ErrorOf(pfcWith("lossless_priority", 8)),
               "/switch/pfc/lossless_priority",
               "an unsigned integer <= 7 (an 802.1p priority)");
    m = ErrorOf(pfcWith("lossless_priority", 6));
    CheckError(m, "/switch/pfc/lossless_priority", "other than 6 (the control class's");
    CheckError(ErrorOf(pfcWith("headroom_bytes", 100)),
               "/switch/pfc/headroom_bytes",
               "at least one 9000-byte jumbo frame");
    CheckError(ErrorOf(pfcWith("headroom_bytes", "auto")),
               "/switch/pfc/headroom_bytes",
               "null (sized from each port's link) or bytes");
    // Contradictions: alpha with a static XOFF, XON below zero, headroom
    // that leaves no shared buffer.
    json st = kDynamicPfc;
    st["xoff"] = 50000;
    CheckError(ErrorOf(WithPfc(st)),
               "/switch/pfc/alpha",
               "no key here (xoff is a static threshold");
    st.erase("alpha");
    st["xon_delta_bytes"] = 60000;
    CheckError(ErrorOf(WithPfc(st)),
               "/switch/pfc/xon_delta_bytes",
               "an unsigned integer <= 50000 (at most xoff: XON = xoff - xon_delta_bytes)");
    json big = pfcWith("headroom_bytes", 9000000);
    m = ErrorOf(big);
    CheckError(m,
               "/switch/buffer_bytes",
               "more than the PFC headroom reserved in the largest "
               "switch (36000000 bytes");
    CHECK_THAT(m, Catch::EndsWith("got 33554432"));
}
