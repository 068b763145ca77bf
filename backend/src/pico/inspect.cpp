#include "worldstudio/pico/inspect.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <vector>

#include "worldstudio/core/error.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/world.h"

namespace ws::pico {

namespace {

bool has(const std::string& text, const char* words) { return text.find(words) != std::string::npos; }

}  // namespace

std::string scene_of_prompt(const std::string& prompt) {
    // The simulator's wordings (episode.cpp's prompt_of); "drops it further" belongs to pick_place, so that is
    // asked before "drops onto".
    if (has(prompt, "rolls off")) return "roll_off";
    if (has(prompt, "picks up")) return "pick_place";
    if (has(prompt, "rolls into") || has(prompt, "rolls toward")) return "push";
    if (has(prompt, "drops onto")) return "drop";
    return "";
}

int bounces_of_prompt(const std::string& prompt) {
    const size_t at = prompt.find("bounces ");
    if (at != std::string::npos) {
        const std::string rest = prompt.substr(at + 8);
        for (int n = 1; n <= 4; ++n)  // the simulator's own words (times_word), so the two cannot drift apart
            if (rest.rfind(times_word(n), 0) == 0) return n;
        return -1;
    }
    if (has(prompt, "and stays") || has(prompt, "onto the table")) return 0;
    return -1;
}

ojson inspect(const VideoFrames& video, const AudioClip* audio, const InspectOptions& o) {
    static const char* const scenes[] = {"drop", "roll_off", "pick_place", "push"};
    if (!o.scene.empty() && std::find(std::begin(scenes), std::end(scenes), o.scene) == std::end(scenes))
        throw Error("scene '" + o.scene + "' is not one of drop, roll_off, pick_place, push");
    ojson r;
    r["frames"] = video.count;
    r["fps"] = video.fps;
    r["width"] = video.width;
    r["height"] = video.height;
    std::vector<int> seen(palette().size(), 0), round(palette().size(), 0);
    for (int i = 0; i < video.count; ++i)
        for (const Detection& d : detect(video, i)) {
            ++seen[static_cast<size_t>(d.colour)];
            round[static_cast<size_t>(d.colour)] += d.round ? 1 : 0;
        }
    ojson bodies = ojson::array();
    for (size_t c = 0; c < palette().size(); ++c) {
        if (!seen[c]) continue;
        bodies.push_back({{"colour", palette()[c].name},
                          {"frames", seen[c]},
                          {"share", static_cast<double>(seen[c]) / video.count},
                          {"round", static_cast<double>(round[c]) / seen[c]}});
    }
    r["bodies"] = bodies;
    if (audio) {
        ojson times = ojson::array();
        for (double t : onsets(*audio)) times.push_back(t);
        r["onsets"] = times;
        r["seconds_of_sound"] = audio->seconds();
    }
    if (!o.prompt.empty()) {
        r["prompt"] = o.prompt;
        const std::vector<int> named = named_colours(o.prompt);
        ojson names = ojson::array();
        for (int c : named) names.push_back(palette()[static_cast<size_t>(c)].name);
        r["named"] = names;
        if (!named.empty()) {
            const Showing s = showing(seen, video.count, named);  // the counts above, not a second pass
            r["colours_right"] = s.colours_right;
            r["count_right"] = s.count_right;
            r["lost"] = s.lost;
        }
        const std::string scene = o.scene.empty() ? scene_of_prompt(o.prompt) : o.scene;
        if (!scene.empty()) {
            r["scene"] = scene;
            r["motion"] = motion_happens(scene, o.prompt, video);
        }
        r["bounces_named"] = bounces_of_prompt(o.prompt);
    }
    return r;
}

namespace {

std::string percent(double share) {
    char b[16];
    std::snprintf(b, sizeof b, "%.0f %%", 100 * share);
    return b;
}

}  // namespace

std::string inspect_text(const ojson& r) {
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%d frames at %g fps, %dx%d\n", r.value("frames", 0), r.value("fps", 0.0),
                  r.value("width", 0), r.value("height", 0));
    out += line;
    out += "bodies drawn (colour: frames where found; shape):\n";
    if (r["bodies"].empty()) out += "  none found\n";
    for (const ojson& b : r["bodies"]) {
        const double round = b.value("round", 0.0);
        std::snprintf(line, sizeof line, "  %-7s %3d frames (%s), %s\n", b.value("colour", "").c_str(),
                      b.value("frames", 0), percent(b.value("share", 0.0)).c_str(),
                      round >= 0.5 ? "mostly a ball" : "mostly a box");
        out += line;
    }
    if (r.contains("prompt")) {
        std::string named;
        for (const ojson& n : r["named"]) named += (named.empty() ? "" : ", ") + n.get<std::string>();
        out += "the prompt names: " + (named.empty() ? std::string("no palette colour") : named) + "\n";
        if (r.contains("colours_right")) {
            out += std::string("  named colours shown, no others: ") + (r["colours_right"].get<bool>() ? "yes" : "no") +
                   "\n";
            out +=
                std::string("  as many bodies shown as named: ") + (r["count_right"].get<bool>() ? "yes" : "no") + "\n";
            out += "  frames where a named body is lost: " + percent(r["lost"].get<double>()) + "\n";
        }
        if (r.contains("scene")) {
            const int m = r["motion"].get<int>();
            out += "  the named motion (" + r["scene"].get<std::string>() + ") happens: " +
                   (m > 0    ? std::string("yes")
                    : m == 0 ? std::string("no")
                             : std::string("cannot tell (the bodies it needs are never both seen)")) +
                   "\n";
        }
        const int bounces = r.value("bounces_named", -1);
        if (bounces >= 0) out += "  bounces on the table the prompt names: " + std::to_string(bounces) + "\n";
    }
    if (r.contains("onsets")) {
        std::string times;
        for (const ojson& t : r["onsets"]) {
            std::snprintf(line, sizeof line, "%s%.3f", times.empty() ? "" : ", ", t.get<double>());
            times += line;
        }
        // Built whole rather than through `line`: a long clip's onsets would not fit it.
        out += times.empty() ? std::string("impacts heard: none\n")
                             : "impacts heard: " + std::to_string(r["onsets"].size()) + " at " + times + " s\n";
    } else {
        out += "no sound\n";
    }
    return out;
}

VideoFrames frame_strip(const VideoFrames& video, int count) {
    if (video.count < 1 || video.width < 1 || video.height < 1) throw Error("a frame strip needs at least one frame");
    if (count < 1) throw Error("a frame strip needs at least one frame");
    count = std::min(count, video.count);
    VideoFrames s;
    s.width = video.width * count;
    s.height = video.height;
    s.count = 1;
    s.fps = video.fps;
    s.rgb.assign(static_cast<size_t>(s.width) * s.height * 3, 0);
    const size_t row = static_cast<size_t>(video.width) * 3;
    for (int k = 0; k < count; ++k) {
        const int index =
            count == 1 ? 0 : static_cast<int>((static_cast<int64_t>(k) * (video.count - 1)) / (count - 1));
        const uint8_t* f = video.frame(index);
        for (int y = 0; y < video.height; ++y)
            std::copy(
                f + y * row, f + (y + 1) * row,
                s.rgb.begin() + static_cast<std::ptrdiff_t>((static_cast<size_t>(y) * s.width + k * video.width) * 3));
    }
    return s;
}

}  // namespace ws::pico
