/*
 * RoceV2SelectiveRepeat: IRN's loss recovery (Mittal et al., "Revisiting
 * Network Support for RDMA", SIGCOMM 2018), a RoceV2Recovery. Meant to run
 * without PFC.
 * - Responder: places out-of-order packets (every packet carries a RETH
 *   naming where it goes; a send's carries the receive's sequence number and
 *   offset, IRN's header extension) and answers each with a NACK carrying the
 *   cumulative PSN (BTH) and the PSN it selectively acknowledges (in the
 *   AETH's MSN field). It tracks up to max(2 x BdpCapPackets, 1024) PSNs
 *   ahead of the expected one.
 * - Requester: keeps a SACK bitmap of the PSNs in flight, enters recovery on
 *   the first NACK and retransmits one lost packet per ACK/NACK until the
 *   recovery point is acknowledged; caps its in-flight packets at the
 *   bandwidth-delay product (BdpCapPackets, IRN's BDP-FC); uses IRN's two
 *   timeouts (RtoLow with at most three packets in flight, RtoHigh
 *   otherwise), after which everything unacknowledged is resent once.
 */
#ifndef METAROCE_ROCEV2_SELECTIVE_REPEAT_H
#define METAROCE_ROCEV2_SELECTIVE_REPEAT_H

#include "rdma-verbs.h"
#include "ring-buffer.h"
#include "rocev2-recovery.h"

namespace ns3
{

class RoceV2SelectiveRepeat : public RoceV2Recovery
{
  public:
    static TypeId GetTypeId();
    RoceV2SelectiveRepeat();
    /** Copies the settings, not the state (Fork). */
    RoceV2SelectiveRepeat(const RoceV2SelectiveRepeat& other);
    ~RoceV2SelectiveRepeat() override;

    Ptr<RoceV2Recovery> Fork() override;

    uint32_t GetInFlightCap(const RoceV2QpConfig& config) const override;
    int64_t GetRtoPs(const RoceV2QpConfig& config, uint32_t inFlight) const override;

    bool PlacesOutOfOrder() const override
    {
        return true;
    }

    int64_t NextRetransmission(uint32_t una, uint32_t nxt) override;
    void PacketSent(uint32_t psn, bool retransmission) override;
    void UnaAdvancing(uint32_t una, uint32_t newUna) override;
    void AckReceived(RoceV2Requester& tx, uint32_t psn) override;
    void RnrNakReceived(RoceV2Requester& tx, uint32_t psn) override;
    void SequenceNakReceived(RoceV2Requester& tx, uint32_t psn, uint32_t aethPsn) override;
    void RequestFailed(RoceV2Requester& tx, uint32_t psn) override;
    void TimedOut(RoceV2Requester& tx) override;
    void Abort() override;

    void ReceiveData(RoceV2Responder& rx,
                     const RoceBthHeader& bth,
                     const Ptr<Packet>& packet,
                     uint32_t psn) override;

  private:
    /** Responder: what arrived for one PSN at or after the expected one. */
    struct Ahead
    {
        bool received = false;
        bool lastOfSend = false;
        RdmaStatus status = RdmaStatus::Success;
        uint32_t sendBytes = 0;
    };

    void QueueNextLost(uint32_t una, uint32_t nxt);
    bool Place(RoceV2Responder& rx,
               const RoceBthHeader& bth,
               const Ptr<Packet>& packet,
               uint32_t psn,
               Ahead& a);
    void DeliverInOrder(RoceV2Responder& rx, const Ahead& a);
    void Apply(RoceV2Responder& rx, const Ahead& a);

    // Requester
    RingBuffer<uint8_t> m_txFlags; //!< per PSN in [una, nxt): kSacked | kRetransmitted
    RingBuffer<uint32_t> m_retxQueue;
    bool m_inRecovery = false;
    uint32_t m_recoveryPoint = 0;
    uint32_t m_highestSacked = 0;
    // Responder: per PSN from the expected one, what arrived ahead
    RingBuffer<Ahead> m_ahead; //!< index i: PSN expected + i
    uint32_t m_recvSeq = 0;    //!< receive sequence number of the oldest posted receive
};

} // namespace ns3

#endif
