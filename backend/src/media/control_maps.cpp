#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <map>

#include "worldstudio/core/error.h"
#include "worldstudio/media/media.h"

namespace ws {

namespace {
cv::Mat frame_mat(const VideoFrames& v, int i) {
    return cv::Mat(v.height, v.width, CV_8UC3, const_cast<uint8_t*>(v.frame(i)));
}

void check(const VideoFrames& v) {
    if (v.count <= 0 || v.width <= 0 || v.height <= 0 ||
        v.rgb.size() != static_cast<size_t>(v.width) * v.height * 3 * v.count)
        throw Error("control maps need at least one complete frame");
}

template <typename T>
const T& preset_value(const std::map<std::string, T>& table, const std::string& preset) {
    auto it = table.find(preset);
    if (it == table.end())
        throw Error("unknown control preset '" + preset + "' (use very_low, low, medium, high, very_high)");
    return it->second;
}
}  // namespace

VideoFrames edge_control_map(const VideoFrames& v, const std::string& preset) {
    static const std::map<std::string, std::pair<double, double>> thresholds = {
        {"none", {20, 50}},     {"very_low", {20, 50}}, {"low", {50, 100}},
        {"medium", {100, 200}}, {"high", {200, 300}},   {"very_high", {300, 400}}};
    const auto [lo, hi] = preset_value(thresholds, preset);
    check(v);
    VideoFrames out = v;
    for (int i = 0; i < v.count; ++i) {
        cv::Mat edges;
        cv::Canny(frame_mat(v, i), edges, lo, hi);
        cv::Mat rgb(v.height, v.width, CV_8UC3, out.rgb.data() + static_cast<size_t>(i) * v.width * v.height * 3);
        cv::cvtColor(edges, rgb, cv::COLOR_GRAY2RGB);
    }
    return out;
}

VideoFrames blur_control_map(const VideoFrames& v, const std::string& preset) {
    static const std::map<std::string, int> factors = {{"none", 1},    {"very_low", 4}, {"low", 4},
                                                       {"medium", 10}, {"high", 16},    {"very_high", 16}};
    const int factor = preset_value(factors, preset);
    check(v);
    VideoFrames out = v;
    for (int i = 0; i < v.count; ++i) {
        cv::Mat bilateral, blurred;
        cv::bilateralFilter(frame_mat(v, i), bilateral, 9, 75, 75);
        cv::GaussianBlur(bilateral, blurred, cv::Size(5, 5), 1.0);
        if (factor > 1) {
            cv::Mat small;
            cv::resize(blurred, small, cv::Size(std::max(1, v.width / factor), std::max(1, v.height / factor)), 0, 0,
                       cv::INTER_AREA);
            cv::resize(small, blurred, cv::Size(v.width, v.height), 0, 0, cv::INTER_CUBIC);
        }
        cv::Mat dst(v.height, v.width, CV_8UC3, out.rgb.data() + static_cast<size_t>(i) * v.width * v.height * 3);
        blurred.copyTo(dst);
    }
    return out;
}

std::vector<double> normalize_control_weights(const std::vector<double>& w) {
    double sum = 0;
    for (double x : w) {
        if (!(x >= 0)) throw Error("control weights must not be negative");
        sum += x;
    }
    if (sum <= 1.0) return w;
    std::vector<double> out;
    for (double x : w) out.push_back(x / sum);
    return out;
}

}  // namespace ws
