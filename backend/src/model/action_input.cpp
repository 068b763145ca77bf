#include "worldstudio/model/action_input.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "worldstudio/core/error.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

const std::vector<std::pair<std::string, std::vector<TierEntry>>>& resolution_tiers() {
    static const std::vector<std::pair<std::string, std::vector<TierEntry>>> tiers = {
        {"256", {{"1,1", 256, 256}, {"4,3", 320, 256}, {"3,4", 256, 320}, {"16,9", 320, 192}, {"9,16", 192, 320}}},
        {"480",
         {{"1,1", 640, 640},
          {"4,3", 736, 544},
          {"3,4", 544, 736},
          {"16,9", 832, 480},
          {"9,16", 480, 832},
          {"2,3", 512, 768}}},
        {"704", {{"1,1", 960, 960}, {"4,3", 1088, 832}, {"3,4", 832, 1088}, {"16,9", 1280, 704}, {"9,16", 704, 1280}}},
        {"720", {{"1,1", 960, 960}, {"4,3", 1104, 832}, {"3,4", 832, 1104}, {"16,9", 1280, 720}, {"9,16", 720, 1280}}},
        {"768",
         {{"1,1", 1024, 1024}, {"4,3", 1184, 880}, {"3,4", 880, 1184}, {"16,9", 1360, 768}, {"9,16", 768, 1360}}},
        {"1080",
         {{"1,1", 1440, 1440}, {"4,3", 1664, 1248}, {"3,4", 1248, 1664}, {"16,9", 1920, 1080}, {"9,16", 1080, 1920}}},
        {"1280",
         {{"1,1", 1712, 1712}, {"4,3", 1968, 1472}, {"3,4", 1472, 1968}, {"16,9", 2272, 1280}, {"9,16", 1280, 2272}}},
        {"2048",
         {{"1,1", 2728, 2728}, {"4,3", 3160, 2368}, {"3,4", 2368, 3160}, {"16,9", 3640, 2048}, {"9,16", 2048, 3640}}},
        {"gt_2048",
         {{"1,1", 5464, 5464}, {"4,3", 6304, 4728}, {"3,4", 4728, 6304}, {"16,9", 7280, 4096}, {"9,16", 4096, 7280}}}};
    return tiers;
}

const std::vector<TierEntry>& tier_entries(const std::string& tier) {
    std::string names;
    for (const auto& [name, entries] : resolution_tiers()) {
        if (name == tier) return entries;
        names += (names.empty() ? "" : ", ") + name;
    }
    throw Error("image_size (the resolution tier) must be one of " + names + " (got '" + tier + "')");
}

Canvas canvas_of_size(int h, int w, int target_h, int target_w, bool keep_aspect) {
    if (h <= 0 || w <= 0) throw Error("the source frame has no pixels");
    if (target_h <= 0 || target_w <= 0 || target_h > 8192 || target_w > 8192)
        throw Error("a canvas must be 1 to 8192 pixels a side");
    Canvas c{target_h, target_w, target_h, target_w};
    if (keep_aspect) {
        const double s = std::min({double(target_w) / w, double(target_h) / h, 1.0});
        c.content_h = static_cast<int>(std::floor(s * h + 0.5));
        c.content_w = static_cast<int>(std::floor(s * w + 0.5));
    }
    return c;
}

Canvas canvas_for(int h, int w, const std::string& tier) {
    if (h <= 0 || w <= 0) throw Error("the source frame has no pixels");
    const TierEntry* best = nullptr;
    double best_diff = 0;
    const double aspect = double(h) / w;
    for (const TierEntry& e : tier_entries(tier)) {
        const double d = std::abs(aspect - double(e.height) / e.width);
        if (!best || d < best_diff) best = &e, best_diff = d;  // strictly smaller: a tie keeps the earlier entry
    }
    return canvas_of_size(h, w, best->height, best->width, true);
}

std::string canvas_pad_mode(const Canvas& c) {
    const int pr = c.target_w - c.content_w, pb = c.target_h - c.content_h;
    if (pr == 0 && pb == 0) return "none";
    return pr >= c.content_w || pb >= c.content_h ? "edge" : "reflect";
}

