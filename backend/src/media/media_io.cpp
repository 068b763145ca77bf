#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
}

namespace fs = std::filesystem;

namespace ws {

namespace {

// Bytes past a packed RGB picture that swscale may touch (its widest vector store).
constexpr size_t kSwsSlack = 64;

const char* kRecordTag = "worldstudio_record";

std::string av_error(int code) {
    char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, buf, sizeof(buf));
    return buf;
}

struct InputDeleter {
    void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecDeleter {
    void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameDeleter {
    void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketDeleter {
    void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsDeleter {
    void operator()(SwsContext* s) const { sws_freeContext(s); }
};
struct SwrDeleter {
    void operator()(SwrContext* s) const { swr_free(&s); }
};
using InputPtr = std::unique_ptr<AVFormatContext, InputDeleter>;
using CodecPtr = std::unique_ptr<AVCodecContext, CodecDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;

// FFmpeg's own log lines would interleave with our messages; errors reach the user through ws::Error.
void quiet_ffmpeg() { av_log_set_level(AV_LOG_FATAL); }

InputPtr open_input(const std::string& path) {
    quiet_ffmpeg();
    if (!fs::exists(path)) throw Error(path + ": no such file");
    if (fs::is_directory(path)) throw Error(path + ": is a folder, not a media file");
    if (fs::file_size(path) == 0) throw Error(path + ": the file is empty");
    AVFormatContext* raw = nullptr;
    int rc = avformat_open_input(&raw, path.c_str(), nullptr, nullptr);
    if (rc < 0) throw Error(path + ": not a readable media file (" + av_error(rc) + ")");
    InputPtr in(raw);
    rc = avformat_find_stream_info(in.get(), nullptr);
    if (rc < 0) throw Error(path + ": cannot read the streams (" + av_error(rc) + ")");
    return in;
}

CodecPtr open_decoder(const std::string& path, AVStream* st) {
    const AVCodec* dec = avcodec_find_decoder(st->codecpar->codec_id);
    if (!dec)
        throw Error(path + ": no decoder for codec '" + std::string(avcodec_get_name(st->codecpar->codec_id)) + "'");
    CodecPtr ctx(avcodec_alloc_context3(dec));
    if (!ctx || avcodec_parameters_to_context(ctx.get(), st->codecpar) < 0)
        throw Error(path + ": cannot set up the decoder");
    ctx->thread_count = 2;
    int rc = avcodec_open2(ctx.get(), dec, nullptr);
    if (rc < 0) throw Error(path + ": cannot open the decoder (" + av_error(rc) + ")");
    return ctx;
}

// Feeds every packet of stream `index` through `ctx`, calling `on_frame` for each decoded frame (and flushes).
template <typename F>
void decode_stream(const std::string& path, AVFormatContext* in, int index, AVCodecContext* ctx, F&& on_frame) {
    PacketPtr pkt(av_packet_alloc());
    FramePtr frame(av_frame_alloc());
    bool stop = false;
    auto drain = [&]() {
        for (;;) {
            int rc = avcodec_receive_frame(ctx, frame.get());
            if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
            if (rc < 0) throw Error(path + ": decoding failed (" + av_error(rc) + ")");
            if (!on_frame(frame.get())) stop = true;
            av_frame_unref(frame.get());
            if (stop) return;
        }
    };
    while (!stop) {
        int rc = av_read_frame(in, pkt.get());
        if (rc == AVERROR_EOF) break;
        if (rc < 0) throw Error(path + ": reading failed (" + av_error(rc) + ")");
        if (pkt->stream_index == index) {
            rc = avcodec_send_packet(ctx, pkt.get());
            av_packet_unref(pkt.get());
            if (rc < 0 && rc != AVERROR(EAGAIN)) throw Error(path + ": corrupt data (" + av_error(rc) + ")");
            drain();
        } else {
            av_packet_unref(pkt.get());
        }
    }
    if (!stop) {
        avcodec_send_packet(ctx, nullptr);
        drain();
    }
}

// The file's best video stream, its size checked against the limits.
int video_stream(const std::string& path, AVFormatContext* in) {
    const int index = av_find_best_stream(in, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (index < 0) throw Error(path + ": has no video stream");
    const AVCodecParameters* par = in->streams[index]->codecpar;
    if (par->width <= 0 || par->height <= 0 || par->width > kMaxMediaDimension || par->height > kMaxMediaDimension)
        throw Error(path + ": picture size " + std::to_string(par->width) + "x" + std::to_string(par->height) +
                    " is not supported (at most " + std::to_string(kMaxMediaDimension) + " a side)");
    return index;
}

}  // namespace

VideoFrames read_video(const std::string& path, double fps, int max_frames) {
    InputPtr in = open_input(path);
    const int index = video_stream(path, in.get());
    AVStream* st = in->streams[index];
    const int W = st->codecpar->width, H = st->codecpar->height;
    CodecPtr ctx = open_decoder(path, st);
    VideoFrames out;
    out.width = W, out.height = H;
    const AVRational rate = av_guess_frame_rate(in.get(), st, nullptr);
    const double src_fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 24.0;
    out.fps = fps > 0 ? fps : src_fps;
    const double tb = av_q2d(st->time_base);
    std::unique_ptr<SwsContext, SwsDeleter> sws;
    std::vector<uint8_t> prev;
    double first_t = -1, prev_t = 0;
    int64_t decoded = 0;
    const size_t frame_bytes = static_cast<size_t>(W) * H * 3;
    auto limit_reached = [&] { return max_frames > 0 && out.count >= max_frames; };
    auto emit = [&](const std::vector<uint8_t>& rgb) {
        out.rgb.insert(out.rgb.end(), rgb.begin(), rgb.end());
        ++out.count;
    };
    decode_stream(path, in.get(), index, ctx.get(), [&](AVFrame* f) {
        if (f->width != W || f->height != H) throw Error(path + ": the picture size changes mid-stream");
        if (++decoded > kMaxDecodedFrames)
            throw Error(path + ": more than " + std::to_string(kMaxDecodedFrames) + " frames");
        sws.reset(sws_getCachedContext(sws.release(), W, H, static_cast<AVPixelFormat>(f->format), W, H,
                                       AV_PIX_FMT_RGB24, SWS_BILINEAR, nullptr, nullptr, nullptr));
        if (!sws) throw Error(path + ": cannot convert pixel format");
        // swscale's vector code may write a few bytes past the last row of a packed RGB picture whose width is not
        // a multiple of its block, so the buffer carries slack.
        std::vector<uint8_t> rgb(frame_bytes + kSwsSlack);
        uint8_t* dst[4] = {rgb.data(), nullptr, nullptr, nullptr};
        int stride[4] = {W * 3, 0, 0, 0};
        sws_scale(sws.get(), f->data, f->linesize, 0, H, dst, stride);
        rgb.resize(frame_bytes);
        const int64_t pts = f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp : decoded - 1;
        const double t = f->best_effort_timestamp != AV_NOPTS_VALUE ? pts * tb : (decoded - 1) / src_fps;
        if (first_t < 0) first_t = t;
        if (fps <= 0) {
            emit(rgb);
        } else {
            // Output frame k shows the latest source frame at or before k / fps.
            while (!prev.empty() && !limit_reached() && out.count / fps < (t - first_t) - 1e-9) emit(prev);
            prev = std::move(rgb);
            prev_t = t - first_t;
        }
        return !limit_reached();
    });
    if (fps > 0 && !prev.empty())
        while (!limit_reached() && out.count / fps < prev_t + 1.0 / src_fps - 1e-9) emit(prev);
    if (out.count == 0) throw Error(path + ": no frame could be decoded");
    return out;
}

VideoFrames read_video_at(const std::string& path, double start_seconds, int max_frames, double end_seconds) {
    constexpr double kTolerance = 1e-4;
    // First try from the keyframe before the start; if that lands past the start (a demuxer without an index),
    // read again from the beginning.
    for (int attempt = 0; attempt < 2; ++attempt) {
        InputPtr in = open_input(path);
        const int index = video_stream(path, in.get());
        AVStream* st = in->streams[index];
        const int W = st->codecpar->width, H = st->codecpar->height;
        const double tb = av_q2d(st->time_base);
        const bool seeked =
            attempt == 0 && start_seconds > kTolerance && tb > 0 &&
            av_seek_frame(in.get(), index, static_cast<int64_t>(std::floor((start_seconds - kTolerance) / tb)),
                          AVSEEK_FLAG_BACKWARD) >= 0;
        CodecPtr ctx = open_decoder(path, st);
        VideoFrames out;
        out.width = W, out.height = H;
        const AVRational rate = av_guess_frame_rate(in.get(), st, nullptr);
        out.fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 24.0;
        std::unique_ptr<SwsContext, SwsDeleter> sws;
        const size_t frame_bytes = static_cast<size_t>(W) * H * 3;
        int64_t decoded = 0;
        bool overshot = false;
        decode_stream(path, in.get(), index, ctx.get(), [&](AVFrame* f) {
            if (f->width != W || f->height != H) throw Error(path + ": the picture size changes mid-stream");
            if (++decoded > kMaxDecodedFrames)
                throw Error(path + ": more than " + std::to_string(kMaxDecodedFrames) + " frames");
            const double t =
                f->best_effort_timestamp != AV_NOPTS_VALUE ? f->best_effort_timestamp * tb : (decoded - 1) / out.fps;
            if (t < start_seconds - kTolerance) return true;
            if (seeked && decoded == 1 && t > start_seconds + kTolerance) return overshot = true, false;
            if (end_seconds > start_seconds && t >= end_seconds - kTolerance) return false;
            sws.reset(sws_getCachedContext(sws.release(), W, H, static_cast<AVPixelFormat>(f->format), W, H,
                                           AV_PIX_FMT_RGB24, SWS_BILINEAR, nullptr, nullptr, nullptr));
            if (!sws) throw Error(path + ": cannot convert pixel format");
            out.rgb.resize(out.rgb.size() + frame_bytes + kSwsSlack);  // slack for swscale, as in read_video
            uint8_t* dst[4] = {out.rgb.data() + out.rgb.size() - frame_bytes - kSwsSlack, nullptr, nullptr, nullptr};
            int stride[4] = {W * 3, 0, 0, 0};
            sws_scale(sws.get(), f->data, f->linesize, 0, H, dst, stride);
            out.rgb.resize(out.rgb.size() - kSwsSlack);
            ++out.count;
            return !(max_frames > 0 && out.count >= max_frames);
        });
        if (overshot) continue;
        if (out.count == 0) throw Error(path + ": no frame at or after " + std::to_string(start_seconds) + " s");
        return out;
    }
    throw Error(path + ": cannot reach " + std::to_string(start_seconds) + " s");
}

VideoFrames read_image(const std::string& path) { return read_video(path, 0, 1); }

AudioClip read_audio(const std::string& path, int sample_rate, int channels) {
    InputPtr in = open_input(path);
    int index = av_find_best_stream(in.get(), AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (index < 0) throw Error(path + ": has no audio stream");
    AVStream* st = in->streams[index];
    if (st->codecpar->sample_rate <= 0 || st->codecpar->sample_rate > 768000 ||
        st->codecpar->ch_layout.nb_channels <= 0 || st->codecpar->ch_layout.nb_channels > 64)
        throw Error(path + ": unsupported audio format");
    CodecPtr ctx = open_decoder(path, st);
    AudioClip clip;
    clip.sample_rate = sample_rate, clip.channels = channels;
    AVChannelLayout out_layout;
    av_channel_layout_default(&out_layout, channels);
    std::unique_ptr<SwrContext, SwrDeleter> swr;
    auto convert = [&](const uint8_t** data, int n) {
        const int cap = static_cast<int>(swr_get_out_samples(swr.get(), n)) + 16;
        std::vector<float> buf(static_cast<size_t>(cap) * channels);
        uint8_t* outp[1] = {reinterpret_cast<uint8_t*>(buf.data())};
        int got = swr_convert(swr.get(), outp, cap, data, n);
        if (got < 0) throw Error(path + ": resampling failed");
        clip.samples.insert(clip.samples.end(), buf.begin(), buf.begin() + static_cast<size_t>(got) * channels);
        if (clip.frames() > int64_t{sample_rate} * 3600) throw Error(path + ": audio longer than an hour");
    };
    decode_stream(path, in.get(), index, ctx.get(), [&](AVFrame* f) {
        if (!swr) {
            SwrContext* raw = nullptr;
            if (swr_alloc_set_opts2(&raw, &out_layout, AV_SAMPLE_FMT_FLT, sample_rate, &f->ch_layout,
                                    static_cast<AVSampleFormat>(f->format), f->sample_rate, 0, nullptr) < 0 ||
                swr_init(raw) < 0) {
                swr_free(&raw);
                throw Error(path + ": cannot resample this audio");
            }
            swr.reset(raw);
        }
        convert(const_cast<const uint8_t**>(f->extended_data), f->nb_samples);
        return true;
    });
    if (swr) convert(nullptr, 0);
    av_channel_layout_uninit(&out_layout);
    return clip;
}

namespace {

struct OutputContext {
    AVFormatContext* oc = nullptr;
    bool opened = false;
    ~OutputContext() {
        if (oc) {
            if (opened) avio_closep(&oc->pb);
            avformat_free_context(oc);
        }
    }
};

// Sends one frame (or nullptr to flush) and writes the packets.
void encode_write(const std::string& path, AVCodecContext* ctx, AVFrame* frame, AVFormatContext* oc, AVStream* st) {
    int rc = avcodec_send_frame(ctx, frame);
    if (rc < 0) throw Error(path + ": encoding failed (" + av_error(rc) + ")");
    PacketPtr pkt(av_packet_alloc());
    for (;;) {
        rc = avcodec_receive_packet(ctx, pkt.get());
        if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
        if (rc < 0) throw Error(path + ": encoding failed (" + av_error(rc) + ")");
        av_packet_rescale_ts(pkt.get(), ctx->time_base, st->time_base);
        pkt->stream_index = st->index;
        rc = av_interleaved_write_frame(oc, pkt.get());
        if (rc < 0) throw Error(path + ": writing failed (" + av_error(rc) + ")");
    }
}

// A writable frame of `fmt` and the converter from the clips' RGB24 into it.
struct RgbConverter {
    FramePtr frame;
    std::unique_ptr<SwsContext, SwsDeleter> sws;
    RgbConverter(const std::string& path, int w, int h, AVPixelFormat fmt) : frame(av_frame_alloc()) {
        frame->format = fmt, frame->width = w, frame->height = h;
        if (av_frame_get_buffer(frame.get(), 0) < 0) throw Error(path + ": out of memory");
        sws.reset(sws_getContext(w, h, AV_PIX_FMT_RGB24, w, h, fmt, SWS_BICUBIC, nullptr, nullptr, nullptr));
        if (!sws) throw Error(path + ": cannot convert to " + std::string(av_get_pix_fmt_name(fmt)));
    }
    AVFrame* convert(const std::string& path, const VideoFrames& v, int index) {
        if (av_frame_make_writable(frame.get()) < 0) throw Error(path + ": out of memory");
        const uint8_t* src[4] = {v.frame(index), nullptr, nullptr, nullptr};
        int stride[4] = {v.width * 3, 0, 0, 0};
        sws_scale(sws.get(), src, stride, 0, v.height, frame->data, frame->linesize);
        return frame.get();
    }
};

void check_frames(const std::string& path, const VideoFrames& v) {
    if (v.width <= 0 || v.height <= 0 || v.count <= 0 || v.width > kMaxMediaDimension || v.height > kMaxMediaDimension)
        throw Error(path + ": nothing to write (empty or oversized frames)");
    if (v.rgb.size() != static_cast<size_t>(v.width) * v.height * 3 * v.count)
        throw Error(path + ": frame buffer size mismatch");
}

}  // namespace

void write_mp4(const std::string& path, const VideoFrames& v, const AudioClip* audio, const std::string& record_json,
               int crf) {
    check_frames(path, v);
    quiet_ffmpeg();
    if (v.width % 2 || v.height % 2) throw Error(path + ": H.264 needs even width and height");
    if (!(v.fps > 0 && v.fps <= 240)) throw Error(path + ": fps must be in (0, 240]");
    if (crf < 0 || crf > 51) throw Error(path + ": the H.264 CRF must be from 0 to 51");
    const std::string tmp = path + ".partial.mp4";
    OutputContext out;
    int rc = avformat_alloc_output_context2(&out.oc, nullptr, "mp4", tmp.c_str());
    if (rc < 0 || !out.oc) throw Error(path + ": cannot create an MP4 (" + av_error(rc) + ")");
    const AVCodec* venc = avcodec_find_encoder_by_name("libx264");
    if (!venc) venc = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!venc) throw Error(path + ": this FFmpeg has no H.264 encoder");
    AVStream* vs = avformat_new_stream(out.oc, nullptr);
    CodecPtr vctx(avcodec_alloc_context3(venc));
    const AVRational rate = av_d2q(v.fps, 100000);
    vctx->width = v.width, vctx->height = v.height;
    vctx->pix_fmt = AV_PIX_FMT_YUV420P;
    vctx->time_base = av_inv_q(rate);
    vctx->framerate = rate;
    vctx->gop_size = 12;
    vctx->thread_count = 2;
    if (out.oc->oformat->flags & AVFMT_GLOBALHEADER) vctx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    AVDictionary* vopts = nullptr;
    av_dict_set(&vopts, "crf", std::to_string(crf).c_str(), 0);
    av_dict_set(&vopts, "preset", "medium", 0);
    rc = avcodec_open2(vctx.get(), venc, &vopts);
    av_dict_free(&vopts);
    if (rc < 0) throw Error(path + ": cannot open the H.264 encoder (" + av_error(rc) + ")");
    avcodec_parameters_from_context(vs->codecpar, vctx.get());
    vs->time_base = vctx->time_base;
    vs->avg_frame_rate = rate;

    CodecPtr actx;
    AVStream* as = nullptr;
    if (audio && audio->frames() > 0) {
        if (audio->channels != 2 || audio->sample_rate != 48000)
            throw Error(path + ": the sound track must be 48 kHz stereo");
        const AVCodec* aenc = avcodec_find_encoder(AV_CODEC_ID_AAC);
        if (!aenc) throw Error(path + ": this FFmpeg has no AAC encoder");
        as = avformat_new_stream(out.oc, nullptr);
        actx.reset(avcodec_alloc_context3(aenc));
        actx->sample_fmt = AV_SAMPLE_FMT_FLTP;
        actx->sample_rate = 48000;
        av_channel_layout_default(&actx->ch_layout, 2);
        actx->bit_rate = 192000;
        actx->time_base = {1, 48000};
        if (out.oc->oformat->flags & AVFMT_GLOBALHEADER) actx->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        rc = avcodec_open2(actx.get(), aenc, nullptr);
        if (rc < 0) throw Error(path + ": cannot open the AAC encoder (" + av_error(rc) + ")");
        avcodec_parameters_from_context(as->codecpar, actx.get());
        as->time_base = actx->time_base;
    }
    if (!record_json.empty()) av_dict_set(&out.oc->metadata, kRecordTag, record_json.c_str(), 0);
    rc = avio_open(&out.oc->pb, tmp.c_str(), AVIO_FLAG_WRITE);
    if (rc < 0) throw Error(path + ": cannot write (" + av_error(rc) + ")");
    out.opened = true;
    AVDictionary* mopts = nullptr;
    av_dict_set(&mopts, "movflags", "use_metadata_tags+faststart", 0);  // keeps our custom record tag
    rc = avformat_write_header(out.oc, &mopts);
    av_dict_free(&mopts);
    if (rc < 0) throw Error(path + ": cannot write the MP4 header (" + av_error(rc) + ")");

    RgbConverter yuv(path, v.width, v.height, AV_PIX_FMT_YUV420P);
    FramePtr af;
    int64_t audio_pos = 0;
    const int64_t audio_total =
        as ? std::min<int64_t>(audio->frames(), static_cast<int64_t>(std::llround(v.count / v.fps * 48000))) : 0;
    auto push_audio_until = [&](int64_t until) {
        if (!as) return;
        const int n = actx->frame_size > 0 ? actx->frame_size : 1024;
        while (audio_pos < std::min(until, audio_total)) {
            af.reset(av_frame_alloc());
            af->format = AV_SAMPLE_FMT_FLTP, af->sample_rate = 48000, af->nb_samples = n;
            av_channel_layout_default(&af->ch_layout, 2);
            if (av_frame_get_buffer(af.get(), 0) < 0) throw Error(path + ": out of memory");
            float* l = reinterpret_cast<float*>(af->data[0]);
            float* r = reinterpret_cast<float*>(af->data[1]);
            for (int i = 0; i < n; ++i) {
                const int64_t s = audio_pos + i;
                const bool in = s < audio_total;
                l[i] = in ? std::clamp(audio->samples[static_cast<size_t>(2 * s)], -1.0f, 1.0f) : 0.0f;
                r[i] = in ? std::clamp(audio->samples[static_cast<size_t>(2 * s + 1)], -1.0f, 1.0f) : 0.0f;
            }
            af->pts = audio_pos;
            encode_write(path, actx.get(), af.get(), out.oc, as);
            audio_pos += n;
        }
    };
    for (int i = 0; i < v.count; ++i) {
        AVFrame* vf = yuv.convert(path, v, i);
        vf->pts = i;
        encode_write(path, vctx.get(), vf, out.oc, vs);
        push_audio_until(static_cast<int64_t>(std::llround((i + 1) / v.fps * 48000)));
    }
    encode_write(path, vctx.get(), nullptr, out.oc, vs);
    if (as) {
        push_audio_until(audio_total);
        encode_write(path, actx.get(), nullptr, out.oc, as);
    }
    rc = av_write_trailer(out.oc);
    if (rc < 0) throw Error(path + ": cannot finish the MP4 (" + av_error(rc) + ")");
    avio_closep(&out.oc->pb);
    out.opened = false;
    fs::rename(tmp, path);
}

namespace {
void write_image(const std::string& path, const VideoFrames& v, int index, AVCodecID id, int quality) {
    check_frames(path, v);
    quiet_ffmpeg();
    if (index < 0 || index >= v.count) throw Error(path + ": frame " + std::to_string(index) + " does not exist");
    const AVCodec* enc = avcodec_find_encoder(id);
    if (!enc) throw Error(path + ": this FFmpeg cannot encode " + std::string(avcodec_get_name(id)));
    CodecPtr ctx(avcodec_alloc_context3(enc));
    const AVPixelFormat fmt = id == AV_CODEC_ID_PNG ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_YUVJ420P;
    ctx->width = v.width, ctx->height = v.height, ctx->pix_fmt = fmt, ctx->time_base = {1, 1};
    if (id == AV_CODEC_ID_MJPEG) {
        // JPEG quality 1..100 -> MJPEG qscale 31..1 (about 2 at 95).
        const int q = std::clamp(static_cast<int>(std::lround(1 + (100 - quality) * 30 / 99.0)), 1, 31);
        ctx->flags |= AV_CODEC_FLAG_QSCALE;
        ctx->global_quality = FF_QP2LAMBDA * q;
        ctx->qmin = ctx->qmax = q;
    }
    int rc = avcodec_open2(ctx.get(), enc, nullptr);
    if (rc < 0) throw Error(path + ": cannot open the image encoder (" + av_error(rc) + ")");
    RgbConverter conv(path, v.width, v.height, fmt);
    AVFrame* f = conv.convert(path, v, index);
    f->pts = 0;
    f->quality = id == AV_CODEC_ID_MJPEG ? ctx->global_quality : 0;
    std::string bytes;
    PacketPtr pkt(av_packet_alloc());
    for (AVFrame* in : {f, static_cast<AVFrame*>(nullptr)}) {
        rc = avcodec_send_frame(ctx.get(), in);
        if (rc < 0) throw Error(path + ": encoding failed (" + av_error(rc) + ")");
        while ((rc = avcodec_receive_packet(ctx.get(), pkt.get())) >= 0) {
            bytes.append(reinterpret_cast<const char*>(pkt->data), static_cast<size_t>(pkt->size));
            av_packet_unref(pkt.get());
        }
    }
    std::ofstream o(path, std::ios::binary);
    o.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!o) throw Error(path + ": cannot write");
}
}  // namespace

void write_png(const std::string& path, const VideoFrames& v, int index) {
    write_image(path, v, index, AV_CODEC_ID_PNG, 0);
}
void write_jpeg(const std::string& path, const VideoFrames& v, int index, int quality) {
    write_image(path, v, index, AV_CODEC_ID_MJPEG, quality);
}

void write_wav(const std::string& path, const AudioClip& a) {
    if (a.channels <= 0 || a.sample_rate <= 0) throw Error(path + ": invalid audio format");
    std::ofstream o(path, std::ios::binary);
    if (!o) throw Error(path + ": cannot write");
    auto u32 = [&](uint32_t v) { o.write(reinterpret_cast<const char*>(&v), 4); };
    auto u16 = [&](uint16_t v) { o.write(reinterpret_cast<const char*>(&v), 2); };
    const uint32_t data_bytes = static_cast<uint32_t>(a.samples.size() * 4);
    o.write("RIFF", 4), u32(36 + data_bytes), o.write("WAVE", 4);
    o.write("fmt ", 4), u32(16), u16(3 /* IEEE float */), u16(static_cast<uint16_t>(a.channels)),
        u32(static_cast<uint32_t>(a.sample_rate));
    u32(static_cast<uint32_t>(a.sample_rate * a.channels * 4)), u16(static_cast<uint16_t>(a.channels * 4)), u16(32);
    o.write("data", 4), u32(data_bytes);
    o.write(reinterpret_cast<const char*>(a.samples.data()), static_cast<std::streamsize>(data_bytes));
    if (!o) throw Error(path + ": write failed");
}

std::string read_embedded_record(const std::string& path) {
    InputPtr in = open_input(path);
    const AVDictionaryEntry* e = av_dict_get(in->metadata, kRecordTag, nullptr, 0);
    return e ? std::string(e->value) : std::string();
}

ojson probe_media(const std::string& path) {
    InputPtr in = open_input(path);
    ojson streams = ojson::array();
    for (unsigned i = 0; i < in->nb_streams; ++i) {
        AVStream* st = in->streams[i];
        const AVCodecParameters* p = st->codecpar;
        ojson s = {{"index", i}, {"codec", avcodec_get_name(p->codec_id)}};
        const double duration = st->duration != AV_NOPTS_VALUE
                                    ? st->duration * av_q2d(st->time_base)
                                    : (in->duration != AV_NOPTS_VALUE ? in->duration / double(AV_TIME_BASE) : 0.0);
        s["duration"] = duration;
        if (p->codec_type == AVMEDIA_TYPE_VIDEO) {
            const AVRational r = av_guess_frame_rate(in.get(), st, nullptr);
            s["type"] = "video", s["width"] = p->width, s["height"] = p->height;
            s["fps"] = r.den ? av_q2d(r) : 0.0;
            s["frames"] = st->nb_frames > 0 ? st->nb_frames
                                            : static_cast<int64_t>(std::llround(duration * (r.den ? av_q2d(r) : 0.0)));
        } else if (p->codec_type == AVMEDIA_TYPE_AUDIO) {
            s["type"] = "audio", s["sample_rate"] = p->sample_rate, s["channels"] = p->ch_layout.nb_channels;
        } else {
            s["type"] = av_get_media_type_string(p->codec_type) ? av_get_media_type_string(p->codec_type) : "other";
        }
        streams.push_back(s);
    }
    // FFmpeg's image demuxer takes any file named like a picture and reports a 0x0 stream; a header may claim any
    // size. Both are refused here as read_video refuses them, so probe never calls a file media that generate
    // cannot read.
    bool has_video = false;
    for (const auto& s : streams) {
        if (s["type"] == "video") {
            const int w = s["width"].get<int>(), h = s["height"].get<int>();
            if (w <= 0 || h <= 0)
                throw Error(path + ": not a readable media file (its video stream has no picture size)");
            if (w > kMaxMediaDimension || h > kMaxMediaDimension)
                throw Error(path + ": the picture is " + std::to_string(w) + "x" + std::to_string(h) +
                            ", larger than the " + std::to_string(kMaxMediaDimension) + "-pixel limit");
            has_video = true;
        } else if (s["type"] == "audio" && (s["sample_rate"].get<int>() <= 0 || s["channels"].get<int>() <= 0)) {
            throw Error(path + ": not a readable media file (its audio stream has no sample rate or channels)");
        }
    }
    if (streams.empty()) throw Error(path + ": not a media file (no audio or video streams)");
    if (has_video) read_video(path, 0, 1);  // the first frame must decode (throws naming the file)
    ojson j = {{"file", path}, {"format", in->iformat->name}, {"streams", streams}};
    const AVDictionaryEntry* e = av_dict_get(in->metadata, kRecordTag, nullptr, 0);
    if (e) {
        ojson rec = ojson::parse(e->value, nullptr, false);
        j["record"] = rec.is_discarded() ? ojson(e->value) : rec;
    }
    return j;
}

}  // namespace ws
