/*
 * MetaRoceAimd: the default MetaRoCE congestion control (design decision 4,
 * docs/metaroce-design.md, and the engineering blog's "windows per path and
 * per connection").
 *
 * - Path window: +AdditiveIncrease packets per RTT while ACKs come back
 *   clean and the window limits sending (not when pacing does); an ACK echoing CE cuts it by
 * DecreaseFactor, at most once per the path's smoothed RTT (a mark trims the path that saw it, so
 * the sender's path choice steers new packets to clear paths).
 * - Connection window: caps packets in flight over all paths; it grows by
 *   AdditiveIncrease x paths per RTT (the sum of the paths' growth) and each
 *   path cut removes DecreaseFactor / paths of it, so it falls by about
 *   DecreaseFactor per RTT only when every path is marked.
 * - Loss found in a SACK bitmap, without ECN, is not a congestion signal
 *   (LossDecrease, default 0): ECN marks at Kmin long before a switch buffer
 *   overflows, so a drop without marks is corruption or a failure, and
 *   cutting on it is what makes TCP-like transports collapse under random
 *   loss. A retransmission timeout resets the path to MinPathWindow.
 * - Pacing: to the receiver's fair-share hint when UseRateHints, else line
 *   rate.
 *
 * Every constant is a model assumption (Meta has not published them); the
 * defaults and why are in docs/metaroce-model.md.
 */
#ifndef METAROCE_AIMD_H
#define METAROCE_AIMD_H

#include "rdma-congestion-ops.h"

namespace ns3
{

class MetaRoceAimd : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override
    {
        return "MetaRoceAimd";
    }

    void Init(RdmaConnectionCc& conn, uint32_t nPaths) override;
    void InitFlow(RdmaFlowCc& path, Time now) override;
    void PacketsAcked(RdmaConnectionCc& conn,
                      RdmaFlowCc& path,
                      const RdmaAckEvent& ack,
                      Time now) override;
    void PacketsLost(RdmaConnectionCc& conn, RdmaFlowCc& path, uint32_t packets, Time now) override;
    void Timeout(RdmaConnectionCc& conn, RdmaFlowCc& path, Time now) override;
    uint64_t PacingRate(const RdmaFlowCc& flow) const override;

  private:
    double m_initialPathWindow;
    double m_minPathWindow;
    double m_maxPathWindow;
    double m_maxConnectionWindow;
    double m_additiveIncrease;
    double m_decreaseFactor;
    double m_lossDecrease;
    bool m_useRateHints;
};

/**
 * MetaRoceStaticWindow: windows never change and the receiver's hints are
 * ignored (line-rate pacing). An ablation baseline: what spraying and
 * selective retransmission do without congestion control.
 */
class MetaRoceStaticWindow : public RdmaCongestionOps
{
  public:
    static TypeId GetTypeId();

    std::string GetName() const override
    {
        return "MetaRoceStaticWindow";
    }

    void Init(RdmaConnectionCc& conn, uint32_t nPaths) override;
    void InitFlow(RdmaFlowCc& path, Time now) override;

    void PacketsAcked(RdmaConnectionCc&, RdmaFlowCc&, const RdmaAckEvent&, Time) override
    {
    }

    void PacketsLost(RdmaConnectionCc&, RdmaFlowCc&, uint32_t, Time) override
    {
    }

    void Timeout(RdmaConnectionCc&, RdmaFlowCc&, Time) override
    {
    }

    uint64_t PacingRate(const RdmaFlowCc& flow) const override
    {
        return flow.lineBps;
    }

  private:
    double m_pathWindow;
};

} // namespace ns3

#endif
