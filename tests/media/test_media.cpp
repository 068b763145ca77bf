// Media files: MP4 with sound and an embedded record, pictures, WAV, time resampling, and bad files.
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "model/conditioning.h"
#include "test_support.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/tiny_model.h"

namespace fs = std::filesystem;
using namespace ws;

namespace {
VideoFrames gradient_clip(int w, int h, int count, double fps) {
    VideoFrames v;
    v.width = w, v.height = h, v.count = count, v.fps = fps;
    v.rgb.resize(static_cast<size_t>(w) * h * 3 * count);
    for (int f = 0; f < count; ++f)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                uint8_t* p = v.rgb.data() + ((static_cast<size_t>(f) * h + y) * w + x) * 3;
                p[0] = static_cast<uint8_t>((x * 255) / w), p[1] = static_cast<uint8_t>((y * 255) / h),
                p[2] = static_cast<uint8_t>(f * 9);
            }
    return v;
}

AudioClip sine(double seconds) {
    AudioClip a;
    const int64_t n = static_cast<int64_t>(seconds * 48000);
    for (int64_t i = 0; i < n; ++i) {
        const float s = static_cast<float>(0.5 * std::sin(2 * M_PI * 440 * i / 48000.0));
        a.samples.push_back(s), a.samples.push_back(-s);
    }
    return a;
}

uint32_t crc32(const std::string& bytes) {
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : bytes) {
        c ^= b;
        for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}
}  // namespace

class TestMedia : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::string p(const char* name) { return (tmp_.path() + "/" + name).toStdString(); }

    void expect_error(const std::function<void()>& f, const char* fragment) {
        try {
            f();
            QFAIL(qPrintable(QString("no error (expected '%1')").arg(fragment)));
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find(fragment) != std::string::npos, e.what());
        }
    }

