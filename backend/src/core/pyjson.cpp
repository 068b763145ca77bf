#include "worldstudio/core/pyjson.h"

#include <utf8proc.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include "worldstudio/core/error.h"

namespace ws {

std::string python_float_repr(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    // sci = [-]d[.ddd]e±XX: split into sign, digits and decimal exponent.
    bool neg = sci[0] == '-';
    if (neg) sci.erase(0, 1);
    size_t epos = sci.find('e');
    std::string mant = sci.substr(0, epos);
    int exp10 = std::stoi(sci.substr(epos + 1));
    std::string digits;
    for (char c : mant)
        if (c != '.') digits.push_back(c);
    int decpt = exp10 + 1;  // position of the decimal point relative to the digit string
    std::string out;
    if (decpt > -4 && decpt <= 16) {  // Python's repr switches to exponent form outside this range
        if (decpt <= 0) {
            out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
        } else if (static_cast<size_t>(decpt) >= digits.size()) {
            out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
        } else {
            out = digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
        }
    } else {
        out = digits.substr(0, 1);
        if (digits.size() > 1) out += "." + digits.substr(1);
        int e = decpt - 1;
        char eb[16];
        std::snprintf(eb, sizeof(eb), "e%c%02d", e < 0 ? '-' : '+', std::abs(e));
        out += eb;
    }
    return neg ? "-" + out : out;
}

std::string python_format_fixed(double v, int decimals) {
    char buf[512];
    std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
    return buf;
}

namespace {
void dump_string(const std::string& s, std::string& out) {
    out.push_back('"');
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(s.size()), i = 0;
    char buf[16];
    while (i < n) {
        utf8proc_int32_t cp = 0;
        utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &cp);
        if (len <= 0) {  // invalid UTF-8 cannot come from a parsed JSON document; escape the byte
            cp = 0xFFFD;
            len = 1;
        }
        i += len;
        switch (cp) {
            case '"': out += "\\\""; continue;
            case '\\': out += "\\\\"; continue;
            case '\n': out += "\\n"; continue;
            case '\r': out += "\\r"; continue;
            case '\t': out += "\\t"; continue;
            case '\b': out += "\\b"; continue;
            case '\f': out += "\\f"; continue;
            default: break;
        }
        if (cp >= 0x20 && cp < 0x7f) {
            out.push_back(static_cast<char>(cp));
        } else if (cp < 0x10000) {
            std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            unsigned v = static_cast<unsigned>(cp) - 0x10000;
            std::snprintf(buf, sizeof(buf), "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            out += buf;
        }
    }
    out.push_back('"');
}

void dump(const ojson& j, std::string& out) {
    switch (j.type()) {
        case ojson::value_t::null: out += "null"; break;
        case ojson::value_t::boolean: out += j.get<bool>() ? "true" : "false"; break;
        case ojson::value_t::number_integer: out += std::to_string(j.get<int64_t>()); break;
        case ojson::value_t::number_unsigned: out += std::to_string(j.get<uint64_t>()); break;
        case ojson::value_t::number_float: out += python_float_repr(j.get<double>()); break;
        case ojson::value_t::string: dump_string(j.get_ref<const std::string&>(), out); break;
        case ojson::value_t::array: {
            out.push_back('[');
            bool first = true;
            for (const auto& e : j) {
                if (!first) out += ", ";
                first = false;
                dump(e, out);
            }
            out.push_back(']');
            break;
        }
        case ojson::value_t::object: {
            out.push_back('{');
            bool first = true;
            for (auto it = j.begin(); it != j.end(); ++it) {
                if (!first) out += ", ";
                first = false;
                dump_string(it.key(), out);
                out += ": ";
                dump(it.value(), out);
            }
            out.push_back('}');
            break;
        }
        default: out += "null"; break;
    }
}

bool py_isspace(utf8proc_int32_t cp) {
    if (cp < 0x80) return (cp >= 9 && cp <= 13) || (cp >= 0x1c && cp <= 0x20);
    const utf8proc_property_t* p = utf8proc_get_property(cp);
    return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
           p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

// Decodes to (code point, byte offset) pairs; invalid bytes count as non-space single units.
std::vector<std::pair<utf8proc_int32_t, size_t>> decode(const std::string& s) {
    std::vector<std::pair<utf8proc_int32_t, size_t>> cps;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(s.size()), i = 0;
    while (i < n) {
        utf8proc_int32_t cp = -1;
        utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &cp);
        if (len <= 0) len = 1, cp = -1;
        cps.push_back({cp, static_cast<size_t>(i)});
        i += len;
    }
    return cps;
}
}  // namespace

std::string python_json_dumps(const ojson& value) {
    std::string out;
    dump(value, out);
    return out;
}

std::string py_strip(const std::string& s) {
    auto cps = decode(s);
    size_t b = 0, e = cps.size();
    while (b < e && py_isspace(cps[b].first)) ++b;
    while (e > b && py_isspace(cps[e - 1].first)) --e;
    if (b == e) return "";
    size_t start = cps[b].second;
    size_t end = e < cps.size() ? cps[e].second : s.size();
    return s.substr(start, end - start);
}

std::string py_rstrip(const std::string& s) {
    auto cps = decode(s);
    size_t e = cps.size();
    while (e > 0 && py_isspace(cps[e - 1].first)) --e;
    return e < cps.size() ? s.substr(0, cps[e].second) : s;
}

std::string py_rstrip_chars(const std::string& s, char c) {
    size_t e = s.size();
    while (e > 0 && s[e - 1] == c) --e;
    return s.substr(0, e);
}

std::string py_lstrip_chars(const std::string& s, char c) {
    size_t b = 0;
    while (b < s.size() && s[b] == c) ++b;
    return s.substr(b);
}

void throw_field_type_error(const std::string& origin, const char* key, const char* expected, const char* got) {
    throw Error((origin.empty() ? std::string() : origin + ": ") + "field '" + key + "' must be " + expected +
                " (got " + got + ")");
}

}  // namespace ws
