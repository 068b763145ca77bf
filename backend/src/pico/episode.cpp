// Pico World episodes: a scene drawn from the seed, scripted gripper and camera, and everything said about it
// (caption, prompt, questions) derived from what the simulation actually did.
#include <algorithm>
#include <cmath>
#include <set>

#include "worldstudio/core/error.h"
#include "worldstudio/pico/world.h"

namespace ws::pico {

namespace {

struct Rng {  // splitmix64; the standard distributions differ between libraries, this does not
    explicit Rng(uint64_t seed) : state(seed ^ 0xA0761D6478BD642Full) {}
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(next() >> 11) * 0x1.0p-53; }
    int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
    uint64_t state;
};

enum class Scene { Drop, RollOff, PickPlace, Push };
const char* scene_name(Scene s) {
    switch (s) {
        case Scene::Drop: return "drop";
        case Scene::RollOff: return "roll_off";
        case Scene::PickPlace: return "pick_place";
        case Scene::Push: return "push";
    }
    return "?";
}

enum class CameraMove { Static, PanLeft, PanRight, ZoomIn };

std::string mss(double seconds) {
    const int s = static_cast<int>(std::floor(std::max(seconds, 0.0)));
    char buf[16];
    std::snprintf(buf, sizeof buf, "%d:%02d", s / 60, s % 60);
    return buf;
}

const char* size_word(double size) { return size < 0.055 ? "small" : size < 0.08 ? "medium-sized" : "large"; }

const char* where(double x) {
    return x < -0.12  ? "on the left of the table"
           : x > 0.12 ? "on the right of the table"
                      : "in the middle of the table";
}

std::string with_article(const std::string& noun) {
    return (std::string("aeiou").find(noun[0]) != std::string::npos ? "an " : "a ") + noun;
}

// Relative SE(3) of two poses that differ by a translation only: the translation and the identity's 6D rotation.
void pose_delta(std::vector<float>& out, double dx, double dy, double dz) {
    for (double v : {dx, dy, dz, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0}) out.push_back(static_cast<float>(v));
}

double camera_depth(const Camera& c) { return 1 - 1 / c.zoom; }  // zooming in is moving the camera forward

Body random_body(Rng& rng, Shape shape, std::set<int>& used_colours, double lo, double hi) {
    Body b;
    b.shape = shape;
    b.material = static_cast<Material>(rng.below(4));
    do b.colour = rng.below(static_cast<int>(palette().size()));
    while (used_colours.count(b.colour));
    used_colours.insert(b.colour);
    b.size = rng.uniform(lo, hi);
    return b;
}

// A scene as the seed draws it: which scene, mirrored or not, the bodies, the gripper and the camera's move.
struct Setup {
    Scene scene = Scene::Drop;
    double side = 1;  // 1, or -1 for the mirrored scene
    std::vector<Body> bodies;
    Gripper gripper;
    CameraMove move = CameraMove::Static;
};

Setup draw_setup(Rng& rng) {
    Setup st;
    const Scene scene = static_cast<Scene>(rng.below(4));
    st.scene = scene;
    const double side = rng.below(2) ? 1.0 : -1.0;  // mirror the scene
    st.side = side;
    std::set<int> colours;
    std::vector<Body> bodies;
    st.gripper.visible = scene == Scene::PickPlace;
    st.gripper.x = 0.2 * side, st.gripper.y = 0.5;
    switch (scene) {
        case Scene::Drop: {
            const int n = 1 + rng.below(3);
            for (int i = 0; i < n; ++i) {
                Body b = random_body(rng, rng.below(3) ? Shape::Ball : Shape::Box, colours, 0.045, 0.09);
                b.x = -0.27 + 0.54 * (i + 0.5) / n + rng.uniform(-0.03, 0.03);
                b.y = rng.uniform(0.25, 0.55);
                b.vx = rng.uniform(-0.15, 0.15);
                bodies.push_back(b);
            }
            break;
        }
        case Scene::RollOff: {
            Body box = random_body(rng, Shape::Box, colours, 0.075, 0.1);
            box.x = -0.14 * side, box.y = box.size;
            Body ball = random_body(rng, Shape::Ball, colours, 0.04, 0.06);
            ball.x = box.x, ball.y = 2 * box.size + ball.size;
            ball.vx = side * rng.uniform(0.4, 0.7);
            bodies = {ball, box};
            break;
        }
        case Scene::PickPlace: {
            Body b = random_body(rng, rng.below(2) ? Shape::Ball : Shape::Box, colours, 0.045, 0.075);
            b.x = -0.18 * side + rng.uniform(-0.04, 0.04), b.y = b.size;
            bodies = {b};
            break;
        }
        case Scene::Push: {
            Body ball = random_body(rng, Shape::Ball, colours, 0.045, 0.07);
            ball.x = -0.3 * side, ball.y = ball.size, ball.vx = side * rng.uniform(0.6, 1.0);
            Body other = random_body(rng, rng.below(2) ? Shape::Box : Shape::Ball, colours, 0.06, 0.09);
            other.x = side * rng.uniform(0.0, 0.14), other.y = other.size;
            bodies = {ball, other};
            break;
        }
    }
    const int move_roll = rng.below(10);
    st.move = move_roll < 5   ? CameraMove::Static
              : move_roll < 7 ? CameraMove::PanLeft
              : move_roll < 9 ? CameraMove::PanRight
                              : CameraMove::ZoomIn;
    st.bodies = bodies;
    return st;
}

// The world run frame by frame under the scripted gripper and camera: frames, states, actions, impacts, sound.
void run_world(Episode& e, const Setup& st, const Options& o) {
    const Scene scene = st.scene;
    const double side = st.side;
    const CameraMove move = st.move;
    const std::vector<Body>& bodies = st.bodies;
    const Gripper& gripper = st.gripper;
    World world(bodies, o, gripper);
    const double dt = 1.0 / o.fps;
    // The gripper's script (pick and place): waypoints in time, followed at a capped speed.
    const Body target = bodies.front();
    auto command_at = [&](double t) {
        Command c;
        if (move == CameraMove::PanLeft) c.camera_vx = -0.08;
        if (move == CameraMove::PanRight) c.camera_vx = 0.08;
        if (move == CameraMove::ZoomIn) c.camera_zoom_rate = 0.3;
        if (scene != Scene::PickPlace) return c;
        double tx = target.x, ty = 0.3;
        bool close = false;
        if (t >= 0.35 && t < 0.7) ty = target.size;
        if (t >= 0.7) close = true, ty = target.size;
        if (t >= 0.95) ty = 0.4;
        if (t >= 1.3) tx = target.x + side * 0.3;
        if (t >= 1.7) close = false;
        const Gripper& g = world.gripper();
        auto toward = [&](double from, double to) { return std::clamp((to - from) * 8, -0.8, 0.8); };
        c.gripper_vx = toward(g.x, tx), c.gripper_vy = toward(g.y, ty), c.close = close;
        return c;
    };

    e.video.width = o.width, e.video.height = o.height, e.video.fps = o.fps, e.video.count = o.render ? o.frames : 0;
    if (o.render) e.video.rgb.reserve(static_cast<size_t>(o.frames) * o.width * o.height * 3);
    auto record = [&] {
        if (o.render) {
            const VideoFrames f = world.render();
            e.video.rgb.insert(e.video.rgb.end(), f.rgb.begin(), f.rgb.end());
        }
        e.gripper_states.push_back(world.gripper());
        e.camera_states.push_back(world.camera());
        e.body_states.push_back(world.bodies());
    };
    record();
    for (int t = 1; t < o.frames; ++t) {
        world.step(command_at((t - 1) * dt));
        record();
        const Camera& c0 = e.camera_states[static_cast<size_t>(t - 1)];
        const Camera& c1 = e.camera_states[static_cast<size_t>(t)];
        const Gripper& g0 = e.gripper_states[static_cast<size_t>(t - 1)];
        const Gripper& g1 = e.gripper_states[static_cast<size_t>(t)];
        std::vector<float> a;
        pose_delta(a, c1.x - c0.x, 0, camera_depth(c1) - camera_depth(c0));
        pose_delta(a, g1.x - g0.x, g1.y - g0.y, 0);
        a.push_back(static_cast<float>(1 - g1.opening));
        std::vector<float> n(a.size());
        for (size_t k = 0; k < a.size(); ++k) n[k] = a[k] * action_scale()[k];
        e.actions.push_back(a);
        e.actions_normalized.push_back(n);
    }
    e.impacts = world.impacts();
    const double seconds = o.frames / o.fps;
    if (o.render) e.audio = synthesize_impacts(e.impacts, bodies, seconds, o.sample_rate);
}

// What happened, per body: bounces on the table and hits with other bodies (quiet contacts are not events worth a
// caption).
struct Events {
    std::vector<int> bounces, hits;
};

Events count_events(const std::vector<Impact>& impacts, size_t n) {
    Events ev{std::vector<int>(n, 0), std::vector<int>(n, 0)};
    for (const Impact& im : impacts) {
        if (im.speed < 0.5) continue;
        const auto b = static_cast<size_t>(im.body);
        if (im.other < 0 && im.y == 0) ++ev.bounces[b];
        if (im.other >= 0) ++ev.hits[b], ++ev.hits[static_cast<size_t>(im.other)];
    }
    return ev;
}

// The short prompt, and what the first body does (verb0, for its caption subject).
std::string prompt_of(const Setup& st, const Events& ev, std::string& verb0) {
    const Scene scene = st.scene;
    const double side = st.side;
    const CameraMove move = st.move;
    const std::vector<Body>& bodies = st.bodies;
    const size_t n = bodies.size();
    const std::vector<int>& bounces = ev.bounces;
    const std::vector<int>& hits = ev.hits;
    const Body& b0 = bodies[0];
    const std::string n0 = b0.noun();
    std::string prompt;
    switch (scene) {
        case Scene::Drop:
            verb0 = "drops onto the table" + (bounces[0] > 0 ? " and bounces " + std::string(times_word(bounces[0]))
                                                             : std::string(" and stays"));
            prompt = with_article(n0) + " " + verb0;
            if (n > 1)
                prompt +=
                    n == 2 ? ", next to " + with_article(bodies[1].noun())
                           : ", next to " + with_article(bodies[1].noun()) + " and " + with_article(bodies[2].noun());
            break;
        case Scene::RollOff:
            verb0 = "rolls off " + with_article(bodies[1].noun()) +
                    (bounces[0] > 0 ? " and bounces " + std::string(times_word(bounces[0]))
                                    : std::string(" onto the table"));
            prompt = with_article(n0) + " " + verb0;
            break;
        case Scene::PickPlace:
            verb0 = "is picked up by a robot gripper and dropped further " + std::string(side > 0 ? "right" : "left");
            prompt = "a robot gripper picks up " + with_article(n0) + " and drops it further " +
                     (side > 0 ? "right" : "left");
            break;
        case Scene::Push:
            verb0 = hits[0] > 0 ? "rolls into " + with_article(bodies[1].noun())
                                : "rolls toward " + with_article(bodies[1].noun());
            prompt = with_article(n0) + " " + verb0;
            break;
    }
    if (move != CameraMove::Static)
        prompt += std::string(", the camera ") + (move == CameraMove::PanLeft    ? "pans left"
                                                  : move == CameraMove::PanRight ? "pans right"
                                                                                 : "zooms in");
    return prompt;
}

// The structured caption in the video schema, from what the episode did.
ojson caption_of(const Episode& e, const Setup& st, const Events& ev, const std::string& verb0) {
    const Scene scene = st.scene;
    const CameraMove move = st.move;
    const Gripper& gripper = st.gripper;
    const std::vector<Body>& bodies = st.bodies;
    const size_t n = bodies.size();
    const std::vector<int>& bounces = ev.bounces;
    const std::vector<int>& hits = ev.hits;
    const Options& o = e.options;
    const std::string& prompt = e.prompt;
    const std::string n0 = bodies[0].noun();
    const double seconds = o.frames / o.fps;
    const char* camera_text = move == CameraMove::Static     ? "static"
                              : move == CameraMove::PanLeft  ? "slow pan left"
                              : move == CameraMove::PanRight ? "slow pan right"
                                                             : "slow zoom in";
    ojson subjects = ojson::array();
    for (size_t i = 0; i < n; ++i) {
        const Body& b = bodies[i];
        std::string action = i == 0           ? verb0
                             : hits[i] > 0    ? "is hit and moves"
                             : bounces[i] > 0 ? "falls and bounces " + std::string(times_word(bounces[i]))
                                              : "rests on the table";
        subjects.push_back({{"description", with_article(b.noun())},
                            {"appearance_details",
                             std::string("a ") + size_word(b.size) + " " +
                                 palette()[static_cast<size_t>(b.colour)].name + " " + shape_name(b.shape) +
                                 " made of " + (b.material == Material::Wood ? "wood" : material_name(b.material))},
                            {"location", where(b.x)},
                            {"relative_size", size_word(b.size)},
                            {"action", action},
                            {"number_of_subjects", 1}});
    }
    if (gripper.visible)
        subjects.push_back({{"description", "a grey two-finger robot gripper"},
                            {"location", "above the table"},
                            {"action", "descends, closes on the " + n0 + ", lifts it, carries it and opens"},
                            {"number_of_subjects", 1}});
    ojson actions = ojson::array();
    std::string audio;
    int sounds = 0;
    for (const Impact& im : e.impacts) {
        if (im.speed < 0.5) continue;
        const Body& b = bodies[static_cast<size_t>(im.body)];
        const std::string what = im.other >= 0 ? "hits the " + bodies[static_cast<size_t>(im.other)].noun()
                                 : im.y == 0   ? "hits the table"
                                               : "hits the wall";
        actions.push_back({{"time", mss(im.time)}, {"description", "the " + b.noun() + " " + what}});
        ++sounds;
    }
    if (scene == Scene::PickPlace) {
        actions.push_back({{"time", mss(0.7)}, {"description", "the gripper closes on the " + n0}});
        actions.push_back({{"time", mss(1.7)}, {"description", "the gripper opens and the " + n0 + " falls"}});
    }
    std::stable_sort(actions.begin(), actions.end(), [](const ojson& a, const ojson& b) {
        return a["time"].get<std::string>() < b["time"].get<std::string>();
    });
    std::set<Material> heard;
    for (const Impact& im : e.impacts)
        if (im.speed >= 0.5) heard.insert(bodies[static_cast<size_t>(im.body)].material);
    if (sounds == 0)
        audio = "silence apart from a faint room tone";
    else {
        audio = std::to_string(sounds) + (sounds == 1 ? " impact sound:" : " impact sounds:");
        bool firstSound = true;
        for (Material m : heard) {
            static const char* names[] = {"a dull rubbery thud", "a hollow wooden knock", "a bright metallic clang",
                                          "a light plastic click"};
            audio += std::string(firstSound ? " " : ", ") + names[static_cast<int>(m)];
            firstSound = false;
        }
    }
    const std::string duration = mss(seconds);
    char dur[32];
    std::snprintf(dur, sizeof dur, "%.1f", seconds);
    return {
        {"temporal_caption", "0:00-" + duration + " " + prompt + "."},
        {"audio_description", audio},
        {"subjects", subjects},
        {"background_setting", "a plain wooden tabletop in front of a pale grey wall"},
        {"lighting",
         {{"conditions", "soft even studio light"}, {"direction", "from the upper left"}, {"shadows", "none"}}},
        {"aesthetics",
         {{"composition", "side view with the table's edge across the lower part"},
          {"color_scheme", "saturated solid colours on neutral grey and brown"}}},
        {"cinematography",
         {{"framing", "wide side view of the table"}, {"camera_angle", "eye level"}, {"camera_motion", camera_text}}},
        {"style_medium", "simple computer rendering"},
        {"actions", actions},
        {"segments", ojson::array({{{"segment_index", 0},
                                    {"time_range", "0:00-" + duration},
                                    {"description", prompt},
                                    {"camera", camera_text}}})},
        {"transitions", ojson::array()},
        {"duration", dur},
        {"fps", o.fps},
        {"resolution", {{"W", o.width}, {"H", o.height}}},
    };
}

// Atomic questions with their true answers (worded so that "yes" is the outcome the prompt asks for).
ojson questions_of(const Setup& st, const Events& ev) {
    const std::vector<Body>& bodies = st.bodies;
    const size_t n = bodies.size();
    const Body& b0 = bodies[0];
    const std::string n0 = b0.noun();
    const std::vector<int>& bounces = ev.bounces;
    const CameraMove move = st.move;
    const Gripper& gripper = st.gripper;
    ojson q = ojson::array();
    auto ask = [&](const std::string& text, const char* dimension, bool truth) {
        q.push_back({{"question", text}, {"dimension", dimension}, {"answer", truth ? "yes" : "no"}});
    };
    std::set<int> present;
    for (const Body& b : bodies) present.insert(b.colour);
    for (const Body& b : bodies)
        ask("Is there " +
                with_article(std::string(palette()[static_cast<size_t>(b.colour)].name) + " " + shape_name(b.shape)) +
                "?",
            "Semantic Alignment", true);
    int absent = 0;
    while (present.count(absent)) ++absent;
    ask("Is there " +
            with_article(std::string(palette()[static_cast<size_t>(absent)].name) + " " + shape_name(b0.shape)) + "?",
        "Semantic Alignment", false);
    ask("Does the " + n0 + " bounce at least once on the table?", "Physical Laws", bounces[0] > 0);
    ask("Does every object stay above the table surface?", "Physical Laws", true);
    ask("Does the camera move?", "Geometric Reasoning", move != CameraMove::Static);
    if (n > 1)
        ask("Is the " + n0 + " smaller than the " + bodies[1].noun() + "?", "Geometric Reasoning",
            b0.size < bodies[1].size);
    ask("Is there a robot gripper?", "Semantic Alignment", gripper.visible);
    ask("Do the objects keep their shapes and colours throughout?", "Visual Integrity", true);
    return q;
}

}  // namespace

