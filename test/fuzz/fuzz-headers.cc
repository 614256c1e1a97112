// libFuzzer harness for every header deserializer: a malformed or truncated
// packet must be rejected (0 bytes consumed) or read whole, never read out of
// bounds (AddressSanitizer), and an accepted header must serialise back to
// the same number of bytes. The first input byte picks the header.
#include "fabric-frame-header.h"
#include "fabric-frame.h"
#include "fabric-test-header.h"
#include "metaroce-ack-header.h"
#include "metaroce-data-header.h"
#include "pfc-pause-header.h"
#include "roce-headers.h"

#include "ns3/packet.h"

#include <cstdlib>

using namespace ns3;

namespace
{
template <typename H>
void
Check(const uint8_t* data, size_t size)
{
    Ptr<Packet> p = Create<Packet>(data, size);
    H h;
    const uint32_t read = p->RemoveHeader(h);
    if (read != 0 && read != h.GetSerializedSize())
    {
        std::abort(); // consumed something other than a whole header
    }
    if (read != 0)
    {
        Ptr<Packet> q = Create<Packet>();
        q->AddHeader(h);
        if (q->GetSize() != read)
        {
            std::abort();
        }
    }
}
} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const uint8_t which = data[0] % 9;
    data += 1;
    size -= 1;
    switch (which)
    {
    case 0:
        Check<MetaRoceDataHeader>(data, size);
        break;
    case 1:
        Check<MetaRoceAckHeader>(data, size);
        break;
    case 2:
        Check<RoceBthHeader>(data, size);
        break;
    case 3:
        Check<RoceRethHeader>(data, size);
        break;
    case 4:
        Check<RoceAethHeader>(data, size);
        break;
    case 5:
        Check<PfcPauseHeader>(data, size);
        break;
    case 6:
        Check<FabricTestHeader>(data, size);
        break;
    case 7:
        Check<FabricFrameHeader>(data, size);
        break;
    default: {
        // The forwarding fast path reads raw frame bytes.
        Ptr<Packet> p = Create<Packet>(data, size);
        FrameInfo info;
        ParseFrame(*p, info);
        break;
    }
    }
    return 0;
}
