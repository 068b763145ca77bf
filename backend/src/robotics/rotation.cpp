#include "worldstudio/robotics/rotation.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "worldstudio/core/error.h"

namespace ws::robotics {

namespace {
const std::vector<std::pair<RotationFormat, const char*>>& format_names() {
    static const std::vector<std::pair<RotationFormat, const char*>> names = {
        {RotationFormat::Matrix, "matrix"},      {RotationFormat::Rot6d, "rot6d"},
        {RotationFormat::Rot9d, "rot9d"},        {RotationFormat::QuatXyzw, "quat_xyzw"},
        {RotationFormat::QuatWxyz, "quat_wxyz"}, {RotationFormat::EulerXyz, "euler_xyz"},
        {RotationFormat::AxisAngle, "axisangle"}};
    return names;
}

Eigen::Matrix3d eig(const Mat3& m) {
    Eigen::Matrix3d e;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) e(i, j) = m[i * 3 + j];
    return e;
}
Mat3 arr(const Eigen::Matrix3d& e) {
    Mat3 m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) m[i * 3 + j] = e(i, j);
    return m;
}

// SciPy's matrix-to-quaternion rule: the largest of the diagonal and the trace picks the stable formula.
std::array<double, 4> quat_xyzw(const Mat3& R) {
    auto r = [&](int i, int j) { return R[i * 3 + j]; };
    const double tr = r(0, 0) + r(1, 1) + r(2, 2);
    const double cand[4] = {r(0, 0), r(1, 1), r(2, 2), tr};
    int k = 0;
    for (int i = 1; i < 4; ++i)
        if (cand[i] > cand[k]) k = i;
    std::array<double, 4> q;
    if (k < 3) {
        const int j = (k + 1) % 3, l = (j + 1) % 3;
        q[k] = 1 - tr + 2 * r(k, k);
        q[j] = r(j, k) + r(k, j);
        q[l] = r(l, k) + r(k, l);
        q[3] = r(l, j) - r(j, l);
    } else {
        q = {r(2, 1) - r(1, 2), r(0, 2) - r(2, 0), r(1, 0) - r(0, 1), 1 + tr};
    }
    const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (double& x : q) x /= n;
    return q;
}

Mat3 quat_matrix(double x, double y, double z, double w) {
    const double n = std::sqrt(x * x + y * y + z * z + w * w);
    if (!(n > 0)) throw Error("a zero quaternion is no rotation");
    x /= n, y /= n, z /= n, w /= n;
    return {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
            2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
}
}  // namespace

RotationFormat rotation_format_from_name(const std::string& name) {
    std::string all;
    for (const auto& [f, n] : format_names()) {
        if (name == n) return f;
        all += (all.empty() ? "" : ", ") + std::string(n);
    }
    throw Error("rotation format must be one of " + all + " (got '" + name + "')");
}
const char* rotation_format_name(RotationFormat f) {
    for (const auto& [g, n] : format_names())
        if (g == f) return n;
    return "?";
}
int rotation_width(RotationFormat f) {
    switch (f) {
        case RotationFormat::Matrix:
        case RotationFormat::Rot9d: return 9;
        case RotationFormat::Rot6d: return 6;
        case RotationFormat::QuatXyzw:
        case RotationFormat::QuatWxyz: return 4;
        default: return 3;
    }
}

Mat3 identity3() { return {1, 0, 0, 0, 1, 0, 0, 0, 1}; }
Pose identity_pose() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }
Mat3 mul(const Mat3& a, const Mat3& b) {
    Mat3 c{};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) c[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j];
    return c;
}
Mat3 transpose(const Mat3& a) { return {a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}; }
double det(const Mat3& a) {
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}
Pose mul(const Pose& a, const Pose& b) {
    Pose c{};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 4; ++k) c[i * 4 + j] += a[i * 4 + k] * b[k * 4 + j];
    return c;
}
Mat3 rotation_of(const Pose& p) { return {p[0], p[1], p[2], p[4], p[5], p[6], p[8], p[9], p[10]}; }
Pose make_pose(const Mat3& r, const std::array<double, 3>& t) {
    return {r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0, 0, 0, 1};
}
Pose inverse(const Pose& p) {
    const Mat3 rt = transpose(rotation_of(p));
    const std::array<double, 3> t{p[3], p[7], p[11]};
    std::array<double, 3> ti{};
    for (int i = 0; i < 3; ++i) ti[i] = -(rt[i * 3] * t[0] + rt[i * 3 + 1] * t[1] + rt[i * 3 + 2] * t[2]);
    return make_pose(rt, ti);
}

