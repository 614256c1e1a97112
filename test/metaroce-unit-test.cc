// Algorithm-level tests of MetaRoCE's building blocks, no simulation: each
// states the number it expects and why.
#include "byte-range-set.h"
#include "metaroce-ack-header.h"
#include "metaroce-aimd.h"
#include "metaroce-data-header.h"
#include "metaroce-fair-share.h"
#include "rdma-memory.h"
#include "sack-bitmap.h"

#include "ns3/double.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace ns3;

TEST_CASE("SACK bitmap: set, shift, leading ones, highest", "[metaroce][unit]")
{
    SackBitmap b;
    CHECK(b.Empty());
    CHECK(b.Highest() == -1);
    b.Set(0);
    b.Set(1);
    b.Set(2);
    b.Set(70);
    b.Set(255);
    CHECK(b.LeadingOnes() == 3);
    CHECK(b.Highest() == 255);
    b.ShiftDown(3); // bits 70 and 255 move to 67 and 252
    CHECK(b.LeadingOnes() == 0);
    CHECK(b.Test(67));
    CHECK(b.Test(252));
    CHECK_FALSE(b.Test(70));
    b.ShiftDown(64); // across a word boundary
    CHECK(b.Test(3));
    CHECK(b.Test(188));
    b.ShiftDown(189);
    CHECK(b.Empty());
    SackBitmap full;
    for (uint32_t i = 0; i < 256; ++i)
    {
        full.Set(i);
    }
    CHECK(full.LeadingOnes() == 256);
    CHECK_FALSE(full.Test(256)); // out of range reads as absent
}

TEST_CASE("byte ranges: only new bytes are reported, duplicates add nothing", "[metaroce][unit]")
{
    ByteRangeSet s;
    std::vector<ByteRangeSet::Range> fresh;
    CHECK(s.Add(100, 200, &fresh) == 100);
    CHECK(s.Add(300, 400, &fresh) == 100);
    fresh.clear();
    // Overlaps both and fills the hole: only [200, 300) and [400, 450) are new.
    CHECK(s.Add(150, 450, &fresh) == 150);
    REQUIRE(fresh.size() == 2);
    CHECK(fresh[0] == ByteRangeSet::Range(200, 300));
    CHECK(fresh[1] == ByteRangeSet::Range(400, 450));
    CHECK(s.Ranges().size() == 1);
    CHECK(s.Bytes() == 350);
    CHECK(s.Add(100, 450) == 0);
    CHECK(s.Contains(120, 449));
    CHECK_FALSE(s.Contains(50, 120));
    CHECK(s.Add(450, 460) == 10); // touching ranges merge
    CHECK(s.Ranges().size() == 1);
}

TEST_CASE("MetaRoCE headers: real serialisation, sizes on the wire, truncation rejected",
          "[metaroce][unit]")
{
    MetaRoceDataHeader d;
    d.opcode = MetaRoceDataHeader::WRITE;
    d.flags = MetaRoceDataHeader::LAST | MetaRoceDataHeader::RETX;
    d.pathId = 513;
    d.pathEpoch = 7;
    d.stream = 9;
    d.connection = 0xdeadbeef;
    d.pathSeq = 123456;
    d.messageSeq = 42;
    d.messageLength = 1 << 20;
    d.offset = 8192;
    d.remoteAddress = 0x1234567890ull;
    d.keyOrMatch = 0x101;
    d.timestampPs = 987654321012ull;
    Ptr<Packet> p = Create<Packet>(100);
    p->AddHeader(d);
    CHECK(p->GetSize() == 100 + 48);
    MetaRoceDataHeader r;
    REQUIRE(p->RemoveHeader(r) == 48);
    CHECK(r.pathId == 513);
    CHECK(r.pathEpoch == 7);
    CHECK(r.connection == 0xdeadbeef);
    CHECK(r.pathSeq == 123456);
    CHECK(r.remoteAddress == 0x1234567890ull);
    CHECK(r.timestampPs == 987654321012ull);
    CHECK(r.flags == d.flags);

    // Clear (a sender reuses one header for every packet) leaves exactly a
    // new header's bytes: a field it forgot would leak into the next packet.
    uint8_t cleared[MetaRoceDataHeader::kBytes];
    uint8_t fresh[MetaRoceDataHeader::kBytes];
    d.Clear();
    d.WriteTo(cleared);
    MetaRoceDataHeader().WriteTo(fresh);
    CHECK(std::equal(cleared, cleared + sizeof(cleared), fresh));

    MetaRoceAckHeader a;
    a.flags = MetaRoceAckHeader::ECE;
    a.pathId = 3;
    a.cumulativeSeq = 77;
    a.triggerSeq = 80;
    a.rateHintMbps = 12500;
    a.sack.Set(1);
    a.sack.Set(200);
    Ptr<Packet> q = Create<Packet>();
    q->AddHeader(a);
    CHECK(q->GetSize() == 64);
    MetaRoceAckHeader b;
    REQUIRE(q->RemoveHeader(b) == 64);
    CHECK(b.sack == a.sack);
    CHECK(b.rateHintMbps == 12500);
    CHECK(b.cumulativeSeq == 77);

    // A truncated or foreign buffer is rejected (0 bytes read), never over-read.
    uint8_t raw[47] = {MetaRoceDataHeader::WRITE, 0, 0, 0, 0, 1};
    Ptr<Packet> shortPacket = Create<Packet>(raw, sizeof(raw));
    MetaRoceDataHeader t;
    CHECK(shortPacket->RemoveHeader(t) == 0);
    uint8_t wrongOpcode[64] = {0x55, 0, 0, 0, 0, 1};
    Ptr<Packet> foreign = Create<Packet>(wrongOpcode, sizeof(wrongOpcode));
    MetaRoceAckHeader f;
    CHECK(foreign->RemoveHeader(f) == 0);
}

