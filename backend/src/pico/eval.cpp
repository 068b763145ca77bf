#include "worldstudio/pico/eval.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "worldstudio/pico/world.h"

namespace ws::pico {

namespace {

// The scene's own colours: the wall's gradient, table, table edge, gripper greys.
constexpr uint8_t kScene[][3] = {{200, 205, 215}, {195, 201, 213}, {189, 196, 211}, {180, 188, 208}, {150, 105, 65},
                                 {95, 65, 40},    {90, 90, 100},   {70, 70, 80},    {60, 60, 70}};

int d2(const uint8_t* p, double r, double g, double b) {
    const double dr = p[0] - r, dg = p[1] - g, db = p[2] - b;
    return static_cast<int>(dr * dr + dg * dg + db * db);
}

// The squared distance to the nearest palette shade, and that shade's palette index in `colour`.
int nearest_shade(const uint8_t* p, int* colour) {
    int best_d = 1 << 30;
    for (size_t i = 0; i < palette().size(); ++i) {
        const Colour& c = palette()[i];
        for (double k : {0.75, 0.85, 0.95, 1.05}) {
            const int d = d2(p, std::min(255.0, c.r * k), std::min(255.0, c.g * k), std::min(255.0, c.b * k));
            if (d < best_d) best_d = d, *colour = static_cast<int>(i);
        }
    }
    return best_d;
}

// A pixel is an object's when it is near one of the object colour's shades (balls are shaded 0.75 to 1.1) and
// clearly nearer to it than to anything of the scene, so antialiased scene edges are not mistaken for white or
// black objects.
int classify(const uint8_t* p) {
    int best = -1;
    const int best_d = nearest_shade(p, &best);
    int scene = 1 << 30;
    for (const auto& s : kScene) scene = std::min(scene, d2(p, s[0], s[1], s[2]));
    return best_d < 60 * 60 && 2 * best_d < scene ? best : -1;
}

// The gripper's greys (arm, bar, fingers; the last three of kScene): a pixel within 40 of one of them and nearer
// to them than to the wall, the table and every palette shade. 0 not, 1 grey, 2 one of its greys (within 15).
int gripper_grey(const uint8_t* p) {
    int best = 1 << 30;
    for (size_t s = 6; s < 9; ++s) best = std::min(best, d2(p, kScene[s][0], kScene[s][1], kScene[s][2]));
    if (best >= 40 * 40) return 0;
    for (size_t s = 0; s < 6; ++s)  // the wall's gradient, the table, its edge
        if (d2(p, kScene[s][0], kScene[s][1], kScene[s][2]) <= best) return 0;
    int colour = -1;
    if (nearest_shade(p, &colour) <= best) return 0;
    return best < 15 * 15 ? 2 : 1;
}

}  // namespace

std::vector<std::pair<double, double>> track_gripper(const VideoFrames& v, int min_pixels) {
    std::vector<std::pair<double, double>> out(static_cast<size_t>(v.count), {-1, -1});
    const int W = v.width, H = v.height;
    std::vector<int> cls(static_cast<size_t>(W) * H), component(static_cast<size_t>(W) * H);
    for (int i = 0; i < v.count; ++i) {
        const uint8_t* f = v.frame(i);
        for (int k = 0; k < W * H; ++k) cls[static_cast<size_t>(k)] = gripper_grey(f + static_cast<size_t>(k) * 3);
        // The 8-connected groups of grey pixels; the gripper is the group with the most pixels of its own greys
        // (within 15), so antialiased edges of objects that happen to blend to a grey do not count.
        std::fill(component.begin(), component.end(), -1);
        int best = -1, best_core = 0;
        std::vector<int> stack;
        for (int k = 0, id = 0; k < W * H; ++k) {
            if (!cls[static_cast<size_t>(k)] || component[static_cast<size_t>(k)] >= 0) continue;
            int core = 0;
            component[static_cast<size_t>(k)] = id, stack.push_back(k);
            while (!stack.empty()) {
                const int j = stack.back();
                stack.pop_back();
                core += cls[static_cast<size_t>(j)] == 2;
                const int x = j % W, y = j / W;
                for (int dy = -1; dy <= 1; ++dy)
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = x + dx, ny = y + dy;
                        if (nx < 0 || ny < 0 || nx >= W || ny >= H) continue;
                        const size_t m = static_cast<size_t>(ny) * W + nx;
                        if (cls[m] && component[m] < 0) component[m] = id, stack.push_back(static_cast<int>(m));
                    }
            }
            if (core > best_core) best_core = core, best = id;
            ++id;
        }
        if (best < 0) continue;
        std::vector<int> row_count(static_cast<size_t>(H), 0);
        double sx = 0;
        int n = 0;
        for (int k = 0; k < W * H; ++k)
            if (component[static_cast<size_t>(k)] == best)
                sx += k % W + 0.5, ++n, ++row_count[static_cast<size_t>(k / W)];
        int lowest = -1;
        for (int y = 0; y < H; ++y)
            if (row_count[static_cast<size_t>(y)] >= 2) lowest = y;
        if (n >= min_pixels && lowest >= 0) out[static_cast<size_t>(i)] = {sx / n, lowest + 1.0};
    }
    return out;
}

