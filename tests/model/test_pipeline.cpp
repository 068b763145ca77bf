// Every generation mode end to end on a tiny random model, cancel, determinism, records, bad inputs (the job queue and
// the device scheduler: test_queue).
#include <filesystem>
#include <fstream>
#include <regex>

#include "test_support.h"
#include "tiny_job.h"
#include "worldstudio/model/engine.h"
#include "worldstudio/core/error.h"
#include "worldstudio/core/bounded_queue.h"
#include "worldstudio/jobs/job_queue.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/tiny_model.h"
#include "worldstudio/core/tokenizer.h"

namespace fs = std::filesystem;
using namespace ws;

class TestPipeline : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::shared_ptr<const Model> model_;
    std::string dir(const std::string& rel) { return (tmp_.path() + "/").toStdString() + rel; }

    ojson base(const char* mode) { return wstest::tiny_job(mode); }
    GenerationResult run(const ojson& job, const std::string& name, const RunCallbacks& cb = {}) {
        Session s(model_, ffmpeg_media_files());
        return s.generate(job, dir("out/" + name), cb);
    }
    std::map<std::string, at::Tensor> latents(const GenerationResult& r) { return load_tensors(r.outputs.front()); }

private Q_SLOTS:
    void initTestCase() {
        make_tiny_model(dir("tiny"), 3);
        LoadOptions o;
        o.device = "cpu";
        int progress_calls = 0;
        RunCallbacks cb;
        cb.on_progress = [&](int, int, double) { ++progress_calls; };
        model_ = Model::load(dir("tiny"), o, cb);
        QVERIFY(progress_calls > 10);
        QCOMPARE(model_->file_hashes().size(), size_t(3));  // transformer, vae, sound tokenizer
        QCOMPARE(model_->file_hashes()[0].file, std::string("transformer/diffusion_pytorch_model.safetensors"));
        QCOMPARE(model_->file_hashes()[0].sha256.size(), size_t(64));
        // Conditioning latents for the modes that need them: 256p 16:9 = 320x192 -> 20x12 latents, 9 frames -> 3.
        at::manual_seed(1);
        save_tensors(dir("cond.safetensors"), {{"latent", at::randn({48, 3, 12, 20})}});
        save_tensors(dir("control.safetensors"), {{"latent", at::randn({48, 3, 12, 20})}});
        std::ofstream(dir("actions.json"))
            << ojson(std::vector<std::vector<float>>(8, std::vector<float>(7, 0.25f))).dump();
    }
    void makeTinyIsDeterministic() {
        make_tiny_model(dir("tiny_again"), 3);
        auto a = load_tensors(dir("tiny/transformer/diffusion_pytorch_model.safetensors"));
        auto b = load_tensors(dir("tiny_again/transformer/diffusion_pytorch_model.safetensors"));
        QCOMPARE(a.size(), b.size());
        for (auto& [k, v] : a) QVERIFY(at::equal(v, b.at(k)));
        QVERIFY(a.count("layers.0.self_attn.add_q_proj.weight"));  // written in the published diffusers naming
    }
    void textToVideoWithSound() {
        ojson job = base("text2video");
        job.erase("negative_prompt");  // the default structured negative
        job["enable_sound"] = true;
        int steps = 0;
        RunCallbacks cb;
        int seen_total = 0;
        cb.on_progress = [&](int step, int total, double) {
            steps = step;
            seen_total = total;
        };
        std::vector<LatentPreview> previews;
        cb.preview_every = 1;
        cb.on_preview = [&](const LatentPreview& p) { previews.push_back(p); };
        GenerationResult r = run(job, "t2v", cb);
        QCOMPARE(steps, 3);
        QCOMPARE(seen_total, 3);
        QCOMPARE(previews.size(), size_t(3));
        QCOMPARE(previews[0].shape, std::vector<int64_t>({48, 3, 12, 20}));
        auto t = latents(r);
        QCOMPARE(t.at("video_latent").sizes().vec(), std::vector<int64_t>({48, 3, 12, 20}));
        // 9 frames at 24 fps = 0.375 s -> 18000 samples -> ceil(18000 / 1920) = 10 sound latents.
        QCOMPARE(t.at("sound_latent").sizes().vec(), std::vector<int64_t>({64, 10}));
        QVERIFY(at::isfinite(t.at("video_latent")).all().item<bool>());
        const ojson& rec = r.record;
        QCOMPARE(rec["mode"].get<std::string>(), std::string("text2video"));
        QVERIFY(rec["prompt_string"].get<std::string>().find(
                    "The video is 0.4 seconds long and is of 24 FPS. This video is of 192x320 resolution.") !=
                std::string::npos);
        QVERIFY(rec["negative_prompt_string"].get<std::string>().rfind("{\"subjects\": [", 0) == 0);
        QCOMPARE(rec["seed"].get<uint32_t>(), 11u);
        QCOMPARE(rec["sampler"].get<std::string>(), std::string("unipc"));
        QCOMPARE(rec["model"]["files"][0]["sha256"].get<std::string>(), model_->file_hashes()[0].sha256);
        QVERIFY(rec["versions"].contains("libtorch"));
        QCOMPARE(rec["dtype"].get<std::string>(), std::string("float32"));
        QVERIFY(fs::exists(dir("out/t2v.json")));
        QCOMPARE(ojson::parse(std::ifstream(dir("out/t2v.json"))), rec);
    }
    // Session::run keeps its outputs in memory and writes nothing; write_generation writes them, and refuses a picture
    // or a video of a run that was not decoded, naming the file, with nothing written.
    void runKeepsItsOutputsInMemoryAndTheCallerWrites() {
        Session s(model_, ffmpeg_media_files());
        const Generation g = s.run(base("text2video"), {}, false);
        QCOMPARE(g.outputs.size(), size_t(1));
        QCOMPARE(g.outputs[0].video_latent.shape, std::vector<int64_t>({48, 3, 12, 20}));
        QCOMPARE(g.outputs[0].frames.count, 0);  // not decoded
        QVERIFY(!fs::exists(dir("out/in_memory.json")));
        try {
            write_generation(g, dir("out/in_memory.mp4"), ffmpeg_media_files());
            QFAIL("wrote a video of a run that was not decoded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("in_memory.mp4") != std::string::npos, e.what());
        }
        QVERIFY(!fs::exists(dir("out/in_memory.mp4")) && !fs::exists(dir("out/in_memory.json")));
        const GenerationResult r = write_generation(g, dir("out/in_memory"), ffmpeg_media_files());
        QCOMPARE(r.outputs.size(), size_t(2));  // the latents and the record
        QCOMPARE(latents(r).at("video_latent").sizes().vec(), g.outputs[0].video_latent.shape);
        QCOMPARE(r.record["outputs"][0]["latents"].get<std::string>(), std::string("in_memory.safetensors"));
    }

    void sameSeedSameResultAndKVReuseIsExact() {
        ojson job = base("text2video");
        auto a = latents(run(job, "d1")).at("video_latent");
        auto b = latents(run(job, "d2")).at("video_latent");
        QVERIFY(at::equal(a, b));
        job["reuse_text_kv"] = false;
        auto c = latents(run(job, "d3")).at("video_latent");
        QVERIFY((a - c).abs().max().item<double>() <= 1e-5);
        job["seed"] = 12;
        QVERIFY(!at::equal(a, latents(run(job, "d4")).at("video_latent")));
    }
    void textToImage() {
        ojson job = base("text2image");
        auto t = latents(run(job, "t2i"));
        QCOMPARE(t.at("video_latent").sizes().vec(), std::vector<int64_t>({48, 1, 12, 20}));
    }
    void imageToVideoKeepsTheConditionFrame() {
        ojson job = base("image2video");
        job["vision_path"] = dir("cond.safetensors");
        auto t = latents(run(job, "i2v"));
        auto cond = load_tensors(dir("cond.safetensors")).at("latent");
        QVERIFY(at::equal(t.at("video_latent").select(1, 0), cond.select(1, 0)));
        QVERIFY(!at::equal(t.at("video_latent").select(1, 1), cond.select(1, 1)));
    }
    void firstAndLastFramesArePinned() {
        // image2video from the first picture with a second one pinned at the last latent frame (first + last frame).
        at::manual_seed(8);
        save_tensors(dir("last.safetensors"), {{"latent", at::randn({48, 1, 12, 20})}});
        ojson job = base("image2video");
        job["vision_path"] = dir("cond.safetensors");
        job["keyframes"] = {{{"path", dir("last.safetensors")}, {"latent_frame", -1}}};
        GenerationResult r = run(job, "fl2v");
        auto v = latents(r).at("video_latent");
        const at::Tensor first = load_tensors(dir("cond.safetensors")).at("latent"),
                         last = load_tensors(dir("last.safetensors")).at("latent");
        QVERIFY(at::equal(v.select(1, 0), first.select(1, 0)));
        QVERIFY(at::equal(v.select(1, 2), last.select(1, 0)));
        QVERIFY(!at::equal(v.select(1, 1), first.select(1, 1)));                      // the middle is generated
        QCOMPARE(r.record["request"]["keyframes"][0]["latent_frame"].get<int>(), 2);  // resolved from -1
        // text2video with a keyframe only in the middle.
        ojson mid = base("text2video");
        mid["keyframes"] = {{{"path", dir("last.safetensors")}, {"latent_frame", 1}}};
        QVERIFY(at::equal(latents(run(mid, "t2v_key")).at("video_latent").select(1, 1), last.select(1, 0)));
        // Bad keyframes are refused by field.
        auto refused = [&](ojson bad, const char* expect) {
            try {
                run(bad, "bad_key");
                QFAIL(expect);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(expect) != std::string::npos, e.what());
            }
        };
        ojson out_of_range = mid;
        out_of_range["keyframes"][0]["latent_frame"] = 3;
        refused(out_of_range, "keyframes[0]: latent_frame 3 is outside the 3 latent frames");
        ojson twice = mid;
        twice["keyframes"] = {{{"path", dir("last.safetensors")}, {"latent_frame", 2}},
                              {{"path", dir("last.safetensors")}, {"latent_frame", -1}}};
        refused(twice, "keyframes[1]: latent frame 2 already has a keyframe");
        ojson no_path = mid;
        no_path["keyframes"] = {{{"latent_frame", 0}}};
        refused(no_path, "keyframes[0] needs a path");
        ojson missing = mid;
        missing["keyframes"][0]["path"] = dir("no-such.safetensors");
        refused(missing, "no-such.safetensors");
        ojson image = base("text2image");
        image["keyframes"] = mid["keyframes"];
        refused(image, "keyframes are for text2video, image2video and video2video");
        save_tensors(dir("small.safetensors"), {{"latent", at::randn({48, 1, 6, 10})}});
        ojson small = mid;
        small["keyframes"][0]["path"] = dir("small.safetensors");
        refused(small, "keyframes[0].path");
    }
    void videoToVideoKeepsTwoFrames() {
        ojson job = base("video2video");
        job["vision_path"] = dir("cond.safetensors");
        auto v = latents(run(job, "v2v")).at("video_latent");
        auto cond = load_tensors(dir("cond.safetensors")).at("latent");
        QVERIFY(at::equal(v.narrow(1, 0, 2), cond.narrow(1, 0, 2)));
    }
    // A long video as three chunks of 9 frames, each later one conditioned on the last 2 latent frames (5 pixel
    // frames) of the one before: 9 + 4 + 4 = 17 frames, no frame twice, sound carried on and decoded once.
    void aContinuedVideoIsStitchedFromItsChunks() {
        ojson job = base("text2video");
        job["enable_sound"] = true, job["num_steps"] = 2;
        job["continuation"] = {{"chunks", 3}, {"overlap_latent_frames", 2}};
        int last_step = 0, last_total = 0;
        std::vector<int> steps;
        RunCallbacks cb;
        cb.on_progress = [&](int step, int total, double) {
            steps.push_back(step), last_step = step, last_total = total;
        };
        const GenerationResult r = run(job, "long.mp4", cb);
        QCOMPARE(last_step, 6);
        QCOMPARE(last_total, 6);
        QVERIFY(std::is_sorted(steps.begin(), steps.end()));
        const ojson& k = r.record["continuation"];
        QCOMPARE(k["frames"].get<int>(), 17);
        QCOMPARE(k["seams"].get<std::vector<int>>(), std::vector<int>({9, 13}));
        QCOMPARE(k["chunks"].size(), size_t(3));
        QCOMPARE(k["chunks"][2]["seed"].get<int>(), 13);
        QCOMPARE(k["chunks"][1]["start_frame"].get<int>(), 4);
        QCOMPARE(r.record["request"]["continuation"]["chunks"].get<int>(), 3);
        const std::string folder = dir("out/long.chunks/");
        // Each later chunk starts from its condition exactly, and carries the sound on from the stitched track.
        for (int i = 1; i < 3; ++i) {
            const auto chunk = load_tensors(folder + "chunk_" + std::to_string(i) + ".safetensors");
            const at::Tensor cond =
                load_tensors(folder + "chunk_" + std::to_string(i) + "_condition.safetensors").at("latent");
            QCOMPARE(cond.size(1), int64_t(2));
            QVERIFY(at::equal(chunk.at("video_latent").narrow(1, 0, 2), cond));
            const at::Tensor pinned =
                load_tensors(folder + "chunk_" + std::to_string(i) + "_sound.safetensors").at("sound_latent");
            QVERIFY(at::equal(chunk.at("sound_latent").narrow(1, 0, pinned.size(1)), pinned));
            const auto prev = load_tensors(folder + "chunk_" + std::to_string(i - 1) + ".safetensors");
            const int64_t start = k["chunks"][i]["sound_start_latent"].get<int64_t>() -
                                  k["chunks"][i - 1]["sound_start_latent"].get<int64_t>();
            QVERIFY(at::equal(prev.at("sound_latent").narrow(1, start, pinned.size(1)), pinned));
            const ojson chunk_record = ojson::parse(std::ifstream(folder + "chunk_" + std::to_string(i) + ".json"));
            QCOMPARE(chunk_record["mode"].get<std::string>(), std::string("video2video"));
        }
        // The one file: 17 frames and 17 / 24 s of sound.
        const VideoFrames v = read_video(dir("out/long.mp4"));
        QCOMPARE(v.count, 17);
        const AudioClip a = read_audio(dir("out/long.mp4"));
        QVERIFY2(std::abs(a.frames() / 48000.0 - 17 / 24.0) < 0.03, qPrintable(QString::number(a.frames() / 48000.0)));
        QVERIFY(read_embedded_record(dir("out/long.mp4")).find("\"continuation\"") != std::string::npos);

        // Refused by field, before anything runs.
        auto refused = [&](const ojson& bad, const std::string& out, const char* expect) {
            try {
                run(bad, out);
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(expect) != std::string::npos, e.what());
                return;
            }
            QFAIL(qPrintable(QString("accepted: ") + bad.dump().c_str()));
        };
        ojson bad = job;
        bad["continuation"]["overlap_latent_frames"] = 3;
        refused(bad, "bad_long.mp4", "fewer than the chunk's 3 latent frames");
        bad = job, bad["continuation"]["chunks"] = 0;
        refused(bad, "bad_long.mp4", "chunks must be from 1 to 100");
        bad = job, bad["model_mode"] = "text2image";
        refused(bad, "bad_long.mp4", "continuation is for text2video");
        bad = job, bad["num_outputs"] = 2;
        refused(bad, "bad_long.mp4", "num_outputs must be 1");
        bad = job, bad["continuation"] = 3;
        refused(bad, "bad_long.mp4", "continuation must be an object");
        refused(job, "latents_only", "name the output OUT.mp4");
        bad = base("text2video"), bad["sound_path"] = dir("cond.safetensors");
        refused(bad, "bad_sound.mp4", "needs enable_sound");
        bad["enable_sound"] = true;
        refused(bad, "bad_sound.mp4", "has no tensor named 'sound_latent'");
    }
    void transferWithControlGuidance() {
        ojson job = base("transfer");
        job["control_path"] = dir("control.safetensors");
        job["control_guidance"] = 1.5;
        auto v = latents(run(job, "transfer")).at("video_latent");
        QCOMPARE(v.sizes().vec(), std::vector<int64_t>({48, 3, 12, 20}));
        job["control_guidance"] = 0.0;
        QVERIFY(!at::equal(v, latents(run(job, "transfer0")).at("video_latent")));
    }
    void actionModes() {
        ojson fd = base("forward_dynamics");
        fd["vision_path"] = dir("cond.safetensors");
        fd["action_path"] = dir("actions.json");
        fd["action_chunk_size"] = 8;
        fd["domain_id"] = 0;  // a bare table slot, as older jobs name it
        fd.erase("num_frames");
        auto f = latents(run(fd, "fd"));
        QCOMPARE(f.at("actions").sizes().vec(), std::vector<int64_t>({8, 64}));
        QCOMPARE(f.at("actions")[0][0].item<float>(), 0.25f);  // given actions stay as they were
        QCOMPARE(f.at("actions")[0][7].item<float>(), 0.0f);   // padded to the model's action width

        ojson id = base("inverse_dynamics");
        id["vision_path"] = dir("cond.safetensors");
        id["raw_action_dim"] = 7;
        id["domain_id"] = 0;
        auto i = latents(run(id, "id"));
        auto cond = load_tensors(dir("cond.safetensors")).at("latent");
        QVERIFY(at::equal(i.at("video_latent"), cond));  // the whole video is given
        QCOMPARE(i.at("actions").sizes().vec(), std::vector<int64_t>({8, 64}));

        ojson pol = base("policy");
        pol["vision_path"] = dir("cond.safetensors");
        pol["domain_id"] = 0;
        auto p = latents(run(pol, "policy"));
        QVERIFY(at::equal(p.at("video_latent").select(1, 0), cond.select(1, 0)));
        QVERIFY(!at::equal(p.at("video_latent").select(1, 2), cond.select(1, 2)));
        QVERIFY(p.at("actions").abs().sum().item<double>() > 0);
    }
    // The reference's action path: domain by name, the source frame on the tier's canvas (reflect padding at the
    // bottom and right), the action JSON caption as the prompt string, outputs cropped to the content, and the
    // reference's sample folder beside ours.
    void actionPathAsTheReference() {
        VideoFrames pic;
        pic.width = 250, pic.height = 150, pic.count = 1;
        pic.rgb.resize(250 * 150 * 3);
        for (size_t i = 0; i < pic.rgb.size(); ++i) pic.rgb[i] = static_cast<uint8_t>((i * 7) % 251);
        write_png(dir("source.png"), pic);
        std::ofstream(dir("bridge_actions.json"))
            << ojson(std::vector<std::vector<float>>(8, std::vector<float>(10, 0.1f))).dump();
        ojson fd = base("forward_dynamics");
        fd.erase("num_frames");
        fd.erase("aspect_ratio");
        fd["prompt"] = "  Push the cup ";
        fd["vision_path"] = dir("source.png");
        fd["action_path"] = dir("bridge_actions.json");
        fd["action_chunk_size"] = 8;
        fd["fps"] = 5;
        fd["image_size"] = 256;
        fd["domain_name"] = " Bridge_Orig_LeRobot";  // case and surrounding space do not matter, as in the reference
        const GenerationResult r = run(fd, "bridge_fd.mp4");
        // 150x250 is 0.6 high per wide, the 16:9 entry of tier 256 (320x192); never upscaled, so the content stays
        // 150x250 and 42 rows and 70 columns of reflection fill the canvas. 9 frames at 5 fps: 1.8 s, "1s" truncated,
        // "0:02" rounded.
        QCOMPARE(
            QString::fromStdString(r.record["prompt_string"].get<std::string>()),
            QString(
                "{\"cinematography\": {\"framing\": \"This video is captured from a first-person perspective looking at the scene.\"}, "
                "\"actions\": [{\"time\": \"0:00-0:02\", \"description\": \"Push the cup.\"}], \"duration\": \"1s\", \"fps\": 5.0, "
                "\"resolution\": {\"H\": 192, \"W\": 320}, \"aspect_ratio\": \"16,9\"}"));
        QCOMPARE(r.record["action"]["domain_id"].get<int>(), 7);
        QCOMPARE(r.record["action"]["raw_action_dim"].get<int>(), 10);
        QCOMPARE(r.record["action"]["image_size"], ojson({192.0, 320.0, 150.0, 250.0}));
        QCOMPARE(r.record["action"]["pad_mode"].get<std::string>(), std::string("reflect"));
        QCOMPARE(latents(r).at("video_latent").sizes().vec(), std::vector<int64_t>({48, 3, 12, 20}));
        const ojson probe = probe_media(dir("out/bridge_fd.mp4"));
        QCOMPARE(probe["streams"][0]["width"].get<int>(), 250);  // cropped back to the content
        QCOMPARE(probe["streams"][0]["height"].get<int>(), 150);
        QCOMPARE(probe["streams"][0]["frames"].get<int64_t>(), int64_t(9));
        QVERIFY(fs::exists(dir("out/bridge_fd/vision.mp4")));
        ojson sample = ojson::parse(std::ifstream(dir("out/bridge_fd/sample_outputs.json")));
        QCOMPARE(sample["args"]["model_mode"].get<std::string>(), std::string("forward_dynamics"));
        QCOMPARE(sample["outputs"][0]["files"][0].get<std::string>(), std::string("vision.mp4"));
        QVERIFY(!sample["outputs"][0]["content"].contains("action"));  // forward dynamics was given its actions

        // WAM (the reference's name for policy) answers with [T_a, raw width] actions in model space.
        ojson wam = fd;
        wam["model_mode"] = "wam";
        wam.erase("action_path");
        wam["domain_name"] = "av";
        const GenerationResult w = run(wam, "av_wam.mp4");
        const ojson rows = ojson::parse(std::ifstream(dir("out/av_wam.actions.json")));
        QCOMPARE(rows.size(), size_t(8));
        QCOMPARE(rows[0].size(), size_t(9));
        ojson wsample = ojson::parse(std::ifstream(dir("out/av_wam/sample_outputs.json")));
        QCOMPARE(wsample["args"]["model_mode"].get<std::string>(), std::string("wam"));
        QCOMPARE(wsample["outputs"][0]["content"]["action"], rows);
        QCOMPARE(load_tensors(dir("out/av_wam.actions.safetensors")).at("actions").sizes().vec(),
                 std::vector<int64_t>({8, 9}));
        QVERIFY(w.record["prompt_string"].get<std::string>().find("\"fps\": 5.0") != std::string::npos);

        // An odd content side (151 rows) keeps one padding row in the MP4, which H.264 needs even.
        VideoFrames odd = pic;
        odd.height = 151;
        odd.rgb.resize(250 * 151 * 3, 9);
        write_png(dir("odd.png"), odd);
        ojson oddjob = wam;
        oddjob["vision_path"] = dir("odd.png");
        const GenerationResult o = run(oddjob, "odd_wam.mp4");
        QCOMPARE(o.record["action"]["image_size"], ojson({192.0, 320.0, 151.0, 250.0}));
        QCOMPARE(probe_media(dir("out/odd_wam.mp4"))["streams"][0]["height"].get<int>(), 152);
        // The policy server's rows: a history row and the current state go first as conditioning (the reference's
        // alignment case B: row 0 at frame 0 less the history), and the answer is the chunk alone.
        ojson st = wam;
        st["state"] = std::vector<double>(9, 0.5);
        st["history_actions"] = {std::vector<double>(9, -0.5)};
        const GenerationResult sr = run(st, "av_state.mp4");
        QCOMPARE(sr.record["request"]["state"].size(), size_t(9));
        const ojson srows = ojson::parse(std::ifstream(dir("out/av_state.actions.json")));
        QCOMPARE(srows.size(), size_t(8));
        QVERIFY(srows != rows);  // the state and history condition what is generated
        ojson bad_state = st;
        bad_state["state"] = std::vector<double>(4, 0.5);
        auto expect = [&](ojson job, const char* frag) {
            try {
                run(job, "bad_action.mp4");
                QFAIL(("accepted: " + job.dump()).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        ojson bad = fd;
        bad["domain_name"] = "droid";
        expect(bad, "unknown domain_name 'droid'; known: av, camera_pose");
        bad.erase("domain_name");
        expect(bad, "the action modes need domain_name, one of: av");
        bad["domain_name"] = "libero";
        bad["model_mode"] = "inverse_dynamics";
        bad.erase("action_path");
        expect(bad, "no fixed action width");
        bad = fd;
        bad["domain_name"] = "camera_pose";
        expect(bad, "has 10 values per action, domain 'camera_pose' takes 9");
        bad = fd;
        bad["image_size"] = "300";
        expect(bad, "image_size (the resolution tier) must be one of 256, 480, 704");
        expect(bad_state, "state has 4 values, the actions 9");
        bad = fd;
        bad["num_frames"] = 17;
        expect(bad, "num_frames must be action_chunk_size + 1");
    }
    void cancelStopsWithinAStep() {
        ojson job = base("text2video");
        job["num_steps"] = 20;
        int steps = 0;
        RunCallbacks cb;
        cb.on_progress = [&](int s, int, double) { steps = s; };
        cb.should_cancel = [&] { return steps >= 2; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, run(job, "cancelled", cb));
        QCOMPARE(steps, 2);
        QVERIFY(!fs::exists(dir("out/cancelled.safetensors")));
        // Inside a pass: a cancel that comes while the first pass runs stops it at the next layer, before any step
        // ends.
        int asked = 0;
        steps = 0;
        RunCallbacks mid;
        mid.on_progress = [&](int s, int, double) { steps = s; };
        const int untilFirstLayer = 2;  // the step loop's ask, then the first layer's
        mid.should_cancel = [&] { return ++asked > untilFirstLayer; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, run(job, "cancelled", mid));
        QCOMPARE(steps, 0);
        QCOMPARE(asked, untilFirstLayer + 1);  // stopped at the second layer of the first pass
        RunCallbacks load_cancel;
        load_cancel.should_cancel = [] { return true; };
        QVERIFY_THROWS_EXCEPTION(Cancelled, Model::load(dir("tiny"), {}, load_cancel));
    }
    void badInputsFailClearly() {
        auto expect = [&](ojson job, const char* frag) {
            try {
                run(job, "bad");
                QFAIL(("accepted: " + job.dump()).c_str());
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find(frag) != std::string::npos, e.what());
            }
        };
        ojson j = base("image2video");
        j["vision_path"] = dir("nope.safetensors");
        expect(j, "cannot open");
        j["vision_path"] = dir("actions.json");
        expect(j, "actions.json");  // not a picture or video: named in the error
        save_tensors(dir("wrong.safetensors"), {{"latent", at::zeros({48, 3, 5, 5})}});
        j["vision_path"] = dir("wrong.safetensors");
        expect(j, "the request needs 12x20");
        save_tensors(dir("noname.safetensors"), {{"other", at::zeros({1})}});
        j["vision_path"] = dir("noname.safetensors");
        expect(j, "no tensor named 'latent'");
        ojson fd = base("forward_dynamics");
        fd["vision_path"] = dir("cond.safetensors");
        fd["domain_id"] = 0;
        std::ofstream(dir("bad_actions.json")) << "[[1, 2], [3]]";
        fd["action_path"] = dir("bad_actions.json");
        expect(fd, "every action vector");
        std::ofstream(dir("short_actions.json")) << "[[1, 2], [3, 4]]";
        fd["action_path"] = dir("short_actions.json");
        fd["action_chunk_size"] = 8;
        fd.erase("num_frames");
        expect(fd, "8 are needed");
        ojson t = base("text2video");
        t["domain_id"] = 40;
        expect(t, "domain_id");
        t = base("text2video");
        t["prompt"] = std::string("x") + "<|im_end|>";  // special tokens in prompts are allowed, not an error
        run(t, "special");
        QVERIFY_THROWS_EXCEPTION(Error, Model::load(dir("does-not-exist")));
        fs::create_directories(dir("empty_model"));
        QVERIFY_THROWS_EXCEPTION(Error, Model::load(dir("empty_model")));
    }
    void soundTokenizerInDiffusersNaming() {
        // The same sound decoder saved in the diffusers AutoencoderOobleck spelling decodes the same sound.
        fs::copy(dir("tiny"), dir("tiny_df"), fs::copy_options::recursive);
        auto legacy = load_tensors(dir("tiny/sound_tokenizer/model.safetensors"));
        std::map<std::string, at::Tensor> df;
        const std::vector<std::pair<std::regex, std::string>> rules = {
            {std::regex(R"(^decoder\.layers\.0\.)"), "decoder.conv1."},
            {std::regex(R"(^decoder\.layers\.6\.)"), "decoder.snake1."},
            {std::regex(R"(^decoder\.layers\.7\.)"), "decoder.conv2."}};
        for (auto [name, t] : legacy) {
            std::string n = name;
            std::smatch m;
            if (std::regex_match(n, m, std::regex(R"(^decoder\.layers\.(\d)\.layers\.(\d)\.layers\.(\d)\.(.*)$)"))) {
                static const char* inner[] = {"snake1", "conv1", "snake2", "conv2"};
                n = "decoder.block." + std::to_string(std::stoi(m[1]) - 1) + ".res_unit" +
                    std::to_string(std::stoi(m[2]) - 1) + "." + inner[std::stoi(m[3])] + "." + std::string(m[4]);
            } else if (std::regex_match(n, m, std::regex(R"(^decoder\.layers\.(\d)\.layers\.(\d)\.(.*)$)"))) {
                n = "decoder.block." + std::to_string(std::stoi(m[1]) - 1) + (m[2] == "0" ? ".snake1." : ".conv_t1.") +
                    std::string(m[3]);
            } else {
                for (const auto& [re, to] : rules) n = std::regex_replace(n, re, to);
            }
            n = std::regex_replace(n, std::regex(R"(\.weight_g$)"), ".parametrizations.weight.original0");
            n = std::regex_replace(n, std::regex(R"(\.weight_v$)"), ".parametrizations.weight.original1");
            if (n.size() > 6 && (n.substr(n.size() - 6) == ".alpha" || n.substr(n.size() - 5) == ".beta"))
                t = t.view({1, -1, 1});
            df[n] = t;
        }
        QVERIFY(df.count("decoder.block.0.res_unit1.conv1.parametrizations.weight.original1"));
        fs::remove(dir("tiny_df/sound_tokenizer/model.safetensors"));
        save_tensors(dir("tiny_df/sound_tokenizer/diffusion_pytorch_model.safetensors"), df);
        std::ofstream(dir("tiny_df/sound_tokenizer/config.json")) << ojson{
            {"_class_name", "AutoencoderOobleck"},
            {"decoder_channels", 8},
            {"channel_multiples", {1, 2, 4, 8, 16}},
            {"downsampling_ratios", {2, 4, 5, 6, 8}},
            {"decoder_input_channels", 64},
            {"audio_channels", 2},
            {"sampling_rate", 48000}}.dump();
        ojson job = base("text2video");
        job["enable_sound"] = true;
        job["num_steps"] = 1;
        Session a(model_, ffmpeg_media_files()), b(Model::load(dir("tiny_df")), ffmpeg_media_files());
        a.generate(job, dir("out/legacy_sound.mp4"), {});
        b.generate(job, dir("out/df_sound.mp4"), {});
        AudioClip x = read_audio(dir("out/legacy_sound.mp4")), y = read_audio(dir("out/df_sound.mp4"));
        QVERIFY(x.frames() > 0);
        QCOMPARE(x.samples, y.samples);
    }
    void misshapedModelIsRefused() {
        fs::copy(dir("tiny"), dir("tiny_bad"), fs::copy_options::recursive);
        ojson cfg = ojson::parse(std::ifstream(dir("tiny_bad/transformer/config.json")));
        cfg["intermediate_size"] = 128;
        std::ofstream(dir("tiny_bad/transformer/config.json")) << cfg.dump();
        try {
            Model::load(dir("tiny_bad"));
            QFAIL("mis-shaped model loaded");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("mis-shaped") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("mlp.gate_proj.weight: expected [128, 64], found [96, 64]") !=
                         std::string::npos,
                     e.what());
        }
        ojson info = Model::inspect(dir("tiny_bad"));
        QVERIFY(!info["loadable"].get<bool>());
        QVERIFY(info["misshaped"].size() > 0);
    }
    void reasonerStreamsAndReportsNonJson() {
        Session s(model_, ffmpeg_media_files());
        ReasonerSampling rs;
        rs.max_new_tokens = 12;
        std::string streamed;
        RunCallbacks cb;
        cb.on_text = [&](const std::string& piece) { streamed += piece; };
        auto prompt = model_->tokenizer()->encode_chat_user_turn("describe a ball");
        auto ids = s.generate_text(prompt, rs, cb);
        QVERIFY(!ids.empty());
        QCOMPARE(QString::fromStdString(streamed), QString::fromStdString(model_->tokenizer()->decode(ids)));
        rs.do_sample = true;
        rs.seed = 5;
        auto s1 = s.generate_text(prompt, rs, {});
        auto s2 = s.generate_text(prompt, rs, {});
        QCOMPARE(s1, s2);  // seeded sampling is reproducible
        // A random model does not write JSON: upsampling must say so, not pass text on.
        try {
            s.upsample("t2v", "a ball", {}, rs, {});
            QFAIL("a reply without JSON was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("JSON") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(Error, s.upsample("x2y", "a ball", {}, rs, {}));
        QVERIFY_THROWS_EXCEPTION(Error, s.upsample("t2v", "   ", {}, rs, {}));
    }
    void aConstrainedReplyIsAlwaysOneJsonObject() {
        // A random model writes anything; constrained, its reply parses as one JSON object within the budget, greedy or
        // sampled, even when the budget is too short for it to close the object by itself.
        Session s(model_, ffmpeg_media_files());
        const auto prompt = model_->tokenizer()->encode_chat_user_turn("describe a ball as JSON");
        for (int budget : {2, 3, 9, 40, 160})
            for (bool sample : {false, true}) {
                ReasonerSampling rs;
                rs.max_new_tokens = budget;
                rs.json_object = true;
                rs.do_sample = sample;
                rs.seed = static_cast<uint64_t>(budget);
                std::string streamed;
                RunCallbacks cb;
                cb.on_text = [&](const std::string& piece) { streamed += piece; };
                const auto ids = s.generate_text(prompt, rs, cb);
                QVERIFY(static_cast<int>(ids.size()) <= budget);
                const std::string text = model_->tokenizer()->decode(ids);
                QCOMPARE(QString::fromStdString(streamed), QString::fromStdString(text));
                const ojson j = ojson::parse(text, nullptr, false);
                QVERIFY2(!j.is_discarded() && j.is_object(), text.c_str());
                for (int32_t id : ids) QVERIFY(!model_->tokenizer()->is_added(id));  // no special tokens inside
            }
        ReasonerSampling one;
        one.max_new_tokens = 1;
        one.json_object = true;
        QVERIFY_THROWS_EXCEPTION(Error, s.generate_text(prompt, one, {}));
        // The upsampler, constrained, gets a JSON object back where unconstrained it got none (the test above).
        ReasonerSampling rs;
        rs.max_new_tokens = 64;
        rs.json_object = true;
        const UpsampleResult r = s.upsample("t2v", "a ball", {}, rs, {});
        QVERIFY(r.caption.is_object());
    }

    void previewsAreBoundedAndProjected() {
        BoundedQueue<int> q(3);
        for (int i = 0; i < 10; ++i) q.push(i);
        QCOMPARE(q.size(), size_t(3));
        QCOMPARE(q.dropped(), size_t(7));
        QCOMPARE(*q.pop(), 7);  // the oldest were dropped
        // A fitted projection turns every preview into RGB at latent resolution.
        const double rms = fit_preview_projection(dir("tiny"), 2);
        QVERIFY(rms >= 0 && rms < 0.5);
        auto model = Model::load(dir("tiny"));
        QCOMPARE(model->preview_projection().weight.size(), size_t(3 * 48));
        JobEvents ev;
        ev.preview_every = 1;
        JobQueue jq(model, ev);
        ojson job = base("text2video");
        job["num_steps"] = 6;
        jq.submit(job, dir("out/previewed"));
        jq.wait_idle();
        QCOMPARE(jq.dropped_previews(), size_t(2));  // 6 previews, room for 4
        auto p = jq.take_preview();
        QVERIFY(p.has_value());
        QCOMPARE(p->second.step, 3);
        QCOMPARE(p->second.rgb.size(), size_t(3 * 12 * 20 * 3));
        Session s(model, ffmpeg_media_files());
        int w = 0, h = 0, f = 0;
        auto rgb = s.decode_preview(p->second, &w, &h, &f);
        QCOMPARE(w, 320);
        QCOMPARE(f, 9);
        QCOMPARE(rgb.size(), size_t(9 * 192 * 320 * 3));
        // A damaged projection file is refused with its name, not silently ignored.
        std::ofstream(dir("tiny/worldstudio_preview.json")) << R"({"weight": [[1, 2]], "bias": [0]})";
        try {
            Model::load(dir("tiny"));
            QFAIL("a bad preview projection was accepted");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("worldstudio_preview.json") != std::string::npos, e.what());
        }
        std::ofstream(dir("tiny/worldstudio_preview.json")) << "{not json";
        QVERIFY_THROWS_EXCEPTION(Error, Model::load(dir("tiny")));
        fs::remove(dir("tiny/worldstudio_preview.json"));
    }
};

QTEST_GUILESS_MAIN(TestPipeline)
#include "test_pipeline.moc"
