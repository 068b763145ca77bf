// The caption check on what a user types: the input's first line is the prompt, the rest the caption's JSON. Any
// exception aborts (the check raises none), and the repair of a JSON object must be a JSON object.
#include <cstdlib>

#include "fuzz_support.h"
#include "worldstudio/model/caption_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t nl = input.find('\n');
    const std::string prompt = input.substr(0, nl), caption_text = nl == std::string::npos ? "" : input.substr(nl + 1);
    const ws::ojson caption = ws::ojson::parse(caption_text, nullptr, false);
    try {
        const auto issues = ws::check_caption(prompt, caption);
        const ws::ojson fixed = ws::repair_caption(prompt, caption, issues);
        if (caption.is_object() && !fixed.is_object()) std::abort();
        (void)fixed.dump();
    } catch (...) {
        std::abort();
    }
    return 0;
}