std::vector<uint8_t> body_pixels(const VideoFrames& v) {
    const size_t per_frame = static_cast<size_t>(v.width) * v.height;
    std::vector<uint8_t> out(per_frame * static_cast<size_t>(std::max(v.count, 0)), 0);
    for (int i = 0; i < v.count; ++i) {
        const uint8_t* f = v.frame(i);
        for (size_t k = 0; k < per_frame; ++k) out[static_cast<size_t>(i) * per_frame + k] = classify(f + k * 3) >= 0;
    }
    return out;
}

std::vector<Detection> detect(const VideoFrames& v, int index, int min_pixels) {
    const size_t n = palette().size();
    std::vector<double> sx(n, 0), sy(n, 0);
    std::vector<int> count(n, 0), x0(n, 1 << 20), x1(n, -1), y0(n, 1 << 20), y1(n, -1);
    const uint8_t* f = v.frame(index);
    std::vector<int> cls(static_cast<size_t>(v.width) * v.height);
    for (int i = 0; i < v.width * v.height; ++i) cls[static_cast<size_t>(i)] = classify(f + static_cast<size_t>(i) * 3);
    // Only pixels whose four neighbours agree count: antialiased edges and outlines (one pixel wide, blends of an
    // object with the wall) would otherwise read as other colours.
    auto at = [&](int x, int y) {
        return x < 0 || y < 0 || x >= v.width || y >= v.height ? -1 : cls[static_cast<size_t>(y) * v.width + x];
    };
    for (int y = 0; y < v.height; ++y)
        for (int x = 0; x < v.width; ++x) {
            const int c = at(x, y);
            if (c < 0 || at(x - 1, y) != c || at(x + 1, y) != c || at(x, y - 1) != c || at(x, y + 1) != c) continue;
            ++count[c], sx[c] += x + 0.5, sy[c] += y + 0.5;
            x0[c] = std::min(x0[c], x), x1[c] = std::max(x1[c], x), y0[c] = std::min(y0[c], y),
            y1[c] = std::max(y1[c], y);
        }
    std::vector<Detection> out;
    for (size_t c = 0; c < n; ++c) {
        if (count[c] < min_pixels) continue;
        const double box = static_cast<double>(x1[c] - x0[c] + 1) * (y1[c] - y0[c] + 1);
        out.push_back({static_cast<int>(c), sx[c] / count[c], sy[c] / count[c], count[c], count[c] / box < 0.9});
    }
    return out;
}

std::vector<std::vector<std::pair<double, double>>> track_all(const VideoFrames& v, int min_pixels) {
    std::vector<std::vector<std::pair<double, double>>> t(
        palette().size(), std::vector<std::pair<double, double>>(static_cast<size_t>(v.count), {-1, -1}));
    for (int i = 0; i < v.count; ++i)
        for (const Detection& d : detect(v, i, min_pixels))
            t[static_cast<size_t>(d.colour)][static_cast<size_t>(i)] = {d.x, d.y};
    return t;
}

std::vector<std::pair<double, double>> track(const VideoFrames& v, int colour, int min_pixels) {
    return track_all(v, min_pixels).at(static_cast<size_t>(colour));
}

double track_error(const std::vector<std::pair<double, double>>& a, const std::vector<std::pair<double, double>>& b) {
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
        if (a[i].first < 0 || b[i].first < 0) continue;
        sum += std::hypot(a[i].first - b[i].first, a[i].second - b[i].second);
        ++n;
    }
    return n ? sum / n : -1;
}

std::vector<double> onsets(const AudioClip& clip, float threshold, double gap) {
    // Peak envelope in 2.5 ms windows; an onset is a window that rises well above the two before it (so a new hit
    // is found under the ringing of an earlier one), at least `gap` after the previous onset.
    const int64_t hop = std::max(1, clip.sample_rate / 400);
    std::vector<float> env;
    for (int64_t i = 0; i < clip.frames(); i += hop) {
        float peak = 0;
        for (int64_t j = i; j < std::min(clip.frames(), i + hop); ++j)
            for (int c = 0; c < clip.channels; ++c)
                peak = std::max(peak, std::fabs(clip.samples[static_cast<size_t>(j * clip.channels + c)]));
        env.push_back(peak);
    }
    std::vector<double> out;
    for (size_t w = 0; w < env.size(); ++w) {
        const float before = std::max(w > 0 ? env[w - 1] : 0.0f, w > 1 ? env[w - 2] : 0.0f);
        if (env[w] <= threshold || env[w] <= 2.0f * before) continue;
        // The first sample of the window above half its peak.
        int64_t at = static_cast<int64_t>(w) * hop;
        for (int64_t j = at; j < std::min(clip.frames(), at + hop); ++j) {
            float v = 0;
            for (int c = 0; c < clip.channels; ++c)
                v = std::max(v, std::fabs(clip.samples[static_cast<size_t>(j * clip.channels + c)]));
            if (v > 0.5f * env[w]) {
                at = j;
                break;
            }
        }
        const double t = static_cast<double>(at) / clip.sample_rate;
        if (out.empty() || t - out.back() >= gap) out.push_back(t);
    }
    return out;
}

