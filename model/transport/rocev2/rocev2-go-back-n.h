/*
 * RoceV2GoBackN: the loss recovery of RoCEv2 NICs, the default
 * RoceV2Recovery.
 * - Responder: accepts only the expected PSN; a packet ahead of it is
 *   discarded and the gap NAK'ed once (PSN sequence error).
 * - Requester: a NAK rewinds to the NAK'ed PSN and everything from there is
 *   sent again; an RNR NAK rewinds to the refused PSN; a timeout
 *   (4.096 us x 2^TimeoutExponent, the IB formula) rewinds to the oldest
 *   unacknowledged PSN. In flight: at most MaxInflightPackets (0: no cap, a
 *   RoCEv2 NIC is rate-limited only).
 * Stateless: everything it acts on is the requester's PSN space.
 */
#ifndef METAROCE_ROCEV2_GO_BACK_N_H
#define METAROCE_ROCEV2_GO_BACK_N_H

#include "rocev2-recovery.h"

namespace ns3
{

class RoceV2GoBackN : public RoceV2Recovery
{
  public:
    static TypeId GetTypeId();
    RoceV2GoBackN();
    ~RoceV2GoBackN() override;

    /** Itself: go-back-N has no state, so the QPs of a connection share one instance. */
    Ptr<RoceV2Recovery> Fork() override;

    uint32_t GetInFlightCap(const RoceV2QpConfig& config) const override;
    int64_t GetRtoPs(const RoceV2QpConfig& config, uint32_t inFlight) const override;

    bool PlacesOutOfOrder() const override
    {
        return false;
    }

    int64_t NextRetransmission(uint32_t una, uint32_t nxt) override
    {
        return -1;
    }

    void PacketSent(uint32_t psn, bool retransmission) override
    {
    }

    void UnaAdvancing(uint32_t una, uint32_t newUna) override
    {
    }

    void AckReceived(RoceV2Requester& tx, uint32_t psn) override;
    void RnrNakReceived(RoceV2Requester& tx, uint32_t psn) override;
    void SequenceNakReceived(RoceV2Requester& tx, uint32_t psn, uint32_t aethPsn) override;
    void RequestFailed(RoceV2Requester& tx, uint32_t psn) override;
    void TimedOut(RoceV2Requester& tx) override;

    void Abort() override
    {
    }

    void ReceiveData(RoceV2Responder& rx,
                     const RoceBthHeader& bth,
                     const Ptr<Packet>& packet,
                     uint32_t psn) override;
};

} // namespace ns3

#endif
