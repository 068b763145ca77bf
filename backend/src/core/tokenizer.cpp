#include "worldstudio/core/tokenizer.h"

#include <utf8proc.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <tuple>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "worldstudio/core/error.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

namespace {

using cp_t = int32_t;

bool is_letter(cp_t c) {
    if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    auto cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_LU || cat == UTF8PROC_CATEGORY_LL || cat == UTF8PROC_CATEGORY_LT ||
           cat == UTF8PROC_CATEGORY_LM || cat == UTF8PROC_CATEGORY_LO;
}
bool is_number(cp_t c) {
    if (c < 0x80) return c >= '0' && c <= '9';
    auto cat = utf8proc_category(c);
    return cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NL || cat == UTF8PROC_CATEGORY_NO;
}
// Unicode White_Space, the meaning of \s in the reference's regex engine.
bool is_space(cp_t c) {
    return (c >= 9 && c <= 13) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
bool is_crlf(cp_t c) { return c == '\r' || c == '\n'; }

std::vector<cp_t> to_cps(const std::string& s, std::vector<size_t>* offsets) {
    std::vector<cp_t> cps;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(s.size()), i = 0;
    while (i < n) {
        utf8proc_int32_t c = 0;
        utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &c);
        if (len <= 0) len = 1, c = 0xFFFD;
        cps.push_back(c);
        if (offsets) offsets->push_back(static_cast<size_t>(i));
        i += len;
    }
    if (offsets) offsets->push_back(s.size());
    return cps;
}

// Length (in code points) of the pre-token starting at i; mirrors the alternation order of
// (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
size_t match_at(const std::vector<cp_t>& c, size_t i) {
    const size_t n = c.size();
    auto lower = [](cp_t x) { return (x >= 'A' && x <= 'Z') ? x + 32 : (x == 0x17F ? 's' : x); };
    if (c[i] == '\'' && i + 1 < n) {
        cp_t a = lower(c[i + 1]);
        if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
        if (i + 2 < n) {
            cp_t b = lower(c[i + 2]);
            if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
        }
    }
    {
        size_t j = i;
        if (!is_letter(c[j]) && !is_crlf(c[j]) && !is_number(c[j]) && j + 1 < n && is_letter(c[j + 1])) ++j;
        if (is_letter(c[j])) {
            while (j < n && is_letter(c[j])) ++j;
            return j - i;
        }
    }
    if (is_number(c[i])) return 1;
    {
        auto punct = [&](cp_t x) { return !is_space(x) && !is_letter(x) && !is_number(x); };
        size_t j = i;
        if (c[j] == ' ' && j + 1 < n && punct(c[j + 1])) ++j;
        if (punct(c[j])) {
            while (j < n && punct(c[j])) ++j;
            while (j < n && is_crlf(c[j])) ++j;
            return j - i;
        }
    }
    if (is_space(c[i])) {
        size_t end = i;
        while (end < n && is_space(c[end])) ++end;
        // \s*[\r\n]+ : the run up to and including its last CR/LF.
        for (size_t k = end; k > i; --k)
            if (is_crlf(c[k - 1])) return k - i;
        // \s+(?!\S) : the whole run at the end of text, else all but its last character.
        if (end == n) return end - i;
        if (end - i >= 2) return end - i - 1;
        return end - i;  // \s+
    }
    return 1;
}

// GPT-2's reversible byte <-> printable-unicode table.
struct ByteMap {
    std::string byte_to_utf8[256];
    std::unordered_map<cp_t, uint8_t> cp_to_byte;
    ByteMap() {
        std::vector<int> bs;
        for (int b = '!'; b <= '~'; ++b) bs.push_back(b);
        for (int b = 0xA1; b <= 0xAC; ++b) bs.push_back(b);
        for (int b = 0xAE; b <= 0xFF; ++b) bs.push_back(b);
        std::vector<int> cs = bs;
        int n = 0;
        for (int b = 0; b < 256; ++b)
            if (std::find(bs.begin(), bs.end(), b) == bs.end()) bs.push_back(b), cs.push_back(256 + n++);
        for (size_t k = 0; k < bs.size(); ++k) {
            utf8proc_uint8_t buf[8];
            auto len = utf8proc_encode_char(cs[k], buf);
            byte_to_utf8[bs[k]] = std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(len));
            cp_to_byte[cs[k]] = static_cast<uint8_t>(bs[k]);
        }
    }
};
const ByteMap& byte_map() {
    static const ByteMap m;
    return m;
}

