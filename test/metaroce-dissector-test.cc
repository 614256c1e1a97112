/*
 * analysis/metaroce.lua, the Wireshark dissector of the MetaRoCE headers,
 * checked with tshark:
 *  - on a capture of a real simulation (a 64 KiB WRITE and an 8 KiB SEND
 *    from host 0 to host 3 of tiny-2p, both NIC ports of host 0), where
 *    every field the dissector shows must agree with what the transport did;
 *  - on hand-built frames whose headers the model's own Serialize() wrote,
 *    with values the simulation never produces (SACK bits in every word and
 *    across 32-bit wrap, 64-bit values above 2^63, every flag, a SEND with a
 *    payload), and on foreign UDP/4792 packets the dissector must reject.
 * Skipped with a warning when tshark is not installed.
 */
#include "metaroce-ack-header.h"
#include "metaroce-data-header.h"
#include "test-metaroce-util.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/pcap-file.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/udp-header.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
namespace fs = std::filesystem;

constexpr uint16_t kMetaRocePort = 4792; // MetaRoceTransport's UdpPort default

bool
HaveTshark()
{
    return std::system("command -v tshark >/dev/null 2>&1") == 0;
}

/** A fresh directory under the system temp directory, removed when the test ends (pass or fail). */
struct TempDir
{
    fs::path path;

    TempDir()
    {
        std::string tmpl = (fs::temp_directory_path() / "metaroce-dissector-XXXXXX").string();
        std::vector<char> buf(tmpl.begin(), tmpl.end());
        buf.push_back('\0');
        REQUIRE(mkdtemp(buf.data()) != nullptr);
        path = buf.data();
    }

    ~TempDir()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
    }

    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

/** One frame of tshark's -T fields output: field name -> text ("" when absent). */
struct Frame
{
    std::map<std::string, std::string> f;

    const std::string& S(const std::string& name) const
    {
        return f.at(name);
    }

    bool Has(const std::string& name) const
    {
        return !f.at(name).empty();
    }

    /** The field as an unsigned number (decimal or 0x hex); fails the test if absent. */
    uint64_t U(const std::string& name) const
    {
        const std::string& s = f.at(name);
        INFO("field " << name << " = '" << s << "'");
        REQUIRE_FALSE(s.empty());
        size_t used = 0;
        const uint64_t v = std::stoull(s, &used, s.rfind("0x", 0) == 0 ? 16 : 10);
        REQUIRE(used == s.size());
        return v;
    }

    /** A field with several occurrences (aggregated with ','), as numbers. */
    std::vector<uint64_t> List(const std::string& name) const
    {
        std::vector<uint64_t> out;
        std::stringstream ss(f.at(name));
        std::string item;
        while (std::getline(ss, item, ','))
        {
            out.push_back(std::stoull(item));
        }
        return out;
    }

    bool IsMetaRoce() const
    {
        const std::string& p = S("frame.protocols");
        return p.find(":metaroce") != std::string::npos;
    }
};

const std::vector<std::string> kFields = {
    "frame.number",
    "frame.len",
    "frame.protocols",
    "frame.time_epoch",
    "udp.dstport",
    "_ws.col.Info",
    "_ws.malformed",
    "_ws.lua.error",
    "_ws.expert.message",
    "metaroce.opcode",
    "metaroce.flags",
    "metaroce.flags.first",
    "metaroce.flags.last",
    "metaroce.flags.retx",
    "metaroce.flags.probe",
    "metaroce.flags.ece",
    "metaroce.flags.rnr",
    "metaroce.flags.access_error",
    "metaroce.flags.length_error",
    "metaroce.path",
    "metaroce.epoch",
    "metaroce.version",
    "metaroce.stream",
    "metaroce.conn",
    "metaroce.psn",
    "metaroce.msn",
    "metaroce.msg_len",
    "metaroce.offset",
    "metaroce.raddr",
    "metaroce.rkey",
    "metaroce.match",
    "metaroce.reserved",
    "metaroce.ts",
    "metaroce.payload_len",
    "metaroce.cum",
    "metaroce.trigger",
    "metaroce.rate_hint_mbps",
    "metaroce.ts_echo",
    "metaroce.sack",
    "metaroce.sack_count",
    "metaroce.sack_psn",
    "data.len",
};

struct TsharkResult
{
    int status = -1;
    std::string errors; //!< tshark's stderr
    std::vector<Frame> frames;
};

