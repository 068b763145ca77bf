#pragma once
// Byte-exact reproduction of Python's `json.dumps(obj)` with its defaults (separators ", " and ": ",
// ensure_ascii, insertion order, float repr). The reference serializes JSON captions this way before
// tokenizing, so any other spelling would change the token ids the network sees.
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

namespace ws {

using ojson = nlohmann::ordered_json;

std::string python_json_dumps(const ojson& value);
// Python's repr(float): shortest round-trip digits, "24.0", "1e+20", "1.5e-07", "inf"/"nan" spelled as json does.
std::string python_float_repr(double v);
// Python's format(v, ".Nf"), e.g. "{:.1f}".format(7.875) == "7.9" (correctly rounded, like printf).
std::string python_format_fixed(double v, int decimals);

// Python's str.strip()/rstrip()/rstrip(chars)/lstrip(chars) on UTF-8 text (whitespace = str.isspace()).
std::string py_strip(const std::string& s);
std::string py_rstrip(const std::string& s);
std::string py_rstrip_chars(const std::string& s, char c);
std::string py_lstrip_chars(const std::string& s, char c);

// What a JSON field of type T must hold, for error messages ("a number", "a list of integers", ...).
template <typename T>
const char* json_expected();
template <>
inline const char* json_expected<bool>() {
    return "true or false";
}
template <>
inline const char* json_expected<int>() {
    return "an integer";
}
template <>
inline const char* json_expected<int64_t>() {
    return "an integer";
}
template <>
inline const char* json_expected<double>() {
    return "a number";
}
template <>
inline const char* json_expected<float>() {
    return "a number";
}
template <>
inline const char* json_expected<std::string>() {
    return "a string";
}
template <>
inline const char* json_expected<std::vector<int64_t>>() {
    return "a list of integers";
}
template <>
inline const char* json_expected<std::vector<double>>() {
    return "a list of numbers";
}
template <>
inline const char* json_expected<std::vector<std::string>>() {
    return "a list of strings";
}
template <>
inline const char* json_expected<std::vector<bool>>() {
    return "a list of true/false values";
}

// "ORIGIN: field 'KEY' must be EXPECTED (got TYPE)" (without "ORIGIN: " when it is empty).
[[noreturn]] void throw_field_type_error(const std::string& origin, const char* key, const char* expected,
                                         const char* got);

// Reads `key` into `out` when present and not null (null means "not given", as the reference writes absent
// lists); a value of the wrong type is a ws::Error naming the origin, the field and what it must be.
template <typename T, typename Json>
void read_json_field(const Json& j, const char* key, T& out, const std::string& origin) {
    if (!j.is_object() || !j.contains(key) || j[key].is_null()) return;
    const Json& v = j[key];
    const char* got = v.is_number_float() ? "a non-integer number" : v.type_name();
    // nlohmann converts a float to an integer by truncation and an integer to bool; both would hide a mistake.
    bool ok = true;
    if constexpr (std::is_same_v<T, bool>)
        ok = v.is_boolean();
    else if constexpr (std::is_integral_v<T>)
        ok = v.is_number_integer();
    else if constexpr (std::is_floating_point_v<T>)
        ok = v.is_number();
    else if constexpr (std::is_same_v<T, std::string>)
        ok = v.is_string();
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        ok = v.is_array();
        for (const auto& e : v) ok = ok && e.is_number_integer();
    }
    if (!ok) throw_field_type_error(origin, key, json_expected<T>(), got);
    try {
        out = v.template get<T>();
    } catch (const std::exception&) {
        throw_field_type_error(origin, key, json_expected<T>(), got);
    }
}

// The same, returning `fallback` when the field is absent or null.
template <typename T, typename Json>
T json_field(const Json& j, const char* key, T fallback, const std::string& origin) {
    read_json_field(j, key, fallback, origin);
    return fallback;
}

}  // namespace ws
