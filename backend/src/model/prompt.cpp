#include "worldstudio/model/prompt.h"

#include "worldstudio/core/error.h"

#include <cctype>

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
        if (c == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
            out.push_back('{');
            ++i;
            continue;
        }
        if (c == '}' && i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
            out.push_back('}');
            ++i;
            continue;
        }
        if (c != '{') {
            out.push_back(c);
            continue;
        }
        size_t close = tmpl.find('}', i);
        if (close == std::string::npos) throw Error("template has an unclosed '{': " + tmpl);
        std::string field = tmpl.substr(i + 1, close - i - 1), spec;
        size_t colon = field.find(':');
        if (colon != std::string::npos) spec = field.substr(colon + 1), field = field.substr(0, colon);
        double value = 0;
        bool integral = false;
        if (field == "duration")
            value = meta.num_frames / meta.fps;
        else if (field == "fps")
            value = meta.fps, integral = (meta.fps == static_cast<int>(meta.fps));
        else if (field == "height")
            value = meta.height, integral = true;
        else if (field == "width")
            value = meta.width, integral = true;
        else
            throw Error("template placeholder {" + field + "} is unknown (use duration, fps, height, width)");
        if (spec.empty()) {
            // Python prints ints as ints and floats with repr.
            out += integral ? std::to_string(static_cast<long long>(value)) : python_float_repr(value);
        } else if (spec.size() >= 3 && spec.size() <= 4 && spec[0] == '.' && spec.back() == 'f' &&
                   spec.substr(1, spec.size() - 2).find_first_not_of("0123456789") == std::string::npos) {
            out += python_format_fixed(value, std::stoi(spec.substr(1, spec.size() - 2)));  // .0f to .99f
        } else {
            throw Error("template format spec ':" + spec + "' is not supported (use .Nf, N from 0 to 99)");
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

std::string format_prompt_diffusers(const std::string& prompt, const PromptMetadata& meta, const PromptTemplates& t,
                                    bool negative) {
    auto append = [](std::string base, const std::string& sentence) {
        while (!base.empty() && base.back() == '.') base.pop_back();
        return base.empty() ? sentence : base + ". " + sentence;
    };
    std::string p = prompt;
    const std::string& duration = negative ? t.inverse_duration : t.duration;
    const std::string& resolution = negative ? t.inverse_resolution : t.resolution;
    if (meta.is_video() && !duration.empty()) p = append(p, render_template(duration, meta));
    if (!resolution.empty()) p = append(p, render_template(resolution, meta));
    return p;
}

std::string diffusers_system_prompt(bool image) {
    return std::string("You are a helpful assistant who will generate ") + (image ? "images" : "videos") +
           " from a give prompt.";
}

std::string wrap_plain_prompt_as_caption(const std::string& prompt) {
    if (parse_json_caption(prompt, nullptr)) return prompt;
    return python_json_dumps(ojson{{"temporal_caption", py_strip(prompt)}});
}

std::string format_negative_prompt(const std::string& negative, const PromptMetadata& meta, const PromptTemplates& t,
                                   NegativeMetadataMode mode) {
    switch (mode) {
        case NegativeMetadataMode::None: return negative;
        case NegativeMetadataMode::Same:
            return py_strip(py_lstrip_chars(append_sentences(negative, meta, t.duration, t.resolution, false), '.'));
        case NegativeMetadataMode::Inverse:
            return py_strip(
                py_lstrip_chars(append_sentences(negative, meta, t.inverse_duration, t.inverse_resolution, true), '.'));
    }
    return negative;
}

}  // namespace ws

