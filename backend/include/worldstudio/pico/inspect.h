#pragma once
// What one Pico World video shows, measured by the quality bench's own detector, tracker and onset finder: which
// palette colours are drawn as bodies and in how many frames, whether the bodies a prompt names are shown and no
// others, whether the motion it names happens, and when impacts are heard. The bench scores a model over many
// held-out episodes; this looks at one video, such as the quickstart's, so that a user can see why it scores as it
// does. Torch-free and media-free: the caller reads the file.
#include <string>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"

namespace ws::pico {

// The scene a Pico World prompt describes, from the simulator's own wording: "rolls off" roll_off, "picks up"
// pick_place, "rolls into" / "rolls toward" push, "drops onto" drop; "" when none of them.
std::string scene_of_prompt(const std::string& prompt);

// The number of table bounces a prompt names for its first body ("bounces twice": 2; "and stays", "onto the
// table": 0); -1 when it names none, or "several times".
int bounces_of_prompt(const std::string& prompt);

struct InspectOptions {
    std::string prompt;  // optional: what the video was asked to show
    std::string scene;   // drop, roll_off, pick_place, push; "" = from the prompt
};

// The report, as JSON: frames, fps, "bodies" (per palette colour found in any frame: colour, frames, share, round:
// the share of those frames where it looks like a ball), "onsets" (seconds; absent without audio); with a prompt,
// "named" (its colours), "colours_right", "count_right", "lost" (share of frames a named body is missing), "scene",
// "motion" (1, 0, or -1 when the video never shows the bodies its rule needs) and "bounces_named".
// Throws ws::Error for a scene that is not one of the four.
ojson inspect(const VideoFrames& video, const AudioClip* audio, const InspectOptions& options = {});

// The report as lines for a terminal.
std::string inspect_text(const ojson& report);

// `count` frames evenly spaced from the first to the last, side by side in one frame (a strip to look at).
VideoFrames frame_strip(const VideoFrames& video, int count = 9);

}  // namespace ws::pico
