#pragma once
// Qwen2-style byte-level BPE read from a Hugging Face `tokenizer.json`: added/special tokens are matched
// first, the rest is NFC-normalized, split by the Qwen pre-tokenizer pattern, mapped through the GPT-2
// byte-to-unicode table and merged by rank. Hand-written (not std::regex) because the pattern needs
// Unicode classes and lookahead, and ids must match the reference exactly.
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws {

// `bytes` with each byte that is not part of valid UTF-8 replaced by U+FFFD (Python's errors="replace").
std::string valid_utf8(const std::string& bytes);

class Tokenizer {
public:
    static Tokenizer from_file(const std::string& tokenizer_json_path);
    static Tokenizer from_json_text(const std::string& text, const std::string& origin = "tokenizer.json");

    std::vector<int32_t> encode(const std::string& text) const;
    // encode(chat_template_user_turn(content)).
    std::vector<int32_t> encode_chat_user_turn(const std::string& content) const;
    std::string decode(const std::vector<int32_t>& ids) const;
    // Bytes of one token as it would be decoded (for streaming: callers join bytes, then validate UTF-8).
    std::string token_bytes(int32_t id) const;

    int32_t token_id(const std::string& token) const;  // -1 if unknown
    bool is_added(int32_t id) const;                   // an added/special token (<|im_end|>, <think>, ...)
    int64_t vocab_size() const;                        // largest id + 1

    // Pre-tokenizer split (exposed for tests): pieces of already-normalized text.
    static std::vector<std::string> pre_tokenize(const std::string& text);

    Tokenizer(Tokenizer&&) noexcept;
    Tokenizer& operator=(Tokenizer&&) noexcept;
    ~Tokenizer();

private:
    Tokenizer();
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Trains a byte-level BPE on `texts` (NFC-normalized and split by the same pre-tokenizer that encoding uses) until
// the vocabulary holds `vocab_size` tokens, and returns it as tokenizer.json text that Tokenizer reads: the 256 byte
// tokens, then the Qwen special and chat tokens (<|endoftext|>, <|im_start|>, <|im_end|>, <think>, </think>,
// <|vision_start|>, <|vision_end|>), then the merges in the order they were learned. Deterministic: equal counts
// go to the pair whose token strings sort first. Training stops early when no pair occurs twice.
std::string train_byte_level_bpe(const std::vector<std::string>& texts, int vocab_size);

// The Qwen chat template for one user turn with the generation prompt and no system turn.
std::string chat_template_user_turn(const std::string& content);
// Qwen3-VL's chat template for a system turn (none when `system` is empty) and one user turn of text, with the
// generation prompt: what apply_chat_template renders for these messages (tests/model/test_reasoner_peer).
std::string chat_template(const std::string& system, const std::string& user);

// The version of utf8proc, whose Unicode tables decide NFC normalization (for generation records).
std::string unicode_library_version();

}  // namespace ws
