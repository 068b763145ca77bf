// The media module's FFmpeg functions as the engine's picture and video files.
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>
}

#include "worldstudio/media/media.h"

namespace ws {

namespace {

std::string version_text(unsigned v) {
    return std::to_string(AV_VERSION_MAJOR(v)) + "." + std::to_string(AV_VERSION_MINOR(v)) + "." +
           std::to_string(AV_VERSION_MICRO(v));
}

}  // namespace

MediaFiles ffmpeg_media_files() {
    MediaFiles m;
    m.read_frames = [](const std::string& path, double fps, int max_frames) {
        return read_video(path, fps, max_frames);
    };
    m.write_video = [](const std::string& path, const VideoFrames& frames, const AudioClip* audio,
                       const std::string& record, int crf) { write_mp4(path, frames, audio, record, crf); };
    m.write_picture = [](const std::string& path, const VideoFrames& frames) { write_png(path, frames); };
    m.versions =
        ojson{{"libavcodec", version_text(avcodec_version())}, {"libavformat", version_text(avformat_version())}};
    return m;
}

}  // namespace ws
