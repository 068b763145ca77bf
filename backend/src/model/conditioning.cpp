#include "model/conditioning.h"

#include <cmath>

#include "worldstudio/core/error.h"

namespace ws {

at::Tensor frames_to_model_input(const VideoFrames& v, int width, int height) {
    if (v.count <= 0 || v.width <= 0 || v.height <= 0) throw Error("no frames to condition on");
    at::Tensor x = at::from_blob(const_cast<uint8_t*>(v.rgb.data()), {v.count, v.height, v.width, 3}, at::kByte)
                       .permute({0, 3, 1, 2})
                       .to(at::kFloat);  // [T, 3, H, W], 0..255
    const double scale = std::max(static_cast<double>(width) / v.width, static_cast<double>(height) / v.height);
    const int64_t rh = static_cast<int64_t>(std::ceil(scale * v.height)),
                  rw = static_cast<int64_t>(std::ceil(scale * v.width));
    if (rh != v.height || rw != v.width)
        x = at::_upsample_bilinear2d_aa(x, at::IntArrayRef({rh, rw}), false, c10::optional<double>(),
                                        c10::optional<double>());
    // torchvision's center_crop: offsets rounded half to even, as Python's round().
    const int64_t top = static_cast<int64_t>(std::nearbyint((rh - height) / 2.0)),
                  left = static_cast<int64_t>(std::nearbyint((rw - width) / 2.0));
    x = x.narrow(2, top, height).narrow(3, left, width);
    x = x.round().clamp(0, 255);
    return (x / 127.5 - 1.0).permute({1, 0, 2, 3}).contiguous();
}

at::Tensor conditioning_pixels(const VideoFrames& v, int width, int height, int count) {
    at::Tensor x = frames_to_model_input(v, width, height);
    if (x.size(1) < count)  // pad by repeating the last frame, as the reference pads its conditioning video
        x = at::cat({x, x.narrow(1, x.size(1) - 1, 1).expand({-1, count - x.size(1), -1, -1})}, 1);
    return x;
}

}  // namespace ws
