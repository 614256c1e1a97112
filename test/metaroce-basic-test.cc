// First end-to-end checks of the MetaRoCE transport on the tiny 2-plane fabric.
#include "test-metaroce-util.h"

#include <catch2/catch.hpp>

using namespace ns3;
using namespace ns3::test;

TEST_CASE("one write crosses a 2-plane fabric and completes once", "[metaroce]")
{
    MetaRocePair p = MakeMetaRocePair(TinySpec(), 0, 3);
    std::vector<RdmaCompletion> done;
    p.a->SetCompletionCallback(CollectInto(&done));
    const uint32_t rkey = p.b->GetLocalMemory()->Register(0x10000, 1 << 20);
    p.a->PostWrite(0, 7, 0x10000, rkey, 1 << 20);
    Simulator::Stop(MilliSeconds(2));
    Simulator::Run();
    REQUIRE(done.size() == 1);
    CHECK(done[0].status == RdmaStatus::Success);
    CHECK(done[0].wrId == 7);
    CHECK(p.b->GetReceiverStats().placedBytes == (1u << 20));
    INFO("completed at " << done[0].completed.GetMicroSeconds() << " us");
    // 1 MiB over two 100 Gb/s planes is 42 us of serialisation; plus ~5 us of RTT.
    CHECK(done[0].completed.GetMicroSeconds() < 100);
    CHECK(p.a->GetStats().retransmissions == 0);
}
