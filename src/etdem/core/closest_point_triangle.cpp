#include "etdem/core/closest_point_triangle.hpp"

namespace etdem {

Vec3 closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c,
                            TriangleFeature& feature) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return feature = TriangleFeature::Vertex0, a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return feature = TriangleFeature::Vertex1, b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    feature = TriangleFeature::Edge0;
    return a + (d1 / (d1 - d3)) * ab;
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return feature = TriangleFeature::Vertex2, c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    feature = TriangleFeature::Edge2;
    return a + (d2 / (d2 - d6)) * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    feature = TriangleFeature::Edge1;
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  }
  const double denom = 1.0 / (va + vb + vc);
  feature = TriangleFeature::Face;
  return a + ab * (vb * denom) + ac * (vc * denom);
}

}  // namespace etdem
