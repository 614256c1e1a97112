/*
 * The PFC invariants (CheckPfcInvariants): per port, the pauses it obeys;
 * per (ingress, priority) of a switch, its accounting, XOFF and refresh, and
 * what its upstream was last told and heard. Each check says next to it why
 * it must hold in the model (model/fabric/fabric-port.*, fabric-switch.*,
 * docs/fabric-model.md "PFC").
 */
#include "fabric-invariants.h"
#include "invariant-violations.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ns3
{

namespace
{

/** A port's class pause view and its paused time, against its priorities' pauses. */
void
CheckPausedTotals(const PortInvariantView& port, int64_t now, Violations& v)
{
    // UpdateClassPauses copies the data priority's end to its class after
    // every change; control frames are never paused.
    const bool dataPaused = port.pfcEnabled && port.pausedUntilPs[port.dataPriority] > now;
    if (port.dataClassPaused != dataPaused || port.controlClassPaused)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              ": class view (data ",
              port.dataClassPaused,
              ", control ",
              port.controlClassPaused,
              ") differs from the priority state (data ",
              dataPaused,
              ", control 0)");
    }
    // Each episode adds end - start >= 0; only one priority obeys, so the
    // total cannot exceed the time elapsed (a negative episode would wrap).
    if (port.pausedPs < port.finishedPausedPs ||
        port.pausedPs > uint64_t(std::max<int64_t>(0, now)) ||
        (!port.pfcEnabled && port.pausedPs != 0))
    {
        v.Add("pfc paused time",
              "port ",
              port.name,
              " paused ",
              Us(int64_t(port.pausedPs)),
              " (finished episodes ",
              Us(int64_t(port.finishedPausedPs)),
              ") at ",
              Us(now));
    }
}

/** Priority \p p of a port with no pause open: it stops nothing. */
void
CheckClosedPause(const PortInvariantView& port, uint8_t p, int64_t now, Violations& v)
{
    const int64_t until = port.pausedUntilPs[p];
    // EndPause sets the end to when it ended (expiry, resume, link
    // down), never later: a closed pause stops nothing.
    if (until > now)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": closed pause ends at ",
              Us(until),
              ", after now (",
              Us(now),
              ")");
    }
}

/** The open pause episode of priority \p p of a port: where it may be, its span, its wake-up. */
void
CheckOpenPause(const PortInvariantView& port, uint8_t p, int64_t now, Violations& v)
{
    const int64_t until = port.pausedUntilPs[p];
    // LinkStateChanged(false) ends every pause (a dead link carries
    // none) and Receive drops frames while the link is down.
    if (!port.linkUp)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": pause episode open on a link that is down");
    }
    // ReceivePfc only lets the data class's priority obey, with PFC on.
    if (!port.pfcEnabled || p != port.dataPriority)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": pause open on a priority the port does not obey");
    }
    // A PAUSE sets until = arrival + quanta x 512 bit times (> arrival),
    // with quanta at most 65535.
    if (port.pauseStartPs[p] > now || until <= port.pauseStartPs[p] ||
        until > now + int64_t(port.maxPausePs))
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": open pause from ",
              Us(port.pauseStartPs[p]),
              " to ",
              Us(until),
              " at ",
              Us(now),
              " (longest pause ",
              Us(int64_t(port.maxPausePs)),
              ")");
    }
    // ArmPauseWake keeps one wake-up at (or before) the earliest expiry:
    // that is what ends the episode and restarts the class on time.
    if (port.pauseWakePs < 0 || port.pauseWakePs > until)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": pause until ",
              Us(until),
              " but the wake-up is ",
              port.pauseWakePs < 0 ? std::string("not pending") : "at " + Us(port.pauseWakePs));
    }
}

/** The open pause of priority \p p of a logged port against the last PFC frame it received. */
void
CheckPauseMatchesFrame(const PortInvariantView& port,
                       uint8_t p,
                       Violations& v,
                       PfcCheckCoverage& cov)
{
    const int64_t until = port.pausedUntilPs[p];
    // The pause is what the last PAUSE frame received for p set,
    // exactly: ReceivePfc sets until = now + PauseQuantaPs(quanta).
    const PfcFrameRecord& r = port.lastReceived[p];
    if (!r.valid || r.quanta == 0 || until != r.atPs + int64_t(port.lastReceivedPausePs[p]))
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              " ",
              Prio(p),
              ": pause until ",
              Us(until),
              " does not match the last PFC frame received (",
              r.valid ? "quanta " + std::to_string(r.quanta) + " at " + Us(r.atPs)
                      : std::string("none"),
              ")");
    }
    else
    {
        ++cov.openPausesChecked;
    }
}

