// A triangle mesh: a static wall or container surface (a terrain, a chute, a bin from a CAD file).
// Stored in its body frame like every shape. The mesh is one-sided: each triangle's normal
// (counter-clockwise vertex order, right-hand rule) points to the free side, and a body is pushed
// out towards it. A closed mesh (every edge shared by exactly two triangles) bounds a solid and has
// exact mass properties (core/polyhedron_mass.hpp), e.g. to take a body's volume and inertia from
// an STL file; meshes in the world are always fixed.
//
// TriangleMesh::build checks the input: indices in range, degenerate triangles (repeated vertex
// or zero area; dropped with a note), edges shared by more than two triangles (not a manifold
// surface: an error), neighbouring triangles of opposite orientation (an edge run twice in the
// same direction: an error), and for a closed mesh the signed volume: zero is an error, and a
// negative volume (the triangles face inwards) is turned around with a note, unless the mesh is
// asked to face inwards (a closed container holding the grains inside).
//
// Queries go through an AABB tree over the triangles (median split on the longest axis, leaves of
// up to 4 triangles).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "etdem/core/mass_properties.hpp"
#include "etdem/core/math.hpp"
#include "etdem/core/polyhedron_mass.hpp"

namespace etdem {

struct TriangleMesh {
  enum class Facing { AsGiven, Outward, Inward };  // wanted orientation of a closed mesh

  std::vector<Vec3> vertices;                 // m, body frame
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from the free side
  std::vector<Vec3> normals;                  // per triangle, unit, to the free side
  /// Per triangle, the triangle across edge k (vertices k -> k+1), -1 on the boundary.
  std::vector<std::array<int, 3>> neighbours;
  /// Per triangle and edge (3 t + k): 1 when the edge is a convex ridge (the neighbour bends away
  /// from the free side by more than a round-off angle), 0 when flat, concave or a boundary.
  std::vector<std::uint8_t> convex_edge;
  std::vector<int> vertex_start, vertex_triangles;  // vertex -> triangles using it (CSR)

  bool closed = false;
  double volume = 0.0;             // m^3, closed meshes (positive: outward normals)
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};   // m, bounding box in the body frame
  double bounding_radius = 0.0;    // m, largest |vertex|
  std::vector<std::string> notes;  // what build() changed (dropped triangles, turned normals)

  struct Node {
    Vec3 lo{0, 0, 0}, hi{0, 0, 0};
    int left = -1, right = -1;  // children, -1 for a leaf
    int first = 0, count = 0;   // leaf: triangles order[first .. first + count)
  };
  std::vector<Node> nodes;  // nodes[0] is the root
  std::vector<int> order;

  /// Checks and builds (see above). Throws std::invalid_argument with a one-line reason.
  static TriangleMesh build(std::span<const Vec3> vertices,
                            std::span<const std::array<int, 3>> triangles,
                            Facing facing = Facing::Outward);

  int triangle_count() const { return static_cast<int>(triangles.size()); }
  const Vec3& corner(int t, int k) const { return vertices[triangles[t][k]]; }

  /// Calls f(t) for every triangle whose bounding box meets the box [qlo, qhi] (body frame).
  template <class F>
  void query(const Vec3& qlo, const Vec3& qhi, F&& f) const {
    if (nodes.empty()) return;
    int stack[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& n = nodes[stack[--top]];
      if ((n.lo.array() > qhi.array()).any() || (n.hi.array() < qlo.array()).any()) continue;
      if (n.left < 0) {
        for (int k = 0; k < n.count; ++k) f(order[n.first + k]);
      } else {
        // Depth-first holds at most one pending sibling per level; median splits keep the depth
        // near log2(n / 4), so 64 levels are never reached.
        if (top + 2 > 64) throw std::logic_error("triangle mesh tree deeper than 62 levels");
        stack[top++] = n.left;
        stack[top++] = n.right;
      }
    }
  }

  /// Volume, centroid and inertia of the enclosed solid at density 1; throws std::logic_error
  /// for an open mesh.
  SolidIntegrals solid() const;
  /// Mass, centroid-frame principal moments of the enclosed solid (closed meshes only).
  MassProperties mass_properties(double density) const;
};

}  // namespace etdem
