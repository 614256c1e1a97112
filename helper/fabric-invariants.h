/*
 * The buffer, PFC and completion invariants Fabric::CheckInvariants adds to
 * its frame conservation check at the end of every test simulation
 * (docs/hardening.md, "Invariants"). Each check is derived from the model
 * (model/fabric/fabric-port.*, fabric-switch.*, docs/fabric-model.md "PFC";
 * model/transport/rdma-connection.*) and says why it must hold where it is
 * made (fabric-invariants.cc; the PFC checks in fabric-pfc-invariants.cc).
 *
 * The fabric checks work on a snapshot (FabricInvariantSnapshot): plain data
 * read from the live fabric after every port is brought up to date, so a
 * test can also hand the checks an inconsistent state it made itself and
 * see each of them fail.
 *
 * What the PFC model does not keep, the last PFC frame each port sent and
 * received per priority (what a switch told its upstream, what the upstream
 * heard), FabricPfcLog records from the ports' PfcTx and PfcRx traces. The
 * builder attaches one when Fabric::s_checkInvariantsOnDispose is set (the
 * test suite): one callback per PAUSE frame, nothing otherwise.
 */
#ifndef METAROCE_FABRIC_INVARIANTS_H
#define METAROCE_FABRIC_INVARIANTS_H

#include "fabric-port.h"
#include "rdma-connection.h"

#include "ns3/packet.h"
#include "ns3/simple-ref-count.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class Fabric;

/** One PFC frame as far as one priority is concerned. */
struct PfcFrameRecord
{
    bool valid = false;  //!< false: no PFC frame for this priority yet
    uint64_t uid = 0;    //!< packet uid: the same frame at both ends of the link
    int64_t atPs = 0;    //!< when it was sent (SendPfc) or received (its last bit)
    uint16_t quanta = 0; //!< pause time asked for; 0: resume
    uint32_t epoch = 0;  //!< the link's epoch then (FabricChannel::GetEpoch)
};

/** The last PFC frame every port of a fabric sent and received, per priority. */
class FabricPfcLog : public SimpleRefCount<FabricPfcLog>
{
  public:
    FabricPfcLog() = default;
    FabricPfcLog(const FabricPfcLog&) = delete;
    FabricPfcLog& operator=(const FabricPfcLog&) = delete;
    /** Disconnects from the ports' traces. */
    ~FabricPfcLog();
    /** Connects to the PfcTx and PfcRx traces of \p ports (index = position). */
    void Attach(const std::vector<Ptr<FabricPort>>& ports);

    const PfcFrameRecord& LastSent(uint32_t port, uint8_t priority) const
    {
        return m_sent.at(port)[priority];
    }

    const PfcFrameRecord& LastReceived(uint32_t port, uint8_t priority) const
    {
        return m_received.at(port)[priority];
    }

  private:
    struct Hook
    {
        FabricPfcLog* log;
        Ptr<FabricPort> port;
        uint32_t index;
        void Sent(Ptr<const Packet> frame);
        void Received(Ptr<const Packet> frame);
    };

    void Record(std::array<PfcFrameRecord, FabricPort::kPfcPriorities>& slot,
                const Ptr<FabricPort>& port,
                Ptr<const Packet> frame);

    std::vector<std::array<PfcFrameRecord, FabricPort::kPfcPriorities>> m_sent;
    std::vector<std::array<PfcFrameRecord, FabricPort::kPfcPriorities>> m_received;
    std::vector<std::unique_ptr<Hook>> m_hooks;
};

/** One port (switch or NIC) as the checks see it. */
struct PortInvariantView
{
    static constexpr uint32_t kPriorities = FabricPort::kPfcPriorities;

    std::string name;
    int32_t peer = -1;      //!< index of the other end's view
    int32_t owner = -1;     //!< index of the owning switch's view; -1: a NIC port
    uint32_t sinkIndex = 0; //!< index of the port in its switch
    bool linkUp = true;
    uint32_t linkEpoch = 0;
    uint64_t linkFramesInFlight = 0; //!< on the link's wire, both directions
    uint64_t errorModelDrops = 0;    //!< frames this receiver lost to its error model
    bool pfcEnabled = false;
    uint8_t dataPriority = 3;

    // Egress queue
    uint64_t queueBytesCounter = 0; //!< the port's counter
    uint64_t queuedFrameBytes = 0;  //!< sum of the queued frames' sizes
    /** Per class: the port's serialisation-time counter, and the sum over its frames. */
    std::array<uint64_t, FabricPort::kTrafficClasses> queuedPsCounter{};
    std::array<uint64_t, FabricPort::kTrafficClasses> queuedFramePs{};
    uint64_t poolChargedBytes = 0;     //!< queued bytes charged to the switch's shared pool
    uint64_t losslessChargedBytes = 0; //!< queued bytes charged to PFC accounting
    /** (ingress, priority, bytes) of the queued lossless frames. */
    std::vector<std::array<uint64_t, 3>> losslessCharges;

