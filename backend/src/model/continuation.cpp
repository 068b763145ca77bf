// Session::run for a request with a continuation: a long video as chunks generated one after another.
//
// Each chunk after the first is a video2video generation conditioned on the previous chunk's last frames. Those
// frames are taken as pixels (decoded, rounded to 8 bits as they are shown) and encoded again, because a latent
// sequence starts with a one-frame latent: a latent from the middle of the previous chunk stands for four frames
// and cannot open a chunk. The overlap frames appear once: crossfaded from the earlier chunk's to the later one's
// (its VAE's reconstruction of them differs a little), so no frame is repeated and the hand-over is gradual.
//
// Sound goes on in latent space: a chunk's first sound latents are pinned to the previous chunk's at the chunk's
// start time, and the stitched latents are decoded once, so the waveform has no seam. A chunk's sound starts at
// the nearest sound latent (1/25 s) to its first frame: at most 20 ms off its picture, never adding up.
#include <chrono>
#include <cmath>

#include "core/torch_util.h"
#include "model/generation_plan.h"
#include "model/media_out.h"
#include "model/model_impl.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/request.h"

namespace ws {

Generation run_continued(const Model& model, const MediaFiles& media, const ojson& job, const GenerationRequest& req,
                         const RunCallbacks& cb) {
    const auto t_start = std::chrono::steady_clock::now();
    const ModelImpl& M = model_impl(model);
    const ModelConfig& c = M.config;
    const GenerationRequest::Continuation& k = *req.continuation;
    if (!M.vae) throw Error("continuation encodes each chunk's last frames again: the model folder needs its vae/");
    if (req.enable_sound && !M.sound)
        throw Error("continuation with sound decodes the stitched sound: the model folder needs its sound_tokenizer/");
    Generation result;

    const int P = k.overlap_frames(), N = k.chunks;
    const double sound_rate = c.sound_latent_fps;
    at::Tensor video;        // the stitched video so far, uint8 [3, T, H, W]
    at::Tensor last_chunk;   // the previous chunk's whole decoded video, uint8 [3, F, H, W]
    at::Tensor sound;        // [sound_dim, n]: the stitched sound latents
    std::vector<int> seams;  // the stitched video's first frame of each later chunk
    ojson chunks = ojson::array();
    ojson first_record;
    int frames_so_far = 0;
    for (int i = 0; i < N; ++i) {
        if (cb.should_cancel && cb.should_cancel()) throw Cancelled();
        ojson chunk = job;
        chunk.erase("continuation");
        chunk["seed"] = static_cast<uint64_t>(req.seed) + static_cast<uint64_t>(i);
        // Every chunk runs with the first one's resolved settings: a later chunk is a video2video job, whose mode
        // defaults (negative prompt, steps, guidance) must not creep in.
        chunk.erase("negative_prompt_file");
        chunk["negative_prompt"] = req.negative_prompt;
        for (const char* field : {"resolution", "aspect_ratio", "image_size"}) chunk.erase(field);
        const PromptMetadata meta = req.metadata();
        chunk["width"] = meta.width, chunk["height"] = meta.height, chunk["fps"] = req.fps,
        chunk["num_frames"] = req.num_frames;
        chunk["num_steps"] = req.num_steps, chunk["guidance"] = req.guidance, chunk["shift"] = req.shift,
        chunk["sampler"] = req.sampler;
        const int start_frame = i == 0 ? 0 : frames_so_far - P;  // where this chunk's frame 0 sits in the whole video
        // Its sound starts at the sound latent nearest its first frame.
        const int64_t sound_start = static_cast<int64_t>(std::llround(start_frame / req.fps * sound_rate));
        const std::string name = "chunk_" + std::to_string(i);
        PlanInputs inputs;  // what this chunk is given in memory, written beside its record as the names it uses
        std::vector<Generation::MadeInput> made;
        if (i > 0) {
            // The previous chunk's last P frames, as the viewer sees them, start this chunk.
            const at::Tensor tail = last_chunk.narrow(1, last_chunk.size(1) - P, P).to(at::kFloat) / 127.5 - 1;
            inputs.vision_latent = M.vae->encode(tail).to(at::kCPU, at::kFloat).contiguous();
            made.push_back({name + "_condition.safetensors", "latent", to_host(inputs.vision_latent)});
            chunk["model_mode"] = "video2video";
            chunk["vision_path"] = made.back().file;
            std::vector<int64_t> idx(static_cast<size_t>(k.overlap_latent_frames));
            for (size_t j = 0; j < idx.size(); ++j) idx[j] = static_cast<int64_t>(j);
            chunk["condition_frame_indexes_vision"] = idx;
            chunk.erase("keyframes");
            if (req.enable_sound) {
                const int64_t carried = std::min<int64_t>(sound.size(1) - sound_start,
                                                          static_cast<int64_t>(std::floor(P / req.fps * sound_rate)));
                if (carried > 0) {
                    inputs.sound_latent = sound.narrow(1, sound_start, carried).contiguous();
                    made.push_back({name + "_sound.safetensors", "sound_latent", to_host(inputs.sound_latent)});
                    chunk["sound_path"] = made.back().file;
                }
            }
        }
        RunCallbacks chunk_cb = cb;  // progress and previews over all chunks
        chunk_cb.on_progress = [&, i](int step, int total, double) {
            if (cb.on_progress)
                cb.on_progress(i * total + step, N * total,
                               std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count());
        };
        chunk_cb.on_preview = [&, i](const LatentPreview& p) {
            if (!cb.on_preview) return;
            LatentPreview q = p;
            q.step = i * p.total + p.step, q.total = N * p.total;
            cb.on_preview(q);
        };
        // A chunk is a generation of its own, with the model's defaults for its mode filled in as any job's are.
        Generation r = run_generation(model, media, chunk, GenerationRequest::parse(job_with_defaults(model, chunk)),
                                      chunk_cb, false, inputs);
        r.made_inputs = std::move(made);
        if (i == 0) first_record = r.record;
        const GeneratedOutput& out = r.outputs.front();
        const at::Tensor pixels = quantize_for_display(M.vae->decode(from_host(out.video_latent)));
        if (i == 0) {
            video = pixels.clone();
        } else {
            // The overlap frames are in both chunks: the earlier chunk's as they were, this chunk's as its VAE
            // gives them back. A crossfade from one to the other over the overlap hides the difference.
            const int64_t T = video.size(1);
            const at::Tensor w = (at::arange(1, P + 1, at::kFloat) / (P + 1)).view({1, P, 1, 1});
            const at::Tensor blended =
                (1 - w) * video.narrow(1, T - P, P).to(at::kFloat) + w * pixels.narrow(1, 0, P).to(at::kFloat);
            video.narrow(1, T - P, P).copy_(blended.round().clamp(0, 255).to(at::kByte));
            video = at::cat({video, pixels.narrow(1, P, pixels.size(1) - P)}, 1);
            seams.push_back(frames_so_far);
        }
        last_chunk = pixels;
        frames_so_far = static_cast<int>(video.size(1));
        if (req.enable_sound && !out.sound_latent.empty()) {
            const at::Tensor s = from_host(out.sound_latent);
            sound = i == 0 ? s : at::cat({sound.narrow(1, 0, std::min<int64_t>(sound_start, sound.size(1))), s}, 1);
        }
        chunks.push_back({{"index", i},
                          {"seed", r.record["seed"]},
                          {"start_frame", start_frame},
                          {"sound_start_latent", sound_start},
                          {"record", name + ".json"},
                          {"latents", name + ".safetensors"}});
        result.chunks.push_back(std::move(r));
    }

    // One video: every chunk's frames, and the stitched sound decoded once.
    GeneratedOutput stitched;
    stitched.seed = req.seed;
    stitched.frames = to_video_frames(video, req.fps);
    if (sound.defined()) stitched.sound = decode_sound_clip(*M.sound, sound, stitched.frames.count / req.fps);
    result.outputs.push_back(std::move(stitched));
    result.video_crf = req.video_crf();
    result.record = first_record;
    result.record["request"] = req.to_json();
    result.record["continuation"] = {
        {"chunks", chunks},
        {"overlap_latent_frames", k.overlap_latent_frames},
        {"overlap_frames", P},
        {"frames", result.outputs.front().frames.count},
        {"seams", seams},
        {"conditioning",
         "each later chunk: video2video on the previous chunk's last frames, decoded to 8 bits and "
         "encoded again; its sound latents pinned from the stitched sound at its start"},
        {"stitching",
         "the overlap frames crossfaded from the earlier chunk to the later one; the sound latents "
         "stitched and decoded once"}};
    result.record["outputs"] = ojson::array({{{"seed", req.seed}}});
    result.record["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    return result;
}

}  // namespace ws
