// The closest point of a triangle to a point (mesh walls, terrain).
#pragma once

#include "etdem/core/math.hpp"

namespace etdem {

/// Where the closest point of a triangle lies: its interior, edge k (vertices k -> k+1), or
/// vertex k.
enum class TriangleFeature { Face, Edge0, Edge1, Edge2, Vertex0, Vertex1, Vertex2 };

/// Closest point of triangle (a, b, c) to p (Ericson, Real-Time Collision Detection, 5.1.5), with
/// the feature it lies on.
Vec3 closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                            TriangleFeature& feature);

}  // namespace etdem
