// A job file or caption as a user writes it: the JSON text, then request validation (GenerationRequest::parse,
// the fields of the reference sample JSON) and the caption checks. Refused with a ws::Error or accepted; an
// accepted request formats its prompt strings.
#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/prompt.h"
#include "worldstudio/model/request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    ws::ojson j = ws::ojson::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return 0;  // what `generate` refuses as "not valid JSON"
    try {
        const ws::GenerationRequest r = ws::GenerationRequest::parse(j);
        ws::format_prompt(r.prompt, r.metadata(), r.templates);
        ws::format_negative_prompt(r.negative_prompt, r.metadata(), r.templates, r.negative_metadata_mode);
        r.to_json();
    } catch (const ws::Error&) {
    }
    try {
        ws::validate_caption(j, 10.0);
        ws::extract_json_caption(text);
    } catch (const ws::Error&) {
    }
    return 0;
}