std::string nfc(const std::string& s) {
    utf8proc_uint8_t* out = utf8proc_NFC(reinterpret_cast<const utf8proc_uint8_t*>(s.c_str()));
    if (!out) return s;  // invalid UTF-8: leave as is, bytes still encode losslessly
    std::string r(reinterpret_cast<char*>(out));
    free(out);
    return r;
}

}  // namespace

struct Tokenizer::Impl {
    std::unordered_map<std::string, int32_t> vocab;
    std::vector<std::string> id_to_token;
    std::vector<bool> is_added;
    int32_t byte_ids[256];
    std::unordered_map<uint64_t, std::pair<int32_t, int32_t>> merges;  // (a,b) -> (rank, merged id)
    std::vector<std::pair<std::string, int32_t>> added;                // longest first
    mutable std::mutex cache_mutex;
    mutable std::unordered_map<std::string, std::vector<int32_t>> cache;

    static uint64_t key(int32_t a, int32_t b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    }

    void bpe(const std::string& piece, std::vector<int32_t>& out) const {
        {
            std::lock_guard<std::mutex> lock(cache_mutex);
            auto it = cache.find(piece);
            if (it != cache.end()) {
                out.insert(out.end(), it->second.begin(), it->second.end());
                return;
            }
        }
        std::vector<int32_t> sym;
        sym.reserve(piece.size());
        for (unsigned char b : piece) sym.push_back(byte_ids[b]);
        while (sym.size() > 1) {
            int32_t best_rank = std::numeric_limits<int32_t>::max(), best_id = -1;
            size_t best_pos = 0;
            for (size_t k = 0; k + 1 < sym.size(); ++k) {
                auto it = merges.find(key(sym[k], sym[k + 1]));
                if (it != merges.end() && it->second.first < best_rank)
                    best_rank = it->second.first, best_id = it->second.second, best_pos = k;
            }
            if (best_id < 0) break;
            const int32_t a = sym[best_pos], b = sym[best_pos + 1];
            std::vector<int32_t> next;
            next.reserve(sym.size());
            for (size_t k = 0; k < sym.size(); ++k) {
                if (k + 1 < sym.size() && sym[k] == a && sym[k + 1] == b)
                    next.push_back(best_id), ++k;
                else
                    next.push_back(sym[k]);
            }
            sym.swap(next);
        }
        out.insert(out.end(), sym.begin(), sym.end());
        std::lock_guard<std::mutex> lock(cache_mutex);
        if (cache.size() < 200000) cache.emplace(piece, std::move(sym));
    }

    void encode_plain(const std::string& text, std::vector<int32_t>& out) const {
        const std::string norm = nfc(text);
        std::vector<size_t> off;
        auto cps = to_cps(norm, &off);
        size_t i = 0;
        while (i < cps.size()) {
            size_t len = match_at(cps, i);
            bpe(norm.substr(off[i], off[i + len] - off[i]), out);
            i += len;
        }
    }
};

Tokenizer::Tokenizer() : impl_(std::make_unique<Impl>()) {}
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot open tokenizer");
    std::stringstream ss;
    ss << in.rdbuf();
    return from_json_text(ss.str(), path);
}

