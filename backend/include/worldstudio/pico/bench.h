#pragma once
// The Pico quality table: a model folder measured against the simulator's ground truth on held-out episodes, next
// to the baselines a model has to beat (copy-last-frame for forward dynamics, zero actions for inverse dynamics).
// Every figure comes from pico_eval.h's detector, tracker and onset finder, or from parsing the reasoner's reply.
#include <cstdint>
#include <set>
#include <string>

#include "worldstudio/model/engine.h"
#include "worldstudio/core/pyjson.h"

namespace ws::pico {

struct BenchOptions {
    int episodes = 8;              // held-out episodes for the generation sections
    int upsampler_episodes = 50;   // held-out prompts for the upsampler section
    bool json_constrained = true;  // upsample as the studio does (one JSON object); false: free text
    uint64_t seed = 2000000;       // held out: training uses small seeds
    int steps = 20;                // sampling steps per generation
    // text2video from the episode's structured caption (the simulator's own, as an upsampler would write it) instead
    // of its short prompt; the scores still read the bodies the short prompt names.
    bool from_caption = false;
    // Which parts to run: upsampler, text2video, image2video, forward_dynamics, inverse_dynamics, sound (empty: all).
    std::set<std::string> sections;
};

// Returns {"upsampler": {...}, "text2video": {...}, "image2video": {...}, "forward_dynamics": {...},
// "inverse_dynamics": {...}, "sound": {...}, "speed": {...}} for the sections run.
ojson run_bench(const std::string& model_dir, const BenchOptions& options, const RunCallbacks& callbacks = {});
// The table as text, one row per figure with its baseline or bar where there is one.
std::string bench_table(const ojson& results);

// The attributes of a Pico subject description ("a cyan wooden ball"): palette colour, material word and shape
// word, each "" when absent. Exposed for tests.
struct SubjectAttributes {
    std::string colour, material, shape;
};
SubjectAttributes subject_attributes(const std::string& description);

}  // namespace ws::pico
