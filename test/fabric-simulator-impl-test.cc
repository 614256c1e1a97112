// FabricSimulatorImpl: ns-3's DefaultSimulatorImpl contract to the event. A
// random program of schedules (ties, zero delays, contexts), cancels,
// removes, expiry and delay-left queries, a timed stop and destroy events
// must run identically under both implementations, events queued from
// another thread must arrive as under the default, and a whole experiment
// must give identical results with either.
#include "fabric-simulator-impl.h"
#include "test-runner-util.h"

#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

/** Runs a random event program and records everything the simulator answered. */
class Program
{
  public:
    explicit Program(uint32_t seed)
        : m_rng(seed)
    {
    }

    std::vector<std::string> Run(const std::string& impl)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        for (int i = 0; i < 50; ++i)
        {
            Add(i);
        }
        Simulator::ScheduleDestroy(&Program::Record, this, std::string("destroy-1"));
        EventId d = Simulator::ScheduleDestroy(&Program::Record, this, std::string("destroy-2"));
        Simulator::Cancel(d);
        Simulator::Stop(MicroSeconds(40));
        Simulator::Run();
        Log("stopped at " + std::to_string(Simulator::Now().GetNanoSeconds()) + " events " +
            std::to_string(Simulator::GetEventCount()));
        Simulator::Run(); // resumes after a stop, to the end of the program
        Log("finished at " + std::to_string(Simulator::Now().GetNanoSeconds()) + " events " +
            std::to_string(Simulator::GetEventCount()));
        Simulator::Destroy();
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        return m_log;
    }

  private:
    void Log(const std::string& s) { m_log.push_back(s); }

    void Record(std::string what)
    {
        Log(what + " @" + std::to_string(Simulator::Now().GetNanoSeconds()));
    }

    /** Schedules one event of label \p label at a random time (many ties, some zero delays). */
    void Add(int label)
    {
        const uint32_t kind = m_rng() % 4;
        const Time delay = kind == 0 ? Time(0) : NanoSeconds(m_rng() % 8 * 1000);
        if (m_rng() % 5 == 0)
        {
            Simulator::ScheduleWithContext(m_rng() % 3, delay, &Program::Fire, this, label);
            return;
        }
        EventId id = kind == 0 && m_rng() % 2 ? Simulator::ScheduleNow(&Program::Fire, this, label)
                                               : Simulator::Schedule(delay, &Program::Fire, this, label);
        m_ids.push_back(id);
    }

    void Fire(int label)
    {
        std::ostringstream os;
        os << "event " << label << " @" << Simulator::Now().GetNanoSeconds() << " ctx "
           << Simulator::GetContext();
        // What the simulator says about a few earlier events.
        for (int k = 0; k < 3 && !m_ids.empty(); ++k)
        {
            const EventId& id = m_ids[m_rng() % m_ids.size()];
            os << " | " << id.GetUid() << (Simulator::IsExpired(id) ? " expired" : " pending")
               << " left " << Simulator::GetDelayLeft(id).GetNanoSeconds();
        }
        Log(os.str());
        if (m_next < 400)
        {
            const uint32_t r = m_rng() % 10;
            if (r < 6)
            {
                Add(m_next++);
                Add(m_next++);
            }
            else if (r < 8 && !m_ids.empty())
            {
                Simulator::Cancel(m_ids[m_rng() % m_ids.size()]);
            }
            else if (!m_ids.empty())
            {
                Simulator::Remove(m_ids[m_rng() % m_ids.size()]);
            }
        }
    }

    std::mt19937 m_rng;
    std::vector<EventId> m_ids;
    std::vector<std::string> m_log;
    int m_next = 50;
};

} // namespace

TEST_CASE("FabricSimulatorImpl: a random event program runs as under ns-3's default",
          "[simulator]")
{
    for (uint32_t seed : {1u, 2u, 3u})
    {
        const auto reference = Program(seed).Run("ns3::DefaultSimulatorImpl");
        const auto fabric = Program(seed).Run("ns3::FabricSimulatorImpl");
        REQUIRE(reference.size() > 100);
        CHECK(fabric == reference);
    }
}

TEST_CASE("FabricSimulatorImpl: events scheduled from another thread arrive as under the default",
          "[simulator]")
{
    // Queued from a thread before Run, taken in when Run starts: at their
    // delay from time 0, with their context.
    for (const std::string impl : {"ns3::DefaultSimulatorImpl", "ns3::FabricSimulatorImpl"})
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue(impl));
        std::vector<std::pair<int64_t, uint32_t>> seen;
        Simulator::Schedule(MicroSeconds(1), [] {}); // the implementation exists on this thread
        std::thread other([&seen] {
            Simulator::ScheduleWithContext(7, MicroSeconds(3), [&seen] {
                seen.emplace_back(Simulator::Now().GetNanoSeconds(), Simulator::GetContext());
            });
        });
        other.join();
        Simulator::Run();
        Simulator::Destroy();
        REQUIRE(seen.size() == 1);
        CHECK(seen[0].first == 3000);
        CHECK(seen[0].second == 7);
    }
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
}

TEST_CASE("FabricSimulatorImpl: an experiment gives identical results with either event loop",
          "[simulator][runner]")
{
    auto run = [](const std::string& simulator) { return test::RunWith("simulator", simulator); };
    const nlohmann::json fabric = run("ns3::FabricSimulatorImpl");
    CHECK(fabric["summary"]["completed_messages"].get<uint64_t>() > 0);
    CHECK(fabric["summary"]["retransmitted_packets"].get<uint64_t>() > 0);
    CHECK(fabric == run("ns3::DefaultSimulatorImpl"));
}
