// Vectors, matrices, quaternions and the few helpers every layer shares.
// Eigen types in double precision; SI units throughout.
#pragma once

#include <Eigen/Dense>
#include <cmath>

namespace etdem {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;  // unit quaternion, body frame -> world frame

/// Cross-product matrix r~ such that r~ * x = r x x (ETM 2014 Eq. 10-11).
inline Mat3 skew(const Vec3& r) {
  Mat3 m;
  m << 0.0, -r.z(), r.y(),  //
      r.z(), 0.0, -r.x(),   //
      -r.y(), r.x(), 0.0;
  return m;
}

/// World-frame inverse inertia R diag(inv_principal) R^T.
inline Mat3 world_inverse_inertia(const Quat& q, const Vec3& inv_principal) {
  const Mat3 r = q.toRotationMatrix();
  return r * inv_principal.asDiagonal() * r.transpose();
}

/// World-frame inertia R diag(principal) R^T.
inline Mat3 world_inertia(const Quat& q, const Vec3& principal) {
  const Mat3 r = q.toRotationMatrix();
  return r * principal.asDiagonal() * r.transpose();
}

/// Orientation after rotating by the world-frame angular velocity w for dt:
/// q' = exp(w dt / 2) q, the exact rotation for constant w, renormalised.
inline Quat integrate_orientation(const Quat& q, const Vec3& w, double dt) {
  const double angle = w.norm() * dt;
  if (angle == 0.0) return q;
  Quat dq(Eigen::AngleAxisd(angle, w / w.norm()));
  Quat out = dq * q;
  out.normalize();
  return out;
}

/// Kinetic energy a velocity change dv adds to a mass m moving at v: m (v.dv + |dv|^2 / 2) [J].
/// One expression for every kick the ledger books (gravity, a woken sleeper, a net's link), so a
/// kick booked on another rank has the same bits.
inline double kick_energy(double m, const Vec3& v, const Vec3& dv) {
  return m * (dv.dot(v) + 0.5 * dv.squaredNorm());
}

/// Any unit vector orthogonal to the unit vector n.
inline Vec3 any_orthogonal(const Vec3& n) {
  const Vec3 a = std::abs(n.x()) < 0.57 ? Vec3::UnitX() : Vec3::UnitY();
  return n.cross(a).normalized();
}

inline bool all_finite(const Vec3& v) { return std::isfinite(v.x()) && std::isfinite(v.y()) && std::isfinite(v.z()); }

}  // namespace etdem
