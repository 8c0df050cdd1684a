#include "etdem/shapes/compound.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "etdem/core/polyhedron_mass.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

namespace {

/// Whether two convex polygons in one plane (normal n) overlap in more than a sliver of width
/// tol: no edge normal of either separates them (2-d separating axis test).
bool polygons_overlap(const std::vector<Vec3>& a, const std::vector<Vec3>& b, const Vec3& n,
                      double tol) {
  for (const std::vector<Vec3>* poly : {&a, &b}) {
    const std::vector<Vec3>& p = *poly;
    for (std::size_t k = 0; k < p.size(); ++k) {
      const Vec3 axis = (p[(k + 1) % p.size()] - p[k]).cross(n);
      if (axis.squaredNorm() == 0.0) continue;
      double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
      for (const Vec3& v : a)
        amin = std::min(amin, axis.dot(v)), amax = std::max(amax, axis.dot(v));
      for (const Vec3& v : b)
        bmin = std::min(bmin, axis.dot(v)), bmax = std::max(bmax, axis.dot(v));
      if (std::min(amax, bmax) - std::max(amin, bmin) < tol * axis.norm()) return false;
    }
  }
  return true;
}

/// Records, for every box or polyhedron part, the faces that lie against another part's face.
void find_glued_faces(const ShapeTable& shapes, std::vector<CompoundPart>& parts) {
  struct WorldFace {
    Vec3 normal;                // compound frame
    double offset;              // plane normal.x = offset
    std::vector<Vec3> polygon;  // compound frame
  };
  auto faces_of = [&](const CompoundPart& p) {
    std::vector<WorldFace> out;
    if (shapes.type[p.shape] == ShapeType::Sphere) return out;
    const ConvexPolyhedron& h = shapes.hull(p.shape);
    for (int f = 0; f < h.face_count(); ++f) {
      WorldFace w{p.rotation * h.faces[f].normal, 0.0, {}};
      w.offset = w.normal.dot(p.position) + h.faces[f].offset;
      for (int v : h.face(f)) w.polygon.push_back(p.position + p.rotation * h.vertices[v]);
      out.push_back(std::move(w));
    }
    return out;
  };
  std::vector<std::vector<WorldFace>> faces;
  for (CompoundPart& p : parts) {
    p.glued_faces.clear();
    faces.push_back(faces_of(p));
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::size_t j = 0; j < parts.size(); ++j) {
      const double ri = shapes.bounding_radius[parts[i].shape];
      const double rj = shapes.bounding_radius[parts[j].shape];
      if (j == i || (parts[i].position - parts[j].position).norm() > ri + rj) continue;
      const double tol = 1e-9 * std::max(ri, rj);
      for (std::size_t f = 0; f < faces[i].size(); ++f)
        for (const WorldFace& g : faces[j]) {
          const WorldFace& fi = faces[i][f];
          if (fi.normal.dot(g.normal) > -1.0 + 1e-9 || std::abs(fi.offset + g.offset) > tol)
            continue;
          if (polygons_overlap(fi.polygon, g.polygon, fi.normal, tol)) {
            parts[i].glued_faces.push_back({static_cast<int>(f), static_cast<int>(j)});
            break;
          }
        }
    }
}

}  // namespace

Compound make_compound(const ShapeTable& shapes, std::span<const CompoundPart> in) {
  if (in.empty()) throw std::invalid_argument("a compound needs at least one part");
  std::vector<CompoundPart> parts(in.begin(), in.end());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    CompoundPart& p = parts[i];
    if (p.shape < 0 || p.shape >= shapes.size())
      throw std::invalid_argument(fmt::format("part {}: no such shape", i));
    const ShapeType t = shapes.type[p.shape];
    if (!shape_kind(t).part)
      throw std::invalid_argument(
          fmt::format("part {} ('{}') is a {}; parts must be spheres, boxes or polyhedra", i,
                      shapes.name[p.shape], shape_type_name(t)));
    if (!p.position.allFinite() || !p.orientation.coeffs().allFinite() ||
        std::abs(p.orientation.norm() - 1.0) > 1e-3)
      throw std::invalid_argument(
          fmt::format("part {}: position must be finite and orientation a unit quaternion", i));
    p.orientation.normalize();
    p.rotation = p.orientation.toRotationMatrix();
  }
  // Sums of the parts' volume, first moment and inertia (density 1), then the principal frame.
  double volume = 0.0;
  Vec3 moment = Vec3::Zero();
  for (const CompoundPart& p : parts) {
    const double v = shapes.mass_properties(p.shape, 1.0).volume;
    volume += v;
    moment += v * p.position;
  }
  const Vec3 centre = moment / volume;
  Mat3 inertia = Mat3::Zero();
  for (const CompoundPart& p : parts) {
    const MassProperties mp = shapes.mass_properties(p.shape, 1.0);
    const Vec3 d = p.position - centre;
    inertia += p.rotation * mp.inertia.asDiagonal() * p.rotation.transpose() +
               mp.volume * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
  }
  const PrincipalFrame pf = principal_frame(inertia);
  Compound c;
  c.volume = volume;
  c.unit_inertia = pf.moments;
  c.input_centre = centre;
  c.input_rotation = Quat(pf.rotation).normalized();
  c.min_thickness = std::numeric_limits<double>::infinity();
  const Mat3 rt = pf.rotation.transpose();
  for (CompoundPart& p : parts) {
    p.position = rt * (p.position - centre);
    p.orientation = (c.input_rotation.conjugate() * p.orientation).normalized();
    p.rotation = p.orientation.toRotationMatrix();
    // Exact: the farthest vertex of a box or polyhedron part, the far side of a sphere part.
    if (shapes.type[p.shape] == ShapeType::Sphere) {
      c.bounding_radius =
          std::max(c.bounding_radius, p.position.norm() + shapes.bounding_radius[p.shape]);
    } else {
      for (const Vec3& v : shapes.hull(p.shape).vertices)
        c.bounding_radius = std::max(c.bounding_radius, (p.position + p.rotation * v).norm());
    }
    c.min_thickness = std::min(c.min_thickness, shapes.min_thickness(p.shape));
  }
  find_glued_faces(shapes, parts);
  c.parts = std::move(parts);
  return c;
}

}  // namespace etdem