/** The transmitter side: pauses a port obeys. */
void
CheckPausedPort(const FabricInvariantSnapshot& s,
                const PortInvariantView& port,
                Violations& v,
                PfcCheckCoverage& cov)
{
    const int64_t now = s.nowPs;
    bool anyOpen = false;
    for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
    {
        if (!port.pauseOpen[p])
        {
            CheckClosedPause(port, p, now, v);
            continue;
        }
        anyOpen = true;
        CheckOpenPause(port, p, now, v);
        if (port.logged)
        {
            CheckPauseMatchesFrame(port, p, v, cov);
        }
    }
    if (!anyOpen && port.pauseWakePs >= 0)
    {
        v.Add("pfc pause",
              "port ",
              port.name,
              ": pause wake-up pending at ",
              Us(port.pauseWakePs),
              " with no pause open");
    }
    CheckPausedTotals(port, now, v);
}

/**
 * The upstream \p peer heard \p sent, the last PFC frame of its priority \p p (\p what in
 * messages): it obeys it now.
 */
void
CheckPeerHeard(int64_t now,
               const PortInvariantView& peer,
               uint8_t p,
               const PfcFrameRecord& sent,
               bool xoff,
               const std::string& what,
               Violations& v,
               PfcCheckCoverage& cov)
{
    const PfcFrameRecord& heard = peer.lastReceived[p];
    if (xoff)
    {
        // The PAUSE arrived at heard.atPs >= sent.atPs and pauses until
        // arrival + quanta x 512 bit times; the refresh is due at
        // sent.atPs + half of that and is still pending, so now is before
        // the pause ends: while XOFF lasts, the upstream is paused,
        // without a gap between a PAUSE and its refresh.
        if (!(peer.pauseOpen[p] && peer.pausedUntilPs[p] > now))
        {
            v.Add("pfc peer",
                  what,
                  ": in XOFF, ",
                  peer.name,
                  " heard PAUSE(",
                  heard.quanta,
                  ") at ",
                  Us(heard.atPs),
                  " but is not paused now (pause until ",
                  Us(peer.pausedUntilPs[p]),
                  ")");
        }
        else
        {
            ++cov.peerPausedConfirmed;
        }
    }
    else if (sent.quanta == 0)
    {
        // The resume ends the pause at once (EndPause in ReceivePfc).
        if (peer.pauseOpen[p])
        {
            v.Add("pfc peer",
                  what,
                  ": ",
                  peer.name,
                  " received the resume at ",
                  Us(heard.atPs),
                  " but still has a pause open");
        }
        else
        {
            ++cov.peerResumedConfirmed;
        }
    }
}

/**
 * What the upstream of switch port \p port believes of priority \p p, given \p sent, the last
 * PFC frame sent to it on the link as it is now, and the ingress's \p xoff.
 */
void
CheckPeerBelief(const FabricInvariantSnapshot& s,
                const PortInvariantView& port,
                uint8_t p,
                const PfcFrameRecord& sent,
                bool xoff,
                const std::string& what,
                Violations& v,
                PfcCheckCoverage& cov)
{
    const PortInvariantView& peer = s.ports[port.peer];
    if (!peer.pfcEnabled || peer.dataPriority != p)
    {
        return; // the upstream ignores this priority: nothing to believe
    }
    const PfcFrameRecord& heard = peer.lastReceived[p];
    if (heard.valid && heard.uid == sent.uid)
    {
        CheckPeerHeard(s.nowPs, peer, p, sent, xoff, what, v, cov);
    }
    else if (peer.linkFramesInFlight == 0 && peer.errorModelDrops == 0)
    {
        // Not received: it is on the wire, or the receiver's error model
        // lost it (then the refresh, or the expiry, repairs the state).
        v.Add("pfc peer",
              what,
              ": its last PFC frame (",
              Us(sent.atPs),
              ") never reached ",
              peer.name,
              ", is not on the wire and cannot have been lost");
    }
    else
    {
        ++cov.pauseFrameInFlight;
    }
}

/**
 * What the upstream of one (ingress, priority) of a PFC switch believes. Only the switch sends
 * PFC frames out of its ports: PAUSE(quanta) at StartXoff and at each refresh, PAUSE(0) at
 * EndXoff, each only while the link is up (SendPfc). So while the link has been up since the last
 * one (same epoch), that frame says the state: PAUSE iff XOFF, and the refresh is due exactly half
 * a pause after it.
 */
