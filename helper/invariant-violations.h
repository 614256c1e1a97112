/*
 * What the invariant checks share to word their violations: the collector
 * (Violations, "<tag>: <text>", the tag being what tests look for) and the
 * formats of times and priorities in the texts. Used by the buffer and
 * completion checks (fabric-invariants.cc) and the PFC checks
 * (fabric-pfc-invariants.cc); internal to helper/, not part of the API.
 */
#ifndef METAROCE_INVARIANT_VIOLATIONS_H
#define METAROCE_INVARIANT_VIOLATIONS_H

#include <cstdint>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace ns3
{

/** Picoseconds as microseconds with picosecond precision ("12.345678us"). */
inline std::string
Us(int64_t ps)
{
    std::ostringstream os;
    os << (ps < 0 ? "-" : "") << std::llabs(ps) / 1'000'000 << "." << std::setw(6)
       << std::setfill('0') << std::llabs(ps) % 1'000'000 << "us";
    return os.str();
}

/** A PFC priority as the messages name it ("priority 3"). */
inline std::string
Prio(uint32_t p)
{
    return "priority " + std::to_string(p);
}

/** Collects violations as "<tag>: <text>" (tests look for the tags). */
class Violations
{
  public:
    /** Appends to \p out, which must outlive the collector. */
    explicit Violations(std::vector<std::string>& out)
        : m_out(out)
    {
    }

    /** Adds "<tag>: " followed by \p args streamed in order. */
    template <typename... Args>
    void Add(const char* tag, const Args&... args)
    {
        std::ostringstream os;
        os << tag << ": ";
        (os << ... << args);
        m_out.push_back(os.str());
    }

  private:
    std::vector<std::string>& m_out;
};

} // namespace ns3

#endif
