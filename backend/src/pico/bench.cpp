#include "worldstudio/pico/bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "worldstudio/model/caption_check.h"
#include "worldstudio/model/request.h"

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"
#include "worldstudio/model/pico_codec.h"
#include "worldstudio/pico/eval.h"
#include "worldstudio/pico/world.h"
#include "worldstudio/core/safetensors.h"

namespace ws::pico {

namespace {

struct Mean {
    double sum = 0;
    int n = 0;
    void add(double v) {
        if (v >= 0 && std::isfinite(v)) sum += v, ++n;
    }
    double value() const { return n ? sum / n : -1; }
};

// Tracks of the episode's moved bodies and of its gripper in `video` (those whose true track leaves its first
// position by 3 pixels or more: objects that stay put would reward copying the first frame), and the mean error
// against the same tracks in `truth`, over frames from `from` on; `lost` gets, for each frame where the truth has
// the body, 1 if `video` does not and 0 if it does.
double tracked_error(const Episode& e, const VideoFrames& video, const VideoFrames& truth, int from, Mean* lost) {
    Mean m;
    auto video_tracks = track_all(video), truth_tracks = track_all(truth);
    std::vector<size_t> tracked;
    for (const Body& b : e.initial) tracked.push_back(static_cast<size_t>(b.colour));
    if (!e.gripper_states.empty() && e.gripper_states.front().visible) {
        video_tracks.push_back(track_gripper(video)), truth_tracks.push_back(track_gripper(truth));
        tracked.push_back(video_tracks.size() - 1);
    }
    for (size_t k : tracked) {
        auto a = video_tracks[k], t = truth_tracks[k];
        double moved = 0;
        for (const auto& p : t)
            if (p.first >= 0 && t.front().first >= 0)
                moved = std::max(moved, std::hypot(p.first - t.front().first, p.second - t.front().second));
        if (moved < 3) continue;
        for (int i = 0; i < from && i < static_cast<int>(a.size()); ++i)
            a[static_cast<size_t>(i)] = t[static_cast<size_t>(i)] = {-1, -1};
        // Something the video lost counts as far off (half the frame), not as missing.
        for (size_t i = 0; i < a.size(); ++i) {
            if (t[i].first < 0) continue;
            lost->add(a[i].first < 0 ? 1 : 0);
            if (a[i].first < 0) a[i] = {t[i].first + video.width / 2.0, t[i].second};
        }
        m.add(track_error(a, t));
    }
    return m.value();
}

// The simulator's impact times that can be heard in its own sound track: those the onset finder places on the
// true track (to 5 ms), so a hit masked by an earlier one's ringing, or merged with it, is not asked for, and the
// true track itself scores zero.
std::vector<double> audible_impacts(const Episode& e) {
    const std::vector<double> heard = onsets(e.audio);
    std::vector<double> out;
    for (const Impact& im : e.impacts) {
        const bool found =
            std::any_of(heard.begin(), heard.end(), [&](double t) { return std::fabs(t - im.time) <= 0.005; });
        if (found && (out.empty() || im.time - out.back() > 0.005)) out.push_back(im.time);
    }
    return out;
}

// The least distance between two bodies' centres in the true first frame, by the detector (pixels); a large
// number when it sees fewer than two.
double nearest_bodies_px(const Episode& e) {
    const std::vector<Detection> d = detect(e.video, 0);
    double best = 1e9;
    for (size_t i = 0; i < d.size(); ++i)
        for (size_t j = i + 1; j < d.size(); ++j) best = std::min(best, std::hypot(d[i].x - d[j].x, d[i].y - d[j].y));
    return best;
}

// The text2video figures of one generated video (and its sound) against the episode: at the middle frame, the
// prompt's colours and object count; over every frame, on the prompts that name every body (the rest leave bodies to
// the model), the named colours and no others, the bodies counted and the frames lost, with the simulator's own
// video measured alike and through the codec (the ceiling); the motion the prompt names (a scene with no rule for
// it is not counted; bodies the video never shows did not move); as many sounds as the true track has heard impacts.
struct Text2VideoScores {
    Mean count_ok, colour_recall, shown_right, shown_count, shown_lost, truth_right, truth_count, truth_lost,
        codec_right, codec_lost;
    Mean motion, truth_motion, impacts_right, codec_impacts_right;
    // The named colours shown, no others, by the layout of the bodies in the true first frame: one body; two or more
    // all further apart than a latent cell (16 px); two or more of which some are nearer (a ball on a box).
    // [layout][0] the model, [layout][1] the true video through the codec.
    Mean right_by_layout[3][2];