TEST_CASE("fair share: capacity x utilisation / active senders, quiet senders expire",
          "[metaroce][unit]")
{
    MetaRoceFairShare fs;
    const int64_t us = 1000000; // ps
    fs.Configure(100000000000ull, 0.95, 50 * us);
    CHECK(fs.OnPacket(0, 0) == 95000000000ull);
    for (uint32_t c = 1; c < 8; ++c)
    {
        fs.OnPacket(c, 1 * us);
    }
    // Eight senders: 95 G / 8.
    CHECK(fs.OnPacket(3, 2 * us) == 11875000000ull);
    // Only connection 0 keeps sending; the others fall out between 25 and 50 us
    // after their last packet.
    for (int64_t t = 5; t <= 52; t += 5)
    {
        fs.OnPacket(0, t * us);
    }
    CHECK(fs.Active(52 * us) == 1);
    CHECK(fs.OnPacket(0, 53 * us) == 95000000000ull);
}

TEST_CASE("AIMD: +1 packet per window of clean ACKs, x(1-beta) on ECN once per RTT, "
          "no change on loss",
          "[metaroce][unit]")
{
    Ptr<MetaRoceAimd> cc = CreateObject<MetaRoceAimd>();
    RdmaConnectionCc conn;
    RdmaFlowCc path;
    cc->Init(conn, 4);
    cc->InitFlow(path, Time(0));
    CHECK(path.cwnd == 8);
    CHECK(conn.cwnd == 32);
    RdmaAckEvent ev;
    ev.packets = 1;
    ev.srtt = MicroSeconds(10);
    ev.pathLimited = true;
    ev.connectionLimited = true;
    for (int i = 0; i < 8; ++i)
    {
        cc->PacketsAcked(conn, path, ev, Time(0));
    }
    // 8 ACKs of one packet at cwnd ~8: about +1 (sum of 1/w for w in 8..9).
    CHECK(path.cwnd == Approx(9.0).margin(0.05));
    // Not window-limited: no growth (RFC 7661).
    ev.pathLimited = false;
    const double before = path.cwnd;
    cc->PacketsAcked(conn, path, ev, Time(0));
    CHECK(path.cwnd == before);
    // ECN echo: halved once...
    const double connBefore = conn.cwnd;
    ev.ecnEcho = true;
    cc->PacketsAcked(conn, path, ev, Time(0));
    CHECK(path.cwnd == Approx(before / 2));
    // ...and the connection loses beta / paths of its window: x (1 - 0.5 / 4).
    CHECK(conn.cwnd == Approx(connBefore * 0.875));
    const double afterCut = path.cwnd;
    cc->PacketsAcked(conn, path, ev, Time(0)); // same RTT: no second cut
    CHECK(path.cwnd == afterCut);
    // Loss without ECN does not shrink the window (LossDecrease = 0).
    cc->PacketsLost(conn, path, 3, Time(0));
    CHECK(path.cwnd == afterCut);
    cc->Timeout(conn, path, Time(0));
    CHECK(path.cwnd == 1);
}

TEST_CASE("memory regions: access checks cover the whole range", "[metaroce][unit]")
{
    Ptr<RdmaMemory> m = CreateObject<RdmaMemory>();
    const uint32_t k = m->Register(0x1000, 0x1000, true);
    CHECK(m->CheckAccess(k, 0x1000, 0x1000));
    CHECK(m->CheckAccess(k, 0x1800, 0x800));
    CHECK_FALSE(m->CheckAccess(k, 0x1800, 0x801)); // one byte past the end
    CHECK_FALSE(m->CheckAccess(k, 0xfff, 1));
    CHECK_FALSE(m->CheckAccess(k + 1, 0x1000, 1)); // unknown key
    CHECK_FALSE(m->CheckAccess(k, UINT64_MAX, 2)); // no wrap-around
    const uint8_t data[3] = {1, 2, 3};
    m->Place(k, 0x1ffd, data, 3);
    CHECK(m->Find(k)->bytes[0xffe] == 2);
    CHECK(m->Find(k)->writes[0xfff] == 1);
}
