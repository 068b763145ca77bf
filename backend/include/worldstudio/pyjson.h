#pragma once
// Byte-exact reproduction of Python's `json.dumps(obj)` with its defaults (separators ", " and ": ",
// ensure_ascii, insertion order, float repr). The reference serializes JSON captions this way before
// tokenizing, so any other spelling would change the token ids the network sees.
#include <nlohmann/json.hpp>
#include <string>

namespace ws {

using ojson = nlohmann::ordered_json;

std::string python_json_dumps(const ojson& value);
// Python's repr(float): shortest round-trip digits, "24.0", "1e+20", "1.5e-07", "inf"/"nan" spelled as json does.
std::string python_float_repr(double v);
// Python's format(v, ".Nf"), e.g. "{:.1f}".format(7.875) == "7.9" (correctly rounded, like printf).
std::string python_format_fixed(double v, int decimals);

// Python's str.strip()/rstrip(chars)/lstrip(chars) on UTF-8 text (whitespace = str.isspace()).
std::string py_strip(const std::string& s);
std::string py_rstrip_chars(const std::string& s, char c);
std::string py_lstrip_chars(const std::string& s, char c);

// Reads `key` into `out` when present and not null; a value of the wrong type is a ws::Error naming the field.
void throw_field_type_error(const std::string& origin, const char* key);
template <typename T>
void read_json_field(const ojson& j, const char* key, T& out, const std::string& origin) {
    if (!j.contains(key) || j[key].is_null()) return;
    try {
        out = j[key].get<T>();
    } catch (const std::exception&) {
        throw_field_type_error(origin, key);
    }
}

}  // namespace ws