    void score(const Episode& e, const VideoFrames& gen, const AudioClip& sound, const LinearVideoCodec* video_codec,
               const EnvelopeAudioCodec* audio_codec) {
        std::set<int> want, seen;
        for (const Body& b : e.initial) want.insert(b.colour);
        for (const Detection& d : detect(gen, gen.count / 2)) seen.insert(d.colour);
        count_ok.add(seen.size() == want.size() ? 1 : 0);
        int hit = 0;
        for (int c : want) hit += seen.count(c) ? 1 : 0;
        colour_recall.add(static_cast<double>(hit) / static_cast<double>(want.size()));
        const std::vector<int> named = named_colours(e.prompt);
        bool names_all = named.size() == e.initial.size();
        for (const Body& b : e.initial)
            names_all = names_all && std::find(named.begin(), named.end(), b.colour) != named.end();
        if (names_all) {
            const Showing g = showing(gen, named), t = showing(e.video, named);
            shown_right.add(g.colours_right), shown_count.add(g.count_right), shown_lost.add(g.lost);
            const int layout = named.size() == 1 ? 0 : nearest_bodies_px(e) < 16 ? 2 : 1;
            right_by_layout[layout][0].add(g.colours_right);
            truth_right.add(t.colours_right), truth_count.add(t.count_right), truth_lost.add(t.lost);
            if (video_codec) {
                const Showing c = showing(video_codec->decode(video_codec->encode(e.video), e.options.fps), named);
                codec_right.add(c.colours_right), codec_lost.add(c.lost);
                right_by_layout[layout][1].add(c.colours_right);
            }
        }
        if (e.scene == "drop" || e.scene == "pick_place" || named.size() >= 2) {
            motion.add(std::max(0, motion_happens(e.scene, e.prompt, gen)));
            truth_motion.add(std::max(0, motion_happens(e.scene, e.prompt, e.video)));
        }
        const size_t heard = audible_impacts(e).size();
        impacts_right.add(onsets(sound).size() == heard ? 1 : 0);
        if (audio_codec)
            codec_impacts_right.add(onsets(audio_codec->decode(audio_codec->encode(e.audio))).size() == heard ? 1 : 0);
    }

