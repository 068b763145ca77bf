#pragma once
// How the reference's action path (forward dynamics, inverse dynamics, WAM) prepares what the model sees: the
// canvas a source frame is resized and padded to, and the action JSON caption the text tower reads. Exact to the
// reference's bytes and pixels (the robotics golden cases check both); torch-free.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/model/request.h"

namespace ws {

// One aspect entry of a resolution tier: its key ("4,3") and canvas size.
struct TierEntry {
    std::string aspect;
    int width = 0, height = 0;
};
// The reference's VIDEO_RES_SIZE_INFO, tiers and entries in its order (256, 480 (with 2,3), 704, 720, 768, 1080,
// 1280, 2048, gt_2048).
const std::vector<std::pair<std::string, std::vector<TierEntry>>>& resolution_tiers();
const std::vector<TierEntry>& tier_entries(const std::string& tier);  // throws ws::Error listing the tiers

// The canvas of a source frame: the tier entry of the closest aspect (earlier entry on a tie), the content
// resized to fit without upscaling, placed top left; padding fills the bottom and right.
struct Canvas {
    int target_h = 0, target_w = 0, content_h = 0, content_w = 0;
    std::array<double, 4> image_size() const {
        return {double(target_h), double(target_w), double(content_h), double(content_w)};
    }
    bool resized(int h, int w) const { return content_h != h || content_w != w; }
};
Canvas canvas_for(int height, int width, const std::string& tier);
// A canvas given directly (content by the same rule when keep_aspect, else stretched to the canvas).
Canvas canvas_of_size(int height, int width, int target_h, int target_w, bool keep_aspect = true);

// "none", "reflect" or "edge": reflect mirrors without repeating the edge, which needs the pad smaller than the
// content; where either pad is not, both directions repeat the edge.
std::string canvas_pad_mode(const Canvas& c);

// Resamples every frame to the content size (antialiased bicubic, a = -0.5, as PyTorch's interpolate with
// antialias) and pads to the canvas. `content_float` receives the resampled content before rounding (clamped to
// [0, 255], [T, H_c, W_c, 3]) when the frames were resized.
VideoFrames fit_to_canvas(const VideoFrames& frames, const Canvas& canvas, std::vector<float>* content_float = nullptr);
// The content of a canvas-sized video (top left), as outputs are written.
VideoFrames crop_to_content(const VideoFrames& frames, const Canvas& canvas);
// Exactly `n` frames: the first n, or padded by repeating the last.
VideoFrames take_frames(const VideoFrames& frames, int n);

// The aspect key of a canvas size: the first tier entry of that size, else "W/g,H/g".
std::string aspect_key(int width, int height);

// Which of the reference's two formatters wrote the caption: its inference CLI, or the action transform pipeline
// of its training data and policy server (which also carries idle frames and a dataset's extra view text).
enum class CaptionPath { Cli, Pipeline };
const char* caption_path_name(CaptionPath p);
CaptionPath caption_path_from_name(const std::string& name);

struct ActionCaption {
    CaptionPath path = CaptionPath::Cli;
    Mode mode = Mode::ForwardDynamics;
    std::string prompt, view_point = "ego_view";
    int fps = 24;
    int action_chunk_size = 16;
    int height = 0, width = 0;  // the source frame
    std::string tier = "256";
    std::optional<Canvas> canvas;  // the canvas when given directly (else the tier's, by the canvas rule)
    // Pipeline only:
    std::optional<std::string> additional_view_description;
    std::optional<int> idle_frames;
    int num_action_rows = 0;  // 0: action_chunk_size
    bool float_seconds = false;
};
// The caption string (`json.dumps` bytes), "" for an empty prompt.
std::string action_caption(const ActionCaption& a);
// The framing sentence of a viewpoint key, "" when unknown.
std::string viewpoint_framing(const std::string& view_point);
extern const char* const kDroidConcatViewDescription;

}  // namespace ws
