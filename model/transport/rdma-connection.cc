#include "rdma-connection.h"

#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RdmaConnection);

TypeId
RdmaConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaConnection")
            .SetParent<Object>()
            .SetGroupName("MetaRoce")
            .AddTraceSource("Completion",
                            "A work request completed (in stream post order)",
                            MakeTraceSourceAccessor(&RdmaConnection::m_completionTrace),
                            "ns3::RdmaConnection::CompletionTracedCallback");
    return tid;
}

void
RdmaConnection::DoDispose()
{
    m_memory = nullptr;
    m_completionCallback = CompletionCallback();
    Object::DoDispose();
}

void
RdmaConnection::SetEndpoints(uint32_t localHost, uint32_t remoteHost, Ptr<RdmaMemory> memory)
{
    m_localHost = localHost;
    m_remoteHost = remoteHost;
    m_memory = memory;
}

void
RdmaConnection::PostWrite(uint16_t stream, uint64_t wrId, uint64_t remoteAddress, uint32_t rkey,
                          uint32_t length, uint64_t localAddress, uint32_t lkey)
{
    RdmaWorkRequest wr;
    wr.wrId = wrId;
    wr.opcode = RdmaOpcode::Write;
    wr.stream = stream;
    wr.length = length;
    wr.remoteAddress = remoteAddress;
    wr.rkey = rkey;
    wr.localAddress = localAddress;
    wr.lkey = lkey;
    Post(wr);
}

void
RdmaConnection::PostSend(uint16_t stream, uint64_t wrId, uint32_t length, uint64_t localAddress,
                         uint32_t lkey)
{
    RdmaWorkRequest wr;
    wr.wrId = wrId;
    wr.opcode = RdmaOpcode::Send;
    wr.stream = stream;
    wr.length = length;
    wr.localAddress = localAddress;
    wr.lkey = lkey;
    Post(wr);
}

void
RdmaConnection::PostRecv(uint16_t stream, uint64_t wrId, uint64_t address, uint32_t lkey,
                         uint32_t length)
{
    RdmaRecvRequest rr;
    rr.wrId = wrId;
    rr.stream = stream;
    rr.address = address;
    rr.lkey = lkey;
    rr.length = length;
    PostRecv(rr);
}

void
RdmaConnection::Complete(const RdmaCompletion& c)
{
    ++m_completed;
    if (c.status == RdmaStatus::Success && c.opcode != RdmaOpcode::Recv)
    {
        m_completedBytes += c.bytes;
    }
    m_completionTrace(c);
    if (!m_completionCallback.IsNull())
    {
        m_completionCallback(c);
    }
}

} // namespace ns3
