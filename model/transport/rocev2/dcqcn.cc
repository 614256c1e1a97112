#include "dcqcn.h"

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Dcqcn);

TypeId
Dcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Dcqcn")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("MetaRoce")
            .AddConstructor<Dcqcn>()
            .AddAttribute("G",
                          "Gain of the alpha moving average (paper: 1/256)",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&Dcqcn::m_g),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("InitialAlpha",
                          "Alpha of a new flow (paper: 1)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&Dcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("AlphaTimer",
                          "Alpha decays once per this period without a CNP (paper: 55 us)",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&Dcqcn::m_alphaTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RateIncreaseTimer",
                          "Period of the rate-increase timer (paper: 55 us)",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&Dcqcn::m_increaseTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "Bytes sent per rate-increase event (paper: 10 MB)",
                          UintegerValue(10 * 1000 * 1000),
                          MakeUintegerAccessor(&Dcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FastRecoverySteps",
                          "Increase events of fast recovery after a cut (paper: F = 5)",
                          UintegerValue(5),
                          MakeUintegerAccessor(&Dcqcn::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("AdditiveIncreaseRate",
                          "R_AI (paper: 40 Mb/s)",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&Dcqcn::m_additiveIncrease),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncreaseRate",
                          "R_HAI (10 x R_AI, as Mellanox's defaults)",
                          DataRateValue(DataRate("400Mbps")),
                          MakeDataRateAccessor(&Dcqcn::m_hyperIncrease),
                          MakeDataRateChecker())
            .AddAttribute("MinRate",
                          "Lowest rate a cut may reach",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&Dcqcn::m_minRate),
                          MakeDataRateChecker());
    return tid;
}

void
Dcqcn::Init(RdmaConnectionCc& conn, uint32_t nFlows)
{
    conn.nPaths = nFlows;
    conn.cwnd = 1e12; // rate-based: no connection window
}

void
Dcqcn::InitFlow(RdmaFlowCc& flow, Time now)
{
    auto s = std::make_unique<State>();
    s->alpha = m_initialAlpha;
    s->targetBps = flow.lineBps;
    s->nextAlphaPs = now.GetPicoSeconds() + m_alphaTimer.GetPicoSeconds();
    s->nextIncreasePs = now.GetPicoSeconds() + m_increaseTimer.GetPicoSeconds();
    flow.extra = std::move(s);
    flow.rateBps = flow.lineBps;
    flow.cwnd = 1e12; // rate-based: no window
}

void
Dcqcn::CongestionNotified(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now)
{
    State& s = *static_cast<State*>(flow.extra.get());
    s.targetBps = flow.rateBps;
    flow.rateBps = std::max<uint64_t>(m_minRate.GetBitRate(),
                                      uint64_t(double(flow.rateBps) * (1 - s.alpha / 2)));
    s.alpha = (1 - m_g) * s.alpha + m_g;
    s.cnpSinceAlpha = true;
    s.timerStage = 0;
    s.byteStage = 0;
    s.bytes = 0;
    s.nextIncreasePs = now.GetPicoSeconds() + m_increaseTimer.GetPicoSeconds();
    ++s.cuts;
}

void
Dcqcn::PacketSent(RdmaConnectionCc& conn, RdmaFlowCc& flow, uint32_t bytes, Time now)
{
    State& s = *static_cast<State*>(flow.extra.get());
    s.bytes += bytes;
    if (s.bytes >= m_byteCounter)
    {
        s.bytes -= m_byteCounter;
        ++s.byteStage;
        IncreaseEvent(flow, s);
    }
}

Time
Dcqcn::GetTimerInterval() const
{
    return std::min(m_alphaTimer, m_increaseTimer);
}

void
Dcqcn::Timer(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time time)
{
    State& s = *static_cast<State*>(flow.extra.get());
    const int64_t now = time.GetPicoSeconds();
    if (now >= s.nextAlphaPs)
    {
        if (!s.cnpSinceAlpha)
        {
            s.alpha = (1 - m_g) * s.alpha;
        }
        s.cnpSinceAlpha = false;
        s.nextAlphaPs = now + m_alphaTimer.GetPicoSeconds();
    }
    if (now >= s.nextIncreasePs)
    {
        ++s.timerStage;
        s.nextIncreasePs = now + m_increaseTimer.GetPicoSeconds();
        IncreaseEvent(flow, s);
    }
}

void
Dcqcn::IncreaseEvent(RdmaFlowCc& flow, State& s)
{
    const uint32_t f = m_fastRecoverySteps;
    const uint32_t hi = std::max(s.timerStage, s.byteStage);
    const uint32_t lo = std::min(s.timerStage, s.byteStage);
    if (hi >= f)
    {
        if (lo > f)
        {
            s.targetBps += uint64_t(lo - f) * m_hyperIncrease.GetBitRate();
        }
        else
        {
            s.targetBps += m_additiveIncrease.GetBitRate();
        }
        s.targetBps = std::min(s.targetBps, flow.lineBps);
    }
    flow.rateBps = std::min(flow.lineBps, (s.targetBps + flow.rateBps) / 2);
}

uint64_t
Dcqcn::PacingRate(const RdmaFlowCc& flow) const
{
    return flow.rateBps > 0 ? std::min(flow.rateBps, flow.lineBps) : flow.lineBps;
}

} // namespace ns3
