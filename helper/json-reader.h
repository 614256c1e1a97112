/*
 * JsonReader: strict, typed reading of JSON configuration files (fabric
 * descriptions, experiment files) with user-facing errors.
 *
 * Every error is a ConfigError whose message has one form:
 *
 *     <file>: <json-path>: expected <what was expected>[, got <what was found>]
 *
 * where <json-path> is a JSON Pointer ("/links/host_leaf/rate"; the root is
 * "/"). Objects declare their keys up front, so a misspelt key is reported as
 * unknown (with a suggestion) instead of surfacing later as a missing
 * required key, and nothing in a file is silently ignored.
 *
 * Rates and durations are strings parsed here, not by ns-3: DataRate(string)
 * and Time(string) abort the process on bad input, and a configuration typo
 * must be an error message, not a crash.
 */
#ifndef METAROCE_JSON_READER_H
#define METAROCE_JSON_READER_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/** Error raised for any invalid configuration input; what() is user-facing. */
class ConfigError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * Parses JSON text. Duplicate keys in an object are an error: nlohmann::json
 * would keep the last one silently.
 * \param text the document
 * \param source file name used in error messages
 * \throws ConfigError "<source>: not valid JSON: <parser message with line and column>"
 *         or "<source>: <path>: expected each key once in an object, got a duplicate key"
 */
nlohmann::json ParseJsonText(const std::string& text, const std::string& source);

/**
 * Reads a whole file and parses it with ParseJsonText.
 * \throws ConfigError "<path>: cannot open: <strerror>" (or "cannot read: ..."), or
 *         any error of ParseJsonText
 */
nlohmann::json LoadJsonFile(const std::string& path);

/**
 * Parses a data rate: a plain decimal number ("100", "2.5"; no sign, no
 * exponent) immediately followed by one of ns-3's DataRate units (bps, b/s,
 * Bps, B/s, kbps, Kbps, kb/s, Kb/s, kBps, KBps, kB/s, KB/s, Kib/s, KiB/s,
 * Mbps, Mb/s, MBps, MB/s, Mib/s, MiB/s, Gbps, Gb/s, GBps, GB/s, Gib/s, GiB/s).
 * The value must be a whole number of bit/s.
 * \param text the string
 * \param reason set to a short explanation on failure (may be null)
 * \return the rate in bit/s, or nothing if text is not a rate
 */
std::optional<uint64_t> ParseRateString(const std::string& text, std::string* reason);

/**
 * Parses a duration: a plain decimal number immediately followed by "ns",
 * "us", "ms" or "s". The value must be a whole number of nanoseconds.
 * \return the duration in nanoseconds, or nothing if text is not a duration
 */
std::optional<uint64_t> ParseDurationString(const std::string& text, std::string* reason);

/** Shortest exact rate string in Gbps, Mbps, kbps or bps (parses back to bps). */
std::string FormatRate(uint64_t bps);

/** Shortest exact duration string in s, ms, us or ns (parses back to ns). */
std::string FormatDuration(uint64_t ns);

/**
 * A read-only view of one value of a parsed JSON document, with its JSON path
 * and the name of its file. Members that are absent are still readers (see
 * IsPresent()), so a typed read of a missing required key can say what was
 * expected there.
 *
 * The document must outlive every reader made from it.
 */
class JsonReader
{
  public:
    /** A reader of the document root. */
    JsonReader(const nlohmann::json& root, std::string source);

    /** File name used in messages. */
    const std::string& Source() const;
    /** JSON Pointer of this value; "/" for the root. */
    std::string Path() const;
    /** False for a member whose key is not in its object. */
    bool IsPresent() const;
    /** The JSON value itself (must be present). */
    const nlohmann::json& Json() const;

    /**
     * Checks that this value is an object whose keys are all in `keys`; the
     * first other key is an error (with a "did you mean" suggestion for a
     * near miss). Members can be read only after this, and only for
     * declared keys.
     */
    void ExpectObject(const std::vector<std::string>& keys);

    /**
     * The member `key` of this object (after ExpectObject). An absent member
     * is returned as a reader with IsPresent() false.
     */
    JsonReader operator[](const std::string& key) const;

    /** The elements of this array, each a reader with its index in its path. */
    std::vector<JsonReader> AsArray(size_t minSize = 0,
                                    size_t maxSize = std::numeric_limits<size_t>::max()) const;

    /** A JSON integer >= 0 in [min, max]; `why` (if any) explains the bounds. */
    uint64_t AsUnsigned(uint64_t min = 0,
                        uint64_t max = std::numeric_limits<uint64_t>::max(),
                        const std::string& why = "") const;
    /** A JSON number (integer or not) in [min, max]. */
    double AsNumber(double min, double max, const std::string& why = "") const;
    /** true or false. */
    bool AsBool() const;
    /** Any JSON string. */
    std::string AsString() const;
    /** A rate string (ParseRateString) in [minBps, maxBps]. */
    DataRate AsDataRate(uint64_t minBps, uint64_t maxBps, const std::string& why = "") const;
    /** A duration string (ParseDurationString) in [minNs, maxNs]. */
    Time AsDuration(uint64_t minNs, uint64_t maxNs, const std::string& why = "") const;

    /**
     * Throws the error for this value: "<file>: <path>: expected <expected>,
     * got <description of this value>".
     */
    [[noreturn]] void Fail(const std::string& expected) const;
    /** As Fail(expected), with the caller describing what was found. */
    [[noreturn]] void Fail(const std::string& expected, const std::string& got) const;

    /** How a value is shown after "got": -3, 1.5, true, null, string "4", an object... */
    static std::string Describe(const nlohmann::json& value);
    /** A JSON Pointer of `parent` extended by one reference token (escaped per RFC 6901). */
    static std::string ChildPath(const std::string& parent, const std::string& token);

  private:
    JsonReader(const nlohmann::json* value, std::string source, std::string path);

    /** "got" text for this value: Describe(), or "nothing (required key is missing)". */
    std::string Found() const;

    const nlohmann::json* m_value;   //!< null when this member is absent
    std::string m_source;            //!< file name for messages
    std::string m_path;              //!< JSON Pointer; "" is the root (shown as "/")
    std::vector<std::string> m_keys; //!< keys declared by ExpectObject
    bool m_objectChecked = false;    //!< ExpectObject passed
};

} // namespace ns3

#endif
