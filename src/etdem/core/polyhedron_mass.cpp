#include "etdem/core/polyhedron_mass.hpp"

#include <algorithm>
#include <cmath>

namespace etdem {

SolidIntegrals solid_integrals(std::span<const Vec3> vertices,
                               std::span<const std::array<int, 3>> triangles) {
  SolidIntegrals out;
  if (vertices.empty()) return out;
  Vec3 o = Vec3::Zero();
  for (const Vec3& v : vertices) o += v;
  o /= static_cast<double>(vertices.size());

  double volume = 0.0;
  Vec3 first = Vec3::Zero();   // int (x - o) dV
  Mat3 second = Mat3::Zero();  // int (x - o)(x - o)^T dV
  for (const auto& t : triangles) {
    const Vec3 a = vertices[t[0]] - o;
    const Vec3 b = vertices[t[1]] - o;
    const Vec3 c = vertices[t[2]] - o;
    const double v = a.dot(b.cross(c)) / 6.0;  // signed volume of the tetrahedron (o, a, b, c)
    const Vec3 s = a + b + c;                  // the fourth vertex is o itself (zero)
    volume += v;
    first += (v / 4.0) * s;
    second += (v / 20.0) *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  out.volume = volume;
  if (volume == 0.0) return out;
  const Vec3 d = first / volume;  // centroid relative to o
  out.centroid = o + d;
  // Second moment about the centroid (parallel axis), then I = tr(C) 1 - C.
  const Mat3 c = second - volume * d * d.transpose();
  out.inertia = c.trace() * Mat3::Identity() - c;
  out.inertia = 0.5 * (out.inertia + out.inertia.transpose()).eval();
  return out;
}

PrincipalFrame principal_frame(const Mat3& inertia) {
  PrincipalFrame pf;
  const double trace = inertia.trace();
  const double off =
      std::max({std::abs(inertia(0, 1)), std::abs(inertia(0, 2)), std::abs(inertia(1, 2)),
                std::abs(inertia(1, 0)), std::abs(inertia(2, 0)), std::abs(inertia(2, 1))});
  if (off <= 1e-12 * std::abs(trace)) {
    pf.rotation = Mat3::Identity();
    pf.moments = inertia.diagonal();
    return pf;
  }
  const Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  const Mat3 e = es.eigenvectors();
  const Vec3 lambda = es.eigenvalues();
  // Every order of the axes; signs make the diagonal non-negative, and a reflection is undone by
  // flipping the axis with the smallest diagonal entry. Keep the largest trace.
  static const int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  double best = -1e300;
  for (const auto& p : kPerm) {
    Mat3 r;
    Vec3 m;
    for (int k = 0; k < 3; ++k) {
      r.col(k) = e.col(p[k]);
      m[k] = lambda[p[k]];
      if (r(k, k) < 0.0) r.col(k) = -r.col(k);
    }
    if (r.determinant() < 0.0) {
      int k = 0;
      for (int j = 1; j < 3; ++j)
        if (std::abs(r(j, j)) < std::abs(r(k, k))) k = j;
      r.col(k) = -r.col(k);
    }
    if (r.trace() > best) {
      best = r.trace();
      pf.rotation = r;
      pf.moments = m;
    }
  }
  return pf;
}

}  // namespace etdem
