#!/usr/bin/env python3
"""diffusers' own Cosmos 3 pipeline as the end-to-end peer of the engine, on the CPU in float32.

Builds tiny random Cosmos 3 pipelines with diffusers' classes and writes them with save_pretrained, as the
snapshots users download are written:
  qwen3/          the Qwen3 layout (SiLU MLP, text QK-norm), a Wan2.2-shaped VAE, a sound tokenizer, UniPC with
                  Karras flow sigmas (the converter's scheduler)
  edge/           the Edge layout (ReLU², k_norm_und_for_gen, no sound), its model_index keys
  qwen3-bf16/     qwen3's weights in bfloat16, the transformer sharded with a *.safetensors.index.json
  distilled/      qwen3's weights as a distilled student: FlowMatchEuler with the fixed SDE sigmas,
                  modular_model_index.json
The tokenizer is Qwen3's tokenizer.json (the copy the tokenizer tests use) with a Qwen3-VL style chat template;
nothing is fetched.

Then it runs diffusers' pipeline on each case (text->image, text->video, image->video, text->video with sound on
both layouts; the 4-step distilled path) with fixed seeds and writes OUT/cases/NAME.safetensors: the initial
latents the pipeline drew (noise_vision, noise_sound), the final latents (latents, sound_latents), the decoded
frames [T, H, W, 3] in [0, 1] (frames) and the sound waveform [channels, samples] (sound); OUT/cases.json lists
each case's request for the engine.

Usage: diffusers-peer.py OUT_DIR --tokenizer-dir DIR [--only NAME,...]
       diffusers-peer.py OUT_DIR --tokenizer-dir DIR --bench CLI [--hidden 512] [--layers 4] [--steps 4]
         one denoising step (text->video with CFG) of the same random network in diffusers and in the engine
"""
import argparse
import json
import os
import shutil
import sys

try:
    import numpy as np
    import torch
    from PIL import Image
    import diffusers
    from diffusers import (AutoencoderKLWan, Cosmos3AVAEAudioTokenizer, Cosmos3OmniPipeline, Cosmos3OmniTransformer,
                           FlowMatchEulerDiscreteScheduler, UniPCMultistepScheduler)
    from transformers import AutoTokenizer
except ImportError as e:  # the caller reports this line and skips
    print(f"diffusers-peer: {e.name or e} is not installed (installer/install-deps.sh puts diffusers and transformers in .venv)",
          file=sys.stderr)
    sys.exit(3)

# A Qwen3-VL style chat template for text turns: each message as <|im_start|>role\n...<|im_end|>\n, then the
# assistant's opening when asked. (Pictures and videos never reach it here: the pipeline sends text only.)
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for part in message['content'] -%}{%- if part['type'] == 'text' -%}{{- part['text'] -}}{%- endif -%}{%- endfor -%}"
    "{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}{%- endif -%}"
)

TRANSFORMER = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=32,
                   intermediate_size=96, rope_axes_dim=[6, 5, 5], latent_channel=48, latent_patch_size=2,
                   patch_latent_dim=192, dtype="float32")
VAE = dict(base_dim=8, decoder_base_dim=16, z_dim=48, dim_mult=[1, 2, 4, 4], num_res_blocks=2,
           temperal_downsample=[False, True, True], is_residual=True, patch_size=2, in_channels=12, out_channels=12, scale_factor_temporal=4,
           scale_factor_spatial=16)
SOUND = dict(dec_dim=8, dec_c_mults=(1, 2, 4, 8, 16), dec_strides=(2, 4, 5, 6, 8), vocoder_input_dim=64,
             enc_dim=8, enc_intermediate_dim=16, enc_num_layers=1, enc_latent_dim=128, sampling_rate=48000)
DISTILLED_SIGMAS = [1.0, 0.9375, 0.8333333333333334, 0.625]