Mat3 svd_project(const Mat3& m) {
    Eigen::JacobiSVD<Eigen::Matrix3d> svd(eig(m), Eigen::ComputeFullU | Eigen::ComputeFullV);
    Eigen::Matrix3d U = svd.matrixU();  // singular values in descending order, as the reference's
    const Eigen::Matrix3d V = svd.matrixV();
    Eigen::Matrix3d R = U * V.transpose();
    if (R.determinant() < 0) {
        U.col(2) *= -1;
        R = U * V.transpose();
    }
    return arr(R);
}

Mat3 to_matrix(const double* v, RotationFormat f, bool normalize) {
    Mat3 m;
    switch (f) {
        case RotationFormat::Matrix:
        case RotationFormat::Rot9d: std::copy(v, v + 9, m.begin()); return normalize ? svd_project(m) : m;
        case RotationFormat::Rot6d: {
            const double a[3] = {v[0], v[1], v[2]}, c[3] = {v[3], v[4], v[5]};
            const double x[3] = {a[1] * c[2] - a[2] * c[1], a[2] * c[0] - a[0] * c[2], a[0] * c[1] - a[1] * c[0]};
            m = {a[0], c[0], x[0], a[1], c[1], x[1], a[2], c[2], x[2]};  // a, c, a x c as columns
            return normalize ? svd_project(m) : m;
        }
        case RotationFormat::QuatXyzw: return quat_matrix(v[0], v[1], v[2], v[3]);
        case RotationFormat::QuatWxyz: return quat_matrix(v[1], v[2], v[3], v[0]);
        case RotationFormat::EulerXyz: {
            const double ca = std::cos(v[0]), sa = std::sin(v[0]), cb = std::cos(v[1]), sb = std::sin(v[1]),
                         cg = std::cos(v[2]), sg = std::sin(v[2]);
            const Mat3 rx{1, 0, 0, 0, ca, -sa, 0, sa, ca}, ry{cb, 0, sb, 0, 1, 0, -sb, 0, cb},
                rz{cg, -sg, 0, sg, cg, 0, 0, 0, 1};
            return mul(rz, mul(ry, rx));
        }
        case RotationFormat::AxisAngle: {
            const double th = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (th == 0) return identity3();
            const double x = v[0] / th, y = v[1] / th, z = v[2] / th, c = std::cos(th), s = std::sin(th), C = 1 - c;
            return {c + x * x * C,     x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, c + y * y * C,
                    y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, c + z * z * C};
        }
    }
    return identity3();
}

std::vector<double> from_matrix(const Mat3& R, RotationFormat f) {
    switch (f) {
        case RotationFormat::Matrix:
        case RotationFormat::Rot9d: return std::vector<double>(R.begin(), R.end());
        case RotationFormat::Rot6d: return {R[0], R[3], R[6], R[1], R[4], R[7]};
        case RotationFormat::QuatXyzw: {
            const auto q = quat_xyzw(R);
            return {q[0], q[1], q[2], q[3]};
        }
        case RotationFormat::QuatWxyz: {
            const auto q = quat_xyzw(R);
            return {q[3], q[0], q[1], q[2]};
        }
        case RotationFormat::EulerXyz:
            return {std::atan2(R[7], R[8]), std::asin(std::clamp(-R[6], -1.0, 1.0)), std::atan2(R[3], R[0])};
        case RotationFormat::AxisAngle: {
            auto q = quat_xyzw(R);
            if (q[3] < 0)
                for (double& x : q) x = -x;
            const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
            if (n == 0) return {0, 0, 0};
            const double angle = 2 * std::atan2(n, q[3]);
            return {q[0] * angle / n, q[1] * angle / n, q[2] * angle / n};
        }
    }
    return {};
}

double rotation_angle(const double* v, RotationFormat f) {
    auto from_trace = [](double tr) { return std::acos(std::clamp((tr - 1) / 2, -1.0, 1.0)); };
    switch (f) {
        case RotationFormat::Rot6d: return from_trace(v[0] + v[4] + (v[0] * v[4] - v[1] * v[3]));
        case RotationFormat::Rot9d:
        case RotationFormat::Matrix: return from_trace(v[0] + v[4] + v[8]);
        case RotationFormat::QuatXyzw: return 2 * std::acos(std::min(std::abs(v[3]), 1.0));
        case RotationFormat::QuatWxyz: return 2 * std::acos(std::min(std::abs(v[0]), 1.0));
        default: return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
}

}  // namespace ws::robotics
