/*
 * Dcqcn: the reaction point of DCQCN (Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments", SIGCOMM 2015), as an RdmaCongestionOps.
 * The congestion point is the fabric's RED/ECN marking (FabricPort), the
 * notification point the receiving RoCEv2 transport (at most one CNP per
 * queue pair per CnpInterval).
 *
 * Per flow (queue pair): current rate Rc, target rate Rt, alpha.
 * - CNP: Rt = Rc; Rc = Rc (1 - alpha/2); alpha = (1 - g) alpha + g; the
 *   timer and byte-counter stages restart.
 * - Every AlphaTimer without a CNP: alpha = (1 - g) alpha.
 * - Rate increase events: every RateIncreaseTimer, and every ByteCounter
 *   bytes sent. With T and B the stage counts since the last cut and F =
 *   FastRecoverySteps: fast recovery while max(T, B) < F (Rc = (Rt + Rc)/2);
 *   hyper increase when min(T, B) > F (Rt += i x HyperIncreaseRate,
 *   i = min(T, B) - F); additive increase otherwise (Rt += AdditiveIncreaseRate);
 *   each followed by Rc = (Rt + Rc)/2, Rt capped at the line rate.
 * - Rc never below MinRate. Flows start at line rate.
 *
 * Defaults are the paper's (g = 1/256, 55 us timers, 10 MB byte counter,
 * F = 5, R_AI = 40 Mb/s) except where it gives none (R_HAI, minimum rate):
 * those follow the ratios of Mellanox's defaults used in the HPCC ns-3
 * simulator (R_HAI = 10 x R_AI, minimum 100 Mb/s).
 */
#ifndef METAROCE_DCQCN_H
#define METAROCE_DCQCN_H

#include "rdma-congestion-ops.h"

#include "ns3/data-rate.h"

namespace ns3
{

class Dcqcn : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();

    /** DCQCN's per-flow state. */
    struct State : RdmaCcExtra
    {
        double alpha = 1.0;
        uint64_t targetBps = 0;
        uint32_t timerStage = 0;
        uint32_t byteStage = 0;
        uint64_t bytes = 0;         //!< since the last byte-counter event
        bool cnpSinceAlpha = false; //!< a CNP arrived since the last alpha update
        int64_t nextAlphaPs = 0;
        int64_t nextIncreasePs = 0;
        uint64_t cuts = 0;
    };

    static const State* GetState(const RdmaFlowCc& flow)
    {
        return static_cast<const State*>(flow.extra.get());
    }

    std::string GetName() const override
    {
        return "Dcqcn";
    }

    void Init(RdmaConnectionCc& conn, uint32_t nFlows) override;
    void InitFlow(RdmaFlowCc& flow, Time now) override;

    void PacketsAcked(RdmaConnectionCc&, RdmaFlowCc&, const RdmaAckEvent&, Time) override
    {
    }

    void PacketsLost(RdmaConnectionCc&, RdmaFlowCc&, uint32_t, Time) override
    {
    }

    void Timeout(RdmaConnectionCc&, RdmaFlowCc&, Time) override
    {
    }

    void CongestionNotified(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now) override;
    void PacketSent(RdmaConnectionCc& conn, RdmaFlowCc& flow, uint32_t bytes, Time now) override;
    Time GetTimerInterval() const override;
    void Timer(RdmaConnectionCc& conn, RdmaFlowCc& flow, Time now) override;
    uint64_t PacingRate(const RdmaFlowCc& flow) const override;

  private:
    void IncreaseEvent(RdmaFlowCc& flow, State& s);

    double m_g;
    Time m_alphaTimer;
    Time m_increaseTimer;
    uint64_t m_byteCounter;
    uint32_t m_fastRecoverySteps;
    DataRate m_additiveIncrease;
    DataRate m_hyperIncrease;
    DataRate m_minRate;
    double m_initialAlpha;
};

} // namespace ns3

#endif
