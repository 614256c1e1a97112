#include "fabric-spec.h"

#include "fabric-switch.h"
#include "json-reader.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>

namespace ns3
{

namespace
{

// Bounds are documented, with their reasons, in docs/fabric-format.md.
constexpr uint64_t kMaxPlanes = 64;
constexpr uint64_t kMaxHosts = 65535; // a host index has 16 bits in fabric addresses
constexpr uint64_t kMaxSpines = 65535;
constexpr uint64_t kMaxLinksPerLeafSpine = 64;
constexpr uint64_t kJumboFrameBytes = 9000; // a port must hold at least one frame
constexpr uint64_t kMaxSwitchBufferBytes = uint64_t(1) << 34;
constexpr uint64_t kMaxPortBufferBytes = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kMaxRateBps = 10000000000000; // 10 Tb/s
constexpr uint64_t kMaxDelayNs = 1000000000;     // 1 s
constexpr uint8_t kControlPriority = 6;          // FabricPort::ControlPriority default
constexpr double kMinAlpha = 1.0 / 1024;         // FabricSwitch::PfcAlpha bounds
constexpr double kMaxAlpha = 64.0;

/** Names appear in result paths and logs, hence a conservative alphabet. */
bool
IsValidName(const std::string& name)
{
    if (name.empty())
    {
        return false;
    }
    for (char c : name)
    {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
        {
            return false;
        }
    }
    return true;
}

bool
IsOneLine(const std::string& text)
{
    if (text.empty())
    {
        return false;
    }
    for (char c : text)
    {
        if (std::iscntrl(static_cast<unsigned char>(c)))
        {
            return false;
        }
    }
    return true;
}

FabricLinkSpec
ReadLink(JsonReader link)
{
    link.ExpectObject({"rate", "delay"});
    FabricLinkSpec spec;
    spec.rate = link["rate"].AsDataRate(1, kMaxRateBps);
    spec.delay = link["delay"].AsDuration(0, kMaxDelayNs);
    return spec;
}

/** A JSON integer >= 0, whether stored signed (built in code) or unsigned (parsed). */
bool
IsUnsignedInteger(const nlohmann::json& v)
{
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

FabricPfcSpec
ReadPfc(JsonReader pfc, uint64_t bufferBytes)
{
    // Like the ECN thresholds, every field is required once "pfc" is given,
    // so turning PFC on is a one-word change that picks up no hidden value.
    pfc.ExpectObject(
        {"enabled", "xoff", "alpha", "xon_delta_bytes", "headroom_bytes", "lossless_priority"});
    FabricPfcSpec spec;
    spec.enabled = pfc["enabled"].AsBool();
    JsonReader xoff = pfc["xoff"];
    const std::string xoffExpected =
        "\"dynamic\" or a static threshold in bytes, an unsigned integer in [1, " +
        std::to_string(bufferBytes) + "] (at most /switch/buffer_bytes)";
    if (xoff.IsPresent() && xoff.Json().is_string())
    {
        if (xoff.AsString() != "dynamic")
        {
            xoff.Fail(xoffExpected);
        }
        spec.xoffBytes = 0;
        spec.alpha = pfc["alpha"].AsNumber(kMinAlpha,
                                           kMaxAlpha,
                                           "the fraction of the free shared buffer an ingress "
                                           "may hold; required because xoff is \"dynamic\"");
    }
    else if (xoff.IsPresent() && IsUnsignedInteger(xoff.Json()))
    {
        spec.xoffBytes =
            static_cast<uint32_t>(xoff.AsUnsigned(1,
                                                  std::min<uint64_t>(bufferBytes, UINT32_MAX),
                                                  "at most /switch/buffer_bytes"));
        if (pfc["alpha"].IsPresent())
        {
            pfc["alpha"].Fail("no key here (xoff is a static threshold, alpha applies only to "
                              "\"dynamic\")",
                              JsonReader::Describe(pfc["alpha"].Json()));
        }
    }
    else
    {
        xoff.Fail(xoffExpected);
    }
    spec.xonDeltaBytes = static_cast<uint32_t>(pfc["xon_delta_bytes"].AsUnsigned(
        0,
        spec.xoffBytes ? spec.xoffBytes : std::min<uint64_t>(bufferBytes, UINT32_MAX),
        spec.xoffBytes ? "at most xoff: XON = xoff - xon_delta_bytes"
                       : "at most /switch/buffer_bytes"));
    JsonReader headroom = pfc["headroom_bytes"];
    if (headroom.IsPresent() && headroom.Json().is_null())
    {
        spec.headroomBytes = 0;
    }
    else
    {
        if (headroom.IsPresent() && !IsUnsignedInteger(headroom.Json()))
        {
            headroom.Fail("null (sized from each port's link) or bytes, an unsigned integer in "
                          "[9000, " +
                          std::to_string(std::min<uint64_t>(bufferBytes, UINT32_MAX)) + "]");
        }
        spec.headroomBytes = static_cast<uint32_t>(headroom.AsUnsigned(
            kJumboFrameBytes,
            std::min<uint64_t>(bufferBytes, UINT32_MAX),
            "null (sized from each port's link) or at least one 9000-byte jumbo frame"));
    }
    JsonReader priority = pfc["lossless_priority"];
    spec.losslessPriority = static_cast<uint8_t>(priority.AsUnsigned(0, 7, "an 802.1p priority"));
    if (spec.losslessPriority == kControlPriority)
    {
        priority.Fail("an 802.1p priority in [0, 7] other than 6 (the control class's, which is "
                      "never paused)",
                      "6");
    }
    return spec;
}

/** /name and /description. */
void
ReadIdentity(const JsonReader& root, FabricSpec& spec)
{
    spec.name = root["name"].AsString();
    if (!IsValidName(spec.name))
    {
        root["name"].Fail("a non-empty name of letters, digits, '.', '_' and '-'");
    }
    spec.description = root["description"].AsString();
    if (!IsOneLine(spec.description))
    {
        root["description"].Fail("a non-empty one-line description");
    }
}

/** /clos: the shape of one plane. */
void
ReadClos(JsonReader clos, FabricSpec& spec)
{
    clos.ExpectObject({"leaves", "spines", "hosts_per_leaf", "links_per_leaf_spine"});
    spec.leavesPerPlane = static_cast<uint32_t>(clos["leaves"].AsUnsigned(1, kMaxHosts));
    const bool multiLeaf = spec.leavesPerPlane > 1;
    spec.spinesPerPlane = static_cast<uint32_t>(
        clos["spines"].AsUnsigned(multiLeaf ? 1 : 0,
                                  kMaxSpines,
                                  multiLeaf ? "/clos/leaves > 1, and leaves reach each other "
                                              "only through spines"
                                            : ""));
    // Bounding hosts_per_leaf by the leaf count keeps the product, the host
    // count, within the 16-bit host index and reports it where it is set.
    spec.hostsPerLeaf = static_cast<uint32_t>(clos["hosts_per_leaf"].AsUnsigned(
        1,
        kMaxHosts / spec.leavesPerPlane,
        "/clos/leaves * /clos/hosts_per_leaf is at most 65535: a host index has 16 bits"));
    if (spec.spinesPerPlane > 0)
    {
        spec.linksPerLeafSpine = static_cast<uint32_t>(
            clos["links_per_leaf_spine"].AsUnsigned(1, kMaxLinksPerLeafSpine));
    }
    else if (clos["links_per_leaf_spine"].IsPresent())
    {
        // A count of links that do not exist is a contradiction, not a default.
        clos["links_per_leaf_spine"].AsUnsigned(
            0,
            0,
            "/clos/spines is 0, so there are no leaf-spine links; the key may be omitted");
    }
}

/** /links: the leaf-spine class exactly when the planes have spines. */
void
ReadLinks(JsonReader links, FabricSpec& spec)
{
    links.ExpectObject({"host_leaf", "leaf_spine"});
    spec.hostLink = ReadLink(links["host_leaf"]);
    if (spec.spinesPerPlane > 0)
    {
        if (!links["leaf_spine"].IsPresent())
        {
            links["leaf_spine"].Fail(
                "an object with keys rate, delay (required because /clos/spines > 0)");
        }
        spec.fabricLink = ReadLink(links["leaf_spine"]);
    }
    else if (links["leaf_spine"].IsPresent())
    {
        links["leaf_spine"].Fail(
            "no key here (/clos/spines is 0, so there are no leaf-spine links)");
    }
}

/** /switch/ecn; the thresholds lie within one port's buffer. */
FabricEcnSpec
ReadEcn(JsonReader ecn, uint64_t portBuffer)
{
    ecn.ExpectObject({"enabled", "kmin_bytes", "kmax_bytes", "pmax"});
    FabricEcnSpec spec;
    spec.enabled = ecn["enabled"].IsPresent() ? ecn["enabled"].AsBool() : true;
    // Thresholds are required even when marking is disabled, so that turning
    // it on is a one-word change that cannot pick up hidden defaults.
    spec.kminBytes = static_cast<uint32_t>(
        ecn["kmin_bytes"].AsUnsigned(0, portBuffer, "at most /switch/port_buffer_bytes"));
    spec.kmaxBytes = static_cast<uint32_t>(
        ecn["kmax_bytes"].AsUnsigned(spec.kminBytes,
                                     portBuffer,
                                     "at least kmin_bytes, at most /switch/port_buffer_bytes"));
    spec.pmax = ecn["pmax"].AsNumber(0.0, 1.0, "a probability");
    return spec;
}

/** /switch; its PFC headroom is checked against the whole fabric's shape and links. */
void
ReadSwitch(JsonReader sw, FabricSpec& spec)
{
    sw.ExpectObject({"buffer_bytes", "port_buffer_bytes", "ecn", "detection_delay", "pfc"});
    spec.switches.bufferBytes =
        sw["buffer_bytes"].AsUnsigned(kJumboFrameBytes, kMaxSwitchBufferBytes);
    spec.switches.portBufferBytes = static_cast<uint32_t>(sw["port_buffer_bytes"].AsUnsigned(
        kJumboFrameBytes,
        std::min(spec.switches.bufferBytes, kMaxPortBufferBytes),
        "at least one 9000-byte jumbo frame, at most /switch/buffer_bytes"));
    spec.switches.ecn = ReadEcn(sw["ecn"], spec.switches.portBufferBytes);
    spec.switches.detectionDelay = sw["detection_delay"].AsDuration(0, kMaxDelayNs);
    if (sw["pfc"].IsPresent())
    {
        spec.switches.pfc = ReadPfc(sw["pfc"], spec.switches.bufferBytes);
        const uint64_t headroom = spec.MaxSwitchHeadroomBytes();
        if (headroom >= spec.switches.bufferBytes)
        {
            sw["buffer_bytes"].Fail(
                "more than the PFC headroom reserved in the largest switch (" +
                    std::to_string(headroom) +
                    " bytes: every port's headroom, /switch/pfc/headroom_bytes or sized from its "
                    "link) so that some shared buffer remains",
                std::to_string(spec.switches.bufferBytes));
        }
    }
}

FabricSpec
Parse(const nlohmann::json& j, const std::string& sourceFile)
{
    FabricSpec spec;
    spec.sourceFile = sourceFile;

    JsonReader root(j, sourceFile);
    root.ExpectObject(
        {"name", "description", "planes", "clos", "hosts", "links", "switch", "host", "routing"});
    ReadIdentity(root, spec);
    spec.planes = static_cast<uint32_t>(root["planes"].AsUnsigned(1, kMaxPlanes));
    ReadClos(root["clos"], spec);
    if (root["hosts"].IsPresent())
    {
        root["hosts"].AsUnsigned(
            spec.Hosts(),
            spec.Hosts(),
            "/clos/leaves * /clos/hosts_per_leaf = " + std::to_string(spec.leavesPerPlane) + " * " +
                std::to_string(spec.hostsPerLeaf));
    }
    ReadLinks(root["links"], spec);
    ReadSwitch(root["switch"], spec);

    JsonReader host = root["host"];
    host.ExpectObject({"port_buffer_bytes"});
    spec.host.portBufferBytes = static_cast<uint32_t>(
        host["port_buffer_bytes"].AsUnsigned(kJumboFrameBytes,
                                             kMaxPortBufferBytes,
                                             "at least one 9000-byte jumbo frame"));

    JsonReader routing = root["routing"];
    routing.ExpectObject({"convergence_delay"});
    spec.routingConvergenceDelay = routing["convergence_delay"].AsDuration(0, kMaxDelayNs);

    return spec;
}

std::string
DurationToJson(Time t)
{
    // A negative Time (possible only in a spec built in code) is written out
    // as such so that parsing it back reports it rather than wrapping around.
    int64_t ns = t.GetNanoSeconds();
    return ns < 0 ? "-" + FormatDuration(static_cast<uint64_t>(-(ns + 1)) + 1)
                  : FormatDuration(static_cast<uint64_t>(ns));
}

nlohmann::json
LinkToJson(const FabricLinkSpec& link)
{
    return {{"rate", FormatRate(link.rate.GetBitRate())}, {"delay", DurationToJson(link.delay)}};
}

} // namespace

double
FabricSpec::LeafOversubscription() const
{
    if (spinesPerPlane == 0)
    {
        return 1.0;
    }
    double up = static_cast<double>(spinesPerPlane) * linksPerLeafSpine *
                static_cast<double>(fabricLink.rate.GetBitRate());
    double down =
        static_cast<double>(hostsPerLeaf) * static_cast<double>(hostLink.rate.GetBitRate());
    return up / down;
}

uint64_t
FabricSpec::MaxSwitchHeadroomBytes() const
{
    const FabricPfcSpec& pfc = switches.pfc;
    if (!pfc.enabled)
    {
        return 0;
    }
    auto portHeadroom = [&pfc](const FabricLinkSpec& link) -> uint64_t {
        return pfc.headroomBytes
                   ? pfc.headroomBytes
                   : PfcAutoHeadroomBytes(link.rate.GetBitRate(), link.delay, kJumboFrameBytes);
    };
    const uint64_t uplinks = uint64_t(spinesPerPlane) * linksPerLeafSpine;
    const uint64_t leaf =
        hostsPerLeaf * portHeadroom(hostLink) + (uplinks ? uplinks * portHeadroom(fabricLink) : 0);
    const uint64_t spine =
        spinesPerPlane ? uint64_t(leavesPerPlane) * linksPerLeafSpine * portHeadroom(fabricLink)
                       : 0;
    return std::max(leaf, spine);
}

FabricSpec
ParseFabricSpec(const nlohmann::json& j, const std::string& sourceFile)
{
    try
    {
        return Parse(j, sourceFile);
    }
    catch (const FabricSpecError&)
    {
        throw;
    }
    catch (const ConfigError& e)
    {
        throw FabricSpecError(e.what());
    }
    catch (const nlohmann::json::exception& e)
    {
        // Unreachable if every read is type-checked first; kept so that a
        // slip there still names the file instead of escaping as a crash.
        throw FabricSpecError(sourceFile + ": /: expected a readable fabric description, got " +
                              e.what());
    }
}

FabricSpec
LoadFabricSpec(const std::string& path)
{
    nlohmann::json j;
    try
    {
        j = LoadJsonFile(path);
    }
    catch (const ConfigError& e)
    {
        throw FabricSpecError(e.what());
    }
    return ParseFabricSpec(j, path);
}

nlohmann::json
FabricSpecToJson(const FabricSpec& spec)
{
    nlohmann::json clos = {{"leaves", spec.leavesPerPlane},
                           {"spines", spec.spinesPerPlane},
                           {"hosts_per_leaf", spec.hostsPerLeaf}};
    nlohmann::json links = {{"host_leaf", LinkToJson(spec.hostLink)}};
    if (spec.spinesPerPlane > 0)
    {
        clos["links_per_leaf_spine"] = spec.linksPerLeafSpine;
        links["leaf_spine"] = LinkToJson(spec.fabricLink);
    }
    const FabricEcnSpec& ecn = spec.switches.ecn;
    const FabricPfcSpec& pfc = spec.switches.pfc;
    nlohmann::json pfcJson = {{"enabled", pfc.enabled}};
    if (pfc.xoffBytes)
    {
        pfcJson["xoff"] = pfc.xoffBytes;
    }
    else
    {
        pfcJson["xoff"] = "dynamic";
        pfcJson["alpha"] = pfc.alpha;
    }
    pfcJson["xon_delta_bytes"] = pfc.xonDeltaBytes;
    pfcJson["headroom_bytes"] =
        pfc.headroomBytes ? nlohmann::json(pfc.headroomBytes) : nlohmann::json(nullptr);
    pfcJson["lossless_priority"] = pfc.losslessPriority;
    return {
        {"name", spec.name},
        {"description", spec.description},
        {"planes", spec.planes},
        {"clos", clos},
        {"hosts", spec.Hosts()},
        {"links", links},
        {"switch",
         {{"buffer_bytes", spec.switches.bufferBytes},
          {"port_buffer_bytes", spec.switches.portBufferBytes},
          {"ecn",
           {{"enabled", ecn.enabled},
            {"kmin_bytes", ecn.kminBytes},
            {"kmax_bytes", ecn.kmaxBytes},
            {"pmax", ecn.pmax}}},
          {"detection_delay", DurationToJson(spec.switches.detectionDelay)},
          {"pfc", pfcJson}}},
        {"host", {{"port_buffer_bytes", spec.host.portBufferBytes}}},
        {"routing", {{"convergence_delay", DurationToJson(spec.routingConvergenceDelay)}}},
    };
}

} // namespace ns3