    ojson json() const {
        return {{"object_count_accuracy", count_ok.value()},
                {"colour_recall", colour_recall.value()},
                {"prompts_naming_every_body", shown_right.n},
                {"colours_right", shown_right.value()},
                {"simulator_colours_right", truth_right.value()},
                {"codec_round_trip_colours_right", codec_right.value()},
                {"colours_right_one_body", right_by_layout[0][0].value()},
                {"colours_right_bodies_apart", right_by_layout[1][0].value()},
                {"colours_right_bodies_close", right_by_layout[2][0].value()},
                {"codec_round_trip_colours_right_one_body_apart_close",
                 {right_by_layout[0][1].value(), right_by_layout[1][1].value(), right_by_layout[2][1].value()}},
                {"prompts_one_body_apart_close",
                 {right_by_layout[0][0].n, right_by_layout[1][0].n, right_by_layout[2][0].n}},
                {"counts_right", shown_count.value()},
                {"simulator_counts_right", truth_count.value()},
                {"lost_share", shown_lost.value()},
                {"simulator_lost_share", truth_lost.value()},
                {"codec_round_trip_lost_share", codec_lost.value()},
                {"motion_right", motion.value()},
                {"simulator_motion_right", truth_motion.value()},
                {"impact_count_right", impacts_right.value()},
                {"codec_round_trip_impact_count_right", codec_impacts_right.value()}};
    }
};

bool wants(const BenchOptions& o, const char* section) { return o.sections.empty() || o.sections.count(section) > 0; }

}  // namespace

SubjectAttributes subject_attributes(const std::string& description) {
    SubjectAttributes a;
    std::istringstream words(description);
    for (std::string w; words >> w;) {
        for (const Colour& c : palette())
            if (w == c.name) a.colour = w;
        for (Material m : {Material::Rubber, Material::Wood, Material::Metal, Material::Plastic})
            if (w == material_name(m)) a.material = w;
        if (w == "ball" || w == "box" || w == "gripper") a.shape = w;
    }
    return a;
}

// The upsampler section: the reasoner's reply to each held-out prompt (greedy), parsed and checked against the
// episode's caption, as the studio gets it and as the reasoner wrote it.
static ojson bench_upsampler(Session& session, const BenchOptions& o, const RunCallbacks& cb) {
    ojson out;
    struct Attributes {
        Mean count_ok, colour_ok, material_ok, shape_ok;
        // Each subject of the episode against the reply's subject that agrees with it best, one to one (the
        // order of the subjects is no attribute); a missing one gets every attribute wrong.
        void add(const ojson& truth, const ojson& caption) {
            const ojson subjects = caption.is_object() && caption.contains("subjects") && caption["subjects"].is_array()
                                       ? caption["subjects"]
                                       : ojson();
            count_ok.add(subjects.is_array() && subjects.size() == truth.size() ? 1 : 0);
            std::vector<SubjectAttributes> want, got;
            for (const ojson& t : truth) want.push_back(subject_attributes(t["description"].get<std::string>()));
            if (subjects.is_array())
                for (const ojson& g : subjects)
                    got.push_back(g.is_object() && g.contains("description") && g["description"].is_string()
                                      ? subject_attributes(g["description"].get<std::string>())
                                      : SubjectAttributes{});
            auto agree = [](const SubjectAttributes& a, const SubjectAttributes& b) {
                return (a.colour == b.colour) + (a.material == b.material) + (a.shape == b.shape);
            };
            struct Pair {
                int score;
                size_t w, g;
            };
            std::vector<Pair> pairs;
            for (size_t i = 0; i < want.size(); ++i)
                for (size_t j = 0; j < got.size(); ++j) pairs.push_back({agree(want[i], got[j]), i, j});
            std::stable_sort(pairs.begin(), pairs.end(),
                             [](const Pair& a, const Pair& b) { return a.score > b.score; });
            std::vector<int> match(want.size(), -1);
            std::set<size_t> used;
            for (const Pair& p : pairs)
                if (match[p.w] < 0 && !used.count(p.g)) match[p.w] = static_cast<int>(p.g), used.insert(p.g);
            for (size_t i = 0; i < want.size(); ++i) {
                const SubjectAttributes g = match[i] >= 0 ? got[static_cast<size_t>(match[i])] : SubjectAttributes{};
                if (!want[i].colour.empty()) colour_ok.add(g.colour == want[i].colour ? 1 : 0);
                if (!want[i].material.empty()) material_ok.add(g.material == want[i].material ? 1 : 0);
                shape_ok.add(g.shape == want[i].shape ? 1 : 0);
            }
        }
        double accuracy() const {
            return (count_ok.sum + colour_ok.sum + material_ok.sum + shape_ok.sum) /
                   std::max(1, count_ok.n + colour_ok.n + material_ok.n + shape_ok.n);
        }
    };
    Mean parsed, valid, events_ok, events_ok_model, repaired;  // parsed: a JSON object; valid: and no schema problem
    Attributes studio, model_alone;
    Options text_only;
    text_only.render = false;
    ReasonerSampling greedy;
    greedy.max_new_tokens = 1024;             // the longest Pico captions are about 700 tokens
    greedy.json_object = o.json_constrained;  // as the studio upsamples, unless asked for free text
    // Event counts ("bounces twice"): the caption's agree with the prompt's wherever it says them.
    auto events_agree = [](const std::string& prompt, const ojson& caption) {
        for (const CaptionIssue& i : check_caption(prompt, caption))
            if (i.kind == CaptionIssue::Kind::Frequency && !i.conflict.empty()) return 0.0;
        return 1.0;
    };
    for (int k = 0; k < o.upsampler_episodes; ++k) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        const Episode e = simulate(o.seed + 500000 + static_cast<uint64_t>(k), text_only);
        const ojson request = {{"width", e.options.width},
                               {"height", e.options.height},
                               {"num_frames", e.options.frames},
                               {"fps", e.options.fps}};
        const ojson& truth = e.caption["subjects"];
        ojson caption, reasoner_caption;
        try {
            const UpsampleResult r = session.upsample("text2video", e.prompt, request, greedy, {});
            parsed.add(1);
            valid.add(r.problems.empty() ? 1 : 0);
            caption = r.caption, reasoner_caption = r.reasoner_caption;
            repaired.add(r.prompt_repairs.empty() ? 0 : 1);
        } catch (const Cancelled&) {
            throw;
        } catch (const std::exception&) {
            parsed.add(0), valid.add(0);  // no JSON object in the reply
        }
        studio.add(truth, caption);
        model_alone.add(truth, reasoner_caption);
        if (e.prompt.find("bounces") != std::string::npos || e.prompt.find("times") != std::string::npos)
            events_ok.add(events_agree(e.prompt, caption)),
                events_ok_model.add(events_agree(e.prompt, reasoner_caption));
    }
    out["upsampler"] = {{"prompts", o.upsampler_episodes},
                        {"json_constrained", o.json_constrained},
                        {"json_valid", parsed.value()},
                        {"caption_valid", valid.value()},
                        {"subject_count_accuracy", studio.count_ok.value()},
                        {"colour_accuracy", studio.colour_ok.value()},
                        {"material_accuracy", studio.material_ok.value()},
                        {"shape_accuracy", studio.shape_ok.value()},
                        {"attribute_accuracy", studio.accuracy()},
                        {"reasoner_attribute_accuracy", model_alone.accuracy()},
                        {"reasoner_colour_accuracy", model_alone.colour_ok.value()},
                        {"repaired_share", repaired.value()},
                        {"event_count_agreement", events_ok.value()},
                        {"reasoner_event_count_agreement", events_ok_model.value()}};
    return out["upsampler"];
}

