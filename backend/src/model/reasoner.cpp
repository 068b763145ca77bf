// The reasoner: autoregressive decoding over the understanding tower with a K/V cache, the reference's
// sampling order, and prompt upsampling into structured JSON captions.
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <set>

#include "core/json_prefix.h"
#include "model/model_impl.h"
#include "model/reasoner.h"

#include "worldstudio/model/caption_check.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

namespace ws {

ReasonerSampling ReasonerSampling::from_json(const ojson& j) {
    ReasonerSampling s;
    if (!j.is_object()) return s;
    auto num = [&](const char* k, double& out) {
        if (j.contains(k) && !j[k].is_null()) {
            if (!j[k].is_number()) throw Error(std::string("'") + k + "' must be a number");
            out = j[k].get<double>();
        }
    };
    if (j.contains("max_new_tokens")) {
        if (!j["max_new_tokens"].is_number_integer() || j["max_new_tokens"].get<int64_t>() < 1 ||
            j["max_new_tokens"].get<int64_t>() > 100000)
            throw Error("'max_new_tokens' must be an integer between 1 and 100000");
        s.max_new_tokens = j["max_new_tokens"].get<int>();
    }
    if (j.contains("do_sample")) {
        if (!j["do_sample"].is_boolean()) throw Error("'do_sample' must be true or false");
        s.do_sample = j["do_sample"].get<bool>();
    }
    double top_k = s.top_k, seed = static_cast<double>(s.seed);
    num("temperature", s.temperature);
    num("top_k", top_k);
    num("top_p", s.top_p);
    num("repetition_penalty", s.repetition_penalty);
    num("presence_penalty", s.presence_penalty);
    num("seed", seed);
    s.top_k = static_cast<int>(top_k);
    s.seed = static_cast<uint64_t>(seed);
    if (s.do_sample && !(s.temperature > 0)) throw Error("'temperature' must be positive when sampling");
    if (!(s.top_p > 0 && s.top_p <= 1)) throw Error("'top_p' must be in (0, 1]");
    if (!(s.repetition_penalty > 0)) throw Error("'repetition_penalty' must be positive");
    return s;
}

namespace {
// Repetition penalty (CTRL) -> presence penalty -> greedy, or temperature -> top-k -> top-p -> multinomial.
// `allowed` (when given) filters candidates: greedy takes the best allowed token; sampling keeps only allowed
// tokens (among the top_k best when top_k is set, so a large vocabulary is not checked whole).
int64_t pick_token(at::Tensor logits, const std::vector<int32_t>& prompt, const std::vector<int32_t>& generated,
                   const ReasonerSampling& s, std::mt19937_64& rng, const std::function<bool(int64_t)>& allowed = {}) {
    logits = logits.to(at::kCPU, at::kFloat).clone();
    float* L = logits.data_ptr<float>();
    if (s.repetition_penalty != 1.0) {
        std::set<int32_t> seen(prompt.begin(), prompt.end());
        seen.insert(generated.begin(), generated.end());
        for (int32_t t : seen)
            L[t] = L[t] > 0 ? static_cast<float>(L[t] / s.repetition_penalty)
                            : static_cast<float>(L[t] * s.repetition_penalty);
    }
    if (s.presence_penalty != 0.0) {
        std::set<int32_t> seen(generated.begin(), generated.end());
        for (int32_t t : seen) L[t] -= static_cast<float>(s.presence_penalty);
    }
    const int64_t V = logits.numel();
    if (allowed) {
        const at::Tensor order = std::get<1>(logits.sort(/*dim=*/0, /*descending=*/true));
        const int64_t* O = order.data_ptr<int64_t>();
        if (!s.do_sample) {
            for (int64_t i = 0; i < V; ++i)
                if (allowed(O[i])) return O[i];
            throw Error("no token can continue the constrained reply");
        }
        const int64_t keep = s.top_k > 0 ? std::min<int64_t>(s.top_k, V) : V;
        at::Tensor masked = at::full_like(logits, -std::numeric_limits<float>::infinity());
        float* M = masked.data_ptr<float>();
        int64_t kept = 0;
        for (int64_t i = 0; i < V && kept < keep; ++i)
            if (allowed(O[i])) M[O[i]] = L[O[i]], ++kept;
        if (kept == 0) throw Error("no token can continue the constrained reply");
        logits = masked;
    }
    if (!s.do_sample) return logits.argmax().item<int64_t>();
    logits = logits / s.temperature;
    if (!allowed && s.top_k > 0 && s.top_k < V) {
        at::Tensor kth = std::get<0>(logits.topk(s.top_k)).min();
        logits = logits.masked_fill(logits < kth, -std::numeric_limits<float>::infinity());
    }
    auto [sorted, order] = logits.sort(/*dim=*/0, /*descending=*/true);
    at::Tensor probs = at::softmax(sorted, 0);
    at::Tensor cum = probs.cumsum(0);
    // Keep the smallest prefix whose mass reaches top_p (at least one token).
    at::Tensor keep = (cum - probs) < s.top_p;
    keep[0] = true;
    probs = probs * keep.to(at::kFloat);
    probs = probs / probs.sum();
    std::uniform_real_distribution<double> u(0.0, 1.0);
    double r = u(rng), acc = 0;
    const float* P = probs.data_ptr<float>();
    const int64_t* O = order.data_ptr<int64_t>();
    for (int64_t i = 0; i < V; ++i) {
        acc += P[i];
        if (r < acc && P[i] > 0) return O[i];
    }
    return O[0];
}

std::string fill(std::string t, const std::string& key, const std::string& value) {
    for (size_t p = t.find(key); p != std::string::npos; p = t.find(key, p + value.size()))
        t.replace(p, key.size(), value);
    return t;
}
}  // namespace

std::string upsampler_chat(const std::string& template_name, const std::string& prompt, const GenerationRequest& req) {
    const auto& presets = embedded_presets();
    auto t = presets.find("upsampler/" + template_name + ".txt");
    if (t == presets.end()) throw Error("no upsampler template '" + template_name + "'");
    const PromptMetadata meta = req.metadata();
    const int secs = static_cast<int>(std::lround(req.num_frames / req.fps));
    char dur[16];
    std::snprintf(dur, sizeof(dur), "%d:%02d", secs / 60, secs % 60);
    std::string tmpl = t->second;
    tmpl = fill(tmpl, "{description}", prompt);
    tmpl = fill(tmpl, "{duration}", dur);
    tmpl = fill(tmpl, "{fps}", python_format_fixed(req.fps, 0));
    tmpl = fill(tmpl, "{aspect_ratio}", req.aspect_ratio);
    tmpl = fill(tmpl, "{width}", std::to_string(meta.width));
    tmpl = fill(tmpl, "{height}", std::to_string(meta.height));
    return chat_template("You are a helpful assistant.", tmpl);
}

std::vector<int32_t> decode_tokens(const Network& net, const Tokenizer* tokenizer,
                                   const std::vector<int32_t>& prompt_ids, const ReasonerSampling& s,
                                   int64_t stop_token, const RunCallbacks& cb) {
    c10::InferenceMode guard;
    if (prompt_ids.empty()) throw Error("the reasoner needs a non-empty prompt");
    std::vector<int64_t> ids64(prompt_ids.begin(), prompt_ids.end());
    TextKVCache cache;
    const int64_t L = static_cast<int64_t>(ids64.size());
    // Text-only positions: the same index on all three MRoPE rows (equivalent to 1-D RoPE).
    at::Tensor hidden = net.forward_text(net.embed_text(at::tensor(ids64, at::kLong)),
                                         at::arange(L, at::kFloat).unsqueeze(0).expand({3, L}), cache);
    at::Tensor logits = net.lm_head(hidden[L - 1]);
    std::mt19937_64 rng(s.seed);
    std::vector<int32_t> out;
    std::string pending;  // bytes of an incomplete UTF-8 sequence awaiting its continuation
    if (s.json_object && !tokenizer) throw Error("a JSON-constrained reply needs the tokenizer");
    if (s.json_object && s.max_new_tokens < 2) throw Error("a JSON object needs at least 2 new tokens");
    JsonPrefix json;
    int left = 0;  // tokens still allowed after the one being chosen
    std::function<bool(int64_t)> allowed;
    if (s.json_object)
        allowed = [&](int64_t id) {
            if (id == stop_token) return json.complete();
            const auto tid = static_cast<int32_t>(id);
            if (tokenizer->is_added(tid)) return false;
            const std::string bytes = tokenizer->token_bytes(tid);
            JsonPrefix trial = json;
            // Valid so far, and still closable in the tokens left (one byte a token at worst: byte tokens always
            // exist), so a reply stuck in a loop closes its object before the budget ends.
            return !bytes.empty() && trial.feed(bytes) && static_cast<int>(trial.closing().size()) <= left;
        };
    for (int n = 0; n < s.max_new_tokens; ++n) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        left = s.max_new_tokens - n - 1;
        const int64_t next = pick_token(logits, prompt_ids, out, s, rng, allowed);
        if (next == stop_token) break;
        if (s.json_object) json.feed(tokenizer->token_bytes(static_cast<int32_t>(next)));
        out.push_back(static_cast<int32_t>(next));
        if (cb.on_text && tokenizer) {
            pending += tokenizer->token_bytes(static_cast<int32_t>(next));
            // Emit only complete UTF-8 characters.
            size_t cut = pending.size();
            for (size_t back = 1; back <= std::min<size_t>(3, pending.size()); ++back) {
                unsigned char ch = static_cast<unsigned char>(pending[pending.size() - back]);
                if ((ch & 0xC0) == 0x80) continue;
                size_t need = ch >= 0xF0 ? 4 : ch >= 0xE0 ? 3 : ch >= 0xC0 ? 2 : 1;
                if (need > back) cut = pending.size() - back;
                break;
            }
            if (cut > 0) cb.on_text(pending.substr(0, cut)), pending.erase(0, cut);
        }
        if (cb.on_progress) cb.on_progress(n + 1, s.max_new_tokens, 0);
        at::Tensor h = net.forward_text(net.embed_text(at::tensor({next}, at::kLong)),
                                        at::full({3, 1}, static_cast<float>(L + n), at::kFloat), cache);
        logits = net.lm_head(h[0]);
    }
    if (cb.on_text && !pending.empty()) cb.on_text(pending);
    return out;
}

