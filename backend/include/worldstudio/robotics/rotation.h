#pragma once
// Rotations and rigid poses in double precision, in the reference's conventions: 6D rotation = the first two
// columns of R, column-major [R00, R10, R20, R01, R11, R21]; back to SO(3) by [a | c | a x c] and, when asked, the
// SVD projection with the determinant fix; SciPy's quaternion rule (largest component positive) and extrinsic
// Euler "xyz" (R = Rz Ry Rx); axis-angle by Rodrigues.
#include <array>
#include <string>
#include <vector>

namespace ws::robotics {

using Mat3 = std::array<double, 9>;   // row-major
using Pose = std::array<double, 16>;  // row-major homogeneous [R t; 0 1]

enum class RotationFormat { Matrix, Rot6d, Rot9d, QuatXyzw, QuatWxyz, EulerXyz, AxisAngle };
RotationFormat rotation_format_from_name(const std::string& name);  // ws::Error listing the names
const char* rotation_format_name(RotationFormat f);
int rotation_width(RotationFormat f);  // values per rotation (9 for Matrix)

Mat3 identity3();
Pose identity_pose();
Mat3 mul(const Mat3& a, const Mat3& b);
Mat3 transpose(const Mat3& a);
double det(const Mat3& a);
Pose mul(const Pose& a, const Pose& b);
Pose inverse(const Pose& p);  // rigid inverse [R^T, -R^T t]
Mat3 rotation_of(const Pose& p);
Pose make_pose(const Mat3& r, const std::array<double, 3>& t);

// The nearest rotation: U V^T of M = U S V^T, the last column of U negated when that has determinant -1.
Mat3 svd_project(const Mat3& m);

// `values` holds rotation_width(f) numbers. `normalize` projects Matrix/Rot6d/Rot9d input onto SO(3) (quaternions
// are always normalized; Euler and axis-angle are exact).
Mat3 to_matrix(const double* values, RotationFormat f, bool normalize = false);
std::vector<double> from_matrix(const Mat3& r, RotationFormat f);

// The geodesic angle of a rotation given in format f (rot6d by its trace formula, as idle detection computes it).
double rotation_angle(const double* values, RotationFormat f);

}  // namespace ws::robotics
