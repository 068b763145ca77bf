#pragma once
// Runners for reference cases (a folder with case.json, weights.safetensors and case.safetensors, see the
// reference case layout): they rebuild what the reference computed through the engine's own code paths and write
// the results in the case's tensor names, so that any mismatch is visible tensor by tensor.
#include <string>
#include <vector>

namespace ws {

// The network and autoencoder runners take the device ("cpu", "cuda", "cuda:N", "auto") and dtype ("float32",
// "bfloat16", "float16") to run on; what they write is float32 on the CPU whatever they ran on, so `compare`
// measures the device's and the dtype's error against the reference.
//
// Generator network with CFG: writes velocity, position_ids_cond/uncond, raw_cond/uncond_prediction.
// `reuse_text_kv` picks the cached text K/V path (generate's default) or the joint recompute.
void run_velocity_case(const std::string& case_dir, const std::string& out_path, bool reuse_text_kv = true,
                       const std::string& device = "cpu", const std::string& dtype = "float32");
// Reasoner: writes logits [L, vocab] for the case's ids and greedy [n] by K/V-cached decoding.
void run_logits_case(const std::string& case_dir, const std::string& out_path, const std::string& device = "cpu",
                     const std::string& dtype = "float32");
// Sequence layout: writes position_ids [3, N], token_kind [N] and text_ids as packed.
void run_positions_case(const std::string& case_dir, const std::string& out_path);
// VAE cases: a video-VAE case writes encoded (of `video`) and decoded (of `latent`); an audio-VAE case writes
// audio (of `latent`), the raw decoder output before any clamp.
void run_vae_case(const std::string& case_dir, const std::string& out_path, const std::string& device = "cpu",
                  const std::string& dtype = "float32");
// Decodes a generation's latents (`video_latent`, `sound_latent` as generate writes them) with a model folder's
// vae/ and sound_tokenizer/ and writes them unquantized, for comparing against other implementations: frames
// [T, H, W, 3] = clamp((1 + x) / 2, 0, 1) (diffusers' "np" output) and sound [channels, samples], the decoder's
// raw output (diffusers' decode_sound).
void decode_latents(const std::string& model_dir, const std::string& latents_path, const std::string& out_path,
                    const std::string& device = "cpu", const std::string& dtype = "float32");
// Per tensor present in both files: "name: relative error E (max abs M)" for floats, "name: equal|DIFFERENT" for
// integers, relative error = ||ours - reference|| / ||reference||.
std::vector<std::string> compare_tensor_files(const std::string& reference, const std::string& ours);

}  // namespace ws