std::vector<int32_t> Session::generate_text(const std::vector<int32_t>& prompt_ids, const ReasonerSampling& s,
                                            const RunCallbacks& cb) {
    const ModelImpl& M = model_impl(*model_);
    const std::shared_ptr<const Network> text = M.text_network();  // the text tower, held for this reply (tower split)
    return decode_tokens(*text, M.tokenizer ? &*M.tokenizer : nullptr, prompt_ids, s, M.config.special.eos, cb);
}

std::string Session::ask(const std::string& message, const ReasonerSampling& s, const RunCallbacks& cb) {
    const ModelImpl& M = model_impl(*model_);
    if (!M.tokenizer) throw Error("the model folder has no tokenizer.json");
    return M.tokenizer->decode(generate_text(M.tokenizer->encode_chat_user_turn(message), s, cb));
}

UpsampleResult Session::upsample(const std::string& mode, const std::string& prompt, const ojson& request,
                                 const ReasonerSampling& s, const RunCallbacks& cb) {
    const ModelImpl& M = model_impl(*model_);
    if (!M.tokenizer) throw Error("the model folder has no tokenizer.json");
    static const std::map<std::string, std::string> files = {
        {"text2video", "t2v"},  {"t2v", "t2v"}, {"text2image", "t2i"},  {"t2i", "t2i"},
        {"image2video", "i2v"}, {"i2v", "i2v"}, {"video2video", "v2v"}, {"v2v", "v2v"}};
    auto f = files.find(mode);
    if (f == files.end()) throw Error("upsampling supports t2v, t2i, i2v and v2v (got '" + mode + "')");
    if (py_strip(prompt).empty()) throw Error("nothing to upsample: the prompt is empty");
    ojson job = request.is_object() ? request : ojson::object();
    job["model_mode"] = f->second == "t2v"   ? "text2video"
                        : f->second == "t2i" ? "text2image"
                        : f->second == "i2v" ? "image2video"
                                             : "video2video";
    job.erase("vision_path");
    ojson probe = job;
    if (probe["model_mode"] != "text2video" && probe["model_mode"] != "text2image") probe["model_mode"] = "text2video";
    GenerationRequest req = GenerationRequest::parse(probe);
    const std::string chat = upsampler_chat(f->second, prompt, req);
    std::vector<int32_t> ids = M.tokenizer->encode(chat);
    UpsampleResult r;
    std::vector<int32_t> gen = generate_text(ids, s, cb);
    r.raw_text = M.tokenizer->decode(gen);
    r.caption = extract_json_caption(r.raw_text);
    r.reasoner_caption = r.caption;
    // The prompt wins: attributes the reply swapped or dropped are put back before anyone sees the caption.
    const std::vector<CaptionIssue> repairs = repairable_issues(prompt, check_caption(prompt, r.caption));
    for (const CaptionIssue& i : repairs) r.prompt_repairs.push_back(issue_text(i));
    if (!repairs.empty()) r.caption = repair_caption(prompt, r.caption, repairs);
    r.problems = validate_caption(r.caption, job["model_mode"] == "text2image" ? 0.0 : req.num_frames / req.fps);
    if (cb.on_log)
        for (const auto& p : r.problems) cb.on_log("caption: " + p);
    r.json_text = python_json_dumps(r.caption);
    r.record = ojson{{"model", model_->id()},
                     {"mode", mode},
                     {"prompt", prompt},
                     {"template", f->second},
                     {"max_new_tokens", s.max_new_tokens},
                     {"do_sample", s.do_sample},
                     {"temperature", s.temperature},
                     {"top_k", s.top_k},
                     {"top_p", s.top_p},
                     {"repetition_penalty", s.repetition_penalty},
                     {"presence_penalty", s.presence_penalty},
                     {"seed", s.seed},
                     {"generated_tokens", gen.size()},
                     {"prompt_repairs", r.prompt_repairs},
                     {"versions", library_versions()}};
    return r;
}

}  // namespace ws
