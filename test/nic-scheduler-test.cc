/*
 * NicScheduler: a client whose waits are firm (NicTxClient::HasFirmWaits) is
 * skipped until its wait ends instead of being pulled at every wake; one
 * whose waits are not is pulled each time. Either way the packets sent and
 * their times are the same.
 */
#include "fabric-builder.h"
#include "fabric-test-header.h"
#include "fabric-traffic-source.h"
#include "nic-scheduler.h"
#include "test-fabric-util.h"

#include "ns3/simulator.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace ns3;

namespace
{
/**
 * Sends a 4 KiB packet to host 1 whenever it may: always (a greedy client),
 * or paced to one packet per \p gapPs from the first pull, answering "not
 * before" in between, as MetaRoCE's pacing does.
 */
struct PacedClient : NicTxClient
{
    Ptr<RdmaNic> nic;
    int64_t gapPs = 0; //!< 0: greedy
    bool firm = false;
    int64_t nextPs = 0;
    uint32_t pulls = 0;
    std::vector<int64_t> sentPs;
    std::vector<uint32_t> sentPlanes;

    FramePayload PullPacket(uint32_t plane,
                            int64_t nowPs,
                            FrameAddress& addr,
                            int64_t& notBeforePs) override
    {
        ++pulls;
        if (nowPs < nextPs)
        {
            notBeforePs = nextPs;
            return nullptr;
        }
        nextPs = gapPs > 0 ? nowPs + gapPs : 0;
        sentPs.push_back(nowPs);
        sentPlanes.push_back(plane);
        addr = nic->AddressTo(1,
                              plane,
                              uint16_t(30000 + gapPs % 7),
                              FabricTrafficSource::kDefaultPort);
        return FramePayload::Zeros(4096);
    }

    bool HasFirmWaits() const override
    {
        return firm;
    }
};

struct Run
{
    uint32_t pacedPulls;
    std::vector<int64_t> pacedSent;
    std::vector<int64_t> greedySent;
};

Run
RunPair(bool firm)
{
    Simulator::Destroy();
    FabricBuilder builder(test::OneLeafSpec(2, false));
    Ptr<Fabric> fabric = builder.Build();
    Ptr<NicScheduler> scheduler = CreateObject<NicScheduler>();
    scheduler->SetNic(fabric->GetNic(0));
    PacedClient greedy;
    greedy.nic = fabric->GetNic(0);
    PacedClient paced;
    paced.nic = fabric->GetNic(0);
    paced.gapPs = 5'000'000; // 5 us
    paced.firm = firm;
    scheduler->Activate(scheduler->AddClient(&paced), 0);
    scheduler->Activate(scheduler->AddClient(&greedy), 0);
    Simulator::Stop(MicroSeconds(20));
    Simulator::Run();
    Run r{paced.pulls, paced.sentPs, greedy.sentPs};
    Simulator::Destroy();
    return r;
}
} // namespace

TEST_CASE("NicScheduler: a firm wait is skipped without a pull, and nothing else changes", "[nic]")
{
    // 20 us at 100 Gb/s with 4,138-byte frames (4,162 line bytes, 332.96 ns):
    // the port sends about 60 frames. The paced client may send at 0, 5, 10
    // and 15 us. Pulled at every wake (not firm) it is asked about 60 times;
    // with firm waits it is asked twice per packet: the pull that sends, and
    // the next one, which learns the new wait; until that wait is up it is
    // skipped. 4 packets, 8 pulls.
    const Run loose = RunPair(false);
    const Run firm = RunPair(true);
    REQUIRE(loose.pacedSent.size() == 4);
    CHECK(firm.pacedSent == loose.pacedSent);
    CHECK(firm.greedySent == loose.greedySent);
    CHECK(loose.greedySent.size() + loose.pacedSent.size() >= 59);
    CHECK(firm.pacedPulls == 8);
    CHECK(loose.pacedPulls > 50);
}

TEST_CASE("NicScheduler: ActivateAll is Activate on every plane, in plane order", "[nic]")
{
    // MetaRoCE calls ActivateAll after an ACK when it has new data: it must
    // leave the scheduler exactly as Activate on plane 0, 1, ... would, and
    // cost nothing for planes the client is already in. On the two-plane
    // tiny fabric a greedy client activated either way sends the same
    // packets at the same times on both planes; activating it again while it
    // is in every ring changes nothing.
    auto run = [](bool all) {
        Simulator::Destroy();
        FabricBuilder builder(test::TinySpec());
        Ptr<Fabric> fabric = builder.Build();
        Ptr<RdmaNic> nic = fabric->GetNic(0);
        REQUIRE(nic->GetNPlanes() == 2);
        Ptr<NicScheduler> scheduler = CreateObject<NicScheduler>();
        scheduler->SetNic(nic);
        PacedClient greedy;
        greedy.nic = nic;
        const uint32_t index = scheduler->AddClient(&greedy);
        if (all)
        {
            scheduler->ActivateAll(index);
            scheduler->ActivateAll(index); // already in both rings: no-op
        }
        else
        {
            scheduler->Activate(index, 0);
            scheduler->Activate(index, 1);
        }
        Simulator::Stop(MicroSeconds(2));
        Simulator::Run();
        auto sent = std::make_pair(greedy.sentPs, greedy.sentPlanes);
        const uint64_t packets = scheduler->GetSentPackets();
        Simulator::Destroy();
        return std::make_pair(sent, packets);
    };
    const auto each = run(false);
    const auto all = run(true);
    CHECK(each.second > 2); // both planes kept busy for 2 us
    CHECK(all == each);
}
