// Exact mass properties of a closed triangulated polyhedron of uniform density: volume, centre
// of mass and inertia tensor by the divergence theorem. Each outward triangle (a, b, c) closes a
// signed tetrahedron with a reference point o; the volume, first and second moments of the solid
// are the sums of those of the tetrahedra (Tonon 2004, "Explicit exact formulas for the 3-D
// tetrahedron inertia tensor in terms of its vertex coordinates", J. Math. Stat. 1(1); the same
// integrals as Mirtich 1996 reduced to tetrahedra). For a tetrahedron with vertices x_0..x_3
// relative to o and signed volume V:
//   int x dV     = V/4 (x_0 + x_1 + x_2 + x_3)
//   int x x^T dV = V/20 (sum_i x_i x_i^T + (sum_i x_i)(sum_i x_i)^T)
// Exact up to round-off for any closed, consistently oriented surface (convex or not). The
// reference point is the mean of the vertices, which keeps the sums well conditioned far from the
// origin.
#pragma once

#include <array>
#include <span>

#include "etdem/core/math.hpp"

namespace etdem {

/// Volume, centroid and inertia tensor of a solid of density 1.
struct SolidIntegrals {
  double volume = 0.0;          // m^3
  Vec3 centroid{0, 0, 0};       // m, same frame as the vertices
  Mat3 inertia = Mat3::Zero();  // about the centroid, axes of the vertex frame [m^5]
};

/// Integrals over the solid bounded by `triangles` (indices into `vertices`, counter-clockwise
/// seen from outside). The volume is negative when the triangles face inwards.
SolidIntegrals solid_integrals(std::span<const Vec3> vertices,
                               std::span<const std::array<int, 3>> triangles);

/// Principal axes of a symmetric inertia tensor: inertia = rotation diag(moments) rotation^T with
/// rotation a proper rotation (det +1) whose columns are the principal axes. A tensor that is
/// already diagonal (off-diagonal terms within 1e-12 of its trace, e.g. any cube or regular
/// tetrahedron, whose tensor is isotropic) keeps the identity; otherwise, among the equivalent
/// orders and signs of the axes, the rotation closest to the identity (largest trace) is taken.
struct PrincipalFrame {
  Mat3 rotation = Mat3::Identity();
  Vec3 moments{0, 0, 0};
};
PrincipalFrame principal_frame(const Mat3& inertia);

}  // namespace etdem