namespace {

// Both ways (each impact to its nearest sound, each sound to its nearest impact), so a track full of clicks does
// not score well; no sound at all for an episode with impacts counts as a full second off.
double onset_score(const std::vector<double>& truth, const std::vector<double>& found) {
    return found.empty() ? 1.0 : (onset_error(truth, found) + onset_error(found, truth)) / 2;
}

// The generation sections of the bench: per episode, each section's jobs through the session and their scores;
// then the sections' figures. Files go to `tmp` (the caller removes it).
struct GenerationBench {
    GenerationBench(Session& s, const BenchOptions& options, std::filesystem::path dir)
        : session(s), o(options), tmp(std::move(dir)) {}
    Session& session;
    const BenchOptions& o;
    std::filesystem::path tmp;
    std::optional<LinearVideoCodec> video_codec;  // the ceiling the folder's own codecs set: the truth through them
    std::optional<EnvelopeAudioCodec> audio_codec;
    Mean fd_err, copy_err, fd_psnr, copy_psnr, id_mse, id_base_mse, onset_err, t2v_seconds;
    Text2VideoScores t2v;
    Mean codec_fd_err, codec_psnr, codec_onset_err, fd_lost, copy_lost, codec_lost;
    Mean i2v_err, i2v_lost, i2v_psnr, i2v_text_psnr;

    // The episode's files and the request every mode starts from.
    struct Case {
        const Episode& e;
        std::string base, video_file;
        ojson common;
        // Guidance, shift and the rest come from the folder's generation defaults for the mode, as a user gets them
        // (Pico: guidance 3 for text2video, 1 for the action modes); the step count is the bench's.
        ojson request(const char* mode) const {
            ojson r = common;
            r["model_mode"] = mode;
            r["prompt"] = e.prompt;
            if (mode_has_actions(mode_from_name(mode)))
                r["domain_name"] = "pico_world";  // the episodes' own embodiment
            return r;
        }
    };

    void run(const Episode& e, int k) {
        const std::string base = (tmp / ("ep" + std::to_string(k))).string();
        write_episode(e, tmp.string());
        std::ofstream(base + "_actions.json") << ojson(e.actions_normalized).dump();
        const Case c{e,
                     base,
                     (tmp / ("episode_" + std::to_string(e.seed) + ".mp4")).string(),
                     {{"width", e.options.width},
                      {"height", e.options.height},
                      {"num_frames", e.options.frames},
                      {"fps", e.options.fps},
                      {"num_steps", o.steps},
                      {"negative_prompt", ""},
                      {"seed", k}}};
        if (wants(o, "text2video")) text2video(c);
        if (wants(o, "forward_dynamics") || wants(o, "image2video")) {
            // The baseline of the rollout modes: the first frame held.
            VideoFrames copy = e.video;
            for (int i = 1; i < copy.count; ++i)
                std::copy(copy.frame(0), copy.frame(0) + copy.width * copy.height * 3,
                          copy.rgb.begin() + static_cast<ptrdiff_t>(i) * copy.width * copy.height * 3);
            score_rollout(e, copy, copy_err, copy_lost, copy_psnr);
        }
        if (wants(o, "image2video")) image2video(c);
        if (wants(o, "sound")) sound(c);
        if (wants(o, "forward_dynamics")) forward_dynamics(c);
        if (wants(o, "inverse_dynamics")) inverse_dynamics(c);
    }

