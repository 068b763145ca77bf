#include "core/torch_util.h"

#include "core/device.h"

#include <ATen/Context.h>

#include <cstring>

#include "worldstudio/core/error.h"
#include "worldstudio/core/fp8.h"

namespace ws {

at::ScalarType to_scalar_type(DType d) {
    switch (d) {
        case DType::F32: return at::kFloat;
        case DType::F16: return at::kHalf;
        case DType::BF16: return at::kBFloat16;
        case DType::I64: return at::kLong;
        case DType::I32: return at::kInt;
        case DType::U8: return at::kByte;
        case DType::BOOL: return at::kBool;
        case DType::F8_E4M3:
        case DType::F8_E5M2: return at::kByte;  // the raw bits (see fp8_bits)
    }
    return at::kFloat;
}

DType from_scalar_type(at::ScalarType t) {
    switch (t) {
        case at::kFloat: return DType::F32;
        case at::kHalf: return DType::F16;
        case at::kBFloat16: return DType::BF16;
        case at::kLong: return DType::I64;
        case at::kInt: return DType::I32;
        case at::kByte: return DType::U8;
        case at::kBool: return DType::BOOL;
        default: throw Error(std::string("cannot store tensors of type ") + at::toString(t));
    }
}

at::Tensor to_tensor(const TensorView& v) {
    // Raw FP8 bytes taken for numbers would be silently wrong: they go through fp8_bits and a dequantization.
    if (v.dtype == DType::F8_E4M3 || v.dtype == DType::F8_E5M2)
        throw Error("tensor '" + v.name + "' is " + dtype_name(v.dtype) +
                    " (FP8); it is read only as a quantized weight with its weight_scale");
    at::Tensor t = at::empty(v.shape, at::TensorOptions().dtype(to_scalar_type(v.dtype)));
    if (v.nbytes) std::memcpy(t.data_ptr(), v.data, v.nbytes);
    return t;
}

at::Tensor fp8_bits(const TensorView& v) {
    at::Tensor t = at::empty(v.shape, at::TensorOptions().dtype(at::kByte));
    if (v.nbytes) std::memcpy(t.data_ptr(), v.data, v.nbytes);
    return t;
}

at::Tensor dequantize_e4m3(const at::Tensor& bits, float scale) {
    static const at::Tensor table = [] {
        std::vector<float> v(256);
        for (int b = 0; b < 256; ++b) v[static_cast<size_t>(b)] = e4m3_to_float(static_cast<uint8_t>(b));
        return at::tensor(v, at::kFloat);
    }();
    return at::index_select(table, 0, bits.reshape({-1}).to(at::kLong)).reshape(bits.sizes()) * scale;
}

TensorBlob to_blob(const at::Tensor& t_in) {
    at::Tensor t = t_in.detach().to(at::kCPU).contiguous();
    TensorBlob b;
    b.dtype = from_scalar_type(t.scalar_type());
    b.shape = t.sizes().vec();
    b.bytes.resize(static_cast<size_t>(t.numel()) * t.element_size());
    if (!b.bytes.empty()) std::memcpy(b.bytes.data(), t.data_ptr(), b.bytes.size());
    return b;
}

void save_tensors(const std::string& path, const std::map<std::string, at::Tensor>& tensors,
                  const std::map<std::string, std::string>& metadata) {
    std::map<std::string, TensorBlob> blobs;
    for (const auto& [k, v] : tensors) blobs[k] = to_blob(v);
    write_safetensors(path, blobs, metadata);
}

std::map<std::string, at::Tensor> load_tensors(const std::string& path) {
    SafeTensorsFile f(path);
    std::map<std::string, at::Tensor> out;
    for (const auto& [k, v] : f.tensors()) out[k] = to_tensor(v);
    return out;
}

at::Device parse_device(const std::string& name) {
    device::load_cuda();  // LibTorch's CUDA kernels, where a driver is, before ATen is asked
    if (name.empty() || name == "auto") return at::hasCUDA() ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    if (name == "cpu") return at::Device(at::kCPU);
    if (name.rfind("cuda", 0) == 0) {
        int index = 0;
        if (name.size() > 4) {
            const std::string n = name.substr(5);
            if (name[4] != ':' || n.empty() || n.size() > 3 || n.find_first_not_of("0123456789") != std::string::npos)
                throw Error("unknown device '" + name + "' (use cpu, cuda, cuda:N or auto)");
            index = std::stoi(n);
        }
        if (!at::hasCUDA())
            throw Error("device '" + name + "' requested but CUDA is not available: " + device::cuda_status());
        return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
    }
    throw Error("unknown device '" + name + "' (use cpu, cuda, cuda:N or auto)");
}

at::ScalarType parse_dtype(const std::string& name) {
    if (name == "float32" || name == "fp32") return at::kFloat;
    if (name == "bfloat16" || name == "bf16") return at::kBFloat16;
    if (name == "float16" || name == "fp16") return at::kHalf;
    throw Error("unknown dtype '" + name + "' (use float32, bfloat16 or float16)");
}

}  // namespace ws
