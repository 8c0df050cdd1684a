// What the narrow-phase tests assert of a manifold: vectors equal to a tolerance, a point with
// its gap found in any order, and collide(A, B) the mirror of collide(B, A).
#pragma once

#include <gtest/gtest.h>

#include <cmath>

#include "etdem/collision/collide.hpp"

namespace etdem::test {

/// The rotation by `angle` about `axis` (normalised here).
inline Quat axis_angle(double angle, const Vec3& axis) {
  return Quat(Eigen::AngleAxisd(angle, axis.normalized()));
}

inline void expect_vec_near(const Vec3& a, const Vec3& b, double tol) {
  EXPECT_NEAR(a.x(), b.x(), tol);
  EXPECT_NEAR(a.y(), b.y(), tol);
  EXPECT_NEAR(a.z(), b.z(), tol);
}

/// True when the manifold has a point at p with gap g (in any order).
inline bool has_point(const Manifold& m, const Vec3& p, double g, double tol) {
  for (int k = 0; k < m.count; ++k)
    if ((m.point[k] - p).norm() < tol && std::abs(m.gap[k] - g) < tol) return true;
  return false;
}

/// Same points and gaps (any order), opposite normals: collide(A, B) against collide(B, A).
inline void expect_mirrored(const Manifold& ab, const Manifold& ba, double tol) {
  ASSERT_EQ(ab.count, ba.count);
  expect_vec_near(ab.normal, -ba.normal, tol);
  for (int k = 0; k < ab.count; ++k) {
    EXPECT_TRUE(has_point(ba, ab.point[k], ab.gap[k], tol)) << "point " << k;
  }
}

}  // namespace etdem::test