const char* times_word(int n) {
    static const char* words[] = {"", "once", "twice", "three times", "four times"};
    return n >= 1 && n <= 4 ? words[n] : "several times";
}

Episode simulate(uint64_t seed, const Options& o) {
    Rng rng(seed);
    Episode e;
    e.seed = seed;
    e.options = o;
    const Setup st = draw_setup(rng);
    e.scene = scene_name(st.scene);
    e.initial = st.bodies;
    run_world(e, st, o);
    const Events ev = count_events(e.impacts, st.bodies.size());
    std::string verb0;
    e.prompt = prompt_of(st, ev, verb0);
    e.caption = caption_of(e, st, ev, verb0);
    e.questions = questions_of(st, ev);
    return e;
}

ojson Episode::to_json() const {
    auto body_json = [](const Body& b) {
        return ojson{{"shape", shape_name(b.shape)},
                     {"material", material_name(b.material)},
                     {"colour", palette()[static_cast<size_t>(b.colour)].name},
                     {"size", b.size},
                     {"x", b.x},
                     {"y", b.y},
                     {"vx", b.vx},
                     {"vy", b.vy},
                     {"held", b.held}};
    };
    ojson j;
    j["format"] = "worldstudio-pico-episode";
    j["seed"] = seed;
    j["scene"] = scene;
    j["width"] = options.width, j["height"] = options.height, j["frames"] = options.frames, j["fps"] = options.fps;
    j["sample_rate"] = options.sample_rate;
    j["prompt"] = prompt;
    j["caption"] = caption;
    j["questions"] = questions;
    j["bodies"] = ojson::array();
    for (const Body& b : initial) j["bodies"].push_back(body_json(b));
    j["impacts"] = ojson::array();
    for (const Impact& im : impacts)
        j["impacts"].push_back({{"time", im.time},
                                {"x", im.x},
                                {"y", im.y},
                                {"speed", im.speed},
                                {"body", im.body},
                                {"other", im.other},
                                {"pan", im.pan}});
    j["action_layout"] = "ego [dx, dy, dz, rot6d(6)], effector [dx, dy, dz, rot6d(6)], gripper closed";
    j["action_scale"] = action_scale();
    j["actions"] = actions;
    j["actions_normalized"] = actions_normalized;
    j["states"] = ojson::array();
    for (size_t t = 0; t < body_states.size(); ++t) {
        ojson s{{"gripper",
                 {{"x", gripper_states[t].x},
                  {"y", gripper_states[t].y},
                  {"opening", gripper_states[t].opening},
                  {"holding", gripper_states[t].holding},
                  {"visible", gripper_states[t].visible}}},
                {"camera", {{"x", camera_states[t].x}, {"zoom", camera_states[t].zoom}}},
                {"bodies", ojson::array()}};
        for (const Body& b : body_states[t]) s["bodies"].push_back({{"x", b.x}, {"y", b.y}, {"held", b.held}});
        j["states"].push_back(s);
    }
    return j;
}

}  // namespace ws::pico