private Q_SLOTS:
    void mp4RoundTripWithSoundAndRecord() {
        VideoFrames v = gradient_clip(64, 48, 25, 24);
        AudioClip a = sine(25 / 24.0);
        const std::string record = R"({"prompt_string": "caf\u00e9 \u4e00", "seed": 7})";
        write_mp4(p("clip.mp4"), v, &a, record);
        QCOMPARE(read_embedded_record(p("clip.mp4")), record);
        ojson info = probe_media(p("clip.mp4"));
        QCOMPARE(info["record"]["seed"].get<int>(), 7);
        const ojson& vs = info["streams"][0];
        QCOMPARE(vs["codec"].get<std::string>(), std::string("h264"));
        QCOMPARE(vs["frames"].get<int64_t>(), int64_t(25));
        QCOMPARE(vs["fps"].get<double>(), 24.0);
        const double vd = vs["duration"].get<double>(), ad = info["streams"][1]["duration"].get<double>();
        QVERIFY2(std::fabs(vd - 25 / 24.0) < 1e-6 && std::fabs(ad - vd) < 1 / 24.0,
                 qPrintable(QString("%1 %2").arg(vd).arg(ad)));
        QCOMPARE(info["streams"][1]["sample_rate"].get<int>(), 48000);
        QCOMPARE(info["streams"][1]["channels"].get<int>(), 2);
        VideoFrames back = read_video(p("clip.mp4"));
        QCOMPARE(back.count, 25);
        QCOMPARE(back.width, 64);
        // Lossy, but close: the mean absolute error of the decoded pixels is small.
        double err = 0;
        for (size_t i = 0; i < v.rgb.size(); ++i) err += std::abs(int(v.rgb[i]) - int(back.rgb[i]));
        QVERIFY2(err / v.rgb.size() < 6, qPrintable(QString::number(err / v.rgb.size())));
        AudioClip sound = read_audio(p("clip.mp4"));
        QVERIFY(std::llabs(sound.frames() - a.frames()) < 2048);
    }
    void timeResamplingAndPictures() {
        VideoFrames v = gradient_clip(32, 32, 24, 24);
        write_mp4(p("r.mp4"), v, nullptr, "");
        QCOMPARE(read_video(p("r.mp4"), 12).count, 12);  // 1 s at 12 fps
        QCOMPARE(read_video(p("r.mp4"), 48).count, 48);
        QCOMPARE(read_video(p("r.mp4"), 24, 5).count, 5);
        QVERIFY(read_embedded_record(p("r.mp4")).empty());
        write_png(p("f.png"), v, 3);
        VideoFrames png = read_image(p("f.png"));
        QCOMPARE(png.count, 1);
        QVERIFY(std::equal(png.rgb.begin(), png.rgb.end(), v.frame(3)));  // PNG is lossless
        write_jpeg(p("f.jpg"), v, 3);
        VideoFrames jpg = read_image(p("f.jpg"));
        double err = 0;
        for (size_t i = 0; i < jpg.rgb.size(); ++i) err += std::abs(int(jpg.rgb[i]) - int(v.frame(3)[i]));
        QVERIFY(err / jpg.rgb.size() < 6);
    }
    // Widths that are not a multiple of swscale's vector block (250 x 3 bytes a row): the decoder's RGB buffers keep
    // slack, so the last row's conversion writes nothing past them (this overflowed the heap once; ASan watches it).
    void oddWidthVideosReadBack() {
        QTemporaryDir tmp;
        VideoFrames v;
        v.width = 250, v.height = 150, v.count = 3, v.fps = 8;
        v.rgb.assign(static_cast<size_t>(250) * 150 * 3 * 3, 128);
        const std::string path = tmp.filePath("odd.mp4").toStdString();
        write_mp4(path, v, nullptr, "{}");
        const VideoFrames back = read_video(path);
        QCOMPARE(back.width, 250);
        QCOMPARE(back.count, 3);
        QCOMPARE(back.rgb.size(), v.rgb.size());
        QVERIFY(std::abs(int(back.rgb.back()) - 128) <= 3);
        const VideoFrames one = read_video_at(path, 1.0 / 8, 1);
        QCOMPARE(one.count, 1);
        QCOMPARE(one.rgb.size(), static_cast<size_t>(250) * 150 * 3);
    }
    void wavIsExactAndResamples() {
        AudioClip a = sine(0.25);
        write_wav(p("s.wav"), a);
        AudioClip back = read_audio(p("s.wav"));
        QCOMPARE(back.frames(), a.frames());
        QVERIFY(std::equal(a.samples.begin(), a.samples.end(), back.samples.begin()));
        AudioClip low = read_audio(p("s.wav"), 16000, 1);
        QVERIFY(std::llabs(low.frames() - 4000) < 64);
    }
    void badFilesGiveClearErrors() {
        std::ofstream(p("empty.mp4")).close();
        expect_error([&] { read_video(p("empty.mp4")); }, "empty");
        expect_error([&] { read_video(p("missing.mp4")); }, "no such file");
        std::ofstream(p("text.mp4")) << "this is not a video at all, just some words in a file";
        expect_error([&] { read_video(p("text.mp4")); }, "not a readable media file");
        write_wav(p("sound.mp4"), sine(0.1));  // wrong extension: a WAV named .mp4
        expect_error([&] { read_video(p("sound.mp4")); }, "no video stream");
        write_mp4(p("whole.mp4"), gradient_clip(32, 32, 24, 24), nullptr, "");
        std::string bytes;
        {
            std::ifstream in(p("whole.mp4"), std::ios::binary);
            bytes.assign(std::istreambuf_iterator<char>(in), {});
        }
        std::ofstream(p("cut.mp4"), std::ios::binary) << bytes.substr(0, bytes.size() / 3);
        try {
            VideoFrames v = read_video(p("cut.mp4"));
            QVERIFY(v.count < 24);  // a truncated file may still yield its first frames, never garbage or a crash
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("cut.mp4") != std::string::npos);
        }
        std::string garbage = bytes;
        for (size_t i = bytes.size() / 4; i < bytes.size(); i += 7) garbage[i] = static_cast<char>(garbage[i] ^ 0x5A);
        std::ofstream(p("corrupt.mp4"), std::ios::binary) << garbage;
        try {
            read_video(p("corrupt.mp4"));
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("corrupt.mp4") != std::string::npos);
        }
        // A PNG that claims to be 100000 x 100000 pixels.
        std::string ihdr = "IHDR";
        auto be32 = [](uint32_t v) { return std::string{char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; };
        ihdr += be32(100000) + be32(100000) + std::string{8, 2, 0, 0, 0};
        std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + be32(13) + ihdr + be32(crc32(ihdr));
        std::ofstream(p("huge.png"), std::ios::binary) << png;
        expect_error([&] { read_image(p("huge.png")); }, "huge.png");
        VideoFrames odd = gradient_clip(33, 32, 2, 24);
        expect_error([&] { write_mp4(p("odd.mp4"), odd, nullptr, ""); }, "even");
        VideoFrames none;
        expect_error([&] { write_png(p("none.png"), none); }, "nothing to write");
        AudioClip mono = sine(0.1);
        mono.channels = 1;
        expect_error([&] { write_mp4(p("mono.mp4"), gradient_clip(32, 32, 2, 24), &mono, ""); }, "48 kHz stereo");
    }
    void generateWritesPlayableMedia() {
        make_tiny_model(p("tiny"), 5);
        auto model = Model::load(p("tiny"));
        Session s(model, ffmpeg_media_files());
        ojson job = {{"model_mode", "text2video"},
                     {"prompt", "a ball"},
                     {"negative_prompt", "blurry"},
                     {"resolution", "256"},
                     {"num_frames", 17},
                     {"fps", 16},
                     {"num_steps", 2},
                     {"enable_sound", true}};
        GenerationResult r = s.generate(job, p("gen/clip.mp4"), {});
        ojson info = probe_media(p("gen/clip.mp4"));
        QCOMPARE(info["record"], r.record);  // the embedded record reads back unchanged
        QCOMPARE(ojson::parse(std::ifstream(p("gen/clip.json"))), r.record);
        QCOMPARE(info["streams"][0]["frames"].get<int64_t>(), int64_t(17));
        QCOMPARE(info["streams"][0]["width"].get<int>(), 320);
        const double want = 17 / 16.0;
        QVERIFY(std::fabs(info["streams"][0]["duration"].get<double>() - want) < 1 / 16.0);
        QVERIFY(std::fabs(info["streams"][1]["duration"].get<double>() - want) < 1 / 16.0);
        QCOMPARE(r.record["outputs"][0]["video"].get<std::string>(), std::string("clip.mp4"));
        // video_save_quality reaches the encoder: the reference's 10 (CRF 0) makes a larger file than 2 (CRF 40), and
        // the record says which was used.
        QCOMPARE(r.record["request"]["video_save_quality"].get<double>(), 6.5);
        ojson best = job, worst = job;
        best["video_save_quality"] = 10;
        worst["video_save_quality"] = 2;
        s.generate(best, p("gen/best.mp4"), {});
        s.generate(worst, p("gen/worst.mp4"), {});
        const auto best_size = fs::file_size(p("gen/best.mp4")), worst_size = fs::file_size(p("gen/worst.mp4"));
        QVERIFY2(best_size > worst_size * 2, qPrintable(QString("%1 vs %2 bytes").arg(best_size).arg(worst_size)));
        ojson img = {{"model_mode", "text2image"}, {"prompt", "a ball"}, {"resolution", "256"}, {"num_steps", 2}};
        s.generate(img, p("gen/still.png"), {});
        QCOMPARE(read_image(p("gen/still.png")).width, 256);
    }
    void everyModeWritesAPlayableMp4() {
        if (!fs::exists(p("tiny"))) make_tiny_model(p("tiny"), 5);
        auto model = Model::load(p("tiny"));
        Session s(model, ffmpeg_media_files());
        write_png(p("cond.png"), gradient_clip(320, 192, 1, 24));
        write_mp4(p("cond.mp4"), gradient_clip(320, 192, 9, 24), nullptr, "");
        std::ofstream(p("acts.json")) << ojson(std::vector<std::vector<float>>(8, std::vector<float>(6, 0.1f))).dump();
        for (const char* mode : {"text2video", "image2video", "video2video", "transfer", "forward_dynamics",
                                 "inverse_dynamics", "policy"}) {
            ojson job = {{"model_mode", mode}, {"prompt", "a ball"}, {"negative_prompt", ""}, {"resolution", "256"},
                         {"num_frames", 9},    {"num_steps", 1},     {"guidance", 1.0}};
            const std::string m = mode;
            if (m == "image2video" || m == "forward_dynamics" || m == "policy") job["vision_path"] = p("cond.png");
            if (m == "video2video" || m == "inverse_dynamics") job["vision_path"] = p("cond.mp4");
            if (m == "transfer") job["control_path"] = p("cond.mp4");
            if (m == "forward_dynamics") job["action_path"] = p("acts.json");
            if (m.find("dynamics") != std::string::npos || m == "policy")
                job.erase("num_frames"), job["action_chunk_size"] = 8, job["domain_id"] = 0;
            if (m == "text2video") job["enable_sound"] = true;
            s.generate(job, p(("modes/" + m + ".mp4").c_str()), {});
            ojson info = probe_media(p(("modes/" + m + ".mp4").c_str()));
            QVERIFY2(info["streams"][0]["frames"].get<int64_t>() == 9, mode);
            QCOMPARE(info["record"]["mode"].get<std::string>(), m);
            QCOMPARE(info["streams"].size(), size_t(m == "text2video" ? 2 : 1));
        }
    }
    void conditioningPreprocessing() {
        VideoFrames v = gradient_clip(64, 48, 2, 24);
        at::Tensor same = frames_to_model_input(v, 64, 48);  // no resize: exactly x / 127.5 - 1
        QCOMPARE(same.sizes().vec(), std::vector<int64_t>({3, 2, 48, 64}));
        QCOMPARE(same[0][1][5][10].item<float>(), static_cast<float>(v.frame(1)[(5 * 64 + 10) * 3] / 127.5 - 1.0));
        at::Tensor cover = frames_to_model_input(v, 32, 32);  // scale to cover (43 x 32), then center crop
        QCOMPARE(cover.sizes().vec(), std::vector<int64_t>({3, 2, 32, 32}));
        QVERIFY(cover.min().item<float>() >= -1.0f && cover.max().item<float>() <= 1.0f);
        // Red grows with x: the crop keeps the middle, so the first column is well above the source's first column.
        QVERIFY(cover[0][0][16][0].item<float>() > same[0][0][16][0].item<float>() + 0.2f);
        at::Tensor up = frames_to_model_input(v, 128, 128);  // upscaling works too
        QCOMPARE(up.sizes().vec(), std::vector<int64_t>({3, 2, 128, 128}));
        write_png(p("c.png"), v, 0);
        at::Tensor padded =
            conditioning_pixels(read_video(p("c.png"), 24, 5), 32, 32, 5);  // a picture padded to 5 frames
        QCOMPARE(padded.size(1), int64_t(5));
        QVERIFY(at::equal(padded.select(1, 0), padded.select(1, 4)));
    }
    void imageToVideoFromAPicture() {
        if (!fs::exists(p("tiny"))) make_tiny_model(p("tiny"), 5);
        auto model = Model::load(p("tiny"));
        Session s(model, ffmpeg_media_files());
        write_png(p("start.png"), gradient_clip(400, 240, 1, 24));
        ojson job = {{"model_mode", "image2video"},  {"prompt", "a ball"}, {"negative_prompt", ""},
                     {"resolution", "256"},          {"num_frames", 9},    {"num_steps", 2},
                     {"vision_path", p("start.png")}};
        GenerationResult r = s.generate(job, p("gen/i2v"), {});
        auto latents = load_tensors(p("gen/i2v.safetensors"));
        QCOMPARE(latents.at("video_latent").sizes().vec(), std::vector<int64_t>({48, 3, 12, 20}));
        job["vision_path"] = p("nothing.png");
        QVERIFY_THROWS_EXCEPTION(Error, s.generate(job, p("gen/bad"), {}));
    }
    void controlMapsAreOpenCVs() {
        VideoFrames v = gradient_clip(64, 48, 3, 24);
        // Draw a bright box so there are edges at every preset.
        for (int f = 0; f < 3; ++f)
            for (int y = 10 + f; y < 30 + f; ++y)
                for (int x = 20; x < 44; ++x) {
                    uint8_t* px = v.rgb.data() + ((static_cast<size_t>(f) * 48 + y) * 64 + x) * 3;
                    px[0] = px[1] = px[2] = 250;
                }
        const std::vector<std::pair<std::string, std::pair<double, double>>> presets = {{"very_low", {20, 50}},
                                                                                        {"low", {50, 100}},
                                                                                        {"medium", {100, 200}},
                                                                                        {"high", {200, 300}},
                                                                                        {"very_high", {300, 400}}};
        for (const auto& [name, t] : presets) {
            VideoFrames e = edge_control_map(v, name);
            for (int f = 0; f < 3; ++f) {
                cv::Mat src(48, 64, CV_8UC3, const_cast<uint8_t*>(v.frame(f))), ref;
                cv::Canny(src, ref, t.first, t.second);
                for (int y = 0; y < 48; ++y)
                    for (int x = 0; x < 64; ++x)
                        for (int c = 0; c < 3; ++c) QCOMPARE(e.frame(f)[(y * 64 + x) * 3 + c], ref.at<uint8_t>(y, x));
            }
        }
        VideoFrames b = blur_control_map(v, "medium");
        cv::Mat src(48, 64, CV_8UC3, const_cast<uint8_t*>(v.frame(1))), bil, gau, small, up;
        cv::bilateralFilter(src, bil, 9, 75, 75);
        cv::GaussianBlur(bil, gau, cv::Size(5, 5), 1.0);
        cv::resize(gau, small, cv::Size(6, 4), 0, 0, cv::INTER_AREA);
        cv::resize(small, up, cv::Size(64, 48), 0, 0, cv::INTER_CUBIC);
        QVERIFY(std::equal(b.frame(1), b.frame(1) + 64 * 48 * 3, up.data));
        expect_error([&] { edge_control_map(v, "extreme"); }, "unknown control preset");
        expect_error([&] { blur_control_map(VideoFrames{}, "low"); }, "at least one complete frame");
        QCOMPARE(normalize_control_weights({0.3, 0.5}), std::vector<double>({0.3, 0.5}));
        QCOMPARE(normalize_control_weights({1.0, 3.0}), std::vector<double>({0.25, 0.75}));
        expect_error([&] { normalize_control_weights({-0.1}); }, "negative");
    }
};

QTEST_GUILESS_MAIN(TestMedia)
#include "test_media.moc"