double onset_error(const std::vector<double>& reference, const std::vector<double>& found) {
    if (reference.empty() || found.empty()) return -1;
    double sum = 0;
    for (double r : reference) {
        double best = 1e9;
        for (double f : found) best = std::min(best, std::fabs(f - r));
        sum += best;
    }
    return sum / static_cast<double>(reference.size());
}

std::vector<int> named_colours(const std::string& text) {
    std::vector<int> out;
    std::string word;
    auto take = [&] {
        for (size_t i = 0; i < palette().size(); ++i)
            if (word == palette()[i].name && std::find(out.begin(), out.end(), static_cast<int>(i)) == out.end())
                out.push_back(static_cast<int>(i));
        word.clear();
    };
    for (char c : text) {
        if (std::isalpha(static_cast<unsigned char>(c)))
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else
            take();
    }
    take();
    return out;
}

Showing showing(const VideoFrames& video, const std::vector<int>& named, int min_pixels) {
    if (video.count < 1 || named.empty()) return {};
    std::vector<int> frames_seen(palette().size(), 0);
    for (int i = 0; i < video.count; ++i)
        for (const Detection& d : detect(video, i, min_pixels)) ++frames_seen[static_cast<size_t>(d.colour)];
    return showing(frames_seen, video.count, named);
}

Showing showing(const std::vector<int>& frames_seen, int frame_count, const std::vector<int>& named) {
    Showing out;
    if (frame_count < 1 || named.empty() || frames_seen.size() != palette().size()) return out;
    int shown = 0;
    bool others = false;
    double lost = 0;
    for (size_t c = 0; c < palette().size(); ++c) {
        const bool is_named = std::find(named.begin(), named.end(), static_cast<int>(c)) != named.end();
        const double share = static_cast<double>(frames_seen[c]) / frame_count;
        if (is_named) lost += 1 - share;
        if (is_named && 2 * frames_seen[c] >= frame_count) ++shown;
        if (!is_named && 3 * frames_seen[c] >= frame_count) others = true;
    }
    out.colours_right = shown == static_cast<int>(named.size()) && !others;
    int drawn = 0;
    for (size_t c = 0; c < palette().size(); ++c) drawn += 2 * frames_seen[c] >= frame_count ? 1 : 0;
    out.count_right = drawn == static_cast<int>(named.size());
    out.lost = lost / static_cast<double>(named.size());
    return out;
}

int motion_happens(const std::string& scene, const std::string& prompt, const VideoFrames& video, int min_pixels) {
    const std::vector<int> named = named_colours(prompt);
    if (named.empty() || video.count < 2) return -1;
    const auto a = track(video, named[0], min_pixels);
    // First and last frames where the tracks needed are both seen.
    auto ends = [&](const std::vector<std::pair<double, double>>* b, int* first, int* last) {
        *first = *last = -1;
        for (int i = 0; i < video.count; ++i) {
            const bool ok = a[static_cast<size_t>(i)].first >= 0 && (!b || (*b)[static_cast<size_t>(i)].first >= 0);
            if (ok && *first < 0) *first = i;
            if (ok) *last = i;
        }
        return *first >= 0 && *last > *first;
    };
    int f = -1, l = -1;
    if (scene == "drop" || scene == "pick_place") {
        if (!ends(nullptr, &f, &l)) return -1;
        const auto& p0 = a[static_cast<size_t>(f)];
        const auto& p1 = a[static_cast<size_t>(l)];
        if (scene == "drop") return p1.second - p0.second >= 4 ? 1 : 0;
        const bool right = prompt.find("further right") != std::string::npos;
        return (right ? p1.first - p0.first : p0.first - p1.first) >= 4 ? 1 : 0;
    }
    if ((scene == "roll_off" || scene == "push") && named.size() >= 2) {
        const auto b = track(video, named[1], min_pixels);
        if (!ends(&b, &f, &l)) return -1;
        auto dist = [&](int i) {
            return std::hypot(a[static_cast<size_t>(i)].first - b[static_cast<size_t>(i)].first,
                              a[static_cast<size_t>(i)].second - b[static_cast<size_t>(i)].second);
        };
        // Over the frames where both are seen: the closest they come (a push), the furthest the ball gets and the
        // lowest it goes (rolling off, it may bounce back toward the box).
        double nearest = dist(f), furthest = dist(f), lowest = a[static_cast<size_t>(f)].second;
        for (int i = f; i <= l; ++i)
            if (a[static_cast<size_t>(i)].first >= 0 && b[static_cast<size_t>(i)].first >= 0) {
                nearest = std::min(nearest, dist(i)), furthest = std::max(furthest, dist(i));
                lowest = std::max(lowest, a[static_cast<size_t>(i)].second);
            }
        if (scene == "push") return dist(f) - nearest >= 4 ? 1 : 0;
        return furthest - dist(f) >= 4 && lowest > a[static_cast<size_t>(f)].second ? 1 : 0;
    }
    return -1;
}

}  // namespace ws::pico
