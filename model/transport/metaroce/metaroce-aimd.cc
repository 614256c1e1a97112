#include "metaroce-aimd.h"

#include "sack-bitmap.h"

#include "ns3/boolean.h"
#include "ns3/double.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MetaRoceAimd);
NS_OBJECT_ENSURE_REGISTERED(MetaRoceStaticWindow);

TypeId
MetaRoceAimd::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::MetaRoceAimd")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("MetaRoce")
            .AddConstructor<MetaRoceAimd>()
            .AddAttribute("InitialPathWindow",
                          "Packets a path may have in flight when it starts (model assumption: "
                          "4 paths per plane x 8 = 32 packets of 4 KiB, about 1.2 x the "
                          "bandwidth-delay product of a 100 Gb/s plane with a 10 us RTT)",
                          DoubleValue(8),
                          MakeDoubleAccessor(&MetaRoceAimd::m_initialPathWindow),
                          MakeDoubleChecker<double>(1, SackBitmap::kBits))
            .AddAttribute("MinPathWindow",
                          "Smallest path window, packets",
                          DoubleValue(1),
                          MakeDoubleAccessor(&MetaRoceAimd::m_minPathWindow),
                          MakeDoubleChecker<double>(1, SackBitmap::kBits))
            .AddAttribute("MaxPathWindow",
                          "Largest path window, packets (at most the 256-bit SACK bitmap)",
                          DoubleValue(SackBitmap::kBits),
                          MakeDoubleAccessor(&MetaRoceAimd::m_maxPathWindow),
                          MakeDoubleChecker<double>(1, SackBitmap::kBits))
            .AddAttribute("MaxConnectionWindow",
                          "Largest connection window, packets (0: the sum of MaxPathWindow)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&MetaRoceAimd::m_maxConnectionWindow),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("AdditiveIncrease",
                          "Packets added to a path window per RTT of clean ACKs",
                          DoubleValue(1),
                          MakeDoubleAccessor(&MetaRoceAimd::m_additiveIncrease),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("DecreaseFactor",
                          "Fraction of a path window removed by an ECN echo (once per RTT); "
                          "classic AIMD's 1/2",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&MetaRoceAimd::m_decreaseFactor),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("LossDecrease",
                          "Fraction of a path window removed per loss found in its SACK bitmap "
                          "(0: loss without ECN is not treated as congestion)",
                          DoubleValue(0),
                          MakeDoubleAccessor(&MetaRoceAimd::m_lossDecrease),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("UseRateHints",
                          "Pace each plane to the receiver's fair-share hint (false: line rate)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&MetaRoceAimd::m_useRateHints),
                          MakeBooleanChecker());
    return tid;
}

void
MetaRoceAimd::Init(RdmaConnectionCc& conn, uint32_t nPaths)
{
    conn.nPaths = nPaths;
    conn.cwnd = m_initialPathWindow * nPaths;
}

void
MetaRoceAimd::InitFlow(RdmaFlowCc& path, Time now)
{
    path.cwnd = std::min(m_initialPathWindow, m_maxPathWindow);
}

void
MetaRoceAimd::PacketsAcked(RdmaConnectionCc& conn,
                           RdmaFlowCc& path,
                           const RdmaAckEvent& ack,
                           Time now)
{
    const double maxConn =
        m_maxConnectionWindow > 0 ? m_maxConnectionWindow : m_maxPathWindow * conn.nPaths;
    const int64_t nowPs = now.GetPicoSeconds();
    if (ack.ecnEcho)
    {
        if (nowPs - path.lastDecreasePs >= ack.srtt.GetPicoSeconds())
        {
            path.lastDecreasePs = nowPs;
            const double cut = path.cwnd * m_decreaseFactor;
            path.cwnd = std::max(m_minPathWindow, path.cwnd - cut);
            conn.cwnd = std::max(double(conn.nPaths) * m_minPathWindow,
                                 conn.cwnd - conn.cwnd * m_decreaseFactor / conn.nPaths);
        }
        return;
    }
    if (ack.pathLimited)
    {
        path.cwnd =
            std::min(m_maxPathWindow, path.cwnd + m_additiveIncrease * ack.packets / path.cwnd);
    }
    if (ack.connectionLimited)
    {
        conn.cwnd =
            std::min(maxConn,
                     conn.cwnd + m_additiveIncrease * conn.nPaths * ack.packets / conn.cwnd);
    }
}

void
MetaRoceAimd::PacketsLost(RdmaConnectionCc& conn, RdmaFlowCc& path, uint32_t packets, Time now)
{
    for (uint32_t i = 0; i < packets && m_lossDecrease > 0; ++i)
    {
        path.cwnd = std::max(m_minPathWindow, path.cwnd * (1 - m_lossDecrease));
    }
}

void
MetaRoceAimd::Timeout(RdmaConnectionCc& conn, RdmaFlowCc& path, Time now)
{
    path.cwnd = m_minPathWindow;
}

uint64_t
MetaRoceAimd::PacingRate(const RdmaFlowCc& flow) const
{
    if (!m_useRateHints || flow.advisedBps == 0)
    {
        return flow.lineBps;
    }
    return std::min(flow.advisedBps, flow.lineBps);
}

TypeId
MetaRoceStaticWindow::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MetaRoceStaticWindow")
                            .SetParent<RdmaCongestionOps>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<MetaRoceStaticWindow>()
                            .AddAttribute("PathWindow",
                                          "Packets each path may have in flight, always",
                                          DoubleValue(8),
                                          MakeDoubleAccessor(&MetaRoceStaticWindow::m_pathWindow),
                                          MakeDoubleChecker<double>(1, SackBitmap::kBits));
    return tid;
}

void
MetaRoceStaticWindow::Init(RdmaConnectionCc& conn, uint32_t nPaths)
{
    conn.nPaths = nPaths;
    conn.cwnd = m_pathWindow * nPaths;
}

void
MetaRoceStaticWindow::InitFlow(RdmaFlowCc& path, Time now)
{
    path.cwnd = m_pathWindow;
}

} // namespace ns3