    // Transmitter pause state (pauses this port obeys)
    std::array<bool, kPriorities> pauseOpen{};
    std::array<int64_t, kPriorities> pauseStartPs{};
    std::array<int64_t, kPriorities> pausedUntilPs{};
    int64_t pauseWakePs = -1;        //!< -1: no wake-up pending
    bool dataClassPaused = false;    //!< IsClassPaused(data) now
    bool controlClassPaused = false; //!< IsClassPaused(control) now
    uint64_t finishedPausedPs = 0;   //!< stats: pauses that ended
    uint64_t pausedPs = 0;           //!< GetPausedTime (with the open ones)
    uint64_t maxPausePs = 0;         //!< PauseQuantaPs(65535): the longest pause
    bool trackingDepartures = false;

    // PFC frames (from FabricPfcLog; logged false without one)
    bool logged = false;
    std::array<PfcFrameRecord, kPriorities> lastSent{};
    std::array<PfcFrameRecord, kPriorities> lastReceived{};
    /** PauseQuantaPs(lastReceived[p].quanta) at this port's rate. */
    std::array<uint64_t, kPriorities> lastReceivedPausePs{};
};

/** The PFC state of one (ingress port, priority) of a switch. */
struct PfcIngressView
{
    uint64_t shared = 0;   //!< bytes charged to the shared pool
    uint64_t headroom = 0; //!< bytes in the headroom
    bool xoff = false;
    int64_t refreshPs = -1;      //!< pending PAUSE refresh (-1: none)
    uint64_t queuedLossless = 0; //!< lossless bytes queued at the switch's egresses from it
};

struct SwitchInvariantView
{
    std::string name;
    bool pfcEnabled = false;
    uint64_t capacity = 0;
    uint64_t reserved = 0;
    uint64_t used = 0;
    uint32_t staticXoffBytes = 0; //!< 0: dynamic
    uint64_t xoffBytesNow = 0;
    uint32_t xonDeltaBytes = 0;
    uint32_t xoffNow = 0;                   //!< the switch's count of pairs in XOFF
    std::vector<uint32_t> ports;            //!< port views, by switch port index
    std::vector<uint64_t> headroomCap;      //!< by switch port
    std::vector<int64_t> refreshIntervalPs; //!< by switch port: half a pause, in whole ns
    std::vector<std::array<PfcIngressView, PortInvariantView::kPriorities>> ingress;
    /** Lossless charges naming an ingress the switch does not have. */
    uint64_t strayLosslessBytes = 0;
};

struct FabricInvariantSnapshot
{
    int64_t nowPs = 0;
    std::vector<PortInvariantView> ports; //!< Fabric::GetAllPorts order
    std::vector<SwitchInvariantView> switches;
};

/** How many times each PFC relation was evaluated (a check that never ran proves nothing). */
struct PfcCheckCoverage
{
    uint64_t ingressesChecked = 0;     //!< (ingress, priority) pairs of PFC switches
    uint64_t xoffChecked = 0;          //!< of which in XOFF
    uint64_t peerPausedConfirmed = 0;  //!< XOFF and the peer has the PAUSE: it is paused
    uint64_t peerResumedConfirmed = 0; //!< not XOFF, the peer has the resume: no pause open
    uint64_t pauseFrameInFlight = 0;   //!< the last PFC frame not received yet
    uint64_t openPausesChecked = 0;    //!< open pause episodes matched to their PAUSE frame
};

/**
 * Reads the fabric (every port brought up to date first) and \p log
 * (optional) into a snapshot.
 */
FabricInvariantSnapshot TakeInvariantSnapshot(Fabric& fabric, const FabricPfcLog* log);

/** Queue counters, buffer charges, the shared pool. \return the violations. */
std::vector<std::string> CheckBufferInvariants(const FabricInvariantSnapshot& s);

/** PFC accounting, XOFF, refresh, and pause state at both ends of each link. */
std::vector<std::string> CheckPfcInvariants(const FabricInvariantSnapshot& s,
                                            PfcCheckCoverage* coverage = nullptr);

/** One connection endpoint's work requests and completions (\p name in messages). */
std::vector<std::string> CheckWorkRequestAudit(const RdmaConnection::WorkRequestAudit& a,
                                               const std::string& name);

/** CheckWorkRequestAudit of every endpoint of the transports on the fabric's hosts. */
std::vector<std::string> CheckTransportInvariants(const Fabric& fabric);

} // namespace ns3

#endif
