#include "json-reader.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

// Rate and duration arithmetic is done exactly in 128 bits: a mantissa of up
// to 18 digits times a unit of up to 8 * 2^30 bit/s does not fit in 64.
__extension__ typedef unsigned __int128 Uint128;

constexpr size_t kMaxMantissaDigits = 18; // < 10^18 fits in uint64_t
constexpr size_t kMaxShownStringChars = 60;

/** A non-negative decimal "I[.F]" as mantissa / 10^fractionDigits. */
struct Decimal
{
    uint64_t mantissa = 0;
    uint32_t fractionDigits = 0;
};

uint64_t
Pow10(uint32_t n)
{
    uint64_t p = 1;
    while (n-- > 0)
    {
        p *= 10;
    }
    return p;
}

bool
IsDigit(char c)
{
    return c >= '0' && c <= '9';
}

/**
 * Splits "<decimal><unit>" into its parts. The number syntax is deliberately
 * narrow (no sign, exponent, space or bare '.') so that every accepted string
 * means one obvious value.
 */
bool
SplitQuantity(const std::string& text, Decimal* number, std::string* unit, std::string* reason)
{
    auto fail = [reason](const std::string& why) {
        if (reason != nullptr)
        {
            *reason = why;
        }
        return false;
    };
    if (text.empty())
    {
        return fail("empty string");
    }
    if (text[0] == '-')
    {
        return fail("negative values are not allowed");
    }
    if (text[0] == '+')
    {
        return fail("no sign is allowed");
    }
    size_t i = 0;
    std::string digits;
    while (i < text.size() && IsDigit(text[i]))
    {
        digits += text[i++];
    }
    if (digits.empty())
    {
        return fail("no number before the unit");
    }
    std::string fraction;
    if (i < text.size() && text[i] == '.')
    {
        ++i;
        while (i < text.size() && IsDigit(text[i]))
        {
            fraction += text[i++];
        }
        if (fraction.empty())
        {
            return fail("a '.' must be followed by digits");
        }
    }
    *unit = text.substr(i);
    if (unit->empty())
    {
        return fail("missing unit");
    }
    if ((*unit)[0] == ' ' || (*unit)[0] == '\t')
    {
        return fail("no space is allowed between the number and the unit");
    }
    if (((*unit)[0] == 'e' || (*unit)[0] == 'E') && unit->size() > 1 &&
        (IsDigit((*unit)[1]) || (*unit)[1] == '-' || (*unit)[1] == '+'))
    {
        return fail("exponents are not allowed");
    }
    // Trailing fraction zeros and leading integer zeros carry no value; drop
    // them so that "1.50" or "0100" do not count against the digit limit.
    while (!fraction.empty() && fraction.back() == '0')
    {
        fraction.pop_back();
    }
    size_t firstNonZero = digits.find_first_not_of('0');
    digits = firstNonZero == std::string::npos ? "" : digits.substr(firstNonZero);
    std::string all = digits + fraction;
    if (all.size() > kMaxMantissaDigits)
    {
        return fail("too many digits");
    }
    number->mantissa = 0;
    for (char c : all)
    {
        number->mantissa = number->mantissa * 10 + static_cast<uint64_t>(c - '0');
    }
    number->fractionDigits = static_cast<uint32_t>(fraction.size());
    return true;
}

/** number * unitValue as an exact integer, if it is one and fits in 64 bits. */
std::optional<uint64_t>
ScaleExactly(const Decimal& number,
             uint64_t unitValue,
             const std::string& notWhole,
             std::string* reason)
{
    Uint128 scaled = static_cast<Uint128>(number.mantissa) * unitValue;
    Uint128 divisor = Pow10(number.fractionDigits);
    if (scaled % divisor != 0)
    {
        if (reason != nullptr)
        {
            *reason = notWhole;
        }
        return std::nullopt;
    }
    scaled /= divisor;
    if (scaled > std::numeric_limits<uint64_t>::max())
    {
        if (reason != nullptr)
        {
            *reason = "too large";
        }
        return std::nullopt;
    }
    return static_cast<uint64_t>(scaled);
}

struct Unit
{
    const char* name;
    uint64_t value;
};