namespace {

// The cubic convolution kernel with a = -0.5, the one PyTorch's antialiased bicubic uses.
double cubic(double x) {
    constexpr double a = -0.5;
    x = std::abs(x);
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
    return 0;
}

// Per output sample: the first input index and the normalized weights.
struct Taps {
    std::vector<int> first;
    std::vector<std::vector<double>> weights;
};
Taps resample_taps(int n, int m) {
    Taps t;
    const double scale = double(n) / m;
    const double support = scale >= 1 ? 2 * scale : 2.0;
    const double inv = scale >= 1 ? 1 / scale : 1.0;
    for (int i = 0; i < m; ++i) {
        const double center = scale * (i + 0.5);
        const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
        const int hi = std::min(static_cast<int>(center + support + 0.5), n);
        std::vector<double> w;
        double sum = 0;
        for (int j = lo; j < hi; ++j) w.push_back(cubic((j - center + 0.5) * inv)), sum += w.back();
        if (sum != 0)
            for (double& x : w) x /= sum;
        t.first.push_back(lo);
        t.weights.push_back(std::move(w));
    }
    return t;
}

uint8_t round_to_byte(double v) { return static_cast<uint8_t>(std::nearbyint(std::clamp(v, 0.0, 255.0))); }

int pad_index(int i, int n, bool reflect) {
    if (i < n) return i;
    return reflect ? n - 2 - (i - n) : n - 1;
}

}  // namespace

VideoFrames fit_to_canvas(const VideoFrames& in, const Canvas& c, std::vector<float>* content_float) {
    const int T = in.count, h = in.height, w = in.width, hc = c.content_h, wc = c.content_w;
    std::vector<uint8_t> content;
    if (c.resized(h, w)) {
        const Taps tx = resample_taps(w, wc), ty = resample_taps(h, hc);
        content.resize(static_cast<size_t>(T) * hc * wc * 3);
        if (content_float) content_float->assign(content.size(), 0.f);
        std::vector<double> rows(static_cast<size_t>(h) * wc * 3);
        for (int f = 0; f < T; ++f) {
            const uint8_t* src = in.frame(f);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < wc; ++x)
                    for (int ch = 0; ch < 3; ++ch) {
                        double s = 0;
                        const auto& wt = tx.weights[x];
                        for (size_t k = 0; k < wt.size(); ++k)
                            s += wt[k] * src[(static_cast<size_t>(y) * w + tx.first[x] + k) * 3 + ch];
                        rows[(static_cast<size_t>(y) * wc + x) * 3 + ch] = s;
                    }
            for (int y = 0; y < hc; ++y)
                for (int x = 0; x < wc; ++x)
                    for (int ch = 0; ch < 3; ++ch) {
                        double s = 0;
                        const auto& wt = ty.weights[y];
                        for (size_t k = 0; k < wt.size(); ++k) s += wt[k] * rows[((ty.first[y] + k) * wc + x) * 3 + ch];
                        const size_t o = ((static_cast<size_t>(f) * hc + y) * wc + x) * 3 + ch;
                        if (content_float) (*content_float)[o] = static_cast<float>(std::clamp(s, 0.0, 255.0));
                        content[o] = round_to_byte(s);
                    }
        }
    } else {
        content = in.rgb;
    }
    VideoFrames out;
    out.width = c.target_w, out.height = c.target_h, out.count = T, out.fps = in.fps;
    out.rgb.resize(static_cast<size_t>(T) * c.target_h * c.target_w * 3);
    const bool reflect = canvas_pad_mode(c) == "reflect";
    for (int f = 0; f < T; ++f)
        for (int y = 0; y < c.target_h; ++y) {
            const int sy = pad_index(y, hc, reflect);
            for (int x = 0; x < c.target_w; ++x) {
                const int sx = pad_index(x, wc, reflect);
                const uint8_t* p = &content[((static_cast<size_t>(f) * hc + sy) * wc + sx) * 3];
                std::copy(p, p + 3, &out.rgb[((static_cast<size_t>(f) * c.target_h + y) * c.target_w + x) * 3]);
            }
        }
    return out;
}

VideoFrames crop_to_content(const VideoFrames& in, const Canvas& c) {
    if (in.width == c.content_w && in.height == c.content_h) return in;
    if (in.width < c.content_w || in.height < c.content_h) throw Error("the video is smaller than the canvas content");
    VideoFrames out;
    out.width = c.content_w, out.height = c.content_h, out.count = in.count, out.fps = in.fps;
    out.rgb.resize(static_cast<size_t>(in.count) * c.content_h * c.content_w * 3);
    for (int f = 0; f < in.count; ++f)
        for (int y = 0; y < c.content_h; ++y) {
            const uint8_t* src = in.frame(f) + static_cast<size_t>(y) * in.width * 3;
            std::copy(src, src + c.content_w * 3,
                      &out.rgb[((static_cast<size_t>(f) * c.content_h + y) * c.content_w) * 3]);
        }
    return out;
}

VideoFrames take_frames(const VideoFrames& in, int n) {
    if (in.count <= 0) throw Error("the video has no frames");
    VideoFrames out = in;
    const size_t frame_bytes = static_cast<size_t>(in.width) * in.height * 3;
    out.count = n;
    out.rgb.resize(frame_bytes * n);
    for (int f = in.count; f < n; ++f)
        std::copy(in.frame(in.count - 1), in.frame(in.count - 1) + frame_bytes, out.rgb.begin() + frame_bytes * f);
    return out;
}

