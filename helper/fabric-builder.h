/*
 * FabricBuilder: instantiates a FabricSpec as ns-3 objects: one Node per host
 * (with an RdmaNic, one FabricPort per plane) and per switch (with a
 * FabricSwitch), a FabricChannel per link, and the initial ECMP routes.
 *
 * Attribute precedence, lowest first: the TypeId default (and any
 * Config::SetDefault), then the spec's values (rates, delays, buffers, ECN),
 * then SetPortAttribute/SetSwitchAttribute/SetChannelAttribute on the builder.
 * NIC ports never mark ECN (marking is the switches' job: design decision 5,
 * docs/metaroce-design.md).
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
    void SetHashSeed(uint32_t seed)
    {
        m_hashSeed = seed;
    }

    /** Creates the fabric; call once per simulation, before Simulator::Run. */
    Ptr<Fabric> Build();

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    /** One RdmaNic per host, on a new Node, host index = node index in Fabric::m_hosts. */
    void CreateHosts(Fabric& fabric) const;
    /** One FabricSwitch per switch vertex of the graph, each on a new Node. */
    void CreateSwitches(Fabric& fabric);
    /** A switch of \p plane at graph vertex \p vertex, spec values then overrides applied. */
    Ptr<FabricSwitch> MakeSwitch(uint32_t vertex, uint32_t plane);
    /** The two ports and the channel of link \p d, each port added to its NIC or switch. */
    void ConnectLink(const Ptr<Fabric>& fabric, const FabricLinkDesc& d);
    /** The PFC monitor (with PFC) and the PFC log of the end-of-run checks (in tests). */
    void AttachPfcObservers(const Ptr<Fabric>& fabric) const;
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