namespace ws {

ojson extract_json_caption(const std::string& reply) {
    std::string text = reply;
    for (size_t a = text.find("<think>"); a != std::string::npos; a = text.find("<think>")) {
        size_t b = text.find("</think>", a);
        text.erase(a, b == std::string::npos ? std::string::npos : b + 8 - a);
    }
    std::string body;
    size_t fence = text.find("```json");
    if (fence != std::string::npos) {
        size_t start = text.find('\n', fence);
        size_t end = start == std::string::npos ? std::string::npos : text.find("```", start);
        if (end == std::string::npos) throw Error("the reply's ```json block is not closed");
        body = text.substr(start + 1, end - start - 1);
    } else {
        size_t a = text.find('{'), b = text.rfind('}');
        if (a != std::string::npos && b != std::string::npos && b > a) body = text.substr(a, b - a + 1);
    }
    if (py_strip(body).empty()) throw Error("the reply holds no JSON caption");
    ojson caption;
    if (!parse_json_caption(body, &caption)) {
        ojson probe = ojson::parse(body, nullptr, false);
        throw Error(probe.is_discarded() ? "the reply's caption is not valid JSON"
                                         : "the reply's caption is not a JSON object");
    }
    return caption;
}

double parse_mss(const std::string& t) {
    size_t colon = t.find(':');
    // At most six digits of minutes: more is no clip length, and would overflow stoi (found by fuzz_request).
    if (colon == std::string::npos || colon == 0 || colon > 6 || t.size() - colon - 1 != 2) return -1;
    for (size_t i = 0; i < t.size(); ++i)
        if (i != colon && !std::isdigit(static_cast<unsigned char>(t[i]))) return -1;
    const int m = std::stoi(t.substr(0, colon)), s = std::stoi(t.substr(colon + 1));
    if (s >= 60) return -1;
    return m * 60.0 + s;
}

std::vector<std::string> validate_caption(const ojson& c, double duration) {
    std::vector<std::string> problems;
    if (!c.is_object()) return {"the caption is not a JSON object"};
    auto type_is = [&](const char* key, bool ok, const char* expected) {
        if (c.contains(key) && !ok) problems.push_back(std::string("'") + key + "' should be " + expected);
    };
    for (const char* k :
         {"background_setting", "style_medium", "artistic_style", "context", "temporal_caption", "audio_description",
          "comprehensive_t2i_caption", "scene_imagination", "aspect_ratio", "duration"})
        type_is(k, c.contains(k) && c[k].is_string(), "a string");
    for (const char* k : {"lighting", "aesthetics", "cinematography", "quadrant_scan", "subject_details"})
        type_is(k, c.contains(k) && c[k].is_object(), "an object");
    for (const char* k : {"subjects", "actions", "segments", "transitions", "text_and_signage_elements"})
        type_is(k, c.contains(k) && c[k].is_array(), "an array");
    type_is("fps", c.contains("fps") && (c["fps"].is_number() || c["fps"].is_string()), "a number");
    if (c.contains("subjects") && c["subjects"].is_array())
        for (size_t i = 0; i < c["subjects"].size(); ++i)
            if (!c["subjects"][i].is_object())
                problems.push_back("subjects[" + std::to_string(i) + "] should be an object");
    auto check_time = [&](const std::string& where, const std::string& t) {
        const double s = parse_mss(t);
        if (s < 0)
            problems.push_back(where + " '" + t + "' is not M:SS");
        else if (duration > 0 && s > duration + 1e-9)
            problems.push_back(where + " " + t + " is past the end of the video");
    };
    if (c.contains("actions") && c["actions"].is_array())
        for (size_t i = 0; i < c["actions"].size(); ++i) {
            const ojson& a = c["actions"][i];
            const std::string where = "actions[" + std::to_string(i) + "].time";
            if (!a.is_object())
                problems.push_back("actions[" + std::to_string(i) + "] should be an object");
            else if (a.contains("time") && a["time"].is_string()) {
                std::string t = a["time"].get<std::string>();
                size_t dash = t.find('-');
                if (dash != std::string::npos)
                    check_time(where, py_strip(t.substr(0, dash))), check_time(where, py_strip(t.substr(dash + 1)));
                else
                    check_time(where, py_strip(t));
            }
        }
    if (c.contains("segments") && c["segments"].is_array())
        for (size_t i = 0; i < c["segments"].size(); ++i) {
            const ojson& s = c["segments"][i];
            const std::string where = "segments[" + std::to_string(i) + "].time_range";
            if (!s.is_object()) {
                problems.push_back("segments[" + std::to_string(i) + "] should be an object");
                continue;
            }
            if (s.contains("time_range") && s["time_range"].is_string()) {
                std::string t = s["time_range"].get<std::string>();
                size_t dash = t.find('-');
                if (dash == std::string::npos)
                    problems.push_back(where + " '" + t + "' is not M:SS-M:SS");
                else {
                    check_time(where, py_strip(t.substr(0, dash)));
                    check_time(where, py_strip(t.substr(dash + 1)));
                    const double a = parse_mss(py_strip(t.substr(0, dash))),
                                 b = parse_mss(py_strip(t.substr(dash + 1)));
                    if (a >= 0 && b >= 0 && b < a) problems.push_back(where + " '" + t + "' ends before it starts");
                }
            }
        }
    return problems;
}

}  // namespace ws
