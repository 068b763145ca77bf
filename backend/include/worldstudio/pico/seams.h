#pragma once
// How visible the seams of a continued video are: the change between consecutive frames across each seam (the
// first frame of a later chunk against the last frame before it) next to the change between consecutive frames
// inside the chunks. A seam that shows is a jump well above the frame-to-frame change of the motion itself.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/engine.h"

namespace ws::pico {

// A seam always falls where a new latent frame starts (1 + 4 (K - 1) frames into the chunk), and a latent frame's
// first frame is where a video VAE's output changes most, so seams are also set against the pairs inside the chunks
// that cross a latent-frame boundary.
struct SeamStats {
    int seam_pairs = 0, inside_pairs = 0, boundary_pairs = 0;
    double seam_flicker = 0, inside_flicker = 0, inside_flicker_p90 = 0;  // mean |a - b| over pixels, 0..255
    double boundary_flicker = 0;                                          // inside pairs across a latent-frame boundary
    double seam_psnr = 0, inside_psnr = 0, boundary_psnr = 0;  // dB between consecutive frames (capped at 100)
    ojson to_json() const;
};

// `seams`: indices of the first frame of every chunk after the first (the record's continuation.seams);
// `overlap_frames`: the frames each later chunk starts with (the record's continuation.overlap_frames).
SeamStats measure_seams(const VideoFrames& video, const std::vector<int>& seams, int overlap_frames);

struct SeamBenchOptions {
    int episodes = 4;  // held-out Pico World prompts
    int chunks = 3;
    int overlap_latent_frames = 2;
    int steps = 20;
    uint64_t seed = 2000000;  // held out: training uses small seeds
};

// Continued text-to-video generations of Pico World prompts with the model at `model_dir`, measured from the
// written MP4 files (what a viewer sees): {"episodes": [...], "all": SeamStats, "options": {...}}.
ojson run_seam_bench(const std::string& model_dir, const SeamBenchOptions& options, const RunCallbacks& callbacks = {});
std::string seam_bench_table(const ojson& results);

}  // namespace ws::pico
