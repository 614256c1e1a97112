/*
 * FabricBuilder: instantiates a FabricSpec as ns-3 objects: one Node per host
 * (with an RdmaNic, one FabricPort per plane) and per switch (with a
 * FabricSwitch), a FabricChannel per link, and the initial ECMP routes.
 *
 * Attribute precedence, lowest first: the TypeId default (and any
 * Config::SetDefault), then the spec's values (rates, delays, buffers, ECN),
 * then SetPortAttribute/SetSwitchAttribute/SetChannelAttribute on the builder.
 * NIC ports never mark ECN (marking is the switches' job, METAROCE.md #5).
 * With /switch/pfc/enabled, every port (switch and NIC) runs PFC with the
 * spec's lossless priority, every switch its ingress accounting, and the
 * fabric gets a FabricPfcMonitor (Fabric::GetPfcMonitor).
 *
 * It is also the pcap helper of fabric ports (PcapHelperForDevice):
 * EnablePcap("prefix", port) or EnablePcapAll("prefix") write Ethernet
 * (DLT_EN10MB) captures that tshark and Wireshark decode as Ethernet/IPv4/UDP.
 */
#ifndef METAROCE_FABRIC_BUILDER_H
#define METAROCE_FABRIC_BUILDER_H

#include "fabric-spec.h"
#include "fabric.h"

#include "ns3/object-factory.h"
#include "ns3/trace-helper.h"

namespace ns3
{

class FabricBuilder : public PcapHelperForDevice
{
  public:
    explicit FabricBuilder(const FabricSpec& spec);

    void SetPortAttribute(const std::string& name, const AttributeValue& value);
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);
    /** Seed mixed into every switch's ECMP hash seed (default 0). */
    void SetHashSeed(uint32_t seed) { m_hashSeed = seed; }

    /** Creates the fabric; call once per simulation, before Simulator::Run. */
    Ptr<Fabric> Build();

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    Ptr<FabricPort> MakePort(Ptr<Node> node, const FabricLinkSpec& link, bool switchPort);

    FabricSpec m_spec;
    ObjectFactory m_portFactory;
    ObjectFactory m_switchFactory;
    ObjectFactory m_channelFactory;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_portOverrides;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_switchOverrides;
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_channelOverrides;
    uint32_t m_hashSeed = 0;
};

} // namespace ns3

#endif
