// write_generation: a run's outputs as files. The engine computes in memory (Session::run); the caller decides
// whether and where anything is written, and this is the one statement of the layout: latents, actions, media with
// the record embedded, the reference's sample layout for action modes, the record, and a continued video's chunks.
#include <filesystem>
#include <fstream>

#include "core/torch_util.h"
#include "model/media_out.h"
#include "worldstudio/core/error.h"
#include "worldstudio/model/engine.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

void write_text(const std::string& path, const std::string& text, const char* what) {
    std::ofstream f(path);
    f << text << "\n";
    if (!f) throw Error(path + ": cannot write " + what);
}

std::string file_name(const std::string& path) { return fs::path(path).filename().string(); }

// Beside our files, the reference's layout for an action sample: PREFIX/vision.mp4 (the same file, linked) and
// PREFIX/sample_outputs.json ({"args", "outputs": [{"content": {"action"}, "files"}]}), which its tools read.
void write_reference_sample(const std::string& prefix, const std::string& reference_mode, const ojson& record,
                            const GeneratedOutput& out) {
    const fs::path dir(prefix);
    fs::create_directories(dir);
    std::error_code ec;
    fs::remove(dir / "vision.mp4", ec);
    fs::create_hard_link(prefix + ".mp4", dir / "vision.mp4", ec);
    if (ec) fs::copy_file(prefix + ".mp4", dir / "vision.mp4", fs::copy_options::overwrite_existing);
    ojson content = ojson::object();
    // Absent for forward dynamics, whose actions were given.
    if (!out.action_rows.empty()) content["action"] = out.action_rows;
    ojson args = record["request"];
    args["model_mode"] = reference_mode;
    const ojson sample = {{"args", args},
                          {"outputs", ojson::array({{{"content", content}, {"files", ojson::array({"vision.mp4"})}}})}};
    write_text((dir / "sample_outputs.json").string(), sample.dump(2), "the reference's sample file");
}

// One output's latents (and generated actions) at `prefix`; returns the record's entry naming them.
ojson write_latents(const std::string& prefix, const GeneratedOutput& out, GenerationResult& result) {
    std::map<std::string, at::Tensor> tensors{{"video_latent", from_host(out.video_latent)}};
    if (!out.actions.empty()) tensors["actions"] = from_host(out.actions);
    if (!out.sound_latent.empty()) tensors["sound_latent"] = from_host(out.sound_latent);
    save_tensors(prefix + ".safetensors", tensors, {{"worldstudio_seed", std::to_string(out.seed)}});
    result.outputs.push_back(prefix + ".safetensors");
    ojson entry = {{"latents", file_name(prefix + ".safetensors")}, {"seed", out.seed}};
    if (out.action_rows.empty()) return entry;
    HostTensor rows;
    rows.shape = {static_cast<int64_t>(out.action_rows.size()), static_cast<int64_t>(out.action_rows.front().size())};
    for (const auto& r : out.action_rows) rows.data.insert(rows.data.end(), r.begin(), r.end());
    save_tensors(prefix + ".actions.safetensors", {{"actions", from_host(rows)}}, {});
    write_text(prefix + ".actions.json", ojson(out.action_rows).dump(), "the generated actions");
    result.outputs.push_back(prefix + ".actions.json");
    result.outputs.push_back(prefix + ".actions.safetensors");
    entry["actions"] = file_name(prefix + ".actions.json");
    return entry;
}

// A continued video's chunks, each a generation of its own with what it was given, in BASE.chunks/.
void write_chunks(const Generation& g, const std::string& base, const MediaFiles& media, GenerationResult& result) {
    const fs::path dir = base + ".chunks";
    fs::create_directories(dir);
    for (size_t i = 0; i < g.chunks.size(); ++i) {
        const Generation& chunk = g.chunks[i];
        for (const Generation::MadeInput& m : chunk.made_inputs)
            save_tensors((dir / m.file).string(), {{m.tensor, from_host(m.value)}}, {});
        write_generation(chunk, (dir / ("chunk_" + std::to_string(i))).string(), media);
    }
    result.record["continuation"]["folder"] = dir.filename().string();
}

}  // namespace

GenerationResult write_generation(const Generation& g, const std::string& out_prefix, const MediaFiles& media) {
    const std::string ext = fs::path(out_prefix).extension().string();
    const bool want_media = ext == ".mp4" || ext == ".png";
    const std::string base =
        want_media ? (fs::path(out_prefix).parent_path() / fs::path(out_prefix).stem()).string() : out_prefix;
    const bool continued = !g.chunks.empty();
    if (want_media) {
        for (const GeneratedOutput& out : g.outputs)
            if (out.frames.count <= 0)
                throw Error(out_prefix + ": the run was not decoded, so there is no " + ext +
                            " to write; name the output without an extension for latents");
        if (!media.can_write())
            throw Error("this build writes no " + ext + " files; name the output without an extension for latents");
    } else if (continued) {
        throw Error(out_prefix + ": a continued video is stitched from decoded chunks: name the output OUT.mp4");
    }
    if (fs::path(base).has_parent_path()) fs::create_directories(fs::path(base).parent_path());
    GenerationResult result;
    result.record = g.record;
    if (continued) write_chunks(g, base, media, result);
    ojson outputs = ojson::array();
    const size_t n = g.outputs.size();
    std::vector<std::string> prefixes;
    for (size_t o = 0; o < n; ++o) {
        const std::string prefix = n > 1 ? base + "_" + std::to_string(o) : base;
        prefixes.push_back(prefix);
        const GeneratedOutput& out = g.outputs[o];
        ojson entry = continued ? ojson::object() : write_latents(prefix, out, result);
        if (want_media) entry[g.image ? "image" : "video"] = file_name(prefix + (g.image ? ".png" : ".mp4"));
        if (continued) entry["seed"] = out.seed;
        outputs.push_back(entry);
    }
    result.record["outputs"] = outputs;
    if (want_media)  // the libraries that wrote the files
        for (const auto& [name, version] : media.versions.items()) result.record["versions"][name] = version;
    const std::string record_text = result.record.dump(2);
    if (want_media)
        for (size_t o = 0; o < n; ++o) {
            const GeneratedOutput& out = g.outputs[o];
            if (g.image) {
                media.write_picture(prefixes[o] + ".png", out.frames);
                result.outputs.push_back(prefixes[o] + ".png");
                continue;
            }
            media.write_video(prefixes[o] + ".mp4", out.frames, out.sound.frames() > 0 ? &out.sound : nullptr,
                              record_text, g.video_crf);
            result.outputs.push_back(prefixes[o] + ".mp4");
            if (!g.reference_mode.empty()) write_reference_sample(prefixes[o], g.reference_mode, result.record, out);
        }
    write_text(base + ".json", record_text, "the generation record");
    result.outputs.push_back(base + ".json");
    return result;
}

}  // namespace ws
