/*
 * FlaggedTracedCallback: a TracedCallback that raises a flag its owner keeps
 * beside its per-packet state when anything connects to it. A per-packet
 * path then tests a byte on a line it has already loaded instead of each
 * trace's callback list, which on a fabric too large for the cache is a
 * line of its own at every hop; the lists are read only once
 * something has connected. The flag is never lowered: after a disconnect
 * the per-trace IsEmpty checks decide, as without the flag.
 *
 * The attribute system connects through MakeTraceSourceAccessor, which
 * calls Connect / ConnectWithoutContext on the member's own type, so these
 * see every connection made by path or by name.
 */
#ifndef METAROCE_FLAGGED_TRACED_CALLBACK_H
#define METAROCE_FLAGGED_TRACED_CALLBACK_H

#include "ns3/traced-callback.h"

#include <string>

namespace ns3
{

template <typename... Ts>
class FlaggedTracedCallback : public TracedCallback<Ts...>
{
  public:
    /** \p flag: the owner's byte, set at the first connection. */
    explicit FlaggedTracedCallback(bool* flag)
        : m_flag(flag)
    {
    }

    FlaggedTracedCallback(const FlaggedTracedCallback&) = delete;
    FlaggedTracedCallback& operator=(const FlaggedTracedCallback&) = delete;

    void ConnectWithoutContext(const CallbackBase& callback)
    {
        *m_flag = true;
        TracedCallback<Ts...>::ConnectWithoutContext(callback);
    }

    void Connect(const CallbackBase& callback, std::string path)
    {
        *m_flag = true;
        TracedCallback<Ts...>::Connect(callback, path);
    }

  private:
    bool* m_flag;
};

} // namespace ns3

#endif