// Exactly ns-3 3.37's DataRate units (DataRate::DoParse), so that every rate
// accepted here means what it would mean to ns-3. ns-3 has no Tbps.
const Unit kRateUnits[] = {
    {"bps", 1},
    {"b/s", 1},
    {"Bps", 8},
    {"B/s", 8},
    {"kbps", 1000},
    {"kb/s", 1000},
    {"Kbps", 1000},
    {"Kb/s", 1000},
    {"kBps", 8000},
    {"kB/s", 8000},
    {"KBps", 8000},
    {"KB/s", 8000},
    {"Kib/s", 1024},
    {"KiB/s", 8 * 1024},
    {"Mbps", 1000000},
    {"Mb/s", 1000000},
    {"MBps", 8000000},
    {"MB/s", 8000000},
    {"Mib/s", 1024 * 1024},
    {"MiB/s", 8 * 1024 * 1024},
    {"Gbps", 1000000000},
    {"Gb/s", 1000000000},
    {"GBps", 8000000000},
    {"GB/s", 8000000000},
    {"Gib/s", uint64_t(1) << 30},
    {"GiB/s", uint64_t(8) << 30},
};

const Unit kDurationUnits[] = {
    {"ns", 1},
    {"us", 1000},
    {"ms", 1000000},
    {"s", 1000000000},
};

template <size_t N>
const Unit*
FindUnit(const Unit (&units)[N], const std::string& name)
{
    for (const Unit& u : units)
    {
        if (name == u.name)
        {
            return &u;
        }
    }
    return nullptr;
}

std::string
Join(const std::vector<std::string>& items)
{
    std::string out;
    for (const std::string& s : items)
    {
        out += (out.empty() ? "" : ", ") + s;
    }
    return out;
}

size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (size_t i = 1; i <= a.size(); ++i)
    {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j)
        {
            size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

/** The declared key a misspelt key most likely meant, or "" if none is close. */
std::string
ClosestKey(const std::string& unknown, const std::vector<std::string>& keys)
{
    std::string best;
    size_t bestDistance = std::numeric_limits<size_t>::max();
    for (const std::string& k : keys)
    {
        size_t d = EditDistance(unknown, k);
        // A truncated key ("kmin" for "kmin_bytes") is far in edits but an
        // obvious intent, so prefixes count as close too.
        bool prefix = unknown.size() >= 3 && (k.rfind(unknown, 0) == 0 || unknown.rfind(k, 0) == 0);
        bool close = d <= std::max<size_t>(2, k.size() / 3) || prefix;
        if (close && d < bestDistance)
        {
            best = k;
            bestDistance = d;
        }
    }
    return best;
}

std::string
FormatDouble(double x)
{
    std::ostringstream out;
    out << x;
    return out.str();
}

std::string
UnsignedExpectation(uint64_t min, uint64_t max, const std::string& why)
{
    std::string e = "an unsigned integer";
    if (min == max)
    {
        e += " equal to " + std::to_string(min);
    }
    else if (min > 0 && max < std::numeric_limits<uint64_t>::max())
    {
        e += " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    }
    else if (min > 0)
    {
        e += " >= " + std::to_string(min);
    }
    else if (max < std::numeric_limits<uint64_t>::max())
    {
        e += " <= " + std::to_string(max);
    }
    return why.empty() ? e : e + " (" + why + ")";
}

} // namespace

nlohmann::json
ParseJsonText(const std::string& text, const std::string& source)
{
    // nlohmann::json keeps the last of duplicate keys without a word; a parse
    // callback tracks the position in the document to report them instead.
    struct Frame
    {
        bool isObject;
        std::set<std::string> keys;
        std::string key;     //!< object: key of the member being parsed
        size_t elements = 0; //!< array: elements completed so far
    };

    std::vector<Frame> stack;
    auto token = [](const Frame& f) { return f.isObject ? f.key : std::to_string(f.elements); };
    auto elementDone = [&stack]() {
        if (!stack.empty() && !stack.back().isObject)
        {
            ++stack.back().elements;
        }
    };
    auto callback = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using Event = nlohmann::json::parse_event_t;
        switch (event)
        {
        case Event::object_start:
            stack.push_back(Frame{true, {}, "", 0});
            break;
        case Event::array_start:
            stack.push_back(Frame{false, {}, "", 0});
            break;
        case Event::object_end:
        case Event::array_end:
            stack.pop_back();
            elementDone();
            break;
        case Event::value:
            elementDone();
            break;
        case Event::key: {
            Frame& top = stack.back();
            top.key = parsed.get<std::string>();
            if (!top.keys.insert(top.key).second)
            {
                std::string path;
                for (const Frame& f : stack)
                {
                    path = JsonReader::ChildPath(path, token(f));
                }
                throw ConfigError(source + ": " + path +
                                  ": expected each key once in an object, got a duplicate key");
            }
            break;
        }
        }
        return true;
    };

    try
    {
        return nlohmann::json::parse(text, callback);
    }
    catch (const nlohmann::json::parse_error& e)
    {
        // Drop the "[json.exception.parse_error.101] " prefix: it means
        // nothing to someone fixing a file.
        std::string message = e.what();
        size_t end = message.find("] ");
        if (message.rfind("[json.exception", 0) == 0 && end != std::string::npos)
        {
            message = message.substr(end + 2);
        }
        throw ConfigError(source + ": not valid JSON: " + message);
    }
}

