#include "model/memory.h"

#include "core/device.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>

#include "model/model_impl.h"
#include "model/network.h"
#include "worldstudio/core/error.h"

namespace ws {

MemoryOptions MemoryOptions::from_json(const ojson& j, const std::string& origin) {
    MemoryOptions m;
    if (j.is_null()) return m;
    if (!j.is_object()) throw Error(origin + ": 'memory' must be an object");
    for (const auto& [k, v] : j.items())
        if (k != "tower_split" && k != "resident_layers" && k != "budget_mb")
            throw Error(origin + ": 'memory' has no field '" + k + "'");
    read_json_field(j, "tower_split", m.tower_split, origin);
    read_json_field(j, "resident_layers", m.resident_layers, origin);
    if (m.resident_layers < -1)
        throw Error(origin + ": memory.resident_layers must be -1 (from the budget) or a layer count");
    if (j.contains("budget_mb") && j["budget_mb"].is_string()) {
        if (j["budget_mb"].get<std::string>() != "auto")
            throw Error(origin + ": memory.budget_mb must be a number of MiB or \"auto\"");
        m.budget_mb = -1;
    } else {
        read_json_field(j, "budget_mb", m.budget_mb, origin);
        if (m.budget_mb < 0) throw Error(origin + ": memory.budget_mb must be a number of MiB (0 = none) or \"auto\"");
    }
    return m;
}

ojson MemoryOptions::to_json() const {
    return {{"tower_split", tower_split},
            {"resident_layers", resident_layers},
            {"budget_mb", budget_mb < 0 ? ojson("auto") : ojson(budget_mb)}};
}

int64_t free_device_memory(const at::Device& device) { return device::memory(device).free; }

int64_t layers_within(int64_t budget, int64_t fixed, int64_t per_layer, int64_t layers) {
    if (budget <= 0 || per_layer <= 0 || fixed + layers * per_layer <= budget) return layers;
    return std::clamp<int64_t>((budget - fixed - 2 * per_layer) / per_layer, 0, layers);
}

MemoryPlan plan_memory(const MemoryOptions& o, const ModelConfig& c,
                       const std::map<std::string, std::vector<int64_t>>& shapes, at::ScalarType dtype,
                       const at::Device& device) {
    MemoryPlan p;
    p.tower_split = o.tower_split;
    p.layers = c.num_layers;
    int64_t text_fixed = 0, gen_fixed = 0;
    std::vector<int64_t> text_layer(static_cast<size_t>(c.num_layers), 0),
        gen_layer(static_cast<size_t>(c.num_layers), 0);
    for (const auto& [name, shape] : shapes) {
        const int64_t numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<int64_t>());
        const bool fp32 = name.rfind("time_embedder.", 0) == 0;  // kept in float32 (network.cpp)
        const int64_t bytes = numel * static_cast<int64_t>(c10::elementSize(fp32 ? at::kFloat : dtype));
        const int64_t l = weight_layer(name);
        const bool text = is_text_tower_weight(name);
        if (l < 0 || l >= c.num_layers)
            (text ? text_fixed : gen_fixed) += bytes;
        else
            (text ? text_layer : gen_layer)[static_cast<size_t>(l)] += bytes;
    }
    p.text_layer_bytes = text_layer.empty() ? 0 : *std::max_element(text_layer.begin(), text_layer.end());
    p.generation_layer_bytes = gen_layer.empty() ? 0 : *std::max_element(gen_layer.begin(), gen_layer.end());
    p.text_bytes = text_fixed + std::accumulate(text_layer.begin(), text_layer.end(), int64_t{0});
    p.generation_bytes = gen_fixed + std::accumulate(gen_layer.begin(), gen_layer.end(), int64_t{0});
    if (o.budget_mb < 0) {
        const int64_t free_bytes = free_device_memory(device);
        if (free_bytes < 0)
            throw Error("memory budget \"auto\": the free memory of " + device.str() +
                        " is not known to this build; give the budget in MiB");
        p.budget_bytes = free_bytes * 9 / 10;  // a tenth left for activations and the allocator's slack
    } else {
        p.budget_bytes = o.budget_mb * 1024 * 1024;
    }
    if (o.resident_layers >= 0) {
        p.resident_text = p.resident_generation = std::min<int64_t>(o.resident_layers, c.num_layers);
    } else if (o.tower_split) {
        // The towers are on the device one at a time, so each gets the whole budget.
        p.resident_text = layers_within(p.budget_bytes, text_fixed, p.text_layer_bytes, c.num_layers);
        p.resident_generation = layers_within(p.budget_bytes, gen_fixed, p.generation_layer_bytes, c.num_layers);
    } else {
        p.resident_text = p.resident_generation = layers_within(
            p.budget_bytes, text_fixed + gen_fixed, p.text_layer_bytes + p.generation_layer_bytes, c.num_layers);
    }
    p.keep_towers = o.tower_split && p.budget_bytes > 0 && p.text_bytes + p.generation_bytes <= p.budget_bytes;
    return p;
}

int64_t MemoryPlan::denoise_weight_bytes() const {
    const int64_t streamed_gen = std::min<int64_t>(2, layers - resident_generation);
    const int64_t gen = generation_bytes - (layers - resident_generation - streamed_gen) * generation_layer_bytes;
    if (tower_split && !keep_towers) return gen;
    const int64_t streamed_text = layers - resident_text;
    return gen + text_bytes - streamed_text * text_layer_bytes;
}

ojson MemoryPlan::to_json() const {
    const double mib = 1024.0 * 1024.0;
    auto round1 = [&](int64_t b) { return std::round(b / mib * 10) / 10; };
    return {{"tower_split", tower_split},
            {"keep_towers", keep_towers},
            {"budget_mib", round1(budget_bytes)},
            {"layers", layers},
            {"resident_layers", {{"text", resident_text}, {"generation", resident_generation}}},
            {"text_tower_mib", round1(text_bytes)},
            {"generation_tower_mib", round1(generation_bytes)},
            {"layer_mib", {{"text", round1(text_layer_bytes)}, {"generation", round1(generation_layer_bytes)}}},
            {"denoise_weight_mib", round1(denoise_weight_bytes())},
            // A budget below what even a fully streamed run holds is not refused (the run works, over it), but said.
            {"over_budget", budget_bytes > 0 && denoise_weight_bytes() > budget_bytes}};
}

std::shared_ptr<const Network> TowerSlot::acquire(bool* built) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (built) *built = false;
    if (auto live = live_.lock()) return live;
    std::map<std::string, at::Tensor> weights;
    if (!host_.empty()) {
        weights = host_;
    } else {
        weights = read_();
        if (host_copy_) {
            for (auto& [name, t] : weights) t = t.contiguous().pin_memory();
            host_ = weights;
        }
    }
    auto net = build_(std::move(weights));
    live_ = net;
    if (keep_) kept_ = net;
    if (built) *built = true;
    return net;
}

std::shared_ptr<const Network> ModelImpl::text_network(bool* built) const {
    if (network) {
        if (built) *built = false;
        return std::shared_ptr<const Network>(std::shared_ptr<const Network>(),
                                              network.get());  // not owned: the model's
    }
    return text_tower->acquire(built);
}

std::shared_ptr<const Network> ModelImpl::generation_network(bool* built) const {
    if (network) {
        if (built) *built = false;
        return std::shared_ptr<const Network>(std::shared_ptr<const Network>(), network.get());
    }
    return generation_tower->acquire(built);
}

}  // namespace ws
