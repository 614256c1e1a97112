/*
 * Catch2 runner for the module's tests. ns-3 keeps global state (the
 * simulator, Config defaults, the RNG seed), so a listener resets all of it
 * after each test case: every case starts at time 0 with default attributes
 * and seed 1, run 1, whatever ran before it. Every fabric a test builds
 * checks its conservation invariants when the simulation is destroyed
 * (Fabric::s_checkInvariantsOnDispose): a violation aborts the suite.
 */
#define CATCH_CONFIG_MAIN
#include "fabric.h"

#include "ns3/config.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <catch2/catch.hpp>

namespace
{
struct SimulatorReset : Catch::TestEventListenerBase
{
    using TestEventListenerBase::TestEventListenerBase;

    void testCaseStarting(const Catch::TestCaseInfo&) override
    {
        ns3::Fabric::s_checkInvariantsOnDispose = true;
        ns3::RngSeedManager::SetSeed(1);
        ns3::RngSeedManager::SetRun(1);
    }

    void testCaseEnded(const Catch::TestCaseStats&) override
    {
        ns3::Simulator::Destroy();
        ns3::Config::Reset();
    }
};
} // namespace

CATCH_REGISTER_LISTENER(SimulatorReset)
