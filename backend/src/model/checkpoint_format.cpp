#include "worldstudio/model/checkpoint_format.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "worldstudio/core/error.h"
#include "worldstudio/core/safetensors.h"

namespace fs = std::filesystem;

namespace ws {

namespace {

std::optional<ojson> read_optional_json(const fs::path& path) {
    if (!fs::exists(path)) return std::nullopt;
    std::ifstream in(path);
    if (!in) throw Error(path.string() + ": cannot open");
    try {
        ojson j = ojson::parse(in);
        if (!j.is_object()) throw Error(path.string() + ": must hold one JSON object");
        return j;
    } catch (const Error&) {
        throw;
    } catch (const std::exception&) {
        throw Error(path.string() + ": not valid JSON");
    }
}

std::vector<double> sigma_list(const ojson& v, const std::string& where) {
    if (!v.is_array()) throw Error(where + " must be a list of numbers");
    std::vector<double> t;
    for (const auto& e : v) {
        if (!e.is_number()) throw Error(where + " must be a list of numbers");
        t.push_back(e.get<double>());
    }
    if (!t.empty() && t.back() == 0.0) t.pop_back();  // the sampler appends the final 0 itself
    if (t.empty()) throw Error(where + " is empty; a fixed-step checkpoint needs at least one sigma");
    for (size_t i = 0; i < t.size(); ++i) {
        if (!std::isfinite(t[i]) || t[i] <= 0 || t[i] > 1) throw Error(where + ": every sigma must be in (0, 1]");
        if (i && t[i] >= t[i - 1]) throw Error(where + ": the sigmas must be strictly descending");
    }
    return t;
}

// scheduler/scheduler_config.json, as vLLM-Omni reads it: UniPC is a base checkpoint; FlowMatchEuler with a fixed
// t_list is a distilled one; anything else, or a list that is required but absent, is refused.
std::optional<FixedStepSchedule> scheduler_fixed_steps(const fs::path& file) {
    const auto j = read_optional_json(file);
    if (!j) return std::nullopt;
    const std::string origin = file.string();
    const std::string cls = json_field<std::string>(*j, "_class_name", "", origin);
    const bool required = json_field<bool>(*j, "fixed_step_requires_explicit_sigmas", false, origin);
    const bool has_config = j->contains("fixed_step_sampler_config") && !(*j)["fixed_step_sampler_config"].is_null();
    // Edge's export names its own UniPC class (the native flow grid); both are base schedules.
    if ((cls == "UniPCMultistepScheduler" || cls == "Cosmos3EdgeUniPCMultistepScheduler") && !has_config && !required)
        return std::nullopt;
    if (cls != "FlowMatchEulerDiscreteScheduler")
        throw Error(
            origin + ": _class_name '" + cls +
            "' is not a schedule this version runs (UniPCMultistepScheduler, or "
            "Cosmos3EdgeUniPCMultistepScheduler, or FlowMatchEulerDiscreteScheduler with fixed_step_sampler_config for "
            "distilled checkpoints)");
    if (!has_config || !(*j)["fixed_step_sampler_config"].contains("t_list"))
        throw Error(
            origin +
            (required
                 ? ": fixed_step_requires_explicit_sigmas is set but fixed_step_sampler_config.t_list is missing"
                 : ": FlowMatchEulerDiscreteScheduler without fixed_step_sampler_config.t_list (no sigma list to sample with)"));
    const ojson& f = (*j)["fixed_step_sampler_config"];
    if (!f.is_object()) throw Error(origin + ": fixed_step_sampler_config must be an object");
    const std::string type = json_field<std::string>(f, "sample_type", "sde", origin + ": fixed_step_sampler_config");
    if (type != "sde")
        throw Error(origin + ": fixed_step_sampler_config.sample_type '" + type +
                    "' is not supported (the students sample 'sde')");
    return FixedStepSchedule{sigma_list(f["t_list"], origin + ": fixed_step_sampler_config.t_list"), origin};
}

std::optional<FixedStepSchedule> modular_fixed_steps(const fs::path& file) {
    const auto j = read_optional_json(file);
    if (!j) return std::nullopt;
    const std::string origin = file.string();
    if (!json_field<bool>(*j, "is_distilled", false, origin)) return std::nullopt;
    if (!j->contains("distilled_sigmas"))
        throw Error(origin + ": is_distilled is true but distilled_sigmas is missing");
    return FixedStepSchedule{sigma_list((*j)["distilled_sigmas"], origin + ": distilled_sigmas"), origin};
}

std::string mode_field(const ojson& o, const char* key, const std::string& where) {
    const std::string m = json_field<std::string>(o, key, "", where);
    if (m != "a16" && m != "native") throw Error(where + ": field '" + key + "' must be \"a16\" or \"native\"");
    return m;
}

// Fail closed: a policy this version does not understand is refused, not run as something else.
Fp8StepPolicy parse_step_policy(const ojson& p, const std::string& where) {
    if (!p.is_object()) throw Error(where + " must be an object");
    if (json_field<int>(p, "schema_version", 0, where) != 1) throw Error(where + ": schema_version must be 1");
    if (json_field<std::string>(p, "type", "", where) != "first_last_n")
        throw Error(where + ": type must be \"first_last_n\"");
    if (json_field<std::string>(p, "index_space", "denoising_loop_iteration", where) != "denoising_loop_iteration")
        throw Error(where + ": index_space must be \"denoising_loop_iteration\"");
    Fp8StepPolicy s;
    s.middle_a16 = mode_field(p, "default_mode", where) == "a16";
    auto window = [&](const char* key) {
        if (!p.contains(key)) return 0;
        const std::string w = where + "." + key;
        if (!p[key].is_object()) throw Error(w + " must be an object with count and mode");
        const int n = json_field<int>(p[key], "count", -1, w);
        if (n < 0) throw Error(w + ": count must be a whole number of steps, 0 or more");
        return mode_field(p[key], "mode", w) == "a16" ? n : 0;
    };
    s.first_a16 = window("first_steps");
    s.last_a16 = window("last_steps");
    if (p.contains("reasoner")) s.reasoner_a16 = mode_field(p, "reasoner", where) == "a16";
    return s;
}

// Where the folder declares ModelOpt FP8. Other quantization algorithms are refused by name.
std::optional<Fp8Quantization> fp8_quantization(const fs::path& root, const fs::path& transformer) {
    Fp8Quantization q;
    bool found = false;
    for (const fs::path& file : {root / "hf_quant_config.json", transformer / "hf_quant_config.json"}) {
        const auto j = read_optional_json(file);
        if (!j) continue;
        const std::string origin = file.string();
        const ojson body = j->contains("quantization") ? (*j)["quantization"] : *j;
        const std::string algo = json_field<std::string>(body, "quant_algo", "", origin + ": quantization");
        if (algo != "FP8")
            throw Error(origin + ": quant_algo '" + algo + "' is not supported (ModelOpt per-tensor FP8 only)");
        read_json_field(body, "exclude_modules", q.exclude_modules, origin + ": quantization");
        q.source = origin;
        found = true;
        break;
    }
    const fs::path cfg = transformer / "config.json";
    if (const auto j = read_optional_json(cfg);
        j && j->contains("quantization_config") && !(*j)["quantization_config"].is_null()) {
        const ojson& qc = (*j)["quantization_config"];
        const std::string origin = cfg.string() + ": quantization_config";
        if (!qc.is_object()) throw Error(origin + " must be an object");
        const std::string method = json_field<std::string>(qc, "quant_method", "modelopt", origin);
        const std::string algo = json_field<std::string>(qc, "quant_algo", "FP8", origin);
        if (method != "modelopt" || algo != "FP8")
            throw Error(origin + ": quant_method '" + method + "' / quant_algo '" + algo +
                        "' is not supported (ModelOpt FP8 only)");
        if (!found) {
            q.source = cfg.string();
            for (const char* key : {"exclude_modules", "ignore"}) read_json_field(qc, key, q.exclude_modules, origin);
        }
        found = true;
        if (qc.contains("runtime") && qc["runtime"].is_object() && qc["runtime"].contains("diffusion_step_policy"))
            q.step_policy =
                parse_step_policy(qc["runtime"]["diffusion_step_policy"], origin + ".runtime.diffusion_step_policy");
    }
    if (!found) return std::nullopt;
    return q;
}

DiffusersPipelineConfig diffusers_config(const fs::path& root) {
    DiffusersPipelineConfig d;
    if (const auto j = read_optional_json(root / "model_index.json")) {
        const std::string origin = (root / "model_index.json").string();
        read_json_field(*j, "default_use_system_prompt", d.use_system_prompt, origin);
        read_json_field(*j, "use_native_flow_schedule", d.native_flow_schedule, origin);
    }
    const fs::path file = root / "scheduler" / "scheduler_config.json";
    const auto j = read_optional_json(file);
    if (!j) return d;
    const std::string origin = file.string(), cls = json_field<std::string>(*j, "_class_name", "", origin);
    if (cls != "UniPCMultistepScheduler" && cls != "Cosmos3EdgeUniPCMultistepScheduler")
        return d;  // a distilled student's
    d.scheduler_source = origin;
    d.karras = json_field<bool>(*j, "use_karras_sigmas", false, origin);
    if (!json_field<bool>(*j, "use_flow_sigmas", cls == "Cosmos3EdgeUniPCMultistepScheduler", origin))
        throw Error(origin + ": use_flow_sigmas is false; a rectified-flow model needs flow sigmas");
    if (json_field<std::string>(*j, "prediction_type", "flow_prediction", origin) != "flow_prediction")
        throw Error(origin + ": prediction_type must be flow_prediction");
    for (const char* k : {"use_exponential_sigmas", "use_beta_sigmas", "use_dynamic_shifting"})
        if (json_field<bool>(*j, k, false, origin)) throw Error(origin + ": " + k + " is not supported");
    if (json_field<std::string>(*j, "final_sigmas_type", "zero", origin) != "zero")
        throw Error(origin + ": final_sigmas_type must be zero");
    if (json_field<int>(*j, "solver_order", 2, origin) != 2 ||
        json_field<std::string>(*j, "solver_type", "bh2", origin) != "bh2" ||
        !json_field<bool>(*j, "predict_x0", true, origin))
        throw Error(origin +
                    ": only UniPC order 2, bh2, predicting x0 is supported (solver_order, solver_type, predict_x0)");
    // What diffusers' UniPC honours and this sampler does not: refused when set away from diffusers' default.
    if (json_field<int>(*j, "num_train_timesteps", 1000, origin) != 1000)
        throw Error(origin +
                    ": num_train_timesteps must be 1000 (the flow grid and the timesteps the model sees assume it)");
    if (!json_field<bool>(*j, "lower_order_final", true, origin))
        throw Error(origin + ": lower_order_final false is not supported (the last step runs first order)");
    if (json_field<bool>(*j, "thresholding", false, origin)) throw Error(origin + ": thresholding is not supported");
    if (j->contains("solver_p") && !(*j)["solver_p"].is_null()) throw Error(origin + ": solver_p is not supported");
    if (j->contains("disable_corrector") && !(*j)["disable_corrector"].is_null() &&
        (!(*j)["disable_corrector"].is_array() || !(*j)["disable_corrector"].empty()))
        throw Error(origin +
                    ": disable_corrector must be an empty list (the corrector runs at every step after the first)");
    // Karras bounds left null (or absent) come, as in diffusers' set_timesteps, from the training noise table: the
    // smallest and largest sqrt((1 - a) / a) over the cumulative alphas of the beta schedule, in float32.
    const bool null_min = !j->contains("sigma_min") || (*j)["sigma_min"].is_null(),
               null_max = !j->contains("sigma_max") || (*j)["sigma_max"].is_null();
    if (d.karras && (null_min || null_max)) {
        const std::string schedule = json_field<std::string>(*j, "beta_schedule", "linear", origin);
        const double b0 = json_field<double>(*j, "beta_start", 0.0001, origin),
                     b1 = json_field<double>(*j, "beta_end", 0.02, origin);
        if (schedule != "linear" && schedule != "scaled_linear")
            throw Error(origin + ": beta_schedule '" + schedule +
                        "' is not supported with sigma_min/sigma_max null (linear, scaled_linear)");
        if (j->contains("trained_betas") && !(*j)["trained_betas"].is_null())
            throw Error(origin + ": trained_betas is not supported");
        if (!(b0 > 0 && b1 > b0 && b1 < 1))
            throw Error(origin + ": beta_start and beta_end must satisfy 0 < beta_start < beta_end < 1");
        const at::Tensor betas = schedule == "linear"
                                     ? at::linspace(b0, b1, 1000, at::kFloat)
                                     : at::linspace(std::sqrt(b0), std::sqrt(b1), 1000, at::kFloat).pow(2);
        const at::Tensor a = at::cumprod(1 - betas, 0), table = ((1 - a) / a).pow(0.5);
        if (null_min) d.sigma_min = table[0].item<float>();
        if (null_max) d.sigma_max = table[-1].item<float>();
        d.sigmas_from_training_table = true;
    }
    if (j->contains("sigma_min") && !(*j)["sigma_min"].is_null()) read_json_field(*j, "sigma_min", d.sigma_min, origin);
    if (j->contains("sigma_max") && !(*j)["sigma_max"].is_null()) read_json_field(*j, "sigma_max", d.sigma_max, origin);
    read_json_field(*j, "flow_shift", d.flow_shift, origin);
    if (!(d.sigma_min > 0 && d.sigma_max > d.sigma_min && std::isfinite(d.sigma_max)))
        throw Error(origin + ": sigma_min and sigma_max must satisfy 0 < sigma_min < sigma_max");
    if (!(d.flow_shift > 0 && std::isfinite(d.flow_shift))) throw Error(origin + ": flow_shift must be positive");
    return d;
}

// The pickles of the folder and its subfolders, except in a weights folder the loader reads that holds no
// safetensors: there the pickle is all the weights there are, and Checkpoint refuses it by name.
std::vector<std::string> ignored_pickles(const fs::path& root, const fs::path& transformer) {
    std::vector<std::string> out;
    const std::vector<fs::path> weight_dirs = {transformer, root / "vae", root / "sound_tokenizer"};
    auto scan = [&](const fs::path& dir, const std::string& prefix) {
        std::vector<std::string> found;
        bool safetensors = false;
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            const std::string n = it->path().filename().string();
            if (is_pickle_file(n))
                found.push_back(prefix + n);
            else if (it->path().extension() == ".safetensors")
                safetensors = true;
        }
        const bool weights = std::any_of(weight_dirs.begin(), weight_dirs.end(), [&](const fs::path& w) {
            return w.lexically_normal() == dir.lexically_normal();
        });
        if (safetensors || !weights) out.insert(out.end(), found.begin(), found.end());
    };
    scan(root, "");
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_directory(ec)) scan(it->path(), it->path().filename().string() + "/");
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::string CheckpointFormat::ignored_note() const {
    if (ignored_files.empty()) return "";
    std::string s = "not read (pickle files are never loaded):";
    for (const std::string& f : ignored_files) s += " " + f;
    return s;
}

ojson DiffusersPipelineConfig::to_json() const {
    ojson j = {{"use_system_prompt", use_system_prompt},
               {"scheduler", "UniPCMultistepScheduler"},
               {"source", scheduler_source.empty() ? "the base export's scheduler (no scheduler/scheduler_config.json)"
                                                   : scheduler_source}};
    if (karras)
        j["karras_sigmas"] = {{"sigma_min", sigma_min},
                              {"sigma_max", sigma_max},
                              {"rho", 7.0},
                              {"from_training_table", sigmas_from_training_table}};
    else
        j["flow_shift"] = flow_shift, j["grid"] = native_flow_schedule ? "linspace(0.999, 0)" : "linspace(1, 1/1000)";
    return j;
}

CheckpointFormat read_checkpoint_format(const std::string& model_dir, const std::string& transformer_dir) {
    CheckpointFormat f;
    const fs::path root(model_dir);
    auto from_scheduler = scheduler_fixed_steps(root / "scheduler" / "scheduler_config.json");
    auto from_modular = modular_fixed_steps(root / "modular_model_index.json");
    if (from_scheduler && from_modular && from_scheduler->t_list != from_modular->t_list)
        throw Error(from_modular->source + ": distilled_sigmas differ from " + from_scheduler->source +
                    "'s fixed_step_sampler_config.t_list");
    f.fixed_steps = from_scheduler ? from_scheduler : from_modular;
    f.fp8 = fp8_quantization(root, fs::path(transformer_dir));
    f.diffusers = diffusers_config(root);
    f.ignored_files = ignored_pickles(root, fs::path(transformer_dir));
    return f;
}

ojson CheckpointFormat::to_json() const {
    ojson j = ojson::object();
    if (fixed_steps)
        j["fixed_step_sampler"] = {
            {"sample_type", "sde"}, {"t_list", fixed_steps->t_list}, {"source", fixed_steps->source}};
    if (fp8) {
        ojson q = {{"quant_algo", "FP8"}, {"source", fp8->source}, {"exclude_modules", fp8->exclude_modules}};
        if (fp8->step_policy)
            q["diffusion_step_policy"] = {{"first_a16", fp8->step_policy->first_a16},
                                          {"last_a16", fp8->step_policy->last_a16},
                                          {"default_mode", fp8->step_policy->middle_a16 ? "a16" : "native"},
                                          {"reasoner", fp8->step_policy->reasoner_a16 ? "a16" : "native"}};
        j["fp8"] = q;
    }
    if (!ignored_files.empty()) j["ignored_files"] = ignored_files;
    return j;
}

}  // namespace ws
