// A capture of RoCEv2 traffic decodes as InfiniBand in tshark with no
// plug-in: real BTH/RETH/AETH framing on UDP 4791.
#include "rocev2-connection.h"
#include "rocev2-transport.h"
#include "test-metaroce-util.h"

#include "ns3/uinteger.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace ns3;
using namespace ns3::test;
namespace fs = std::filesystem;

TEST_CASE("rocev2: tshark decodes the capture as InfiniBand (BTH, RETH, AETH)", "[rocev2][pcap]")
{
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        WARN("tshark not installed: RoCEv2 capture not checked");
        return;
    }
    char tmpl[] = "/tmp/rocev2-pcap-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    const fs::path dir(tmpl);
    {
        FabricBuilder builder(TinySpec());
        Ptr<Fabric> fabric = builder.Build();
        builder.EnablePcap((dir / "cap").string(), fabric->GetNic(0)->GetPort(0), false, true);
        RdmaTransportHelper rdma("ns3::RoceV2Transport");
        rdma.SetConnectionAttribute("QueuePairs", UintegerValue(1));
        auto t = rdma.Install(fabric);
        auto [a, b] = RdmaTransport::Connect(t[0], t[3]);
        const uint32_t rkey = b->GetLocalMemory()->Register(0x10000, 16384);
        a->PostWrite(0, 1, 0x10000, rkey, 10000); // 3 packets: FIRST (RETH), MIDDLE, LAST
        b->PostRecv(0, 2, 0, 0, 100);
        a->PostSend(0, 3, 100); // SEND_ONLY, 100 bytes
        Simulator::Stop(MicroSeconds(100));
        Simulator::Run();
        Simulator::Destroy();
        fabric->Dispose(); // flushes the capture
    }
    const std::string pcap = (dir / "cap").string();
    const std::string out = (dir / "fields.txt").string();
    const std::string cmd = "tshark -r " + pcap +
                            " -T fields -E separator=, -e frame.len -e udp.dstport"
                            " -e infiniband.bth.opcode -e infiniband.bth.destqp"
                            " -e infiniband.bth.psn -e infiniband.bth.a"
                            " -e infiniband.reth.va -e infiniband.reth.dmalen"
                            " -e infiniband.aeth.syndrome > " +
                            out + " 2>/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::FILE* f = std::fopen(out.c_str(), "r");
    REQUIRE(f);
    std::vector<std::string> lines;
    char buf[512];
    while (std::fgets(buf, sizeof(buf), f))
    {
        lines.emplace_back(buf);
    }
    std::fclose(f);
    fs::remove_all(dir);
    // Host 0's plane-0 port sends the write's three packets and the send, and
    // receives the responder's ACKs (AckReq on each message's last packet).
    std::map<std::string, int> opcodes;
    for (const auto& l : lines)
    {
        CAPTURE(l);
        std::vector<std::string> f;
        size_t start = 0;
        for (size_t i = 0; i <= l.size(); ++i)
        {
            if (i == l.size() || l[i] == ',' || l[i] == '\n')
            {
                f.push_back(l.substr(start, i - start));
                start = i + 1;
            }
        }
        REQUIRE(f.size() >= 9);
        CHECK(f[1] == "4791");
        REQUIRE_FALSE(f[2].empty()); // decoded as InfiniBand
        const int op = std::stoi(f[2]);
        ++opcodes[f[2]];
        if (op == 6) // RDMA WRITE First: RETH with the whole length
        {
            CHECK(f[0] == std::to_string(42 + 12 + 16 + 4096 + 4));
            CHECK(f[6] == "0x0000000000010000");
            CHECK(f[7] == "10000");
            CHECK(f[4] == "0");
        }
        if (op == 8) // RDMA WRITE Last: 10000 - 8192 = 1808 bytes, AckReq
        {
            CHECK(f[0] == std::to_string(42 + 12 + 1808 + 4));
            CHECK(f[4] == "2");
            CHECK(f[5] == "1");
        }
        if (op == 4) // SEND Only: 100 bytes, PSN 3
        {
            CHECK(f[0] == std::to_string(42 + 12 + 100 + 4));
            CHECK(f[4] == "3");
        }
        if (op == 17) // Acknowledge: AETH syndrome ACK
        {
            CHECK(f[8] == "31");       // 0x1F: ACK, no end-to-end credits
            CHECK(f[0] == "62");       // 42 + BTH 12 + AETH 4 + ICRC 4
            CHECK(f[3] == "0x000100"); // the requester's QP: the first on host 0
        }
    }
    CHECK(opcodes["6"] == 1);
    CHECK(opcodes["7"] == 1);
    CHECK(opcodes["8"] == 1);
    CHECK(opcodes["4"] == 1);
    CHECK(opcodes["17"] >= 2);
}
