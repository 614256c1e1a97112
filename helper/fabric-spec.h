/*
 * FabricSpec: the validated, in-memory form of a JSON fabric description
 * (docs/fabric-format.md). A multi-plane fabric is `planes` identical,
 * independent two-tier Clos networks; every host has one NIC port per plane,
 * port k attached to a leaf of plane k (docs/metaroce-design.md, "plane").
 *
 * Loading never crashes and never fills a required field silently: every
 * problem raises FabricSpecError whose message names the file, the JSON path
 * (e.g. "/links/host_leaf/rate") and what was expected.
 */
#ifndef METAROCE_FABRIC_SPEC_H
#define METAROCE_FABRIC_SPEC_H

#include "json-reader.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * Error raised for any invalid fabric description; what() is user-facing.
 * A ConfigError, so one handler can catch errors of every configuration file.
 */
class FabricSpecError : public ConfigError
{
  public:
    using ConfigError::ConfigError;
};

/** One class of links (all host-leaf links, or all leaf-spine links). */
struct FabricLinkSpec
{
    DataRate rate; //!< line rate of both directions
    Time delay;    //!< one-way propagation delay (includes switch pipeline latency)
};

/** RED-style ECN marking on egress queue bytes (DCQCN's congestion point). */
struct FabricEcnSpec
{
    bool enabled = true;
    uint32_t kminBytes = 0; //!< below: never mark
    uint32_t kmaxBytes = 0; //!< at or above: always mark
    double pmax = 0.0;      //!< marking probability just below Kmax
};

/**
 * Priority Flow Control of every switch and NIC port (docs/fabric-model.md,
 * "PFC"). Off by default: the fabric is then lossy ("resilient RoCE").
 */
struct FabricPfcSpec
{
    bool enabled = false;
    uint32_t xoffBytes = 0;         //!< static XOFF per (ingress, priority); 0: dynamic
    double alpha = 0.125;           //!< dynamic XOFF = alpha x free shared pool
    uint32_t xonDeltaBytes = 18000; //!< XON = XOFF - this
    uint32_t headroomBytes = 0;     //!< per (ingress, lossless priority); 0: sized from the link
    uint8_t losslessPriority = 3;   //!< 802.1p priority of the data class (the lossless one)
};

/** Buffering and marking of every switch of the fabric. */
struct FabricSwitchSpec
{
    uint64_t bufferBytes = 0;     //!< shared buffer of one switch
    uint32_t portBufferBytes = 0; //!< per egress port limit inside that buffer
    FabricEcnSpec ecn;
    Time detectionDelay; //!< local link-down detection before the port leaves ECMP groups
    FabricPfcSpec pfc;
};

/** NIC-side settings of every host. */
struct FabricHostSpec
{
    uint32_t portBufferBytes = 0; //!< egress buffer of one NIC port
};

struct FabricSpec
{
    std::string name;        //!< short identifier, e.g. "clos-64h-4p"
    std::string description; //!< one line: what it is and how it is sized
    std::string sourceFile;  //!< file it was loaded from ("<inline>" for JSON given in code)

    uint32_t planes = 0;         //!< independent Clos planes (>= 1)
    uint32_t leavesPerPlane = 0; //!< leaf (ToR) switches per plane (>= 1)
    uint32_t spinesPerPlane = 0; //!< spine switches per plane (0 only with a single leaf)
    uint32_t hostsPerLeaf = 0;   //!< hosts below each leaf (>= 1)
    uint32_t linksPerLeafSpine =
        0; //!< parallel links between every leaf and every spine (>= 1 when spines > 0)

    FabricLinkSpec hostLink;   //!< host NIC port <-> leaf
    FabricLinkSpec fabricLink; //!< leaf <-> spine (zero when spinesPerPlane == 0)
    FabricSwitchSpec switches;
    FabricHostSpec host;
    Time routingConvergenceDelay; //!< after a link change, fabric-wide ECMP recomputation

    /** Hosts in the fabric: leavesPerPlane * hostsPerLeaf. */
    uint32_t Hosts() const
    {
        return leavesPerPlane * hostsPerLeaf;
    }

    /** Switches in one plane. */
    uint32_t SwitchesPerPlane() const
    {
        return leavesPerPlane + spinesPerPlane;
    }

    /**
     * Uplink capacity of a leaf over its downlink capacity (1.0 = non-blocking).
     * A single-leaf plane (no spines) needs no uplinks and gives 1.0.
     */
    double LeafOversubscription() const;
    /**
     * PFC headroom reserved in the switch with the most (under PFC): a leaf
     * or a spine, each port's headroom from its link (or headroom_bytes),
     * assuming 9000-byte MTUs. 0 when PFC is off.
     */
    uint64_t MaxSwitchHeadroomBytes() const;
};

/**
 * Parses and validates a fabric description.
 * \param j the JSON document
 * \param sourceFile name used in error messages
 * \throws FabricSpecError naming sourceFile, the JSON path and what was expected
 */
FabricSpec ParseFabricSpec(const nlohmann::json& j, const std::string& sourceFile);

/** Reads a file (errors name the file: missing, unreadable, not JSON) and parses it. */
FabricSpec LoadFabricSpec(const std::string& path);

/** The JSON form of a spec (round-trips through ParseFabricSpec). */
nlohmann::json FabricSpecToJson(const FabricSpec& spec);

} // namespace ns3

#endif
