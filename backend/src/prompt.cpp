#include "worldstudio/prompt.h"

#include "worldstudio/error.h"

namespace ws {

PromptTemplates PromptTemplates::for_image() {
    PromptTemplates t;
    t.duration.clear();
    t.inverse_duration.clear();
    t.resolution = "This image is of {height}x{width} resolution.";
    t.inverse_resolution = "This image is not of {height}x{width} resolution.";
    return t;
}

NegativeMetadataMode negative_metadata_mode_from_name(const std::string& n) {
    if (n == "none") return NegativeMetadataMode::None;
    if (n == "same") return NegativeMetadataMode::Same;
    if (n == "inverse") return NegativeMetadataMode::Inverse;
    throw Error("negative_metadata_mode must be none, same or inverse (got '" + n + "')");
}

std::string render_template(const std::string& tmpl, const PromptMetadata& meta) {
    std::string out;
    for (size_t i = 0; i < tmpl.size(); ++i) {
        char c = tmpl[i];
        if (c == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') { out.push_back('{'); ++i; continue; }
        if (c == '}' && i + 1 < tmpl.size() && tmpl[i + 1] == '}') { out.push_back('}'); ++i; continue; }
        if (c != '{') { out.push_back(c); continue; }
        size_t close = tmpl.find('}', i);
        if (close == std::string::npos) throw Error("template has an unclosed '{': " + tmpl);
        std::string field = tmpl.substr(i + 1, close - i - 1), spec;
        size_t colon = field.find(':');
        if (colon != std::string::npos) spec = field.substr(colon + 1), field = field.substr(0, colon);
        double value = 0;
        bool integral = false;
        if (field == "duration") value = meta.num_frames / meta.fps;
        else if (field == "fps") value = meta.fps, integral = (meta.fps == static_cast<int>(meta.fps));
        else if (field == "height") value = meta.height, integral = true;
        else if (field == "width") value = meta.width, integral = true;
        else throw Error("template placeholder {" + field + "} is unknown (use duration, fps, height, width)");
        if (spec.empty()) {
            // Python prints ints as ints and floats with repr.
            out += integral ? std::to_string(static_cast<long long>(value)) : python_float_repr(value);
        } else if (spec.size() >= 3 && spec[0] == '.' && spec.back() == 'f') {
            out += python_format_fixed(value, std::stoi(spec.substr(1, spec.size() - 2)));
        } else {
            throw Error("template format spec ':" + spec + "' is not supported (use .Nf)");
        }
        i = close;
    }
    return out;
}

bool parse_json_caption(const std::string& text, ojson* out) {
    ojson j = ojson::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return false;
    if (out) *out = std::move(j);
    return true;
}

namespace {
// The reference's _format_prompt_with_template for plain text.
std::string append_sentences(const std::string& prompt, const PromptMetadata& meta, const std::string& duration,
                             const std::string& resolution, bool always_duration) {
    std::string p = py_strip(prompt);
    if ((meta.is_video() || always_duration) && !duration.empty())
        p = py_rstrip_chars(p, '.') + ". " + render_template(duration, meta);
    p = py_strip(p);
    if (!resolution.empty()) p = py_rstrip_chars(p, '.') + ". " + render_template(resolution, meta);
    return p;
}
}  // namespace

std::string format_prompt(const std::string& prompt, const PromptMetadata& meta, const PromptTemplates& t) {
    ojson obj;
    if (parse_json_caption(prompt, &obj)) {
        if (meta.is_video()) {
            obj["duration"] = std::to_string(static_cast<long long>(meta.num_frames / meta.fps)) + "s";
            obj["fps"] = static_cast<double>(meta.fps);
        } else {
            obj.erase("duration");
            obj.erase("fps");
        }
        obj["resolution"] = ojson{{"H", meta.height}, {"W", meta.width}};
        if (!meta.aspect_ratio.empty()) obj["aspect_ratio"] = meta.aspect_ratio;
        return python_json_dumps(obj);
    }
    return append_sentences(prompt, meta, t.duration, t.resolution, false);
}

std::string format_negative_prompt(const std::string& negative, const PromptMetadata& meta, const PromptTemplates& t,
                                   NegativeMetadataMode mode) {
    switch (mode) {
        case NegativeMetadataMode::None: return negative;
        case NegativeMetadataMode::Same:
            return py_strip(py_lstrip_chars(append_sentences(negative, meta, t.duration, t.resolution, false), '.'));
        case NegativeMetadataMode::Inverse:
            return py_strip(py_lstrip_chars(
                append_sentences(negative, meta, t.inverse_duration, t.inverse_resolution, true), '.'));
    }
    return negative;
}

std::string chat_template_user_turn(const std::string& content) {
    return "<|im_start|>user\n" + content + "<|im_end|>\n<|im_start|>assistant\n";
}

}  // namespace ws