std::string aspect_key(int width, int height) {
    for (const auto& [tier, entries] : resolution_tiers())
        for (const TierEntry& e : entries)
            if (e.width == width && e.height == height) return e.aspect;
    const int g = std::gcd(width, height);
    return g ? std::to_string(width / g) + "," + std::to_string(height / g) : "0,0";
}

const char* caption_path_name(CaptionPath p) { return p == CaptionPath::Cli ? "cli" : "pipeline"; }
CaptionPath caption_path_from_name(const std::string& name) {
    if (name == "cli") return CaptionPath::Cli;
    if (name == "pipeline") return CaptionPath::Pipeline;
    throw Error("caption_path must be cli or pipeline (got '" + name + "')");
}

const char* const kDroidConcatViewDescription =
    "The top row is from the wrist-mounted camera. The bottom row contains two horizontally concatenated third-person "
    "perspective views of the scene from opposite sides, with the robot visible.";

std::string viewpoint_framing(const std::string& v) {
    static const std::vector<std::pair<std::string, std::string>> templates = {
        {"ego_view", "This video is captured from a first-person perspective looking at the scene."},
        {"third_person_view",
         "This video is captured from a third-person perspective looking towards the agent from the front."},
        {"wrist_view", "This video is captured from a wrist-mounted camera."},
        {"concat_view", "This video contains concatenated views from multiple camera perspectives."},
        {"top_down_2d_view", "This video is captured from a top-down view of a flat 2D scene."},
        {"video_game_view", "This video is captured from an in-game camera perspective in a virtual environment."}};
    for (const auto& [k, t] : templates)
        if (k == v) return t;
    return "";
}

namespace {

// The reference drops empty values recursively (null, "", [], {}), and objects emptied by that too.
bool drop_empty(ojson& j) {
    if (j.is_null()) return true;
    if (j.is_string()) return j.get<std::string>().empty();
    if (j.is_object()) {
        ojson kept = ojson::object();
        for (auto it = j.begin(); it != j.end(); ++it) {
            ojson v = it.value();
            if (!drop_empty(v)) kept[it.key()] = v;
        }
        j = kept;
        return j.empty();
    }
    if (j.is_array()) {
        ojson kept = ojson::array();
        for (ojson v : j)
            if (!drop_empty(v)) kept.push_back(v);
        j = kept;
        return j.empty();
    }
    return false;
}

std::string minutes_seconds(double d) {
    const long r = static_cast<long>(std::nearbyint(d));  // Python's round: half to even
    char buf[32];
    std::snprintf(buf, sizeof buf, "%ld:%02ld", r / 60, r % 60);
    return buf;
}

}  // namespace

std::string action_caption(const ActionCaption& a) {
    if (a.fps <= 0) throw Error("fps must be positive");
    const bool cli = a.path == CaptionPath::Cli;
    const std::string c = cli ? py_strip(a.prompt) : a.prompt;
    if (c.empty()) return "";
    const int frames = a.action_chunk_size + 1;
    const double d = double(frames) / a.fps;
    std::string time, duration;
    if (!cli && a.float_seconds) {
        time = "0.00-" + python_format_fixed(d, 2) + "s";
        duration = python_format_fixed(d, 2) + "s";
    } else {
        time = "0:00-" + minutes_seconds(d);
        duration = std::to_string(static_cast<long long>(d)) + "s";
    }
    std::string description = py_strip(c);
    const char last = description.empty() ? '\0' : description.back();
    if (last != '.' && last != '!' && last != '?') description += ".";
    ojson action = {{"time", time}, {"description", description}};
    if (!cli && a.mode != Mode::InverseDynamics && a.idle_frames)
        action["idle_frame"] = std::to_string(*a.idle_frames) + " out of " +
                               std::to_string(a.num_action_rows ? a.num_action_rows : a.action_chunk_size) + ".";
    std::string framing = viewpoint_framing(a.view_point);
    const std::string extra = !cli && a.additional_view_description ? *a.additional_view_description : "";
    if (!framing.empty() && !extra.empty())
        framing += (framing.back() == '.' ? " " : ". ") + py_rstrip(extra);
    else if (framing.empty())
        framing = py_rstrip(extra);
    const Canvas canvas = a.canvas ? *a.canvas : canvas_for(a.height, a.width, a.tier);
    ojson j = {{"cinematography", {{"framing", framing}}},
               {"actions", ojson::array({action})},
               {"duration", duration},
               {"fps", static_cast<double>(a.fps)},
               {"resolution", {{"H", canvas.target_h}, {"W", canvas.target_w}}},
               {"aspect_ratio", aspect_key(canvas.target_w, canvas.target_h)}};
    drop_empty(j);
    return python_json_dumps(j);
}

}  // namespace ws