def perturb(module, generator, scale=0.1):
    """Random weights where diffusers initializes constants (norm gains, biases), so every weight matters."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() == 1 or "norm" in name:
                p.add_(torch.randn(p.shape, generator=generator, dtype=p.dtype) * scale)


def tokenizer(tokenizer_dir, out):
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(tokenizer_dir, "tokenizer.json"), out)
    with open(os.path.join(tokenizer_dir, "tokenizer_config.json")) as f:
        cfg = json.load(f)
    cfg["chat_template"] = CHAT_TEMPLATE
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    return AutoTokenizer.from_pretrained(out)


def build_pipeline(tok, edge, seed):
    g = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    t_args = dict(TRANSFORMER, vocab_size=len(tok))
    if edge:
        t_args.update(hidden_act="relu2", qk_norm_for_text=False, use_und_k_norm_for_gen=True)
    else:
        t_args.update(sound_gen=True, sound_dim=64, sound_latent_fps=25.0)
    transformer = Cosmos3OmniTransformer(**t_args).eval()
    perturb(transformer, g)
    mean = (torch.randn(48, generator=g) * 0.1).tolist()
    std = (0.5 + 0.1 * torch.randn(48, generator=g).abs()).tolist()
    vae = AutoencoderKLWan(**VAE, latents_mean=mean, latents_std=std).eval()
    perturb(vae, g, 0.05)
    sound = None
    if not edge:
        sound = Cosmos3AVAEAudioTokenizer(**SOUND).eval()
        perturb(sound, g, 0.05)
    scheduler = UniPCMultistepScheduler(prediction_type="flow_prediction", use_flow_sigmas=True, use_karras_sigmas=True,
                                        sigma_max=200.0, sigma_min=0.147, flow_shift=1.0, solver_order=2)
    return Cosmos3OmniPipeline(transformer=transformer, text_tokenizer=tok, vae=vae, scheduler=scheduler,
                               sound_tokenizer=sound, enable_safety_checker=False,
                               default_use_system_prompt=not edge, use_native_flow_schedule=edge)


def save(pipe, out, dtype=None, shard=None):
    if dtype is not None:
        pipe.transformer.to(dtype)
    pipe.save_pretrained(out, safe_serialization=True, **({"max_shard_size": shard} if shard else {}))
    if dtype is not None:
        pipe.transformer.to(torch.float32)


def write_distilled(pipe, out):
    save(pipe, out)
    sched = FlowMatchEulerDiscreteScheduler(num_train_timesteps=1000, shift=1.0, stochastic_sampling=True)
    sched.save_pretrained(os.path.join(out, "scheduler"))
    # The distilled export's extra fields, as the framework converter writes them.
    path = os.path.join(out, "scheduler", "scheduler_config.json")
    with open(path) as f:
        cfg = json.load(f)
    cfg.update(fixed_step_requires_explicit_sigmas=True, fixed_step_sampler_config={"sample_type": "sde", "t_list": DISTILLED_SIGMAS})
    with open(path, "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(out, "model_index.json")) as f:
        index = json.load(f)
    index["scheduler"] = ["diffusers", "FlowMatchEulerDiscreteScheduler"]
    with open(os.path.join(out, "model_index.json"), "w") as f:
        json.dump(index, f, indent=2)
    with open(os.path.join(out, "modular_model_index.json"), "w") as f:
        json.dump({"_class_name": "Cosmos3DistilledModularPipeline", "is_distilled": True,
                   "distilled_sigmas": DISTILLED_SIGMAS}, f, indent=2)


class Recorder:
    """The initial latents prepare_latents returns, and the latents after the last step."""

    def __init__(self, pipe):
        self.pipe, self.initial, self.final = pipe, {}, {}
        original = pipe.prepare_latents

        def prepare(*a, **k):
            r = original(*a, **k)
            self.initial = {"noise_vision": r[0].detach().clone()}
            if r[1] is not None:
                self.initial["noise_sound"] = r[1].detach().clone()
            return r

        pipe.prepare_latents = prepare

    def on_step_end(self, pipe, i, t, kwargs):
        self.final["latents"] = kwargs["latents"].detach().clone()
        return {}


def run_case(pipe, case, image_path, out_dir):
    rec = Recorder(pipe)
    sound_final = {}
    original_decode = pipe.decode_sound

    def decode_sound(latent):
        sound_final["sound_latents"] = latent.detach().clone()
        return original_decode(latent)

    pipe.decode_sound = decode_sound
    kwargs = dict(prompt=case["prompt"], negative_prompt=case.get("negative_prompt"), num_frames=case["num_frames"],
                  height=case["height"], width=case["width"], fps=case["fps"], num_inference_steps=case["num_steps"],
                  guidance_scale=case["guidance"], enable_sound=case.get("enable_sound", False),
                  generator=torch.Generator().manual_seed(case["seed"]), output_type="np",
                  callback_on_step_end=rec.on_step_end, enable_safety_check=False)
    if case["mode"] == "image2video":
        kwargs["image"] = Image.open(image_path)
    with torch.no_grad():
        out = pipe(**kwargs)
    pipe.decode_sound = original_decode
    tensors = dict(rec.initial)
    tensors.update(rec.final)
    tensors.update(sound_final)
    tensors["frames"] = torch.from_numpy(np.asarray(out.video, dtype=np.float32))
    if out.sound is not None:
        tensors["sound"] = out.sound.float()
    from safetensors.torch import save_file
    save_file({k: v.float().contiguous() for k, v in tensors.items()}, os.path.join(out_dir, case["name"] + ".safetensors"))


def run_distilled(folder, case, out_dir):
    """The distilled student through diffusers' modular pipeline (its distilled_sigmas, SDE steps that re-noise from
    the same generator, no guidance), its components read from the folder as saved."""
    from diffusers.modular_pipelines.cosmos import Cosmos3DistilledBlocks
    pipe = Cosmos3DistilledBlocks().init_pipeline(folder)
    pipe.update_components(transformer=Cosmos3OmniTransformer.from_pretrained(os.path.join(folder, "transformer")),
                           vae=AutoencoderKLWan.from_pretrained(os.path.join(folder, "vae")),
                           scheduler=FlowMatchEulerDiscreteScheduler.from_pretrained(os.path.join(folder, "scheduler")),
                           text_tokenizer=AutoTokenizer.from_pretrained(os.path.join(folder, "text_tokenizer")))
    pipe.disable_safety_checker()
    with torch.no_grad():
        out = pipe(prompt=case["prompt"], num_frames=case["num_frames"], height=case["height"], width=case["width"],
                   fps=case["fps"], generator=torch.Generator().manual_seed(case["seed"]), output_type="np",
                   output=["videos", "latents"])
    from safetensors.torch import save_file
    tensors = {"latents": out["latents"].float(), "frames": torch.from_numpy(np.asarray(out["videos"], dtype=np.float32))}
    save_file({k: v.contiguous() for k, v in tensors.items()}, os.path.join(out_dir, case["name"] + ".safetensors"))


def bench(out, tok, cli, hidden, layers, steps):
    """One denoising step of the same network (text->video with CFG) in diffusers and in the engine, on the CPU:
    seconds per step after the first, from each side's own step clock."""
    import re
    import subprocess
    import time
    torch.manual_seed(3)
    t_args = dict(TRANSFORMER, vocab_size=len(tok), hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=hidden // 64,
                  num_key_value_heads=max(1, hidden // 256), head_dim=64, intermediate_size=hidden * 3, rope_axes_dim=[12, 10, 10])
    pipe = Cosmos3OmniPipeline(transformer=Cosmos3OmniTransformer(**t_args).eval(), text_tokenizer=tok,
                               vae=AutoencoderKLWan(**VAE, latents_mean=[0.0] * 48, latents_std=[1.0] * 48).eval(),
                               scheduler=UniPCMultistepScheduler(prediction_type="flow_prediction", use_flow_sigmas=True,
                                                                 use_karras_sigmas=True, sigma_max=200.0, sigma_min=0.147),
                               enable_safety_checker=False)
    folder = os.path.join(out, "bench")
    pipe.save_pretrained(folder, safe_serialization=True)
    shape = dict(prompt="a red ball rolls across a wooden table", negative_prompt="blurry", num_frames=33, height=256, width=384, fps=24.0)
    stamps = []
    with torch.no_grad():
        pipe(**shape, num_inference_steps=steps, guidance_scale=6.0, generator=torch.Generator().manual_seed(1),
             output_type="latent", enable_safety_check=False,
             callback_on_step_end=lambda p, i, t, k: (stamps.append(time.perf_counter()), {})[1])
    theirs = (stamps[-1] - stamps[0]) / (len(stamps) - 1)
    job = os.path.join(out, "bench-job.json")
    with open(job, "w") as f:
        json.dump({"model_mode": "text2video", "prompting": "diffusers", "num_steps": steps, "guidance": 6.0, "seed": 1,
                   **{k: v for k, v in shape.items() if k != "prompt" and k != "negative_prompt"},
                   "prompt": shape["prompt"], "negative_prompt": shape["negative_prompt"]}, f)

    def engine(extra):
        with open(job) as f:
            j = dict(json.load(f), **extra)
        with open(job + ".run.json", "w") as f:
            json.dump(j, f)
        r = subprocess.run([cli, "generate", job + ".run.json", "--model", folder, "-o", os.path.join(out, "bench-out"),
                            "--device", "cpu", "--dtype", "float32"], capture_output=True, text=True, check=True)
        clock = [float(m.group(1)) for m in re.finditer(r"step \d+/\d+\s+([0-9.]+)s", r.stdout)]
        return (clock[-1] - clock[0]) / (len(clock) - 1)

    ours = engine({})
    recompute = engine({"reuse_text_kv": False})  # the text stream run at every step, as diffusers runs it
    tokens = (shape["num_frames"] - 1) // 4 + 1
    tokens *= (shape["height"] // 32) * (shape["width"] // 32)
    print(f"one denoising step with CFG, hidden {hidden}, {layers} layers, {tokens} vision tokens, {torch.get_num_threads()} threads, float32 CPU")
    print(f"  diffusers {diffusers.__version__}:                   {theirs:.3f} s/step")
    print(f"  engine, text K/V reused:           {ours:.3f} s/step")
    print(f"  engine, text stream at every step: {recompute:.3f} s/step")
    print(f"  engine / diffusers: {ours / theirs:.2f} (text K/V reused), {recompute / theirs:.2f} (text recomputed)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--tokenizer-dir", required=True)
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--bench", metavar="CLI", help="time one step against the engine's CLI instead of writing cases")
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--steps", type=int, default=4)
    args = ap.parse_args()
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    tok = tokenizer(args.tokenizer_dir, os.path.join(out, "tokenizer-src"))
    if args.bench:
        return bench(out, tok, args.bench, args.hidden, args.layers, args.steps)
    folders = {}
    for name, edge in (("qwen3", False), ("edge", True)):
        pipe = build_pipeline(tok, edge, seed=7 if not edge else 11)
        save(pipe, os.path.join(out, name))
        folders[name] = pipe
    save(folders["qwen3"], os.path.join(out, "qwen3-bf16"), dtype=torch.bfloat16, shard="300KB")
    write_distilled(folders["qwen3"], os.path.join(out, "distilled"))

    # A picture at the output size, for image->video (no resize: the comparison is of the pipeline, not of resamplers).
    rng = np.random.RandomState(5)
    image_path = os.path.join(out, "first-frame.png")
    Image.fromarray(rng.randint(0, 256, size=(64, 96, 3), dtype=np.uint8)).save(image_path)

    base = dict(prompt="a red ball rolls across a wooden table", negative_prompt="blurry", width=96, height=64, fps=24.0,
                num_steps=4, guidance=6.0, seed=42)
    cases = []
    for layout in ("qwen3", "edge"):
        cases += [
            dict(base, name=f"{layout}-t2i", model=layout, mode="text2image", num_frames=1),
            dict(base, name=f"{layout}-t2v", model=layout, mode="text2video", num_frames=9),
            dict(base, name=f"{layout}-i2v", model=layout, mode="image2video", num_frames=9, vision_path="first-frame.png"),
        ]
    cases.append(dict(base, name="qwen3-t2v-sound", model="qwen3", mode="text2video", num_frames=9, enable_sound=True))
    cases.append(dict(base, name="qwen3-bf16-t2v", model="qwen3-bf16", mode="text2video", num_frames=9))
    # The 4-step student: no negative prompt and no guidance (both are baked in), its own steps.
    cases.append(dict(base, name="distilled-t2v", model="distilled", mode="text2video", num_frames=9, negative_prompt=None,
                      guidance=1.0, num_steps=len(DISTILLED_SIGMAS)))
    only = set(filter(None, args.only.split(",")))
    os.makedirs(os.path.join(out, "cases"), exist_ok=True)
    loaded = {}
    for case in cases:
        if only and case["name"] not in only:
            continue
        if case["model"] == "distilled":
            run_distilled(os.path.join(out, "distilled"), case, os.path.join(out, "cases"))
            print(f"diffusers-peer: {case['name']}", flush=True)
            continue
        # Every case runs on its folder as saved, loaded back the way users load a snapshot.
        if case["model"] not in loaded:
            loaded[case["model"]] = Cosmos3OmniPipeline.from_pretrained(os.path.join(out, case["model"]), enable_safety_checker=False)
            loaded[case["model"]].to(torch.float32)  # bfloat16 weights computed in float32, as the engine runs them on the CPU
        pipe = loaded[case["model"]]
        run_case(pipe, case, image_path, os.path.join(out, "cases"))
        print(f"diffusers-peer: {case['name']}", flush=True)
    # UniPC's Karras schedule with its bounds given and left null (then diffusers takes them from the beta table).
    schedules = []
    for bounds in ({"sigma_min": 0.147, "sigma_max": 200.0}, {"sigma_min": None, "sigma_max": None}):
        for beta_schedule in ("linear", "scaled_linear"):
            config = dict(prediction_type="flow_prediction", use_flow_sigmas=True, use_karras_sigmas=True,
                          beta_schedule=beta_schedule, **bounds)
            for steps in (4, 35):
                sched = UniPCMultistepScheduler(**config)
                sched.set_timesteps(steps)
                schedules.append({"config": config, "steps": steps, "timesteps": sched.timesteps.tolist(),
                                  "sigmas": sched.sigmas.tolist()})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({"diffusers": diffusers.__version__, "torch": torch.__version__, "cases": cases, "schedules": schedules}, f,
                  indent=2)
    with open(os.path.join(out, "done"), "w") as f:  # last: the folder is complete
        f.write("ok\n")


if __name__ == "__main__":
    main()
