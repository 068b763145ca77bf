// model_index.json's worldstudio_generation_defaults, as a model folder names them: refused with a ws::Error or
// read, and what is read merges into a request the way Session::generate merges it.
#include "fuzz_support.h"
#include "model/model_impl.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ws::ojson defaults = ws::parse_generation_defaults(text, "model_index.json");
        for (const char* mode : {"text2video", "forward_dynamics"}) {
            ws::ojson job = ws::merge_generation_defaults(defaults, mode);
            job["model_mode"] = mode;
            job["prompt"] = "a ball";
            ws::GenerationRequest::parse(job);
        }
    } catch (const ws::Error&) {
    }
    return 0;
}
