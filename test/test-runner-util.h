/*
 * Shared set-up for tests that run whole experiments: parse an inline
 * experiment, run it to the end, and strip the figures that depend on the
 * machine rather than the model (wall clock, memory) before comparing.
 */
#ifndef METAROCE_TEST_RUNNER_UTIL_H
#define METAROCE_TEST_RUNNER_UTIL_H

#include "experiment-runner.h"

#include "ns3/config.h"
#include "ns3/simulator.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{
namespace test
{

/** An experiment spec from inline JSON, paths relative to the source tree. */
inline ExperimentSpec
Spec(const nlohmann::json& j)
{
    return ParseExperimentSpec(j, "test.json", METAROCE_SOURCE_DIR, METAROCE_SOURCE_DIR);
}

/** Runs \p j to its end; writes the results folder to \p dir if given. */
inline nlohmann::json
RunOnce(const nlohmann::json& j, const std::string& dir = "")
{
    Config::Reset();
    ExperimentRunner runner(Spec(j));
    runner.Build();
    runner.Run(nullptr);
    nlohmann::json r = runner.Results();
    if (!dir.empty())
    {
        runner.Write(dir);
    }
    Simulator::Destroy();
    return r;
}

/** The results without the fields that depend on the machine (wall clock, memory). */
inline nlohmann::json
Deterministic(nlohmann::json r)
{
    for (const char* k : {"wall_seconds",
                          "events_per_second",
                          "peak_rss_mb",
                          "bytes_per_connection",
                          "bytes_per_bidirectional_connection"})
    {
        r["summary"].erase(k);
    }
    return r;
}

/**
 * A MetaRoCE permutation on the tiny fabric with 1 % loss (so it completes
 * messages and retransmits) run with the top-level key \p key set to
 * \p value: the results without the machine-dependent fields, the
 * provenance and \p key itself. Two values of a key that must not change
 * results (the scheduler, the event loop) must give equal JSON.
 */
inline nlohmann::json
RunWith(const std::string& key, const std::string& value)
{
    nlohmann::json j = nlohmann::json::parse(R"({
      "name": "equivalence",
      "fabric": "topologies/tiny-2p.json",
      "transport": {"type": "metaroce"},
      "workload": {"type": "permutation", "message_bytes": 65536, "outstanding": 2},
      "loss": {"rate": 0.01, "where": "nic"},
      "duration": "200us",
      "seed": 5,
      "sample_interval": "20us"
    })");
    j[key] = value;
    nlohmann::json r = Deterministic(RunOnce(j));
    r["config"].erase(key);
    r.erase("provenance");
    return r;
}

} // namespace test
} // namespace ns3

#endif
