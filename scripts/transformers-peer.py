#!/usr/bin/env python3
"""The reasoner's peer: Hugging Face transformers' Qwen3-VL text model (PyPI, pinned in installer/requirements.txt).

  transformers-peer.py OUT_DIR TOKENIZER_DIR

TOKENIZER_DIR holds Qwen3's tokenizer.json and tokenizer_config.json (tests/data/qwen3-tokenizer, unpacked by CMake).
Offline and deterministic: it builds a tiny random Qwen3VLForConditionalGeneration in float32 from a fixed seed, and
writes into OUT_DIR

  model/                 a Cosmos 3 model folder the engine loads: transformer/config.json and safetensors (the
                         understanding stream is transformers' model renamed as the diffusers converter renames it:
                         `model.language_model.` stripped, q_proj -> to_q, ..., q_norm -> norm_q; the generation
                         stream, which text never reaches, is random), tokenizer.json and tokenizer_config.json with
                         Qwen3-VL's chat template
  peer.safetensors       per prompt i: ids_i (the chat-templated prompt), logits_i ([L, vocab], transformers' forward),
                         greedy_i (transformers' generate, greedy, stopped at <|im_end|>, which is not included);
                         mrope_logits for ids_0 at mrope_positions ([3, L]: temporal, height, width rows)
  chat.json              per case: system, user, the chat string apply_chat_template renders (add_generation_prompt,
                         add_vision_id=False, as the diffusers Cosmos 3 pipeline calls it) and its ids
  done                   written last

Errors print one line on stderr and exit 1; a bad command line exits 2; a Python without transformers exits 3."""
import hashlib
import json
import os
import shutil
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SEED = 20261204
GREEDY_TOKENS = 12
EOS, PAD, VISION_START, VISION_END = 151645, 151643, 151652, 151653
TEXT = dict(vocab_size=151936, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, head_dim=16, rms_norm_eps=1e-6, hidden_act="silu", max_position_embeddings=4096,
            rope_parameters={"rope_type": "default", "rope_theta": 5000000.0, "mrope_section": [3, 3, 2],
                             "mrope_interleaved": True})
VISION = dict(depth=2, hidden_size=32, intermediate_size=32, num_heads=2, out_hidden_size=64, patch_size=16,
              spatial_merge_size=2, temporal_patch_size=2, num_position_embeddings=16, deepstack_visual_indexes=[1])

SYSTEM_VIDEO = "You are a helpful assistant who will generate videos from a give prompt."
SYSTEM_IMAGE = "You are a helpful assistant who will generate images from a give prompt."
# (system, user): the turns the engine builds (no system turn: Nano/Super and the reasoner; the diffusers pipeline's
# system prompts; the upsampler's "You are a helpful assistant."). The first three are also the logits prompts.
CASES = [
    ("", "A red ball rolls across a wooden table and falls off the edge."),
    (SYSTEM_VIDEO, "A robot arm stacks two blocks. The video is 5.0 seconds long and is of 24 FPS. "
                   "This video is of 480x832 resolution."),
    ("You are a helpful assistant.", '{"temporal_caption": "Caf\\u00e9 at dusk, \\u65e5\\u672c"}'),
    (SYSTEM_IMAGE, "Ünïcödé café, 日本語のテキスト, emoji 🚀 and tabs\tand\nnewlines."),
    ("", ""),
    ("", "  leading and trailing spaces  "),
]
LOGIT_CASES = 3