void
CheckUpstream(const FabricInvariantSnapshot& s,
              const SwitchInvariantView& sw,
              uint32_t j,
              uint8_t p,
              const PfcIngressView& in,
              const PortInvariantView& port,
              const std::string& what,
              Violations& v,
              PfcCheckCoverage& cov)
{
    if (!port.logged || !port.linkUp)
    {
        return;
    }
    const PfcFrameRecord& sent = port.lastSent[p];
    if (!sent.valid || sent.epoch != port.linkEpoch)
    {
        return; // nothing sent since the link came up: the refresh sends within half a pause
    }
    if (in.xoff != (sent.quanta > 0))
    {
        v.Add("pfc peer",
              what,
              ": ",
              in.xoff ? "in XOFF" : "not in XOFF",
              " but the last PFC frame it sent (",
              Us(sent.atPs),
              ") was PAUSE(",
              sent.quanta,
              ")");
    }
    if (in.xoff && sent.quanta > 0 && in.refreshPs >= 0 &&
        in.refreshPs != sent.atPs + sw.refreshIntervalPs[j])
    {
        v.Add("pfc refresh",
              what,
              ": last PAUSE at ",
              Us(sent.atPs),
              ", refresh at ",
              Us(in.refreshPs),
              ", not half a pause (",
              Us(sw.refreshIntervalPs[j]),
              ") later");
    }
    CheckPeerBelief(s, port, p, sent, in.xoff, what, v, cov);
}

/** The charges of one (ingress, priority) of a PFC switch (\p what in messages). */
void
CheckIngressCharges(const SwitchInvariantView& sw,
                    uint32_t j,
                    const PfcIngressView& in,
                    const std::string& what,
                    Violations& v)
{
    // AdmitLossless's Admitted is always followed by the enqueue of that
    // frame, charged to (ingress, priority); ReleaseLossless runs once per
    // frame, when it starts or is flushed. So the counts are exactly the
    // lossless frames from this ingress still queued at the egresses
    // (FabricPort::GetLosslessBytesFrom, per priority).
    if (in.shared + in.headroom != in.queuedLossless)
    {
        v.Add("pfc accounting",
              what,
              ": charged ",
              in.shared,
              " (pool) + ",
              in.headroom,
              " (headroom), but ",
              in.queuedLossless,
              " lossless bytes from it are queued");
    }
    // AdmitLossless drops (pfc_headroom) rather than exceed the headroom.
    if (in.headroom > sw.headroomCap[j])
    {
        v.Add("pfc headroom",
              what,
              ": ",
              in.headroom,
              " bytes in a headroom of ",
              sw.headroomCap[j]);
    }
    // The first frame into headroom starts XOFF; XOFF ends only when the
    // headroom is empty (ShouldResume).
    if (in.headroom > 0 && !in.xoff)
    {
        v.Add("pfc xoff", what, ": ", in.headroom, " bytes in headroom but not in XOFF");
    }
}

/** The XOFF state and pending refresh of one (ingress, priority) of a PFC switch. */
void
CheckXoffState(int64_t now,
               const SwitchInvariantView& sw,
               uint32_t j,
               const PfcIngressView& in,
               const std::string& what,
               Violations& v,
               PfcCheckCoverage& cov)
{
    if (in.xoff)
    {
        ++cov.xoffChecked;
        // Only ReleaseLossless lowers the counts, and it ends XOFF once the
        // headroom is empty and the pool bytes are 0 or at or below XON.
        if (in.shared + in.headroom == 0)
        {
            v.Add("pfc xoff", what, ": in XOFF with nothing charged");
        }
        // With a static XOFF the threshold never moves, so every count
        // change re-evaluates ShouldResume: XOFF implies it is false. (A
        // dynamic XOFF moves with the other ingresses' use of the pool; the
        // refresh below re-evaluates it within half a pause time.)
        if (sw.staticXoffBytes > 0 && in.headroom == 0 && in.shared > 0 &&
            in.shared + sw.xonDeltaBytes <= sw.staticXoffBytes)
        {
            v.Add("pfc xoff",
                  what,
                  ": in XOFF at ",
                  in.shared,
                  " bytes, at or below XON ",
                  sw.staticXoffBytes - sw.xonDeltaBytes);
        }
        // StartXoff and every refresh schedule the next refresh half a
        // pause later (whole ns); EndXoff cancels it.
        if (in.refreshPs < 0)
        {
            v.Add("pfc refresh", what, ": in XOFF with no refresh pending");
        }
        else if (in.refreshPs < now || in.refreshPs - now > sw.refreshIntervalPs[j])
        {
            v.Add("pfc refresh",
                  what,
                  ": refresh at ",
                  Us(in.refreshPs),
                  ", now ",
                  Us(now),
                  ", interval ",
                  Us(sw.refreshIntervalPs[j]));
        }
    }
    else if (in.refreshPs >= 0)
    {
        v.Add("pfc refresh", what, ": refresh pending at ", Us(in.refreshPs), " while not in XOFF");
    }
}

