/*
 * Shared set-up for scenario tests: shipped topologies by name, and small
 * fabrics built from inline JSON so each test states its own numbers.
 */
#ifndef METAROCE_TEST_FABRIC_UTIL_H
#define METAROCE_TEST_FABRIC_UTIL_H

#include "fabric-builder.h"
#include "fabric-port.h"
#include "fabric-spec.h"

#include "ns3/error-model.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

/**
 * Random loss with probability \p rate at every NIC receive port of \p hosts
 * (all hosts if empty): each packet to those hosts, data or ACK, is lost
 * with that probability end to end. Streams from \p stream on.
 */
inline void
InstallNicLoss(Ptr<Fabric> fabric, double rate, int64_t stream, std::vector<uint32_t> hosts = {})
{
    if (hosts.empty())
    {
        for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
        {
            hosts.push_back(h);
        }
    }
    for (uint32_t h : hosts)
    {
        for (uint32_t plane = 0; plane < fabric->GetNPlanes(); ++plane)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(rate);
            em->AssignStreams(stream++);
            fabric->GetNic(h)->GetPort(plane)->SetAttribute("ReceiveErrorModel", PointerValue(em));
        }
    }
}

/**
 * One plane, one leaf with \p hosts hosts (100 Gb/s, 1 us links), a 2 MB
 * switch buffer, 1 MB per egress port (the lossy tail-drop limit), 16 MiB
 * NIC buffers (they absorb what PFC holds back), PFC on or off.
 */
inline FabricSpec
OneLeafSpec(uint32_t hosts, bool pfc, const nlohmann::json& pfcPatch = nlohmann::json::object())
{
    nlohmann::json pfcJson = pfcPatch; // nulls kept: they delete keys of the base spec
    pfcJson["enabled"] = pfc;
    return TinySpec(
        {{"name", "one-leaf"},
         {"planes", 1},
         {"clos",
          {{"leaves", 1},
           {"spines", 0},
           {"hosts_per_leaf", hosts},
           {"links_per_leaf_spine", nullptr}}},
         {"hosts", hosts},
         {"links", {{"leaf_spine", nullptr}}},
         {"switch", {{"buffer_bytes", 2000000}, {"port_buffer_bytes", 1000000}, {"pfc", pfcJson}}},
         {"host", {{"port_buffer_bytes", 16u << 20}}}});
}

/**
 * Stands in for a switch or NIC at one end of a bare link: records when
 * frames arrive (checking each is a well-formed frame on the wire), their
 * source ports, and when a pause this port obeyed ended.
 */
struct RecordingSink : FabricPacketSink
{
    std::vector<Time> arrivals;
    std::vector<uint16_t> srcPorts;
    std::vector<Time> resumes;

    void ReceiveFromPort(FabricPort*, FrameRef frame, const FrameInfo& carried, int64_t) override
    {
        FrameInfo info;
        REQUIRE(ParseFrame(*frame.Share(), info));
        REQUIRE(info.bytes == carried.bytes);
        arrivals.push_back(Simulator::Now());
        srcPorts.push_back(info.srcPort);
    }

    void PortResumed(FabricPort*) override
    {
        resumes.push_back(Simulator::Now());
    }
};

} // namespace test
} // namespace ns3

#endif