    // A generated rollout against the simulation: the tracked bodies from frame 1 on, and PSNR.
    void score_rollout(const Episode& e, const VideoFrames& rollout, Mean& error, Mean& lost, Mean& rollout_psnr) {
        error.add(tracked_error(e, rollout, e.video, 1, &lost));
        rollout_psnr.add(psnr(rollout, e.video));
    }

    // Text to video with sound: objects and colours of the prompt, and the time it takes.
    void text2video(const Case& c) {
        ojson job = c.request("text2video");
        job["enable_sound"] = true;
        if (o.from_caption) job["prompt"] = python_json_dumps(c.e.caption);
        const auto t0 = std::chrono::steady_clock::now();
        session.generate(job, c.base + "_t2v.mp4", {});
        t2v_seconds.add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        t2v.score(c.e, read_video(c.base + "_t2v.mp4"), read_audio(c.base + "_t2v.mp4"),
                  video_codec ? &*video_codec : nullptr, audio_codec ? &*audio_codec : nullptr);
    }

    // The episode's first frame and its prompt, no actions: the video has to continue what the image shows
    // (objects fall and roll as the simulation's do; the gripper's path is not told). Against the first frame held,
    // and against text2video for the same prompt without the image (the image has to be read).
    void image2video(const Case& c) {
        ojson job = c.request("image2video");
        job["vision_path"] = c.video_file;
        session.generate(job, c.base + "_i2v.mp4", {});
        score_rollout(c.e, read_video(c.base + "_i2v.mp4"), i2v_err, i2v_lost, i2v_psnr);
        session.generate(c.request("text2video"), c.base + "_i2v_without_image.mp4", {});
        i2v_text_psnr.add(psnr(read_video(c.base + "_i2v_without_image.mp4"), c.e.video));
    }

    // Sound for the episode's own video (every frame given): onsets against the simulator's impacts, both ways.
    void sound(const Case& c) {
        ojson job = c.request("video2video");
        job["vision_path"] = c.video_file;
        job["enable_sound"] = true;
        // Every frame is given, so the text has little to add: on validation episodes (--seed 4000000) the
        // video2video default of 3 put Pico's onsets further off than 1 (355 vs 220 ms).
        job["guidance"] = 1.0;
        std::vector<int64_t> all;
        for (int64_t t = 0; t < (c.e.options.frames - 1) / 4 + 1; ++t) all.push_back(t);
        job["condition_frame_indexes_vision"] = all;
        session.generate(job, c.base + "_v2s.mp4", {});
        const std::vector<double> truth_onsets = audible_impacts(c.e);
        if (truth_onsets.empty()) return;
        onset_err.add(onset_score(truth_onsets, onsets(read_audio(c.base + "_v2s.mp4"))));
        if (audio_codec)
            codec_onset_err.add(onset_score(truth_onsets, onsets(audio_codec->decode(audio_codec->encode(c.e.audio)))));
    }

    // The first frame and the true actions; the rollout against the simulation.
    void forward_dynamics(const Case& c) {
        ojson job = c.request("forward_dynamics");
        job["vision_path"] = c.video_file;
        job["action_path"] = c.base + "_actions.json";
        session.generate(job, c.base + "_fd.mp4", {});
        score_rollout(c.e, read_video(c.base + "_fd.mp4"), fd_err, fd_lost, fd_psnr);
        if (video_codec)
            score_rollout(c.e, video_codec->decode(video_codec->encode(c.e.video), c.e.options.fps), codec_fd_err,
                          codec_lost, codec_psnr);
    }

