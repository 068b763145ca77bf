#include "worldstudio/core/error.h"

#include <new>
#include <regex>

namespace ws {

std::string user_message(const std::exception& e) {
    if (dynamic_cast<const Error*>(&e)) return e.what();
    if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory";
    std::string m = e.what();
    // nlohmann/json: "[json.exception.type_error.302] type must be array, but is null".
    static const std::regex json_tag(R"(^\[json\.exception\.([a-z_]+)\.[0-9]+\] )");
    std::smatch tag;
    if (std::regex_search(m, tag, json_tag)) {
        const std::string kind = tag[1], rest = m.substr(static_cast<size_t>(tag.length(0)));
        return kind == "parse_error" ? rest : "a JSON value is not what was expected (" + rest + ")";
    }
    // LibTorch (c10::Error) appends "Exception raised from ..." and a stack trace after the message.
    const size_t trace = m.find("Exception raised from");
    if (trace != std::string::npos) m.erase(trace);  // the newline before it goes with the trailing whitespace
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    return m.empty() ? "unexpected error" : m;
}

std::string one_line(std::string text) {
    std::string out, line;
    auto flush = [&] {
        const size_t a = line.find_first_not_of(" \t"), b = line.find_last_not_of(" \t\r");
        if (a != std::string::npos) out += (out.empty() ? "" : "; ") + line.substr(a, b - a + 1);
        line.clear();
    };
    for (char c : text) {
        if (c == '\n')
            flush();
        else
            line += c;
    }
    flush();
    return out;
}

}  // namespace ws
