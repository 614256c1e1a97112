/*
 * ExperimentSpec: one experiment as a JSON file describes it (format in
 * docs/experiment-format.md): the fabric (a file or inline), the transport
 * and any ns-3 attributes, the workload, the loss model, timed failures, how
 * long to run, the seed and the sampling interval. Parsing is strict: every
 * error names the file, the JSON path and what was expected (ConfigError).
 */
#ifndef METAROCE_EXPERIMENT_SPEC_H
#define METAROCE_EXPERIMENT_SPEC_H

#include "fabric-spec.h"
#include "json-reader.h"

#include "ns3/nstime.h"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

struct ExperimentLoss
{
    double rate = 0;           //!< per-packet loss probability at each affected receive port
    std::string where = "nic"; //!< "nic" (host receive ports: end to end), "host_links", "all"
                               //!< (every port), "plane"
    uint32_t plane = 0;        //!< with where = "plane": every port of that plane
};

struct ExperimentFailure
{
    std::string what;   //!< "link", "switch" or "plane"
    std::string target; //!< link name ("p0/l0-s1#0"), switch name ("p1/s0"), or plane number
    Time at;
    Time until; //!< zero: never restored
};

/** The transport every host runs. */
struct ExperimentTransport
{
    std::string name;   //!< as the experiment names it: an alias ("metaroce") or a TypeId name
    std::string typeId; //!< a subclass of ns3::RdmaTransport
    //! Attribute defaults the name implies ("ns3::Type::Attr" -> value), e.g. irn's recovery
    std::vector<std::pair<std::string, std::string>> defaults;
};

struct ExperimentWorkload
{
    //! How the flows are chosen: "permutation", "bulk", "incast", "all_to_all",
    //! "all_reduce", or empty for a workload type given only by its TypeId
    std::string type;
    std::string typeId; //!< a subclass of ns3::RdmaWorkload
    //! The workload object's own attributes ("attributes" in the experiment)
    std::vector<std::pair<std::string, std::string>> attributes;
    uint64_t messageBytes = 1 << 20;
    uint32_t outstanding = 4;
    uint32_t messagesPerFlow = 0; //!< 0: continuous
    uint32_t senders = 0;         //!< incast: hosts 1..senders write to host `receiver`
    uint32_t receiver = 0;
    std::vector<std::pair<uint32_t, uint32_t>> flows; //!< bulk
    uint32_t ranks = 0;                               //!< collectives: 0 = every host
    uint32_t iterations = 1;
    uint32_t slices = 8;
    Time start;
};

struct ExperimentSpec
{
    std::string name;
    std::string description;
    std::string sourceFile;
    nlohmann::json effective; //!< the document after --set overrides
    FabricSpec fabric;
    ExperimentTransport transport;
    std::vector<std::pair<std::string, std::string>> attributes; //!< "ns3::Type::Attr" -> value
    ExperimentWorkload workload;
    ExperimentLoss loss;
    std::vector<ExperimentFailure> failures;
    Time duration;
    bool stopWhenDone = false; //!< stop as soon as the workload finishes (else at duration)
    uint32_t seed = 1;
    Time sampleInterval;
    std::string scheduler = "ns3::TimingWheelScheduler"; //!< fastest measured (docs/performance.md)
    std::string simulator = "ns3::DefaultSimulatorImpl"; //!< ns-3's event loop
};

/**
 * Applies one override "a.b.c=value" to \p doc: the value is parsed as JSON
 * if it is valid JSON (numbers, true/false, quoted strings, objects), else
 * taken as a string. Keys are split at dots.
 * \throws ConfigError naming the override when it has no '=' or the path
 *         runs through a non-object
 */
void ApplyOverride(nlohmann::json& doc, const std::string& assignment, const std::string& source);

/** Parses an experiment; relative fabric paths are resolved from \p baseDir, then \p repoDir. */
ExperimentSpec ParseExperimentSpec(const nlohmann::json& doc,
                                   const std::string& source,
                                   const std::string& baseDir,
                                   const std::string& repoDir);

/** Loads, applies overrides in order, parses. */
ExperimentSpec LoadExperimentSpec(const std::string& path,
                                  const std::vector<std::string>& overrides,
                                  const std::string& repoDir);

} // namespace ns3

#endif