Tokenizer Tokenizer::from_json_text(const std::string& text, const std::string& origin) {
    using nlohmann::json;
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        throw Error(origin + ": not valid JSON (" + user_message(e) + ")");
    }
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object()) throw Error(origin + ": no 'model' section");
    const json& m = j["model"];
    if (json_field<std::string>(m, "type", "", origin + ": model") != "BPE")
        throw Error(origin + ": only BPE tokenizers are supported");
    if (!m.contains("vocab") || !m["vocab"].is_object() || !m.contains("merges") || !m["merges"].is_array())
        throw Error(origin + ": BPE model needs 'vocab' and 'merges'");
    Tokenizer t;
    Impl& I = *t.impl_;
    int32_t max_id = -1;
    for (auto& [tok, id] : m["vocab"].items()) {
        if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > 10000000)
            throw Error(origin + ": vocab entry '" + tok + "' has a bad id");
        I.vocab[tok] = id.get<int32_t>();
        max_id = std::max(max_id, id.get<int32_t>());
    }
    if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
        for (const auto& a : j["added_tokens"]) {
            if (!a.is_object() || !a.contains("id") || !a.contains("content") || !a["content"].is_string() ||
                !a["id"].is_number_integer())
                throw Error(origin + ": malformed added_tokens entry");
            std::string content = a["content"].get<std::string>();
            // Ids as the vocabulary's: they size the id table, so an absurd one must not allocate it.
            if (a["id"].get<int64_t>() < 0 || a["id"].get<int64_t>() > 10000000)
                throw Error(origin + ": added token '" + content + "' has a bad id");
            const int32_t id = a["id"].get<int32_t>();
            if (content.empty()) throw Error(origin + ": malformed added_tokens entry");
            I.added.emplace_back(content, id);
            I.vocab[content] = id;
            max_id = std::max(max_id, id);
        }
    }
    std::sort(I.added.begin(), I.added.end(),
              [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
    I.id_to_token.assign(static_cast<size_t>(max_id + 1), std::string());
    I.is_added.assign(static_cast<size_t>(max_id + 1), false);
    for (auto& [tok, id] : I.vocab) I.id_to_token[static_cast<size_t>(id)] = tok;
    for (auto& [tok, id] : I.added) I.is_added[static_cast<size_t>(id)] = true;
    const ByteMap& bm = byte_map();
    for (int b = 0; b < 256; ++b) {
        auto it = I.vocab.find(bm.byte_to_utf8[b]);
        if (it == I.vocab.end()) throw Error(origin + ": vocabulary lacks byte token for byte " + std::to_string(b));
        I.byte_ids[b] = it->second;
    }
    int32_t rank = 0;
    for (const auto& mg : m["merges"]) {
        std::string a, b;
        if (mg.is_string()) {
            std::string s = mg.get<std::string>();
            size_t sp = s.find(' ');
            if (sp == std::string::npos) throw Error(origin + ": merge '" + s + "' has no space");
            a = s.substr(0, sp), b = s.substr(sp + 1);
        } else if (mg.is_array() && mg.size() == 2 && mg[0].is_string() && mg[1].is_string()) {
            a = mg[0].get<std::string>(), b = mg[1].get<std::string>();
        } else {
            throw Error(origin + ": malformed merge at rank " + std::to_string(rank));
        }
        auto ia = I.vocab.find(a), ib = I.vocab.find(b), ic = I.vocab.find(a + b);
        if (ia == I.vocab.end() || ib == I.vocab.end() || ic == I.vocab.end())
            throw Error(origin + ": merge '" + a + " " + b + "' uses tokens missing from the vocabulary");
        I.merges.emplace(Impl::key(ia->second, ib->second), std::make_pair(rank, ic->second));
        ++rank;
    }
    return t;
}

std::vector<int32_t> Tokenizer::encode(const std::string& text) const {
    std::vector<int32_t> out;
    size_t pos = 0;
    while (pos < text.size()) {
        // Earliest added token (longest at the same place); the text before it is plain.
        size_t best = std::string::npos;
        const std::pair<std::string, int32_t>* hit = nullptr;
        for (const auto& a : impl_->added) {
            size_t f = text.find(a.first, pos);
            if (f != std::string::npos && (f < best)) best = f, hit = &a;
        }
        if (!hit) {
            impl_->encode_plain(text.substr(pos), out);
            break;
        }
        if (best > pos) impl_->encode_plain(text.substr(pos, best - pos), out);
        out.push_back(hit->second);
        pos = best + hit->first.size();
    }
    return out;
}

std::vector<int32_t> Tokenizer::encode_chat_user_turn(const std::string& content) const {
    return encode(chat_template_user_turn(content));
}

bool Tokenizer::is_added(int32_t id) const {
    return id >= 0 && static_cast<size_t>(id) < impl_->is_added.size() && impl_->is_added[static_cast<size_t>(id)];
}

std::string Tokenizer::token_bytes(int32_t id) const {
    if (id < 0) throw Error("token id " + std::to_string(id) + " is negative");
    // Models carry more embedding rows than the vocabulary has tokens (Qwen: 151936 vs 151669); unused ids decode to
    // nothing.
    if (static_cast<size_t>(id) >= impl_->id_to_token.size()) return {};
    const std::string& tok = impl_->id_to_token[static_cast<size_t>(id)];
    if (impl_->is_added[static_cast<size_t>(id)]) return tok;
    std::string out;
    const ByteMap& bm = byte_map();
    for (cp_t c : to_cps(tok, nullptr)) {
        auto it = bm.cp_to_byte.find(c);
        if (it != bm.cp_to_byte.end()) out.push_back(static_cast<char>(it->second));
    }
    return out;
}

std::string valid_utf8(const std::string& bytes) {
    std::string out;
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(bytes.data());
    utf8proc_ssize_t n = static_cast<utf8proc_ssize_t>(bytes.size()), i = 0;
    while (i < n) {
        utf8proc_int32_t c = 0;
        utf8proc_ssize_t len = utf8proc_iterate(p + i, n - i, &c);
        if (len <= 0) {
            out += "\xEF\xBF\xBD";
            i += 1;
        } else {
            out.append(bytes, static_cast<size_t>(i), static_cast<size_t>(len));
            i += len;
        }
    }
    return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
    std::string bytes;
    for (int32_t id : ids) bytes += token_bytes(id);
    return valid_utf8(bytes);
}

int32_t Tokenizer::token_id(const std::string& token) const {
    auto it = impl_->vocab.find(token);
    return it == impl_->vocab.end() ? -1 : it->second;
}

int64_t Tokenizer::vocab_size() const { return static_cast<int64_t>(impl_->id_to_token.size()); }

std::vector<std::string> Tokenizer::pre_tokenize(const std::string& text) {
    std::vector<size_t> off;
    auto cps = to_cps(text, &off);
    std::vector<std::string> out;
    size_t i = 0;
    while (i < cps.size()) {
        size_t len = match_at(cps, i);
        out.push_back(text.substr(off[i], off[i + len] - off[i]));
        i += len;
    }
    return out;
}

}  // namespace ws

