#pragma once
// The Pico quality table: a model folder measured against the simulator's ground truth on held-out episodes, next
// to the baselines a model has to beat (copy-last-frame for forward dynamics, zero actions for inverse dynamics).
// Every figure comes from pico_eval.h's detector, tracker and onset finder.
#include <cstdint>
#include <string>

#include "worldstudio/engine.h"

namespace ws::pico {

struct BenchOptions {
    int episodes = 8;
    uint64_t seed = 2000000;  // held out: training uses small seeds
    int steps = 20;           // sampling steps per generation
};

// Returns {"text2video": {...}, "forward_dynamics": {...}, "inverse_dynamics": {...}, "sound": {...}, "speed": {...}}.
ojson run_bench(const std::string& model_dir, const BenchOptions& options, const RunCallbacks& callbacks = {});
// The table as text, one row per figure with its baseline where there is one.
std::string bench_table(const ojson& results);

}  // namespace ws::pico
