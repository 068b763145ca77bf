#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "worldstudio/model/engine.h"

namespace ws {

// latent [C, T, H, W] -> RGB bytes [T, H, W, 3] through the projection.
std::vector<uint8_t> project_preview(const PreviewProjection& p, const at::Tensor& latent);

}  // namespace ws