# Qwen3-VL-8B-Instruct's chat template (its chat_template.json, Apache-2.0, by the Qwen team): 5292 bytes, SHA-256
# below; transformers compiles it with trim_blocks and lstrip_blocks.
CHAT_TEMPLATE_SHA256 = "3636d0f0bd6bef02654cdffdc447b79cb2cef8ab02cc75267345946291a489e4"
CHAT_TEMPLATE = r"""{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}
        {%- if messages[0].content is string %}
            {{- messages[0].content }}
        {%- else %}
            {%- for content in messages[0].content %}
                {%- if 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '\n\n' }}
    {%- endif %}
    {{- "# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>" }}
    {%- for tool in tools %}
        {{- "\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\n</tools>\n\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call><|im_end|>\n" }}
{%- else %}
    {%- if messages[0].role == 'system' %}
        {{- '<|im_start|>system\n' }}
        {%- if messages[0].content is string %}
            {{- messages[0].content }}
        {%- else %}
            {%- for content in messages[0].content %}
                {%- if 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- endif %}
{%- endif %}
{%- set image_count = namespace(value=0) %}
{%- set video_count = namespace(value=0) %}
{%- for message in messages %}
    {%- if message.role == "user" %}
        {{- '<|im_start|>' + message.role + '\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content in message.content %}
                {%- if content.type == 'image' or 'image' in content or 'image_url' in content %}
                    {%- set image_count.value = image_count.value + 1 %}
                    {%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}
                    <|vision_start|><|image_pad|><|vision_end|>
                {%- elif content.type == 'video' or 'video' in content %}
                    {%- set video_count.value = video_count.value + 1 %}
                    {%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}
                    <|vision_start|><|video_pad|><|vision_end|>
                {%- elif 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role + '\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content_item in message.content %}
                {%- if 'text' in content_item %}
                    {{- content_item.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {%- if message.tool_calls %}
            {%- for tool_call in message.tool_calls %}
                {%- if (loop.first and message.content) or (not loop.first) %}
                    {{- '\n' }}
                {%- endif %}
                {%- if tool_call.function %}
                    {%- set tool_call = tool_call.function %}
                {%- endif %}
                {{- '<tool_call>\n{"name": "' }}
                {{- tool_call.name }}
                {{- '", "arguments": ' }}
                {%- if tool_call.arguments is string %}
                    {{- tool_call.arguments }}
                {%- else %}
                    {{- tool_call.arguments | tojson }}
                {%- endif %}
                {{- '}\n</tool_call>' }}
            {%- endfor %}
        {%- endif %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == "tool" %}
        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' }}
        {%- if message.content is string %}
            {{- message.content }}
        {%- else %}
            {%- for content in message.content %}
                {%- if content.type == 'image' or 'image' in content or 'image_url' in content %}
                    {%- set image_count.value = image_count.value + 1 %}
                    {%- if add_vision_id %}Picture {{ image_count.value }}: {% endif -%}
                    <|vision_start|><|image_pad|><|vision_end|>
                {%- elif content.type == 'video' or 'video' in content %}
                    {%- set video_count.value = video_count.value + 1 %}
                    {%- if add_vision_id %}Video {{ video_count.value }}: {% endif -%}
                    <|vision_start|><|video_pad|><|vision_end|>
                {%- elif 'text' in content %}
                    {{- content.text }}
                {%- endif %}
            {%- endfor %}
        {%- endif %}
        {{- '\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}
"""


def fail(message, code=1):
    sys.stderr.write("transformers-peer: " + (message.splitlines()[0] if message else "failed") + "\n")
    sys.exit(code)


