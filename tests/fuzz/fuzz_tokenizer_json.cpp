// tokenizer.json as a user's model folder holds it: refused with a ws::Error or loaded, and a loaded tokenizer
// encodes text (including special tokens and invalid UTF-8) without crashing.
#include "fuzz_support.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const ws::Tokenizer t = ws::Tokenizer::from_json_text(text, "tokenizer.json");
        t.encode("Hello, world! \xc3\xa4\xe2\x82\xac 123 <|im_end|> \xff\xfe");
        t.encode_chat_user_turn("a ball bounces");
    } catch (const ws::Error&) {
    }
    return 0;
}
