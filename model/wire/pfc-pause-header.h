/*
 * PfcPauseHeader: a whole IEEE 802.1Qbb Priority Flow Control frame (a MAC
 * control frame, IEEE 802.3 Annex 31D), padded to the 60-byte Ethernet
 * minimum (the FCS is not in the packet, as in every fabric frame):
 *
 *   dst MAC 01:80:C2:00:00:01 | src MAC | EtherType 0x8808 | opcode 0x0101 |
 *   class-enable vector (2 bytes, bit p = priority p) | 8 x pause time (2 bytes,
 *   in quanta of 512 bit times at the link's rate) | 26 zero bytes of padding
 *
 * A pause time of 0 for an enabled priority means "resume now". Deserialize
 * consumes nothing (returns 0) for anything else: short input, another
 * EtherType, another opcode, another destination, or a class-enable vector
 * with its reserved high byte set. tshark decodes these frames as "MAC
 * Control", "Class Based Flow Control [CBFC] Pause" (a test checks it).
 */
#ifndef METAROCE_PFC_PAUSE_HEADER_H
#define METAROCE_PFC_PAUSE_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>

namespace ns3
{

class PfcPauseHeader : public Header
{
  public:
    static constexpr uint32_t kBytes = 60;         //!< whole frame without FCS (minimum size)
    static constexpr uint32_t kContentBytes = 34;  //!< before the padding
    static constexpr uint16_t kEtherType = 0x8808; //!< MAC control
    static constexpr uint16_t kOpcode = 0x0101;    //!< class-based (priority) flow control
    static constexpr uint32_t kPriorities = 8;
    static constexpr uint32_t kQuantumBits = 512; //!< one pause quantum, in bit times

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    /** Returns kBytes, or 0 (consumes nothing) if the bytes are not a PFC frame. */
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** The reserved multicast address of MAC control frames. */
    static Mac48Address Destination();

    void SetSource(Mac48Address source)
    {
        m_source = source;
    }

    Mac48Address GetSource() const
    {
        return m_source;
    }

    /** Enables priority \p priority with \p quanta (0: resume). */
    void SetPause(uint8_t priority, uint16_t quanta);

    bool IsEnabled(uint8_t priority) const
    {
        return (m_classEnable >> priority) & 1;
    }

    uint16_t GetQuanta(uint8_t priority) const
    {
        return m_quanta[priority];
    }

    uint8_t GetClassEnableVector() const
    {
        return m_classEnable;
    }

    /**
     * True if \p frame is a PFC frame (reads it only when its size is
     * kBytes, so other frames cost one comparison); fills \p header if given.
     */
    static bool Peek(const Packet& frame, PfcPauseHeader* header = nullptr);

  private:
    Mac48Address m_source;
    uint8_t m_classEnable = 0;
    std::array<uint16_t, kPriorities> m_quanta{};
};

} // namespace ns3

#endif