/** Decodes \p pcap with tshark and analysis/metaroce.lua, one Frame per packet. */
TsharkResult
RunTshark(const fs::path& pcap)
{
    const std::string script = std::string(METAROCE_SOURCE_DIR) + "/analysis/metaroce.lua";
    const fs::path errFile = pcap.string() + ".stderr";
    std::string cmd = "tshark -n -X 'lua_script:" + script + "' -r '" + pcap.string() +
                      "' -T fields -E separator='|' -E occurrence=a -E aggregator=','";
    for (const auto& field : kFields)
    {
        cmd += " -e " + field;
    }
    cmd += " 2>'" + errFile.string() + "'";
    TsharkResult r;
    std::FILE* out = popen(cmd.c_str(), "r");
    REQUIRE(out);
    std::string line;
    char buf[4096];
    while (std::fgets(buf, sizeof(buf), out))
    {
        line += buf;
        if (line.empty() || line.back() != '\n')
        {
            continue; // a long line: keep reading
        }
        line.pop_back();
        Frame frame;
        std::stringstream ss(line);
        std::string value;
        for (const auto& field : kFields)
        {
            std::getline(ss, value, '|');
            frame.f[field] = ss ? value : "";
        }
        r.frames.push_back(frame);
        line.clear();
    }
    r.status = pclose(out);
    std::ifstream err(errFile);
    std::stringstream text;
    text << err.rdbuf();
    r.errors = text.str();
    return r;
}

/** Checks that tshark ran cleanly and that no frame is malformed or hit a Lua error. */
void
CheckClean(const TsharkResult& r)
{
    INFO("tshark stderr: " << r.errors);
    CHECK(r.status == 0); // also fails on a capture cut short (not flushed)
    CHECK(r.errors.find("Lua") == std::string::npos);
    for (const auto& fr : r.frames)
    {
        CAPTURE(fr.S("frame.number"), fr.S("_ws.col.Info"));
        CHECK_FALSE(fr.Has("_ws.malformed"));
        CHECK_FALSE(fr.Has("_ws.lua.error"));
    }
}

std::string
DataInfo(const Frame& fr)
{
    char s[200];
    std::snprintf(s,
                  sizeof(s),
                  "%s conn=%llu path=%llu/%llu psn=%llu msn=%llu off=%llu",
                  fr.U("metaroce.opcode") == 1 ? "WRITE" : "SEND",
                  (unsigned long long)fr.U("metaroce.conn"),
                  (unsigned long long)fr.U("metaroce.path"),
                  (unsigned long long)fr.U("metaroce.epoch"),
                  (unsigned long long)fr.U("metaroce.psn"),
                  (unsigned long long)fr.U("metaroce.msn"),
                  (unsigned long long)fr.U("metaroce.offset"));
    return s;
}

std::string
AckInfo(const Frame& fr)
{
    char s[200];
    std::snprintf(s,
                  sizeof(s),
                  "ACK conn=%llu path=%llu/%llu cum=%llu sacked=%llu hint=%lluMbps",
                  (unsigned long long)fr.U("metaroce.conn"),
                  (unsigned long long)fr.U("metaroce.path"),
                  (unsigned long long)fr.U("metaroce.epoch"),
                  (unsigned long long)fr.U("metaroce.cum"),
                  (unsigned long long)fr.U("metaroce.sack_count"),
                  (unsigned long long)fr.U("metaroce.rate_hint_mbps"));
    return s;
}

bool
StartsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

/** Wraps \p payload (with its MetaRoCE header) in UDP/IPv4/Ethernet as the fabric does. */
Ptr<Packet>
Frame4792(Ptr<Packet> p, uint16_t srcPort = 49152)
{
    UdpHeader udp;
    udp.SetSourcePort(srcPort);
    udp.SetDestinationPort(kMetaRocePort);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.0"));
    ip.SetDestination(Ipv4Address("10.0.0.3"));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetPayloadSize(p->GetSize());
    ip.EnableChecksum();
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address("02:00:00:00:00:01"));
    eth.SetDestination(Mac48Address("02:00:00:00:00:02"));
    eth.SetLengthType(0x0800);
    p->AddHeader(eth);
    return p;
}

