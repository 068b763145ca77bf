#pragma once
// Measuring Pico World videos without a model: a colour detector (which palette objects are in a frame, where, ball
// or box), a tracker over frames, audio onsets, and the distances the quality table reports. The same code scores
// the simulator's own episodes (where it must agree with the ground truth) and what a model generates.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"

namespace ws::pico {

struct Detection {
    int colour = 0;       // palette index
    double x = 0, y = 0;  // centroid, pixels
    int pixels = 0;
    bool round = false;  // a ball (fills ~79 % of its box) rather than a box
};

// Objects in frame `index`: one per palette colour with at least `min_pixels` pixels nearest to it (nearest among
// the palette and the scene's own greys and browns).
std::vector<Detection> detect(const VideoFrames& video, int index, int min_pixels = 4);

// Per pixel of every frame (frame-major, then row-major): 1 where the pixel is a body's (near a palette colour's
// shade and clearly not the scene's), else 0. What the generator's training weighs up with --foreground-weight.
std::vector<uint8_t> body_pixels(const VideoFrames& video);

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

// Palette colours a text names, as palette indices in the order first named ("a red ball ... a blue box": red, blue).
std::vector<int> named_colours(const std::string& text);

// How a video shows the bodies a prompt names, by the detector over every frame. A colour is shown when the detector
// finds it in at least half the frames; a colour the prompt does not name is drawn as a body when found in at least
// a third of them.
struct Showing {
    bool colours_right = false;  // every named colour shown, and no other colour drawn
    bool count_right = false;    // as many colours shown as the prompt names
    double lost = 0;             // share of frames where a named colour is not found (mean over the named colours)
};
Showing showing(const VideoFrames& video, const std::vector<int>& named, int min_pixels = 4);
// The same from the number of frames in which the detector found each palette colour (indexed like palette()), for
// a caller that has counted them already.
Showing showing(const std::vector<int>& frames_seen, int frame_count, const std::vector<int>& named);

// Whether the motion a Pico World prompt names happens in `video`, by the tracks of the named bodies (the first named
// is the one that moves), between the first and last frames that show the bodies the rule needs: drop, the body ends
// 4 px or more lower; roll_off, the ball gets 4 px or more further from the box than it starts and goes lower; push,
// the ball comes 4 px or more closer to the other body; pick_place, the body ends 4 px or more to the side the prompt
// says. 1 or 0; -1 when the video never shows the bodies the rule needs, or the scene has no rule.
int motion_happens(const std::string& scene, const std::string& prompt, const VideoFrames& video, int min_pixels = 4);

}  // namespace ws::pico