/** One (ingress, priority) of a PFC switch, and what its upstream believes. */
void
CheckIngress(const FabricInvariantSnapshot& s,
             const SwitchInvariantView& sw,
             uint32_t j,
             uint8_t p,
             Violations& v,
             PfcCheckCoverage& cov)
{
    const PfcIngressView& in = sw.ingress[j][p];
    const PortInvariantView& port = s.ports[sw.ports[j]];
    const std::string what = "switch " + sw.name + " ingress " + port.name + " " + Prio(p);
    ++cov.ingressesChecked;
    CheckIngressCharges(sw, j, in, what, v);
    CheckXoffState(s.nowPs, sw, j, in, what, v, cov);
    CheckUpstream(s, sw, j, p, in, port, what, v, cov);
}

/** A switch's count of ingresses in XOFF (\p xoff counted), and its ports' departure tracking. */
void
CheckXoffCount(const FabricInvariantSnapshot& s,
               const SwitchInvariantView& sw,
               uint32_t xoff,
               Violations& v)
{
    // StartXoff / EndXoff keep the count, and turn departure tracking
    // on for every port at the first XOFF and off after the last (exact XON).
    if (xoff != sw.xoffNow)
    {
        v.Add("pfc xoff",
              "switch ",
              sw.name,
              " counts ",
              sw.xoffNow,
              " ingresses in XOFF, ",
              xoff,
              " are");
    }
    for (uint32_t j = 0; j < sw.ports.size(); ++j)
    {
        const PortInvariantView& port = s.ports[sw.ports[j]];
        if (port.trackingDepartures != (sw.xoffNow > 0))
        {
            v.Add("pfc xoff",
                  "switch ",
                  sw.name,
                  " port ",
                  port.name,
                  port.trackingDepartures ? " tracks" : " does not track",
                  " departures with ",
                  sw.xoffNow,
                  " ingresses in XOFF");
        }
    }
}

/** One switch: every (ingress, priority), PFC on or off, then its XOFF count. */
void
CheckPfcSwitch(const FabricInvariantSnapshot& s,
               const SwitchInvariantView& sw,
               Violations& v,
               PfcCheckCoverage& cov)
{
    if (sw.strayLosslessBytes > 0)
    {
        v.Add("pfc accounting",
              "switch ",
              sw.name,
              ": ",
              sw.strayLosslessBytes,
              " lossless bytes charged to an ingress or priority it does not have");
    }
    uint32_t xoff = 0;
    for (uint32_t j = 0; j < sw.ingress.size(); ++j)
    {
        for (uint8_t p = 0; p < PortInvariantView::kPriorities; ++p)
        {
            const PfcIngressView& in = sw.ingress[j][p];
            xoff += in.xoff ? 1 : 0;
            if (!sw.pfcEnabled)
            {
                // Without PFC AdmitLossless answers Lossy: nothing is
                // charged, nothing paused.
                if (in.shared || in.headroom || in.xoff || in.refreshPs >= 0 || in.queuedLossless)
                {
                    v.Add("pfc accounting",
                          "switch ",
                          sw.name,
                          " (PFC off) ingress ",
                          s.ports[sw.ports[j]].name,
                          " ",
                          Prio(p),
                          " has PFC state");
                }
                continue;
            }
            CheckIngress(s, sw, j, p, v, cov);
        }
    }
    CheckXoffCount(s, sw, xoff, v);
}
} // namespace

std::vector<std::string>
CheckPfcInvariants(const FabricInvariantSnapshot& s, PfcCheckCoverage* coverage)
{
    std::vector<std::string> out;
    Violations v(out);
    PfcCheckCoverage cov;
    for (const PortInvariantView& port : s.ports)
    {
        CheckPausedPort(s, port, v, cov);
    }
    for (const SwitchInvariantView& sw : s.switches)
    {
        CheckPfcSwitch(s, sw, v, cov);
    }
    if (coverage)
    {
        *coverage = cov;
    }
    return out;
}

} // namespace ns3
