/*
 * metaroce-run: runs one experiment file and writes its results.
 *
 *   metaroce-run experiments/loss-point.json --set loss.rate=0.01 --out results/x
 *
 * The experiment format is docs/experiment-format.md; the results
 * (results.json, throughput.csv, queues.csv, connections.csv) are
 * docs/results-format.md. --set PATH=VALUE overrides any JSON value (dotted
 * path; the value is JSON if it parses, else a string) and may repeat.
 * --load LIB.so loads a shared library before the experiment is read, so
 * that the TypeIds it registers (a transport or workload of one's own,
 * docs/adding-a-transport.md) can be named in it; it may repeat.
 * Exit codes: 0 done, 2 bad command line or experiment (message names the
 * file, JSON path and what was expected), 1 other failure. A progress line
 * goes to stderr when it is a terminal (--quiet silences it).
 */
#include "experiment-runner.h"

#include "ns3/simulator.h"

#include <dlfcn.h>
#include <iostream>
#include <unistd.h>

using namespace ns3;

namespace
{
int
Usage(const char* why)
{
    std::cerr << "metaroce-run: " << why << "\n"
              << "usage: metaroce-run EXPERIMENT.json [--set PATH=VALUE]... [--load LIB.so]... "
                 "[--out DIR] [--quiet]\n";
    return 2;
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string file;
    std::string out;
    std::vector<std::string> sets;
    bool quiet = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        auto value = [&](const std::string& flag) -> std::string {
            if (a.size() > flag.size() && a.compare(0, flag.size() + 1, flag + "=") == 0)
            {
                return a.substr(flag.size() + 1);
            }
            return ++i < argc ? argv[i] : "";
        };
        if (a == "--help" || a == "-h")
        {
            Usage("runs one experiment");
            return 0;
        }
        else if (a.rfind("--set", 0) == 0)
        {
            const std::string v = value("--set");
            if (v.empty())
            {
                return Usage("--set needs PATH=VALUE");
            }
            sets.push_back(v);
        }
        else if (a == "--load" || a.rfind("--load=", 0) == 0)
        {
            const std::string lib = value("--load");
            if (lib.empty())
            {
                return Usage("--load needs a shared library");
            }
            // Its static initialisers register its TypeIds with ns-3.
            if (dlopen(lib.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr)
            {
                std::cerr << "metaroce-run: --load " << lib << ": " << dlerror() << "\n";
                return 2;
            }
        }
        else if (a.rfind("--out", 0) == 0)
        {
            out = value("--out");
        }
        else if (a == "--quiet")
        {
            quiet = true;
        }
        else if (a.rfind("--", 0) == 0 || !file.empty())
        {
            return Usage(("unexpected argument " + a).c_str());
        }
        else
        {
            file = a;
        }
    }
    if (file.empty())
    {
        return Usage("no experiment file");
    }
    try
    {
        ExperimentRunner runner(LoadExperimentSpec(file, sets, METAROCE_SOURCE_DIR));
        runner.Build();
        runner.Run(!quiet && isatty(STDERR_FILENO) ? &std::cerr : nullptr);
        const nlohmann::json results = runner.Results();
        if (out.empty())
        {
            out = "results/" + results["experiment"].get<std::string>();
        }
        runner.Write(out);
        const auto& s = results["summary"];
        std::cout << results["experiment"].get<std::string>() << ": goodput " << s["goodput_gbps"]
                  << " Gb/s, normalized " << s["normalized_goodput"] << ", retransmitted "
                  << s["retransmitted_packets"] << ", " << s["completed_messages"] << " messages, "
                  << s["wall_seconds"] << " s wall -> " << out << "/results.json\n";
        Simulator::Destroy();
    }
    catch (const ConfigError& e)
    {
        std::cerr << "metaroce-run: " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "metaroce-run: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
