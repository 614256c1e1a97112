/*
 * Shared set-up for MetaRoCE tests: a small fabric with a transport on every
 * host, one connection, registered regions, and completion records.
 */
#ifndef METAROCE_TEST_METAROCE_UTIL_H
#define METAROCE_TEST_METAROCE_UTIL_H

#include "metaroce-connection.h"
#include "metaroce-transport.h"
#include "rdma-transport-helper.h"
#include "test-fabric-util.h"

#include "ns3/simulator.h"

#include <vector>

namespace ns3
{
namespace test
{

/** Two endpoints of one MetaRoCE connection on a fabric, with their completions. */
struct MetaRocePair
{
    Ptr<Fabric> fabric;
    std::vector<Ptr<RdmaTransport>> transports;
    Ptr<MetaRoceConnection> a; //!< on host `src`
    Ptr<MetaRoceConnection> b; //!< on host `dst`
    std::vector<RdmaCompletion> aDone;
    std::vector<RdmaCompletion> bDone;

    Ptr<MetaRoceTransport> Transport(uint32_t host) const
    {
        return DynamicCast<MetaRoceTransport>(transports[host]);
    }
};

/**
 * Builds \p spec, installs MetaRoCE with \p helper's settings and connects
 * host \p src to host \p dst.
 */
inline MetaRocePair
MakeMetaRocePair(const FabricSpec& spec,
                 uint32_t src,
                 uint32_t dst,
                 RdmaTransportHelper helper = RdmaTransportHelper("ns3::MetaRoceTransport"))
{
    MetaRocePair p;
    FabricBuilder builder(spec);
    p.fabric = builder.Build();
    p.transports = helper.Install(p.fabric);
    auto [ea, eb] = RdmaTransport::Connect(p.transports[src], p.transports[dst]);
    p.a = DynamicCast<MetaRoceConnection>(ea);
    p.b = DynamicCast<MetaRoceConnection>(eb);
    return p;
}

inline void
AppendCompletion(std::vector<RdmaCompletion>* into, const RdmaCompletion& c)
{
    into->push_back(c);
}

/** A callback that appends each completion to \p into. */
inline RdmaConnection::CompletionCallback
CollectInto(std::vector<RdmaCompletion>* into)
{
    return MakeBoundCallback(&AppendCompletion, into);
}

/** Records completions of both endpoints into the pair (call once, after MakeMetaRocePair). */
inline void
RecordCompletions(MetaRocePair& p)
{
    p.a->SetCompletionCallback(CollectInto(&p.aDone));
    p.b->SetCompletionCallback(CollectInto(&p.bDone));
}

} // namespace test
} // namespace ns3

#endif