nlohmann::json
LoadJsonFile(const std::string& path)
{
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr)
    {
        throw ConfigError(path + ": cannot open: " + std::strerror(errno));
    }
    std::string text;
    char buffer[65536];
    size_t n;
    // Configuration files are small: a cap keeps a wrong path (a device, a
    // capture) from reading forever.
    constexpr size_t kMaxBytes = size_t(64) << 20;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    {
        text.append(buffer, n);
        if (text.size() > kMaxBytes)
        {
            std::fclose(file);
            throw ConfigError(path + ": /: expected a JSON file of at most 64 MiB, got more");
        }
    }
    // A directory opens fine on Linux and only fails here (EISDIR).
    bool failed = std::ferror(file) != 0;
    int readErrno = errno;
    std::fclose(file);
    if (failed)
    {
        throw ConfigError(path + ": cannot read: " + std::strerror(readErrno));
    }
    return ParseJsonText(text, path);
}

std::optional<uint64_t>
ParseRateString(const std::string& text, std::string* reason)
{
    Decimal number;
    std::string unitName;
    if (!SplitQuantity(text, &number, &unitName, reason))
    {
        return std::nullopt;
    }
    const Unit* unit = FindUnit(kRateUnits, unitName);
    if (unit == nullptr)
    {
        if (reason != nullptr)
        {
            *reason = "unknown unit \"" + unitName +
                      "\"; units are case-sensitive, e.g. bps, kbps, Mbps, Gbps, Gb/s, GBps, Gib/s";
        }
        return std::nullopt;
    }
    return ScaleExactly(number, unit->value, "not a whole number of bit/s", reason);
}

std::optional<uint64_t>
ParseDurationString(const std::string& text, std::string* reason)
{
    Decimal number;
    std::string unitName;
    if (!SplitQuantity(text, &number, &unitName, reason))
    {
        return std::nullopt;
    }
    const Unit* unit = FindUnit(kDurationUnits, unitName);
    if (unit == nullptr)
    {
        if (reason != nullptr)
        {
            *reason = "unknown unit \"" + unitName + "\"; units are ns, us, ms, s";
        }
        return std::nullopt;
    }
    // ns-3 Time defaults to nanosecond resolution: a finer value would be
    // rounded without notice.
    return ScaleExactly(number, unit->value, "not a whole number of nanoseconds", reason);
}

std::string
FormatRate(uint64_t bps)
{
    if (bps != 0 && bps % 1000000000 == 0)
    {
        return std::to_string(bps / 1000000000) + "Gbps";
    }
    if (bps != 0 && bps % 1000000 == 0)
    {
        return std::to_string(bps / 1000000) + "Mbps";
    }
    if (bps != 0 && bps % 1000 == 0)
    {
        return std::to_string(bps / 1000) + "kbps";
    }
    return std::to_string(bps) + "bps";
}

