#pragma once
// Pico World: a small procedural tabletop world seen from the side, deterministic from a seed. Balls and boxes with
// colours, sizes and materials fall, roll, collide and bounce; a gripper moves by actions and grasps and releases;
// the camera pans and zooms. Each episode yields the rendered frames (antialiased), the impact sounds (48 kHz
// stereo: material sets timbre and pitch, impact speed loudness, horizontal position pan), the action trajectory in
// the unified action format (ego and effector pose deltas as relative SE(3) with 6D rotation, gripper state), a
// structured caption in the video schema, a short prompt and atomic Yes/No questions with their true answers.
// Torch-free: ground truth for training and for measuring what a model generates.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"

namespace ws::pico {

enum class Shape { Ball, Box };
enum class Material { Rubber, Wood, Metal, Plastic };
const char* shape_name(Shape s);
const char* material_name(Material m);
// How a prompt and a caption count bounces: "once", "twice", "three times", "four times", else "several times".
const char* times_word(int n);

struct Colour {
    const char* name;
    uint8_t r, g, b;
};
const std::vector<Colour>& palette();

struct Body {
    Shape shape = Shape::Ball;
    Material material = Material::Rubber;
    int colour = 0;       // index into palette()
    double size = 0.1;    // radius (ball) or half width (box), metres
    double x = 0, y = 0;  // centre, metres; the table top is y = 0
    double vx = 0, vy = 0;
    bool held = false;         // in the gripper
    std::string noun() const;  // "red rubber ball"
};

// An impact: when, where, how hard, and what hit what (-1: the table or a wall).
struct Impact {
    double time = 0;
    double x = 0, y = 0;
    double speed = 0;  // normal speed, m/s
    int body = 0, other = -1;
    double pan = 0.5;  // horizontal place in the view at that moment: 0 left edge, 1 right edge
};

struct Gripper {
    double x = 0, y = 0.5;  // fingertip centre
    double opening = 1;     // 1 open, 0 closed
    int holding = -1;
    bool visible = true;  // scenes without a robot leave it out of the picture (and it grasps nothing)
};

struct Camera {
    double x = 0;     // horizontal position of the view centre
    double zoom = 1;  // >1 shows less of the world
};

// One step's command: gripper velocity (m/s), gripper closing (true) or opening, camera pan velocity and zoom rate.
struct Command {
    double gripper_vx = 0, gripper_vy = 0;
    bool close = false;
    double camera_vx = 0, camera_zoom_rate = 0;
};

struct Options {
    int width = 64, height = 64;
    int frames = 33;
    double fps = 16;
    int sample_rate = 48000;
    int substeps = 16;  // physics steps per frame
    // false: no pixels and no samples (video.count and audio stay empty); captions, actions and states only, for
    // text-only uses such as tokenizer and upsampler training, where rendering would be most of the cost.
    bool render = true;
};

constexpr int kActionDim = 19;  // ego [t(3), rot6d(6)], effector [t(3), rot6d(6)], gripper state (1)

struct Episode {
    uint64_t seed = 0;
    std::string scene;  // drop, roll_off, pick_place, push
    Options options;
    std::vector<Body> initial;
    VideoFrames video;
    AudioClip audio;
    std::vector<Impact> impacts;
    // Per transition t-1 -> t (frames - 1 rows): raw actions and the same scaled by action_scale() to about [-1, 1].
    std::vector<std::vector<float>> actions, actions_normalized;
    std::vector<Gripper> gripper_states;         // per frame
    std::vector<Camera> camera_states;           // per frame
    std::vector<std::vector<Body>> body_states;  // per frame
    ojson caption;                               // video schema
    std::string prompt;                          // "a red rubber ball rolls off a blue wooden box and bounces twice"
    ojson questions;                             // [{"question", "dimension", "answer": "yes"|"no"}]
    ojson to_json() const;                       // everything but the pixels and samples
};

// Per-dimension scale that brings actions to about [-1, 1] (the paper's per-dimension normalization).
const std::vector<float>& action_scale();

// A world you can drive step by step (for tests and tools); episodes use it through simulate().
class World {
public:
    World(std::vector<Body> bodies, Options options, Gripper gripper = {}, Camera camera = {});
    // Advances one frame under `cmd`; impacts of this frame are appended to impacts().
    void step(const Command& cmd);
    VideoFrames render() const;  // one frame
    const std::vector<Body>& bodies() const { return bodies_; }
    const Gripper& gripper() const { return gripper_; }
    const Camera& camera() const { return camera_; }
    const std::vector<Impact>& impacts() const { return impacts_; }
    double time() const { return time_; }
    // Kinetic + potential energy of the free bodies (per unit mass), for physics checks.
    double energy() const;

private:
    void substep(double dt, const Command& cmd);
    std::vector<Body> bodies_;
    Options options_;
    Gripper gripper_;
    Camera camera_;
    std::vector<Impact> impacts_;
    double time_ = 0;
};

// The episode of `seed`: a random scene, a scripted gripper and camera, everything rendered and described.
Episode simulate(uint64_t seed, const Options& options = {});

// Where world point (x, y) lands in the picture (pixel coordinates, centres at +0.5) under `camera`.
struct PixelPoint {
    double x = 0, y = 0;
};
PixelPoint pixel_of(const Camera& camera, const Options& options, double x, double y);

// Impact sounds of `impacts` as a stereo clip of `seconds`: each starts on the sample of its impact time.
AudioClip synthesize_impacts(const std::vector<Impact>& impacts, const std::vector<Body>& bodies, double seconds,
                             int sample_rate);

// Writes episode_<seed>.mp4 and episode_<seed>.json into `dir` (episode_files.cpp: the full build only, as it writes
// MP4 through the media module; the engine-only build's trainer simulates without writing).
void write_episode(const Episode& e, const std::string& dir);

}  // namespace ws::pico