namespace ws {

std::string train_byte_level_bpe(const std::vector<std::string>& texts, int vocab_size) {
    static const char* kSpecials[] = {"<|endoftext|>", "<|im_start|>",     "<|im_end|>",    "<think>",
                                      "</think>",      "<|vision_start|>", "<|vision_end|>"};
    constexpr int kNumSpecials = 7;
    if (vocab_size < 256 + kNumSpecials)
        throw Error("a byte-level BPE needs at least " + std::to_string(256 + kNumSpecials) + " tokens");
    // Word counts over the corpus, as the encoder will see the words (normalized, pre-tokenized).
    std::map<std::string, int64_t> counts;
    for (const std::string& t : texts)
        for (const std::string& piece : Tokenizer::pre_tokenize(nfc(t))) ++counts[piece];
    const ByteMap& bm = byte_map();
    std::vector<std::string> tokens(256);
    std::unordered_map<std::string, int32_t> index_of;
    for (int b = 0; b < 256; ++b)
        tokens[static_cast<size_t>(b)] = bm.byte_to_utf8[b], index_of.emplace(tokens[static_cast<size_t>(b)], b);
    std::vector<std::vector<int32_t>> words;
    std::vector<int64_t> freq;
    for (const auto& [w, n] : counts) {
        std::vector<int32_t> sym;
        for (unsigned char b : w) sym.push_back(b);
        words.push_back(std::move(sym));
        freq.push_back(n);
    }
    auto key = [](int32_t a, int32_t b) {
        return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
    };
    std::unordered_map<uint64_t, int64_t> pairs;
    auto count_word = [&](size_t w, int64_t sign) {
        const auto& s = words[w];
        for (size_t k = 0; k + 1 < s.size(); ++k) pairs[key(s[k], s[k + 1])] += sign * freq[w];
    };
    for (size_t w = 0; w < words.size(); ++w) count_word(w, 1);
    std::vector<std::pair<int32_t, int32_t>> merges;
    // Merged tokens take ids after the specials, which sit right after the bytes as in Qwen's layout.
    const int merges_wanted = vocab_size - 256 - kNumSpecials;
    while (static_cast<int>(tokens.size()) - 256 < merges_wanted) {
        uint64_t best = 0;
        int64_t best_n = 1;  // a pair must occur at least twice
        for (const auto& [k, n] : pairs) {
            if (n < best_n) continue;
            if (n == best_n && best_n > 1) {
                const auto a = static_cast<int32_t>(k >> 32), b = static_cast<int32_t>(k & 0xffffffffu);
                const auto ba = static_cast<int32_t>(best >> 32), bb = static_cast<int32_t>(best & 0xffffffffu);
                if (std::tie(tokens[static_cast<size_t>(a)], tokens[static_cast<size_t>(b)]) >=
                    std::tie(tokens[static_cast<size_t>(ba)], tokens[static_cast<size_t>(bb)]))
                    continue;
            }
            best = k, best_n = n;
        }
        if (best_n < 2) break;
        const auto a = static_cast<int32_t>(best >> 32), b = static_cast<int32_t>(best & 0xffffffffu);
        // Two merge paths can spell the same token ("ab"+"c", "a"+"bc"): they share one id.
        const std::string spelled = tokens[static_cast<size_t>(a)] + tokens[static_cast<size_t>(b)];
        auto found = index_of.find(spelled);
        const auto merged = found != index_of.end() ? found->second : static_cast<int32_t>(tokens.size());
        if (found == index_of.end()) tokens.push_back(spelled), index_of.emplace(spelled, merged);
        merges.emplace_back(a, b);
        for (size_t w = 0; w < words.size(); ++w) {
            auto& s = words[w];
            bool has = false;
            for (size_t k = 0; k + 1 < s.size() && !has; ++k) has = s[k] == a && s[k + 1] == b;
            if (!has) continue;
            count_word(w, -1);
            std::vector<int32_t> next;
            for (size_t k = 0; k < s.size(); ++k) {
                if (k + 1 < s.size() && s[k] == a && s[k + 1] == b)
                    next.push_back(merged), ++k;
                else
                    next.push_back(s[k]);
            }
            s.swap(next);
            count_word(w, 1);
        }
        for (auto it = pairs.begin(); it != pairs.end();) it = it->second <= 0 ? pairs.erase(it) : std::next(it);
    }
    // Ids: bytes 0..255, specials 256..262, merged tokens from 263 in learned order.
    nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
    auto id_of = [&](size_t index) { return static_cast<int>(index < 256 ? index : index + kNumSpecials); };
    for (size_t i = 0; i < tokens.size(); ++i) vocab[tokens[i]] = id_of(i);
    nlohmann::ordered_json added = nlohmann::ordered_json::array(), merge_list = nlohmann::ordered_json::array();
    for (int i = 0; i < kNumSpecials; ++i)
        added.push_back({{"id", 256 + i},
                         {"content", kSpecials[i]},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false},
                         {"special", i < 3 || i > 4}});
    for (const auto& [a, b] : merges)
        merge_list.push_back(tokens[static_cast<size_t>(a)] + " " + tokens[static_cast<size_t>(b)]);
    const nlohmann::ordered_json tok = {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer", {{"type", "NFC"}}},
        {"pre_tokenizer", {{"type", "Sequence"}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merge_list}, {"ignore_merges", false}}}};
    return tok.dump(1);
}

std::string chat_template_user_turn(const std::string& content) {
    return "<|im_start|>user\n" + content + "<|im_end|>\n<|im_start|>assistant\n";
}

std::string chat_template(const std::string& system, const std::string& user) {
    if (system.empty()) return chat_template_user_turn(user);
    return "<|im_start|>system\n" + system + "<|im_end|>\n" + chat_template_user_turn(user);
}

std::string unicode_library_version() { return utf8proc_version(); }

}  // namespace ws