std::string
FormatDuration(uint64_t ns)
{
    if (ns != 0 && ns % 1000000000 == 0)
    {
        return std::to_string(ns / 1000000000) + "s";
    }
    if (ns != 0 && ns % 1000000 == 0)
    {
        return std::to_string(ns / 1000000) + "ms";
    }
    if (ns != 0 && ns % 1000 == 0)
    {
        return std::to_string(ns / 1000) + "us";
    }
    return std::to_string(ns) + "ns";
}

JsonReader::JsonReader(const nlohmann::json& root, std::string source)
    : JsonReader(&root, std::move(source), "")
{
}

JsonReader::JsonReader(const nlohmann::json* value, std::string source, std::string path)
    : m_value(value),
      m_source(std::move(source)),
      m_path(std::move(path))
{
}

const std::string&
JsonReader::Source() const
{
    return m_source;
}

std::string
JsonReader::Path() const
{
    return m_path.empty() ? "/" : m_path;
}

bool
JsonReader::IsPresent() const
{
    return m_value != nullptr;
}

const nlohmann::json&
JsonReader::Json() const
{
    NS_ABORT_MSG_IF(m_value == nullptr, "JsonReader::Json() on absent " << Path());
    return *m_value;
}

std::string
JsonReader::ChildPath(const std::string& parent, const std::string& token)
{
    std::string escaped;
    for (char c : token)
    {
        if (c == '~')
        {
            escaped += "~0";
        }
        else if (c == '/')
        {
            escaped += "~1";
        }
        else
        {
            escaped += c;
        }
    }
    return parent + "/" + escaped;
}

std::string
JsonReader::Describe(const nlohmann::json& value)
{
    switch (value.type())
    {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::boolean:
        return value.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
        return value.dump();
    case nlohmann::json::value_t::string: {
        std::string quoted = value.dump();
        if (quoted.size() > kMaxShownStringChars)
        {
            quoted = quoted.substr(0, kMaxShownStringChars) + "...\"";
        }
        return "string " + quoted;
    }
    case nlohmann::json::value_t::array:
        return "an array";
    case nlohmann::json::value_t::object:
        return "an object";
    default:
        return "an unsupported value";
    }
}

std::string
JsonReader::Found() const
{
    return m_value == nullptr ? "nothing (required key is missing)" : Describe(*m_value);
}

void
JsonReader::Fail(const std::string& expected) const
{
    Fail(expected, Found());
}

void
JsonReader::Fail(const std::string& expected, const std::string& got) const
{
    throw ConfigError(m_source + ": " + Path() + ": expected " + expected + ", got " + got);
}

void
JsonReader::ExpectObject(const std::vector<std::string>& keys)
{
    if (m_value == nullptr || !m_value->is_object())
    {
        Fail("an object with keys " + Join(keys));
    }
    for (const auto& member : m_value->items())
    {
        if (std::find(keys.begin(), keys.end(), member.key()) != keys.end())
        {
            continue;
        }
        std::string got = "unknown key \"" + member.key() + "\"";
        std::string suggestion = ClosestKey(member.key(), keys);
        if (!suggestion.empty())
        {
            got += " (did you mean \"" + suggestion + "\"?)";
        }
        JsonReader(&member.value(), m_source, ChildPath(m_path, member.key()))
            .Fail("one of the keys " + Join(keys), got);
    }
    m_keys = keys;
    m_objectChecked = true;
}

JsonReader
JsonReader::operator[](const std::string& key) const
{
    // Reading an undeclared key would let it be both "unknown" and used:
    // a bug in the caller, not in the file.
    NS_ABORT_MSG_UNLESS(m_objectChecked, "JsonReader: ExpectObject() not called for " << Path());
    NS_ABORT_MSG_UNLESS(std::find(m_keys.begin(), m_keys.end(), key) != m_keys.end(),
                        "JsonReader: key \"" << key << "\" not declared for " << Path());
    auto it = m_value->find(key);
    const nlohmann::json* member = it == m_value->end() ? nullptr : &*it;
    return JsonReader(member, m_source, ChildPath(m_path, key));
}

