/*
 * BulkWorkload: bulk writes over a list of flows (src -> dst host). Each flow
 * keeps Outstanding writes of MessageBytes posted; with MessagesPerFlow = 0 it
 * runs until StopPosting (continuous), otherwise it sends that many messages
 * and finishes. Permutation traffic, N-to-1 incast and single transfers are
 * flow lists (the experiment runner builds them).
 */
#ifndef METAROCE_BULK_WORKLOAD_H
#define METAROCE_BULK_WORKLOAD_H

#include "rdma-workload.h"

#include <set>

namespace ns3
{

class BulkWorkload : public RdmaWorkload
{
  public:
    static TypeId GetTypeId();

    void AddFlow(uint32_t src, uint32_t dst);

    uint32_t GetNFlows() const
    {
        return m_flows.size();
    }

    void Install(Ptr<RdmaConnectionPool> pool) override;
    void Start() override;
    void StopPosting() override;
    bool IsFinished() const override;
    std::vector<uint32_t> GetSenders() const override;
    std::vector<uint32_t> GetReceivers() const override;

  private:
    struct Flow
    {
        uint32_t src;
        uint32_t dst;
        Ptr<RdmaConnection> sender;
        uint32_t posted = 0;
        uint32_t completed = 0;
        uint64_t offset = 0; //!< next remote address (wraps inside the region)
    };

    void PostOne(uint32_t flow);
    void Completed(const RdmaCompletion& c);

    uint32_t m_messageBytes;
    uint32_t m_outstanding;
    uint32_t m_messagesPerFlow;
    std::vector<Flow> m_flows;
    std::set<RdmaConnection*> m_listened;
    bool m_posting = false;
    bool m_started = false;
};

} // namespace ns3

#endif
