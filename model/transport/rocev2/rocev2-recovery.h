/*
 * RoceV2Recovery: the loss-recovery scheme of a RoCEv2 queue pair, chosen by
 * TypeId through RoceV2Connection::Recovery, as TcpSocketBase chooses its
 * TcpRecoveryOps. One instance per queue pair (Fork'ed from the connection's
 * prototype) holds the scheme's own state and makes its decisions on both
 * ends:
 * - requester: what an ACK, a NAK, an RNR NAK, an error NAK and a timeout
 *   rewind or release for resending, which packet goes next, the in-flight
 *   cap and the timeout;
 * - responder: what happens to a data packet given its PSN (in order only, or
 *   placed out of order) and how gaps are reported.
 * The requester and responder keep what every scheme has (PSN space, send
 * and receive queues, timers, ACK coalescing, completions) and call the
 * policy at those points.
 *
 * Subclasses: RoceV2GoBackN (RoCEv2 NICs, the default) and
 * RoceV2SelectiveRepeat (IRN).
 */
#ifndef METAROCE_ROCEV2_RECOVERY_H
#define METAROCE_ROCEV2_RECOVERY_H

#include "rocev2-qp-types.h"

#include "ns3/object.h"
#include "ns3/packet.h"

namespace ns3
{

class RoceV2Requester;
class RoceV2Responder;

class RoceV2Recovery : public Object
{
  public:
    static TypeId GetTypeId();
    ~RoceV2Recovery() override;

    /**
     * The instance another queue pair uses: a copy with the attributes but
     * none of the state (a stateless policy may return itself).
     */
    virtual Ptr<RoceV2Recovery> Fork() = 0;

    // Requester

    /** Cap on packets in flight (0: none), fixed for the queue pair's life. */
    virtual uint32_t GetInFlightCap(const RoceV2QpConfig& config) const = 0;
    /** Retransmission timeout, in ps, with \p inFlight packets unacknowledged. */
    virtual int64_t GetRtoPs(const RoceV2QpConfig& config, uint32_t inFlight) const = 0;
    /** Whether every data packet carries a RETH saying where it goes (out-of-order placement). */
    virtual bool PlacesOutOfOrder() const = 0;
    /**
     * The PSN to resend before any new packet, or -1; \p una and \p nxt bound
     * the PSNs in flight. The candidate stays chosen until PacketSent.
     */
    virtual int64_t NextRetransmission(uint32_t una, uint32_t nxt) = 0;
    /** Packet \p psn went out; \p retransmission: it was NextRetransmission's. */
    virtual void PacketSent(uint32_t psn, bool retransmission) = 0;
    /** The oldest unacknowledged PSN moves from \p una to \p newUna (before it does). */
    virtual void UnaAdvancing(uint32_t una, uint32_t newUna) = 0;
    /** An ACK of every PSN up to \p psn. */
    virtual void AckReceived(RoceV2Requester& tx, uint32_t psn) = 0;
    /** The responder refused \p psn (no receive posted); the wait is already set. */
    virtual void RnrNakReceived(RoceV2Requester& tx, uint32_t psn) = 0;
    /**
     * A PSN sequence error NAK for \p psn; \p aethPsn: the AETH's MSN field
     * unwrapped as a PSN (IRN's NACK puts the PSN it acknowledges there).
     */
    virtual void SequenceNakReceived(RoceV2Requester& tx, uint32_t psn, uint32_t aethPsn) = 0;
    /** The request holding \p psn failed (remote access, invalid request); \p psn was consumed. */
    virtual void RequestFailed(RoceV2Requester& tx, uint32_t psn) = 0;
    /** The retransmission timeout expired (retries left). */
    virtual void TimedOut(RoceV2Requester& tx) = 0;
    /** Retry limit exceeded: the outstanding work failed, nothing is in flight any more. */
    virtual void Abort() = 0;

    // Responder

    /** A data packet for PSN \p psn (unwrapped; BTH removed). */
    virtual void ReceiveData(RoceV2Responder& rx,
                             const RoceBthHeader& bth,
                             const Ptr<Packet>& packet,
                             uint32_t psn) = 0;
};

} // namespace ns3

#endif
