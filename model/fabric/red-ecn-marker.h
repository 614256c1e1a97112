/*
 * RedEcnMarker: a fabric port's ECN marking, the congestion point of DCQCN.
 * An ECN-capable frame is marked CE on enqueue with the RED probability of
 * the port's queued bytes before it: 0 below Kmin, rising linearly to Pmax
 * just below Kmax, 1 at and above Kmax. Its settings are FabricPort's
 * EcnEnabled, EcnKmin, EcnKmax and EcnPmax attributes.
 */
#ifndef METAROCE_RED_ECN_MARKER_H
#define METAROCE_RED_ECN_MARKER_H

#include "fabric-frame.h"

#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

class RedEcnMarker
{
  public:
    RedEcnMarker();

    /** Whether a frame with codepoint \p ecn, enqueued behind \p queueBytes, is to be marked CE. */
    bool ShouldMark(Ecn ecn, uint32_t queueBytes) const
    {
        if (!m_enabled || (ecn != Ecn::Ect0 && ecn != Ecn::Ect1))
        {
            return false;
        }
        const double p = MarkProbability(queueBytes);
        return p >= 1.0 || (p > 0.0 && m_rng->GetValue() < p);
    }

    /** RED marking probability for a queue of \p queueBytes (0 below Kmin, 1 at Kmax). */
    double MarkProbability(uint32_t queueBytes) const
    {
        if (queueBytes < m_kminBytes)
        {
            return 0.0;
        }
        if (queueBytes >= m_kmaxBytes)
        {
            return 1.0;
        }
        return m_pmax * double(queueBytes - m_kminBytes) / double(m_kmaxBytes - m_kminBytes);
    }

    void SetEnabled(bool enabled)
    {
        m_enabled = enabled;
    }

    bool IsEnabled() const
    {
        return m_enabled;
    }

    void SetKminBytes(uint32_t bytes)
    {
        m_kminBytes = bytes;
    }

    uint32_t GetKminBytes() const
    {
        return m_kminBytes;
    }

    void SetKmaxBytes(uint32_t bytes)
    {
        m_kmaxBytes = bytes;
    }

    uint32_t GetKmaxBytes() const
    {
        return m_kmaxBytes;
    }

    void SetPmax(double pmax)
    {
        m_pmax = pmax;
    }

    double GetPmax() const
    {
        return m_pmax;
    }

    /** Fixes the random stream of the marker; returns streams used. */
    int64_t AssignStreams(int64_t stream);
    /** Drops the random variable (at the owner's disposal). */
    void Dispose();

  private:
    uint32_t m_kminBytes = 0;
    uint32_t m_kmaxBytes = 0;
    double m_pmax = 0.0;
    bool m_enabled = false;
    Ptr<UniformRandomVariable> m_rng; //!< read only between Kmin and Kmax
};

} // namespace ns3

#endif
