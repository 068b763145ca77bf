#pragma once
// Media files through FFmpeg (libavformat/libavcodec/libswscale/libswresample): reading videos, audio and pictures,
// writing MP4 (H.264 + AAC) with the generation record embedded, WAV, PNG and JPEG. Torch-free, so the Qt code may
// use it. Every failure is a ws::Error naming the file; nothing here crashes on a bad file.
#include <cstdint>
#include <string>
#include <vector>

#include "worldstudio/core/frames.h"
#include "worldstudio/core/pyjson.h"
#include "worldstudio/model/media_files.h"

namespace ws {

// Limits that keep absurd files from exhausting memory.
constexpr int kMaxMediaDimension = 8192;
constexpr int64_t kMaxDecodedFrames = 20000;

// Reads up to `max_frames` frames (0 = all) resampled in time to `fps` (0 = the file's own rate) at the file's size.
VideoFrames read_video(const std::string& path, double fps = 0, int max_frames = 0);
// Frames in stream order (no fps resampling) from the first whose time is >= start_seconds - 1e-4, at most
// `max_frames` (0 = to the end), stopping before the first at or past end_seconds - 1e-4 when end_seconds >
// start_seconds. Seeks to the keyframe before start_seconds, so a frame deep in a long file is cheap to reach.
VideoFrames read_video_at(const std::string& path, double start_seconds, int max_frames = 0, double end_seconds = 0);
// Reads the first audio stream resampled to `sample_rate` Hz, `channels` channels.
AudioClip read_audio(const std::string& path, int sample_rate = 48000, int channels = 2);
// A picture (PNG, JPEG, ...) as a one-frame VideoFrames.
VideoFrames read_image(const std::string& path);

// H.264 (yuv420p, constant rate factor `crf`, 0-51: lower is better) + AAC 48 kHz stereo MP4 at frames.fps;
// `record_json` goes into the "worldstudio_record" tag.
void write_mp4(const std::string& path, const VideoFrames& frames, const AudioClip* audio,
               const std::string& record_json, int crf = 18);
void write_wav(const std::string& path, const AudioClip& audio);  // 32-bit float WAV
void write_png(const std::string& path, const VideoFrames& frames, int index = 0);
void write_jpeg(const std::string& path, const VideoFrames& frames, int index = 0, int quality = 95);

// Streams (codec, size, fps, frames, duration, sample rate, channels) and the embedded generation record.
ojson probe_media(const std::string& path);
// The "worldstudio_record" tag of a file, "" when it has none.
std::string read_embedded_record(const std::string& path);

// The functions above as the engine's picture and video files (read_video, write_mp4, write_png), with the FFmpeg
// library versions for generation records: what a Session is given to read and write media.
MediaFiles ffmpeg_media_files();

}  // namespace ws

namespace ws {

// Control maps for transfer, computed with OpenCV as the reference does. Presets: very_low, low, medium (default),
// high, very_high. Edge: Canny with the reference's thresholds per preset (20/50, 50/100, 100/200, 200/300, 300/400),
// replicated to three channels. Blur: bilateral filter (d 9, sigma 75/75) and Gaussian (5x5, sigma 1), then a
// down-and-up resize by the preset's factor (4, 4, 10, 16, 16).
VideoFrames edge_control_map(const VideoFrames& frames, const std::string& preset = "medium");
VideoFrames blur_control_map(const VideoFrames& frames, const std::string& preset = "medium");

// Control weights follow the reference rule: used as given when they sum to at most 1, else rescaled to sum 1.
std::vector<double> normalize_control_weights(const std::vector<double>& weights);

}  // namespace ws
