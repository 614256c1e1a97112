/*
 * Shared set-up for scenario tests: shipped topologies by name, and small
 * fabrics built from inline JSON so each test states its own numbers.
 */
#ifndef METAROCE_TEST_FABRIC_UTIL_H
#define METAROCE_TEST_FABRIC_UTIL_H

#include "fabric-builder.h"
#include "fabric-spec.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ns3
{
namespace test
{

inline std::string
TopologyPath(const std::string& name)
{
    return std::string(METAROCE_SOURCE_DIR) + "/topologies/" + name + ".json";
}

inline FabricSpec
LoadTopology(const std::string& name)
{
    return LoadFabricSpec(TopologyPath(name));
}

/** The tiny-2p topology with JSON overrides merged in (RFC 7386 merge patch). */
inline FabricSpec
TinySpec(const nlohmann::json& patch = nlohmann::json::object())
{
    nlohmann::json j = FabricSpecToJson(LoadTopology("tiny-2p"));
    j.merge_patch(patch);
    return ParseFabricSpec(j, "<test>");
}

} // namespace test
} // namespace ns3

#endif