def write_tokenizer(src, dst):
    """Qwen3's tokenizer files with Qwen3-VL's chat template in place of Qwen3's."""
    os.makedirs(dst, exist_ok=True)
    shutil.copyfile(os.path.join(src, "tokenizer.json"), os.path.join(dst, "tokenizer.json"))
    with open(os.path.join(src, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    config["chat_template"] = CHAT_TEMPLATE
    with open(os.path.join(dst, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)


def randomize(model, torch):
    """Every text weight drawn from the seeded stream, sized so that each one moves the logits (the library's own
    init draws 0.02-wide weights and unit norms, under which the logits hardly depend on the layers)."""
    gen = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in sorted(model.named_parameters()):
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))
            elif "embed_tokens" in name:
                p.copy_(torch.randn(p.shape, generator=gen))
            elif p.dim() == 2:
                p.copy_(torch.randn(p.shape, generator=gen) / p.shape[1] ** 0.5)


def cosmos_name(name):
    """transformers' name of a text weight -> the Cosmos 3 transformer's (diffusers layout), or None for the rest."""
    if name == "lm_head.weight":
        return name
    prefix = "model.language_model."
    if not name.startswith(prefix):
        return None
    n = name[len(prefix):]
    for old, new in ((".self_attn.q_proj.", ".self_attn.to_q."), (".self_attn.k_proj.", ".self_attn.to_k."),
                     (".self_attn.v_proj.", ".self_attn.to_v."), (".self_attn.o_proj.", ".self_attn.to_out."),
                     (".self_attn.q_norm.", ".self_attn.norm_q."), (".self_attn.k_norm.", ".self_attn.norm_k.")):
        n = n.replace(old, new)
    return n


def generation_stream(torch, gen):
    """The generation tower's weights (random; text tokens never attend to them)."""
    H, I, D = TEXT["hidden_size"], TEXT["intermediate_size"], TEXT["head_dim"]
    q, kv, patch = TEXT["num_attention_heads"] * D, TEXT["num_key_value_heads"] * D, 2 * 2 * 48
    shapes = {"norm_moe_gen.weight": [H], "proj_in.weight": [H, patch], "proj_in.bias": [H], "proj_out.weight": [patch, H],
              "proj_out.bias": [patch], "time_embedder.linear_1.weight": [H, 256], "time_embedder.linear_1.bias": [H],
              "time_embedder.linear_2.weight": [H, H], "time_embedder.linear_2.bias": [H]}
    for layer in range(TEXT["num_hidden_layers"]):
        p = "layers.%d." % layer
        shapes.update({p + "input_layernorm_moe_gen.weight": [H], p + "post_attention_layernorm_moe_gen.weight": [H],
                       p + "self_attn.add_q_proj.weight": [q, H], p + "self_attn.add_k_proj.weight": [kv, H],
                       p + "self_attn.add_v_proj.weight": [kv, H], p + "self_attn.to_add_out.weight": [H, q],
                       p + "self_attn.norm_added_q.weight": [D], p + "self_attn.norm_added_k.weight": [D],
                       p + "mlp_moe_gen.gate_proj.weight": [I, H], p + "mlp_moe_gen.up_proj.weight": [I, H],
                       p + "mlp_moe_gen.down_proj.weight": [H, I]})
    out = {}
    for name, shape in sorted(shapes.items()):
        x = torch.randn(shape, generator=gen)
        out[name] = 1.0 + 0.1 * x if "norm" in name else 0.01 * x if name.endswith(".bias") else x / shape[-1] ** 0.5
    return out


def cosmos_config():
    t = TEXT
    return {"_class_name": "Cosmos3OmniTransformer", "name": "transformers-peer", "hidden_size": t["hidden_size"],
            "num_hidden_layers": t["num_hidden_layers"], "num_attention_heads": t["num_attention_heads"],
            "num_key_value_heads": t["num_key_value_heads"], "head_dim": t["head_dim"],
            "intermediate_size": t["intermediate_size"], "vocab_size": t["vocab_size"],
            "rope_theta": t["rope_parameters"]["rope_theta"],
            "rope_scaling": {"mrope_interleaved": True, "mrope_section": t["rope_parameters"]["mrope_section"],
                             "rope_type": "default"},
            "rms_norm_eps": t["rms_norm_eps"], "hidden_act": "silu", "qk_norm_for_text": True, "latent_channel": 48,
            "latent_patch_size": 2, "patch_latent_dim": 192, "sound_gen": False, "action_gen": False,
            "tie_word_embeddings": False,
            "special_tokens": {"eos_token_id": EOS, "start_of_generation": VISION_START, "end_of_generation": VISION_END}}


def chat_cases(tokenizer):
    cases = []
    for system, user in CASES:
        messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, add_vision_id=False)
        enc = tokenizer.apply_chat_template(messages, tokenize=True, add_generation_prompt=True, add_vision_id=False,
                                            return_dict=True)
        cases.append({"system": system, "user": user, "text": text, "ids": [int(i) for i in enc["input_ids"]]})
    return cases