/** The serialised bytes of \p h followed by \p payload bytes of zeros. */
std::vector<uint8_t>
Bytes(const Header& h, uint32_t payload = 0)
{
    Ptr<Packet> p = Create<Packet>(payload);
    p->AddHeader(h);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

Ptr<Packet>
FromBytes(const std::vector<uint8_t>& b)
{
    return Create<Packet>(b.data(), b.size());
}
} // namespace

TEST_CASE("Dissector: analysis/metaroce.lua decodes a simulated WRITE and SEND with tshark",
          "[metaroce][dissector]")
{
    if (!HaveTshark())
    {
        WARN("tshark not installed: analysis/metaroce.lua not checked");
        return;
    }
    // tiny-2p: host 0 (leaf 0) -> host 3 (leaf 1), 2 planes of 100 Gb/s.
    // Captured: both NIC ports of host 0 (plane 0 and plane 1), each holding
    // the data packets going out on that plane and the ACKs coming back on it
    // (an ACK returns on the plane its data packet came in on).
    const TempDir tmp;
    const std::string prefix = (tmp.path / "cap").string();
    FabricBuilder builder(test::TinySpec());
    Ptr<Fabric> fabric = builder.Build();
    std::vector<std::string> files;
    for (uint32_t plane = 0; plane < 2; ++plane)
    {
        Ptr<FabricPort> port = fabric->GetNic(0)->GetPort(plane);
        builder.EnablePcap(prefix, port);
        files.push_back(PcapHelper().GetFilenameFromDevice(prefix, port));
    }
    RdmaTransportHelper rdma("ns3::MetaRoceTransport");
    auto transports = rdma.Install(fabric);
    // An idle connection 3 <-> 1 first, so that host 3's endpoint below gets
    // id 1 while host 0's gets id 0: data packets carry the receiver's id,
    // ACKs the sender's, and the test can tell the two apart.
    RdmaTransport::Connect(transports[3], transports[1]);
    auto [ea, eb] = RdmaTransport::Connect(transports[0], transports[3]);
    Ptr<MetaRoceConnection> a = DynamicCast<MetaRoceConnection>(ea);
    Ptr<MetaRoceConnection> b = DynamicCast<MetaRoceConnection>(eb);
    const uint32_t aId = a->GetId();
    const uint32_t bId = b->GetId();
    REQUIRE(aId != bId);
    const uint32_t nPaths = a->GetNPaths();
    std::vector<uint32_t> pathPlane(nPaths);
    for (uint32_t i = 0; i < nPaths; ++i)
    {
        pathPlane[i] = a->GetPathPlane(i);
    }

    // Stream 0: a 64 KiB WRITE (16 packets of 4096 bytes, message 0), then an
    // 8 KiB SEND (2 packets, message 1, the stream's send 0, so match = 0).
    // With 8 paths (4 per plane) and an initial window of 8 packets per
    // path, all 18 packets go out at once: no loss, no retransmission, so
    // every path's sequence numbers run 0, 1, 2, ... and each packet gets
    // exactly one ACK with cum = its sequence + 1 and an empty SACK bitmap.
    const uint64_t writeBase = 0x100000;
    const uint64_t recvBase = 0x200000;
    const uint32_t writeLength = 65536;
    const uint32_t sendLength = 8192;
    const uint32_t rkey = b->GetLocalMemory()->Register(writeBase, writeLength);
    const uint32_t lkey = b->GetLocalMemory()->Register(recvBase, sendLength);
    std::vector<RdmaCompletion> aDone, bDone;
    a->SetCompletionCallback(test::CollectInto(&aDone));
    b->SetCompletionCallback(test::CollectInto(&bDone));
    b->PostRecv(0, 20, recvBase, lkey, sendLength);
    a->PostWrite(0, 10, writeBase, rkey, writeLength);
    a->PostSend(0, 11, sendLength);
    // The rate hint of a lone sender: HintUtilisation (0.95) of host 3's 100 Gb/s port.
    const uint64_t expectedHintMbps =
        uint64_t(0.95 * fabric->GetNic(3)->GetPort(0)->GetDataRate().GetBitRate() / 1e6 + 0.5);
    CHECK(expectedHintMbps == 95000);
    Simulator::Stop(MicroSeconds(100));
    Simulator::Run();
    REQUIRE(aDone.size() == 2);
    CHECK(aDone[0].status == RdmaStatus::Success);
    CHECK(aDone[1].status == RdmaStatus::Success);
    REQUIRE(bDone.size() == 1);
    CHECK(bDone[0].status == RdmaStatus::Success);
    CHECK(a->GetStats().retransmissions == 0);
    CHECK(a->GetStats().dataPackets == 18);

    // The capture files close (and flush) when the last reference to the ports goes.
    Simulator::Destroy();
    a = nullptr;
    b = nullptr;
    ea = nullptr;
    eb = nullptr;
    transports.clear();
    fabric->Dispose();
    fabric = nullptr;

    std::map<uint64_t, uint32_t> writeOffsets; // offset -> packets
    std::map<uint64_t, uint32_t> sendOffsets;
    uint32_t acks = 0;
    uint32_t dataFrames = 0;
    for (uint32_t plane = 0; plane < 2; ++plane)
    {
        CAPTURE(plane);
        const TsharkResult r = RunTshark(files[plane]);
        CheckClean(r);
        REQUIRE_FALSE(r.frames.empty());
        std::map<uint64_t, uint64_t> nextPsn;                     // path -> next data psn
        std::map<uint64_t, uint64_t> nextCum;                     // path -> next ACK cum
        std::map<std::pair<uint64_t, uint64_t>, uint64_t> sentTs; // (path, psn) -> ts
        uint64_t lastTs = 0;
        uint32_t planeData = 0;
        uint32_t planeAcks = 0;
        for (const auto& fr : r.frames)
        {
            CAPTURE(fr.S("frame.number"), fr.S("_ws.col.Info"), fr.S("frame.protocols"));
            // Every frame here is MetaRoCE on UDP port 4792, and decoded as such.
            CHECK(fr.U("udp.dstport") == kMetaRocePort);
            REQUIRE(fr.IsMetaRoce());
            CHECK(fr.U("metaroce.version") == 1);
            CHECK(fr.U("metaroce.epoch") == 0);
            const uint64_t path = fr.U("metaroce.path");
            REQUIRE(path < nPaths);
            CHECK(pathPlane[path] == plane); // paths alternate planes: 0,2,4,6 on plane 0
            const uint64_t opcode = fr.U("metaroce.opcode");
            if (opcode == MetaRoceDataHeader::WRITE || opcode == MetaRoceDataHeader::SEND)
            {
                ++planeData;
                // 4096 payload + 48 MetaRoCE + 8 UDP + 20 IPv4 + 14 Ethernet.
                CHECK(fr.U("frame.len") == 4096 + 48 + 42);
                CHECK(fr.U("metaroce.payload_len") == 4096);
                CHECK(fr.U("data.len") == 4096);
                CHECK(fr.U("metaroce.conn") == bId); // the receiver's connection
                CHECK(fr.U("metaroce.stream") == 0);
                const uint64_t psn = fr.U("metaroce.psn");
                CHECK(psn == nextPsn[path]++);
                const uint64_t ts = fr.U("metaroce.ts");
                CHECK(ts >= lastTs); // one port sends in order
                lastTs = ts;
                // The header's send time (ps) and the capture's (us) agree.
                const double capturedUs = std::stod(fr.S("frame.time_epoch")) * 1e6;
                CHECK(std::abs(double(ts) / 1e6 - capturedUs) <= 1.0);
                sentTs[{path, psn}] = ts;
                const uint64_t offset = fr.U("metaroce.offset");
                CHECK(offset % 4096 == 0);
                const uint64_t flags = fr.U("metaroce.flags");
                CHECK((flags & (MetaRoceDataHeader::RETX | MetaRoceDataHeader::PROBE)) == 0);
                CHECK(fr.U("metaroce.flags.retx") == 0);
                CHECK(fr.U("metaroce.flags.probe") == 0);
                const uint64_t msgLen = fr.U("metaroce.msg_len");
                CHECK(fr.U("metaroce.flags.first") == (offset == 0 ? 1u : 0u));
                CHECK(fr.U("metaroce.flags.last") == (offset + 4096 == msgLen ? 1u : 0u));
                CHECK(((flags & MetaRoceDataHeader::FIRST) != 0) == (offset == 0));
                if (opcode == MetaRoceDataHeader::WRITE)
                {
                    CHECK(msgLen == writeLength);
                    CHECK(fr.U("metaroce.msn") == 0);
                    CHECK(fr.U("metaroce.raddr") == writeBase + offset);
                    CHECK(fr.U("metaroce.rkey") == rkey);
                    CHECK_FALSE(fr.Has("metaroce.match"));
                    ++writeOffsets[offset];
                }
                else
                {
                    CHECK(msgLen == sendLength);
                    CHECK(fr.U("metaroce.msn") == 1);
                    CHECK(fr.U("metaroce.match") == 0);
                    CHECK_FALSE(fr.Has("metaroce.rkey"));
                    CHECK_FALSE(fr.Has("metaroce.raddr"));
                    CHECK(fr.S("metaroce.reserved") == "0000000000000000");
                    ++sendOffsets[offset];
                }
                CHECK(StartsWith(fr.S("_ws.col.Info"), DataInfo(fr)));
                CHECK_FALSE(fr.Has("metaroce.cum"));
            }
            else
            {
                REQUIRE(opcode == MetaRoceAckHeader::kOpcode);
                ++planeAcks;
                CHECK(fr.U("frame.len") == 64 + 42);
                CHECK_FALSE(fr.Has("data.len"));
                CHECK(fr.U("metaroce.conn") == aId);         // the data sender's connection
                CHECK((fr.U("metaroce.flags") & 0x0e) == 0); // no RNR/access/length error
                const uint64_t trigger = fr.U("metaroce.trigger");
                const uint64_t cum = fr.U("metaroce.cum");
                // In order on every path: the ACK of psn t says "all below t+1".
                CHECK(cum == trigger + 1);
                CHECK(cum == ++nextCum[path]);
                CHECK(trigger < nextPsn[path]); // answers a packet sent earlier
                CHECK(fr.U("metaroce.sack_count") == 0);
                CHECK_FALSE(fr.Has("metaroce.sack_psn"));
                CHECK(fr.S("metaroce.sack") == std::string(64, '0'));
                CHECK(fr.U("metaroce.rate_hint_mbps") == expectedHintMbps);
                // The timestamp echo is the send time of the packet it answers.
                const auto sent = sentTs.find({path, trigger});
                REQUIRE(sent != sentTs.end());
                CHECK(fr.U("metaroce.ts_echo") == sent->second);
                CHECK(fr.S("_ws.col.Info") == AckInfo(fr));
                CHECK_FALSE(fr.Has("metaroce.psn"));
            }
        }
        CHECK(planeData > 0);
        CHECK(planeAcks == planeData); // one ACK per data packet
        // Every path's ACKs caught up with its data.
        for (const auto& [path, next] : nextPsn)
        {
            CHECK(nextCum[path] == next);
        }
        dataFrames += planeData;
        acks += planeAcks;
    }
    // Both planes together: each 4096-byte piece of each message exactly once.
    CHECK(dataFrames == 18);
    CHECK(acks == 18);
    REQUIRE(writeOffsets.size() == 16);
    for (uint32_t i = 0; i < 16; ++i)
    {
        CHECK(writeOffsets[i * 4096] == 1);
    }
    REQUIRE(sendOffsets.size() == 2);
    CHECK(sendOffsets[0] == 1);
    CHECK(sendOffsets[4096] == 1);
}