    // The video; the actions against the true ones.
    void inverse_dynamics(const Case& c) {
        ojson job = c.request("inverse_dynamics");
        job["vision_path"] = c.video_file;
        session.generate(job, c.base + "_id", {});
        SafeTensorsFile f(c.base + "_id.safetensors");
        const TensorView& a = f.at("actions");
        const int64_t rows = a.shape[0], cols = a.shape[1];
        const float* p = reinterpret_cast<const float*>(a.data);
        const auto& truth_rows = c.e.actions_normalized;
        double se = 0, base_se = 0;
        int n = 0;
        for (int64_t t = 0; t < rows && t < static_cast<int64_t>(truth_rows.size()); ++t)
            for (int64_t j = 0; j < kActionDim && j < cols; ++j) {
                const double truth = truth_rows[static_cast<size_t>(t)][static_cast<size_t>(j)];
                se += (p[t * cols + j] - truth) * (p[t * cols + j] - truth), base_se += truth * truth, ++n;
            }
        id_mse.add(se / n);
        id_base_mse.add(base_se / n);
    }

    void figures(ojson& out) const {
        if (wants(o, "text2video")) {
            out["text2video"] = t2v.json();
            out["text2video"]["from"] = o.from_caption ? "caption" : "prompt";
            out["speed"] = {{"text2video_sound_seconds", t2v_seconds.value()}};
        }
        if (wants(o, "image2video"))
            out["image2video"] = {{"tracked_position_error_px", i2v_err.value()},
                                  {"copy_first_frame_error_px", copy_err.value()},
                                  {"lost_share", i2v_lost.value()},
                                  {"copy_first_frame_lost_share", copy_lost.value()},
                                  {"psnr_db", i2v_psnr.value()},
                                  {"copy_first_frame_psnr_db", copy_psnr.value()},
                                  {"text2video_psnr_db", i2v_text_psnr.value()}};
        if (wants(o, "forward_dynamics"))
            out["forward_dynamics"] = {{"tracked_position_error_px", fd_err.value()},
                                       {"copy_last_frame_error_px", copy_err.value()},
                                       {"psnr_db", fd_psnr.value()},
                                       {"copy_last_frame_psnr_db", copy_psnr.value()},
                                       {"codec_round_trip_error_px", codec_fd_err.value()},
                                       {"codec_round_trip_psnr_db", codec_psnr.value()},
                                       {"lost_share", fd_lost.value()},
                                       {"copy_last_frame_lost_share", copy_lost.value()},
                                       {"codec_round_trip_lost_share", codec_lost.value()}};
        if (wants(o, "inverse_dynamics"))
            out["inverse_dynamics"] = {{"action_mse", id_mse.value()}, {"zero_action_mse", id_base_mse.value()}};
        if (wants(o, "sound"))
            out["sound"] = {
                {"onset_error_ms", onset_err.value() < 0 ? -1 : onset_err.value() * 1000},
                {"one_latent_ms", 40},
                {"codec_round_trip_onset_error_ms", codec_onset_err.value() < 0 ? -1 : codec_onset_err.value() * 1000}};
    }
};

}  // namespace

ojson run_bench(const std::string& model_dir, const BenchOptions& o, const RunCallbacks& cb) {
    namespace fs = std::filesystem;
    if (o.episodes < 1 || o.steps < 1 || o.upsampler_episodes < 1)
        throw Error("the benchmark needs at least one episode and one step");
    for (const std::string& s : o.sections)
        if (s != "upsampler" && s != "text2video" && s != "image2video" && s != "forward_dynamics" &&
            s != "inverse_dynamics" && s != "sound")
            throw Error("unknown benchmark section '" + s +
                        "' (upsampler, text2video, image2video, forward_dynamics, inverse_dynamics, sound)");
    auto model = Model::load(model_dir, {}, cb);
    Session session(model, ffmpeg_media_files());
    ojson out = {{"model", model->id()}, {"episodes", o.episodes}, {"first_seed", o.seed}, {"steps", o.steps}};

    if (wants(o, "upsampler")) out["upsampler"] = bench_upsampler(session, o, cb);

    const bool generation = wants(o, "text2video") || wants(o, "image2video") || wants(o, "forward_dynamics") ||
                            wants(o, "inverse_dynamics") || wants(o, "sound");
    if (!generation) return out;
    const std::string stamp = std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    GenerationBench bench(session, o, fs::temp_directory_path() / ("worldstudio-bench-" + stamp));
    fs::create_directories(bench.tmp);
    const fs::path vae = fs::path(model_dir) / "vae" / "codec.safetensors",
                   sound = fs::path(model_dir) / "sound_tokenizer" / "codec.safetensors";
    if (fs::exists(vae)) bench.video_codec = LinearVideoCodec::load(vae.string());
    if (fs::exists(sound)) bench.audio_codec = EnvelopeAudioCodec::load(sound.string());
    try {
        for (int k = 0; k < o.episodes; ++k) {
            if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
            bench.run(simulate(o.seed + static_cast<uint64_t>(k)), k);
        }
    } catch (...) {
        fs::remove_all(bench.tmp);
        throw;
    }
    fs::remove_all(bench.tmp);
    bench.figures(out);
    return out;
}