std::vector<JsonReader>
JsonReader::AsArray(size_t minSize, size_t maxSize) const
{
    std::string expected = "an array";
    if (minSize > 0 && maxSize < std::numeric_limits<size_t>::max())
    {
        expected +=
            " of " + std::to_string(minSize) + " to " + std::to_string(maxSize) + " elements";
    }
    else if (minSize > 0)
    {
        expected += " of at least " + std::to_string(minSize) + " elements";
    }
    else if (maxSize < std::numeric_limits<size_t>::max())
    {
        expected += " of at most " + std::to_string(maxSize) + " elements";
    }
    if (m_value == nullptr || !m_value->is_array())
    {
        Fail(expected);
    }
    if (m_value->size() < minSize || m_value->size() > maxSize)
    {
        Fail(expected, "an array of " + std::to_string(m_value->size()) + " elements");
    }
    std::vector<JsonReader> elements;
    for (size_t i = 0; i < m_value->size(); ++i)
    {
        elements.push_back(
            JsonReader(&(*m_value)[i], m_source, ChildPath(m_path, std::to_string(i))));
    }
    return elements;
}

uint64_t
JsonReader::AsUnsigned(uint64_t min, uint64_t max, const std::string& why) const
{
    std::string expected = UnsignedExpectation(min, max, why);
    // JSON built in code stores small non-negative ints as signed, so both
    // integer kinds are accepted when the value is >= 0.
    if (m_value == nullptr || !m_value->is_number_integer())
    {
        Fail(expected);
    }
    if (!m_value->is_number_unsigned() && m_value->get<int64_t>() < 0)
    {
        Fail(expected);
    }
    uint64_t v = m_value->get<uint64_t>();
    if (v < min || v > max)
    {
        Fail(expected);
    }
    return v;
}

double
JsonReader::AsNumber(double min, double max, const std::string& why) const
{
    std::string expected = "a number in [" + FormatDouble(min) + ", " + FormatDouble(max) + "]";
    if (!why.empty())
    {
        expected += " (" + why + ")";
    }
    if (m_value == nullptr || !m_value->is_number())
    {
        Fail(expected);
    }
    double v = m_value->get<double>();
    if (!(v >= min && v <= max))
    {
        Fail(expected);
    }
    return v;
}

bool
JsonReader::AsBool() const
{
    if (m_value == nullptr || !m_value->is_boolean())
    {
        Fail("true or false");
    }
    return m_value->get<bool>();
}

std::string
JsonReader::AsString() const
{
    if (m_value == nullptr || !m_value->is_string())
    {
        Fail("a string");
    }
    return m_value->get<std::string>();
}

DataRate
JsonReader::AsDataRate(uint64_t minBps, uint64_t maxBps, const std::string& why) const
{
    std::string expected = "a data rate in [" + FormatRate(minBps) + ", " + FormatRate(maxBps) +
                           "] such as \"100Gbps\"";
    if (!why.empty())
    {
        expected += " (" + why + ")";
    }
    if (m_value == nullptr || !m_value->is_string())
    {
        Fail(expected);
    }
    std::string reason;
    std::optional<uint64_t> bps = ParseRateString(m_value->get<std::string>(), &reason);
    if (!bps)
    {
        Fail(expected, Found() + " (" + reason + ")");
    }
    if (*bps < minBps || *bps > maxBps)
    {
        Fail(expected, Found() + " (= " + std::to_string(*bps) + " bit/s)");
    }
    return DataRate(*bps);
}

Time
JsonReader::AsDuration(uint64_t minNs, uint64_t maxNs, const std::string& why) const
{
    std::string expected = "a duration in [" + FormatDuration(minNs) + ", " +
                           FormatDuration(maxNs) + "] such as \"1us\"";
    if (!why.empty())
    {
        expected += " (" + why + ")";
    }
    if (m_value == nullptr || !m_value->is_string())
    {
        Fail(expected);
    }
    std::string reason;
    std::optional<uint64_t> ns = ParseDurationString(m_value->get<std::string>(), &reason);
    if (!ns)
    {
        Fail(expected, Found() + " (" + reason + ")");
    }
    if (*ns < minNs || *ns > maxNs)
    {
        Fail(expected);
    }
    return NanoSeconds(static_cast<int64_t>(*ns));
}

} // namespace ns3
