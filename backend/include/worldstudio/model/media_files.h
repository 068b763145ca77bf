#pragma once
// How the engine reads and writes picture and video files. The engine (core + model) links no codec library, so a
// session is given these by whoever has one: the media module supplies FFmpeg's (ws::ffmpeg_media_files() in
// worldstudio/media/media.h). A session without them takes conditioning as VAE latents (.safetensors) and writes
// latents and records only, which is all an engine-only build needs.
#include <functional>
#include <string>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"

namespace ws {

struct MediaFiles {
    // A picture or a video, resampled in time to `fps` (0: the file's own rate), at most `max_frames` frames (0: all).
    std::function<VideoFrames(const std::string& path, double fps, int max_frames)> read_frames;
    // An MP4 with its sound track (`audio` may be null) and the generation record embedded, at H.264 CRF `crf`.
    std::function<void(const std::string& path, const VideoFrames& frames, const AudioClip* audio,
                       const std::string& record_json, int crf)>
        write_video;
    std::function<void(const std::string& path, const VideoFrames& frames)> write_picture;
    ojson versions = ojson::object();  // the libraries behind them, for generation records

    bool can_read() const { return static_cast<bool>(read_frames); }
    bool can_write() const { return write_video && write_picture; }
};

}  // namespace ws