std::string bench_table(const ojson& r) {
    std::string t = "| measure | model | baseline or bar |\n| --- | --- | --- |\n";
    char buf[512];
    auto row = [&](const char* fmt, auto... v) {
        std::snprintf(buf, sizeof buf, fmt, v...);
        t += buf;
    };
    auto v = [&](const char* a, const char* b) { return r[a][b].get<double>(); };
    // Ceilings are measured only for folders with Pico codecs (-1 otherwise).
    auto has = [&](const char* a, const char* b) {
        return r[a].contains(b) && r[a][b].is_number() && r[a][b].get<double>() >= 0;
    };
    if (r.contains("upsampler")) {
        row("| upsampler: valid JSON (%d prompts%s) | %.0f %% | 99 %% |\n", r["upsampler"]["prompts"].get<int>(),
            r["upsampler"].value("json_constrained", true) ? "" : ", unconstrained",
            100 * v("upsampler", "json_valid"));
        row("| upsampler: captions without schema problems | %.0f %% | |\n", 100 * v("upsampler", "caption_valid"));
        row("| upsampler: subject count right | %.0f %% | |\n", 100 * v("upsampler", "subject_count_accuracy"));
        row("| upsampler: colours, materials, shapes right | %.0f %% / %.0f %% / %.0f %% | |\n",
            100 * v("upsampler", "colour_accuracy"), 100 * v("upsampler", "material_accuracy"),
            100 * v("upsampler", "shape_accuracy"));
        row("| upsampler: attribute accuracy (count, colour, material, shape) | %.1f %% | 90 %% |\n",
            100 * v("upsampler", "attribute_accuracy"));
        if (has("upsampler", "reasoner_attribute_accuracy")) {
            row("| upsampler: the same, as the reasoner wrote it (before the caption check puts the prompt's attributes back) | %.1f %% | |\n",
                100 * v("upsampler", "reasoner_attribute_accuracy"));
            row("| upsampler: captions the caption check repaired | %.0f %% | |\n",
                100 * v("upsampler", "repaired_share"));
        }
        if (has("upsampler", "event_count_agreement"))
            row("| upsampler: bounce counts agree with the prompt | %.0f %% | %.0f %% (as the reasoner wrote them) |\n",
                100 * v("upsampler", "event_count_agreement"), 100 * v("upsampler", "reasoner_event_count_agreement"));
    }
    if (r.contains("text2video")) {
        row("| text2video: object count right | %.0f %% | |\n", 100 * v("text2video", "object_count_accuracy"));
        row("| text2video: prompt colours found | %.0f %% | |\n", 100 * v("text2video", "colour_recall"));
        if (has("text2video", "colours_right")) {
            const int n = r["text2video"]["prompts_naming_every_body"].get<int>();
            row("| text2video: named colours shown, no others (%d prompts naming every body%s) | %.0f %% | %.0f %% (simulator); %.0f %% (through the codec); bar 90 %% |\n",
                n, r["text2video"].value("from", "prompt") == "caption" ? ", generated from their captions" : "",
                100 * v("text2video", "colours_right"), 100 * v("text2video", "simulator_colours_right"),
                100 * v("text2video", "codec_round_trip_colours_right"));
            if (r["text2video"].contains("prompts_one_body_apart_close")) {
                const ojson& k = r["text2video"]["prompts_one_body_apart_close"];
                const ojson& c = r["text2video"]["codec_round_trip_colours_right_one_body_apart_close"];
                // Three shares as "a / b / c %", n/a for a layout no prompt had.
                auto shares = [](const ojson& one, const ojson& apart, const ojson& close) {
                    std::string out;
                    for (const ojson* x : {&one, &apart, &close}) {
                        const double p = x->get<double>();
                        out += (out.empty() ? "" : " / ") +
                               (p < 0 ? std::string("n/a") : std::to_string(std::lround(100 * p)));
                    }
                    return out + " %";
                };
                const ojson& t = r["text2video"];
                row("| text2video: the same, one body / bodies apart / bodies nearer than a latent cell (16 px) (%d / %d / %d prompts) | %s | %s (through the codec) |\n",
                    k[0].get<int>(), k[1].get<int>(), k[2].get<int>(),
                    shares(t["colours_right_one_body"], t["colours_right_bodies_apart"],
                           t["colours_right_bodies_close"])
                        .c_str(),
                    shares(c[0], c[1], c[2]).c_str());
            }
            row("| text2video: as many bodies shown as named | %.0f %% | %.0f %% (simulator); bar 90 %% |\n",
                100 * v("text2video", "counts_right"), 100 * v("text2video", "simulator_counts_right"));
            row("| text2video: frames where a named body is lost | %.0f %% | %.0f %% (simulator); %.0f %% (through the codec); bar 15 %% |\n",
                100 * v("text2video", "lost_share"), 100 * v("text2video", "simulator_lost_share"),
                100 * v("text2video", "codec_round_trip_lost_share"));
        }
        if (has("text2video", "motion_right"))
            row("| text2video: the named motion happens | %.0f %% | %.0f %% (simulator) |\n",
                100 * v("text2video", "motion_right"), 100 * v("text2video", "simulator_motion_right"));
        if (has("text2video", "impact_count_right"))
            row("| text2video: as many impact sounds as heard impacts | %.0f %% | %.0f %% (through the codec) |\n",
                100 * v("text2video", "impact_count_right"),
                100 * v("text2video", "codec_round_trip_impact_count_right"));
    }
    if (r.contains("image2video")) {
        row("| image2video: tracked position error (no actions given) | %.1f px | %.1f px (copy first frame) |\n",
            v("image2video", "tracked_position_error_px"), v("image2video", "copy_first_frame_error_px"));
        row("| image2video: PSNR | %.1f dB | %.1f dB (copy first frame); %.1f dB (text2video, no image) |\n",
            v("image2video", "psnr_db"), v("image2video", "copy_first_frame_psnr_db"),
            v("image2video", "text2video_psnr_db"));
        row("| image2video: frames of tracked bodies the detector loses | %.0f %% | %.0f %% (copy first frame) |\n",
            100 * v("image2video", "lost_share"), 100 * v("image2video", "copy_first_frame_lost_share"));
    }
    if (r.contains("forward_dynamics")) {
        row("| forward dynamics: tracked position error | %.1f px | %.1f px (copy last frame) |\n",
            v("forward_dynamics", "tracked_position_error_px"), v("forward_dynamics", "copy_last_frame_error_px"));
        row("| forward dynamics: PSNR | %.1f dB | %.1f dB (copy last frame) |\n", v("forward_dynamics", "psnr_db"),
            v("forward_dynamics", "copy_last_frame_psnr_db"));
        if (has("forward_dynamics", "lost_share"))
            row("| forward dynamics: frames of tracked bodies the detector loses | %.0f %% | %.0f %% (copy last frame) |\n",
                100 * v("forward_dynamics", "lost_share"), 100 * v("forward_dynamics", "copy_last_frame_lost_share"));
        if (has("forward_dynamics", "codec_round_trip_error_px"))
            row("| forward dynamics ceiling: the true video through the codec | %.1f px, %.1f dB, %.0f %% lost | |\n",
                v("forward_dynamics", "codec_round_trip_error_px"), v("forward_dynamics", "codec_round_trip_psnr_db"),
                100 * v("forward_dynamics", "codec_round_trip_lost_share"));
    }
    if (r.contains("inverse_dynamics"))
        row("| inverse dynamics: action MSE | %.4f | %.4f (zero actions) |\n", v("inverse_dynamics", "action_mse"),
            v("inverse_dynamics", "zero_action_mse"));
    if (r.contains("sound")) {
        row("| sound for a given video: impact onset error | %.0f ms | 40 ms (one audio latent) |\n",
            v("sound", "onset_error_ms"));
        if (has("sound", "codec_round_trip_onset_error_ms"))
            row("| sound ceiling: the true sound through the codec | %.0f ms | |\n",
                v("sound", "codec_round_trip_onset_error_ms"));
    }
    if (r.contains("speed"))
        row("| speed: text2video + sound, 64x64, 33 frames, %d steps | %.1f s | |\n", r["steps"].get<int>(),
            v("speed", "text2video_sound_seconds"));
    return t;
}

}  // namespace ws::pico
