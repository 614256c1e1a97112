/*
 * FabricPacketSink: what owns fabric ports and consumes the frames they
 * receive (a switch or a NIC), and the PFC buffer accounting a switch offers
 * its ports (FabricBufferAdmission asks it to admit lossless frames).
 */
#ifndef METAROCE_FABRIC_PACKET_SINK_H
#define METAROCE_FABRIC_PACKET_SINK_H

#include "fabric-frame.h"

#include <cstdint>

namespace ns3
{

class FabricPort;

/** A switch's answer to the admission of a lossless frame (FabricPacketSink::AdmitLossless). */
enum class PfcAdmission : uint8_t
{
    Lossy,    //!< the owner runs no PFC: use the port's ordinary tail drop
    Admitted, //!< charged to its (ingress, priority), in the shared pool or the headroom
    Drop,     //!< the ingress headroom is full (DropReason::PfcHeadroom)
};

/** What owns ports and consumes the frames they receive: a switch or a NIC. */
class FabricPacketSink
{
  public:
    virtual ~FabricPacketSink() = default;
    /**
     * A frame arrived on \p port and passed the error model; \p nowPs is the
     * current time. \p info holds its forwarding fields, parsed once when it
     * entered the fabric (and updated when a port marks it CE).
     */
    virtual void ReceiveFromPort(FabricPort* port,
                                 FrameRef frame,
                                 const FrameInfo& info,
                                 int64_t nowPs) = 0;

    /** \p port's link went up or down (called at the moment it happens). */
    virtual void PortLinkChanged(FabricPort* port, bool up)
    {
    }

    /** Brings every port sharing a buffer with the caller up to date (FabricPort::Sync). */
    virtual void SyncPorts()
    {
    }

    /**
     * PFC: admits a lossless frame of \p bytes that arrived on the owner's
     * port \p ingress (FabricPort::GetSinkIndex) with \p priority, charging
     * it to that (ingress, priority) until ReleaseLossless.
     */
    virtual PfcAdmission AdmitLossless(uint32_t ingress, uint8_t priority, uint32_t bytes)
    {
        return PfcAdmission::Lossy;
    }

    /** PFC: a frame admitted by AdmitLossless left the buffer (started, or was flushed). */
    virtual void ReleaseLossless(uint32_t ingress, uint8_t priority, uint32_t bytes)
    {
    }

    /** PFC: a pause \p port obeyed ended (expired or resumed); its lossless class may send. */
    virtual void PortResumed(FabricPort* port)
    {
    }
};

} // namespace ns3

#endif