def main(argv):
    if len(argv) != 2:
        fail("usage: transformers-peer.py OUT_DIR TOKENIZER_DIR", 2)
    out, tokenizer_dir = argv
    try:
        import torch
        import transformers
        from safetensors.torch import save_file
        from transformers import AutoTokenizer, Qwen3VLConfig, Qwen3VLForConditionalGeneration
    except ImportError as e:
        fail("needs transformers, torch and safetensors (installer/requirements.txt): %s" % e, 3)
    if hashlib.sha256(CHAT_TEMPLATE.encode()).hexdigest() != CHAT_TEMPLATE_SHA256:
        fail("the Qwen3-VL chat template is not the published one")
    torch.manual_seed(SEED)
    torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    model_dir = os.path.join(out, "model")
    write_tokenizer(tokenizer_dir, model_dir)
    tokenizer = AutoTokenizer.from_pretrained(model_dir)
    cases = chat_cases(tokenizer)

    config = Qwen3VLConfig(text_config=dict(TEXT), vision_config=dict(VISION), tie_word_embeddings=False,
                           vision_start_token_id=VISION_START, vision_end_token_id=VISION_END)
    config._attn_implementation = "eager"
    model = Qwen3VLForConditionalGeneration(config).to(torch.float32).eval()
    randomize(model, torch)

    tensors = {}
    with torch.no_grad():
        for i, case in enumerate(cases[:LOGIT_CASES]):
            ids = torch.tensor([case["ids"]], dtype=torch.long)
            logits = model(input_ids=ids).logits[0]
            gen = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=GREEDY_TOKENS,
                                 do_sample=False, eos_token_id=EOS, pad_token_id=PAD)[0, ids.shape[1]:].tolist()
            if EOS in gen:
                gen = gen[:gen.index(EOS)]
            tensors["ids_%d" % i] = ids[0].clone()
            tensors["logits_%d" % i] = logits.float().contiguous()
            tensors["greedy_%d" % i] = torch.tensor(gen, dtype=torch.long)
        # Interleaved MRoPE with three different rows (text positions are equal on all three, where the interleave
        # changes nothing): temporal past the 15000 modality margin, and a 3 x 4 spatial grid spread wide enough that
        # the lowest frequencies, where the sections end, turn by a visible angle.
        ids = tensors["ids_0"].unsqueeze(0)
        i = torch.arange(ids.shape[1])
        positions = torch.stack([15022 + 3 * (i // 12), 400009 * ((i // 4) % 3), 300007 * (i % 4)])
        tensors["mrope_positions"] = positions
        tensors["mrope_logits"] = model(input_ids=ids, position_ids=positions.unsqueeze(1)).logits[0].float().contiguous()
    save_file(tensors, os.path.join(out, "peer.safetensors"))

    weights = {}
    for name, p in model.state_dict().items():
        n = cosmos_name(name)
        if n is not None:
            weights[n] = p.detach().float().contiguous().clone()
    weights.update(generation_stream(torch, torch.Generator().manual_seed(SEED + 1)))
    os.makedirs(os.path.join(model_dir, "transformer"), exist_ok=True)
    save_file(weights, os.path.join(model_dir, "transformer", "diffusion_pytorch_model.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(model_dir, "transformer", "config.json"), "w") as f:
        json.dump(cosmos_config(), f, indent=2)
    with open(os.path.join(out, "chat.json"), "w", encoding="utf-8") as f:
        json.dump({"transformers": transformers.__version__, "torch": torch.__version__, "cases": cases}, f,
                  ensure_ascii=False, indent=1)
    with open(os.path.join(out, "done"), "w") as f:
        f.write("transformers %s\n" % transformers.__version__)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except Exception as e:  # one line for the test's log
        fail("%s: %s" % (type(e).__name__, e))
