#pragma once
// guide/: a weaker copy of a folder's generation tower (an earlier training round), which autoguidance steers the
// sampled velocity away from (the request's `autoguidance`; Denoiser, generation_plan.cpp).
#include <memory>
#include <string>
#include <vector>

#include "model/network.h"

namespace ws {

struct LoadedGuide {
    std::shared_ptr<const Network> network;  // the generation tower only: it reads the model's own text K/V
    std::vector<std::string> files;          // the guide's safetensors files, for the record's hashes
};

// Every generation-tower tensor of `config` (the text tower is the model's own, so none of it is needed), in any
// float dtype. The guide's own config.json, where it has one, sets the fields that place tokens (those
// set_position_config edits); its network then places them so. Refused naming the folder and the tensors when one is
// missing or mis-shaped, and naming the file when its config.json is damaged.
LoadedGuide load_guide(const std::string& guide_dir, const ModelConfig& config, at::Device device,
                       at::ScalarType dtype);

}  // namespace ws
