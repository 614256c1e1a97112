// libFuzzer harness for the JSON loaders: any input must give either a valid
// fabric or experiment, or a ConfigError (the user-facing message), never a
// crash, a hang or another exception. The first input byte picks the loader.
#include "experiment-spec.h"
#include "fabric-spec.h"
#include "json-reader.h"

#include <cstdlib>
#include <string>

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const bool experiment = data[0] & 1;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    try
    {
        const nlohmann::json doc = ParseJsonText(text, "fuzz.json");
        if (experiment)
        {
            // Fabric files resolve only inside the repository's topologies.
            ParseExperimentSpec(doc, "fuzz.json", METAROCE_SOURCE_DIR, METAROCE_SOURCE_DIR);
        }
        else
        {
            ParseFabricSpec(doc, "fuzz.json");
        }
    }
    catch (const ConfigError&)
    {
        // a clear error: fine
    }
    catch (const std::exception& e)
    {
        std::abort(); // anything else escaping is a bug
    }
    return 0;
}
