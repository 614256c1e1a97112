#include "rocev2-go-back-n.h"

#include "rocev2-requester.h"
#include "rocev2-responder.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceV2GoBackN);

TypeId
RoceV2GoBackN::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceV2GoBackN")
                            .SetParent<RoceV2Recovery>()
                            .SetGroupName("MetaRoce")
                            .AddConstructor<RoceV2GoBackN>();
    return tid;
}

RoceV2GoBackN::RoceV2GoBackN() = default;
RoceV2GoBackN::~RoceV2GoBackN() = default;

Ptr<RoceV2Recovery>
RoceV2GoBackN::Fork()
{
    return this;
}

uint32_t
RoceV2GoBackN::GetInFlightCap(const RoceV2QpConfig& config) const
{
    return config.maxInflightPackets;
}

int64_t
RoceV2GoBackN::GetRtoPs(const RoceV2QpConfig& config, uint32_t inFlight) const
{
    // IB's local ACK timeout: 4.096 us x 2^exponent.
    return int64_t(4096000) << std::min<uint32_t>(config.timeoutExponent, 31);
}

void
RoceV2GoBackN::AckReceived(RoceV2Requester& tx, uint32_t psn)
{
    tx.AdvanceUna(psn + 1);
}

void
RoceV2GoBackN::RnrNakReceived(RoceV2Requester& tx, uint32_t psn)
{
    tx.AdvanceUna(psn);
    tx.GoBack(psn);
}

void
RoceV2GoBackN::SequenceNakReceived(RoceV2Requester& tx, uint32_t psn, uint32_t aethPsn)
{
    tx.AdvanceUna(psn);
    const uint32_t nxt = tx.GetNxt();
    if (psn < nxt)
    {
        // Everything sent past the NAK'ed PSN is resent: lost for the congestion policy.
        tx.GetStats().rewoundPackets += nxt - psn;
        tx.NotifyLost(nxt - psn);
    }
    tx.GoBack(psn);
}

void
RoceV2GoBackN::RequestFailed(RoceV2Requester& tx, uint32_t psn)
{
    tx.AdvanceUna(psn + 1);
}

void
RoceV2GoBackN::TimedOut(RoceV2Requester& tx)
{
    tx.GoBack(tx.GetUna());
}

void
RoceV2GoBackN::ReceiveData(RoceV2Responder& rx,
                           const RoceBthHeader& bth,
                           const Ptr<Packet>& packet,
                           uint32_t psn)
{
    const uint32_t expected = rx.GetExpectedPsn();
    if (psn > expected)
    {
        rx.DiscardOutOfSequence();
        return;
    }
    if (psn < expected)
    {
        rx.AcknowledgeDuplicate();
        return;
    }
    rx.ReceiveInOrder(bth, packet, psn);
}

} // namespace ns3
