/*
 * Payload header of fabric test traffic (no transport): a sequence number and
 * the send time, so a sink can measure one-way delay and count gaps.
 */
#ifndef METAROCE_FABRIC_TEST_HEADER_H
#define METAROCE_FABRIC_TEST_HEADER_H

#include "ns3/header.h"
#include "ns3/nstime.h"

namespace ns3
{

class FabricTestHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 12;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    /** Serialize to kBytes bytes of memory (a compact frame's header). */
    void WriteTo(uint8_t* bytes) const;
    /** Deserialize from \p size bytes in memory; \return bytes read (0 if too short). */
    uint32_t Parse(const uint8_t* bytes, uint32_t size);
    void Print(std::ostream& os) const override;

    void SetSequence(uint32_t seq)
    {
        m_seq = seq;
    }

    uint32_t GetSequence() const
    {
        return m_seq;
    }

    void SetSendTime(Time t)
    {
        m_sendNs = t.GetNanoSeconds();
    }

    Time GetSendTime() const
    {
        return NanoSeconds(m_sendNs);
    }

  private:
    uint32_t m_seq = 0;
    uint64_t m_sendNs = 0;
};

} // namespace ns3

#endif