TEST_CASE("Dissector: analysis/metaroce.lua on hand-built headers and foreign packets",
          "[metaroce][dissector]")
{
    if (!HaveTshark())
    {
        WARN("tshark not installed: analysis/metaroce.lua not checked");
        return;
    }
    const TempDir tmp;
    const fs::path file = tmp.path / "handmade.pcap";
    PcapFile pcap;
    pcap.Open(file.string(), std::ios::out);
    REQUIRE_FALSE(pcap.Fail());
    pcap.Init(PcapHelper::DLT_EN10MB, 65535);
    uint32_t usec = 0;
    auto write = [&](Ptr<Packet> p) { pcap.Write(0, usec++, Frame4792(p)); };

    // 1: an ACK with every flag but RNR, SACK bits in all four words and at
    //    both ends of bytes and words, and a cumulative sequence close to
    //    2^32 so the SACKed sequences wrap (bit i = cum + 1 + i mod 2^32).
    MetaRoceAckHeader ack;
    ack.flags =
        MetaRoceAckHeader::ECE | MetaRoceAckHeader::ACCESS_ERROR | MetaRoceAckHeader::LENGTH_ERROR;
    ack.pathId = 258;
    ack.pathEpoch = 3;
    ack.connection = 0x01020304;
    ack.cumulativeSeq = 4294967200u;
    ack.triggerSeq = 4294967210u;
    ack.rateHintMbps = 12345;
    ack.timestampEchoPs = 0x0102030405060708ull;
    const std::vector<uint32_t> bits = {0, 7, 8, 63, 64, 130, 255};
    for (uint32_t bit : bits)
    {
        ack.sack.Set(bit);
    }
    write(FromBytes(Bytes(ack)));
    // 2: an ACK with a full bitmap, no flags, no hint.
    MetaRoceAckHeader full;
    full.cumulativeSeq = 7;
    for (uint32_t bit = 0; bit < SackBitmap::kBits; ++bit)
    {
        full.sack.Set(bit);
    }
    write(FromBytes(Bytes(full)));
    // 3: a SEND retransmitted as a probe, the last 100 bytes of its message,
    //    with a timestamp above 2^63 (the dissector must show it unsigned).
    MetaRoceDataHeader send;
    send.opcode = MetaRoceDataHeader::SEND;
    send.flags = MetaRoceDataHeader::LAST | MetaRoceDataHeader::RETX | MetaRoceDataHeader::PROBE;
    send.pathId = 5;
    send.pathEpoch = 2;
    send.stream = 7;
    send.connection = 99;
    send.pathSeq = 123456;
    send.messageSeq = 9;
    send.messageLength = 8292;
    send.offset = 8192;
    send.keyOrMatch = 4;
    send.timestampPs = 0xfedcba9876543210ull;
    write(FromBytes(Bytes(send, 100)));
    // 4: a header-only WRITE with a remote address above 2^63.
    MetaRoceDataHeader wr;
    wr.flags = MetaRoceDataHeader::FIRST;
    wr.remoteAddress = 0x8000000000000001ull;
    wr.keyOrMatch = 0xdeadbeef;
    wr.messageLength = 4096;
    wr.pathSeq = 42;
    write(FromBytes(Bytes(wr)));
    // 5-8: not MetaRoCE, though on UDP port 4792: version 2, opcode 0x03, a
    //      WRITE header cut to 47 bytes, an ACK cut to 60 bytes.
    std::vector<uint8_t> v2 = Bytes(wr, 16);
    v2[5] = 2;
    write(FromBytes(v2));
    std::vector<uint8_t> op3 = Bytes(wr, 16);
    op3[0] = 0x03;
    write(FromBytes(op3));
    std::vector<uint8_t> shortData = Bytes(wr);
    shortData.resize(47);
    write(FromBytes(shortData));
    std::vector<uint8_t> shortAck = Bytes(ack);
    shortAck.resize(60);
    write(FromBytes(shortAck));
    pcap.Close();

    const TsharkResult r = RunTshark(file);
    CheckClean(r);
    REQUIRE(r.frames.size() == 8);

    {
        const Frame& fr = r.frames[0];
        CAPTURE(fr.S("_ws.col.Info"));
        REQUIRE(fr.IsMetaRoce());
        CHECK(fr.U("metaroce.opcode") == 0x10);
        CHECK(fr.U("metaroce.flags") == 0x0d);
        CHECK(fr.U("metaroce.flags.ece") == 1);
        CHECK(fr.U("metaroce.flags.rnr") == 0);
        CHECK(fr.U("metaroce.flags.access_error") == 1);
        CHECK(fr.U("metaroce.flags.length_error") == 1);
        CHECK_FALSE(fr.Has("metaroce.flags.first"));
        CHECK(fr.U("metaroce.path") == 258);
        CHECK(fr.U("metaroce.epoch") == 3);
        CHECK(fr.U("metaroce.version") == 1);
        CHECK(fr.U("metaroce.conn") == 0x01020304);
        CHECK(fr.U("metaroce.cum") == 4294967200u);
        CHECK(fr.U("metaroce.trigger") == 4294967210u);
        CHECK(fr.U("metaroce.rate_hint_mbps") == 12345);
        CHECK(fr.U("metaroce.ts_echo") == 0x0102030405060708ull);
        CHECK(fr.U("metaroce.sack_count") == bits.size());
        // Word 0 first, each word big-endian: bit 0 is the last byte of word 0.
        CHECK(fr.S("metaroce.sack") == "8000000000000181"
                                       "0000000000000001"
                                       "0000000000000004"
                                       "8000000000000000");
        std::vector<uint64_t> expected;
        for (uint32_t bit : bits)
        {
            expected.push_back((uint64_t(ack.cumulativeSeq) + 1 + bit) % (uint64_t(1) << 32));
        }
        CHECK(fr.List("metaroce.sack_psn") == expected); // ..., 35, 160 after the wrap
        CHECK(fr.S("_ws.col.Info") ==
              "ACK conn=16909060 path=258/3 cum=4294967200 sacked=7 hint=12345Mbps "
              "[ECE,ACCESS_ERROR,LENGTH_ERROR]");
        CHECK(fr.S("_ws.expert.message").find("ACK reports an error") != std::string::npos);
    }
    {
        const Frame& fr = r.frames[1];
        CAPTURE(fr.S("_ws.col.Info"));
        REQUIRE(fr.IsMetaRoce());
        CHECK(fr.U("metaroce.flags") == 0);
        CHECK(fr.U("metaroce.sack_count") == 256);
        const std::vector<uint64_t> psns = fr.List("metaroce.sack_psn");
        REQUIRE(psns.size() == 256);
        CHECK(psns.front() == 8);
        CHECK(psns.back() == 263);
        CHECK(fr.S("_ws.col.Info") == "ACK conn=0 path=0/0 cum=7 sacked=256 hint=0Mbps");
    }
    {
        const Frame& fr = r.frames[2];
        CAPTURE(fr.S("_ws.col.Info"));
        REQUIRE(fr.IsMetaRoce());
        CHECK(fr.U("frame.len") == 100 + 48 + 42);
        CHECK(fr.U("metaroce.opcode") == 0x02);
        CHECK(fr.U("metaroce.flags") == 0x0e);
        CHECK(fr.U("metaroce.flags.first") == 0);
        CHECK(fr.U("metaroce.flags.last") == 1);
        CHECK(fr.U("metaroce.flags.retx") == 1);
        CHECK(fr.U("metaroce.flags.probe") == 1);
        CHECK_FALSE(fr.Has("metaroce.flags.ece"));
        CHECK(fr.U("metaroce.path") == 5);
        CHECK(fr.U("metaroce.epoch") == 2);
        CHECK(fr.U("metaroce.stream") == 7);
        CHECK(fr.U("metaroce.conn") == 99);
        CHECK(fr.U("metaroce.psn") == 123456);
        CHECK(fr.U("metaroce.msn") == 9);
        CHECK(fr.U("metaroce.msg_len") == 8292);
        CHECK(fr.U("metaroce.offset") == 8192);
        CHECK(fr.U("metaroce.match") == 4);
        CHECK_FALSE(fr.Has("metaroce.rkey"));
        CHECK_FALSE(fr.Has("metaroce.raddr"));
        CHECK(fr.U("metaroce.ts") == 0xfedcba9876543210ull);
        CHECK(fr.U("metaroce.payload_len") == 100);
        CHECK(fr.U("data.len") == 100);
        CHECK(fr.S("_ws.col.Info") ==
              "SEND conn=99 path=5/2 psn=123456 msn=9 off=8192 [LAST,RETX,PROBE]");
    }
    {
        const Frame& fr = r.frames[3];
        CAPTURE(fr.S("_ws.col.Info"));
        REQUIRE(fr.IsMetaRoce());
        CHECK(fr.U("metaroce.opcode") == 0x01);
        CHECK(fr.U("metaroce.raddr") == 0x8000000000000001ull);
        CHECK(fr.U("metaroce.rkey") == 0xdeadbeef);
        CHECK_FALSE(fr.Has("metaroce.match"));
        CHECK(fr.U("metaroce.payload_len") == 0);
        CHECK_FALSE(fr.Has("data.len"));
        CHECK(fr.S("_ws.col.Info") == "WRITE conn=0 path=0/0 psn=42 msn=0 off=0 [FIRST]");
    }
    for (size_t i = 4; i < 8; ++i)
    {
        const Frame& fr = r.frames[i];
        CAPTURE(i + 1, fr.S("frame.protocols"), fr.S("_ws.col.Info"));
        CHECK(fr.U("udp.dstport") == kMetaRocePort);
        CHECK_FALSE(fr.IsMetaRoce());
        CHECK_FALSE(fr.Has("metaroce.opcode"));
    }
}
