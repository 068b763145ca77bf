#pragma once
// Bridges between our torch-free safetensors views and ATen tensors. Internal to the backend.
#include <ATen/ATen.h>

#include <map>
#include <string>

#include "worldstudio/safetensors.h"

namespace ws {

at::ScalarType to_scalar_type(DType d);
DType from_scalar_type(at::ScalarType t);
// Copies a mapped tensor into an owned CPU tensor of its own dtype.
at::Tensor to_tensor(const TensorView& v);
TensorBlob to_blob(const at::Tensor& t);
void save_tensors(const std::string& path, const std::map<std::string, at::Tensor>& tensors,
                  const std::map<std::string, std::string>& metadata = {});
std::map<std::string, at::Tensor> load_tensors(const std::string& path);
// Parses "cpu", "cuda", "cuda:1" and "auto" (CUDA when present).
at::Device parse_device(const std::string& name);
at::ScalarType parse_dtype(const std::string& name);  // "float32", "bfloat16", "float16"

}  // namespace ws
