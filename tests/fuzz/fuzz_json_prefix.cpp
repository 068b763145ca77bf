// The constrained decoder's JSON-object automaton against nlohmann's parser: bytes it accepts and calls complete
// are one JSON object; any accepted prefix closed with closing() is one JSON object. A disagreement aborts.
#include <cstdlib>

#include "core/json_prefix.h"
#include "fuzz_support.h"
#include "worldstudio/core/pyjson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ws::JsonPrefix p;
    size_t accepted = 0;
    for (; accepted < size; ++accepted)
        if (!p.feed(data[accepted])) break;
    const std::string prefix(reinterpret_cast<const char*>(data), accepted);
    if (accepted == size) {
        const std::string closed = p.complete() ? prefix : prefix + p.closing();
        const ws::ojson j = ws::ojson::parse(closed, nullptr, false);
        if (j.is_discarded() || !j.is_object()) {
            std::fprintf(stderr, "automaton accepted, nlohmann refused: %s\n", closed.c_str());
            std::abort();
        }
    }
    return 0;
}
