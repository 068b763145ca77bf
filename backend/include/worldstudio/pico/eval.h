#pragma once
// Measuring Pico World videos without a model: a colour detector (which palette objects are in a frame, where, ball
// or box), a tracker over frames, audio onsets, and the distances the quality table reports. The same code scores
// the simulator's own episodes (where it must agree with the ground truth) and what a model generates.
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"

namespace ws::pico {

struct Detection {
    int colour = 0;            // palette index
    double x = 0, y = 0;       // centroid, pixels
    int pixels = 0;
    bool round = false;        // a ball (fills ~79 % of its box) rather than a box
};

// Objects in frame `index`: one per palette colour with at least `min_pixels` pixels nearest to it (nearest among
// the palette and the scene's own greys and browns).
std::vector<Detection> detect(const VideoFrames& video, int index, int min_pixels = 4);

// Centroid of `colour` in every frame (-1, -1 where it is not seen).
std::vector<std::pair<double, double>> track(const VideoFrames& video, int colour, int min_pixels = 4);
// The same for every palette colour at once (indexed by colour), detecting each frame once.
std::vector<std::vector<std::pair<double, double>>> track_all(const VideoFrames& video, int min_pixels = 4);

// The gripper in every frame (-1, -1 where fewer than `min_pixels` are seen): the pixels nearer to one of its greys
// than to any scene or palette colour and joined to the top of the frame, down which its arm comes; x is their
// mean, y the bottom of the lowest row holding two of them (the fingertips). Its parts are a pixel or two wide at
// 64x64, so this is a coarser measure than the objects' centroids.
std::vector<std::pair<double, double>> track_gripper(const VideoFrames& video, int min_pixels = 4);

// Mean distance in pixels between two tracks over the frames where both see the object; -1 when never both.
double track_error(const std::vector<std::pair<double, double>>& a, const std::vector<std::pair<double, double>>& b);

// Onset times (seconds) of sounds in a clip: where the peak envelope jumps above `threshold` and to more than twice
// what it was just before, at least `gap` seconds after the previous onset.
std::vector<double> onsets(const AudioClip& clip, float threshold = 0.02f, double gap = 0.03);

// Mean distance from each reference onset to the nearest found one (seconds); -1 when either is empty.
double onset_error(const std::vector<double>& reference, const std::vector<double>& found);

}  // namespace ws::pico
