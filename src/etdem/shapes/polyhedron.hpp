// A convex polyhedron: the convex hull of a point set (Qhull), stored in its body frame with the
// centre of mass at the origin and the principal axes of inertia along x, y, z, like every other
// shape. Faces are convex polygons (coplanar hull facets merged: a cube has 6 faces), their
// vertices counter-clockwise seen from outside, with the outward unit normal n and the offset d of
// the plane n.x = d. Edges are listed once with the two faces they join.
//
// The shape is plain data with no pose of its own, so a compound shape can hold several of them,
// each with a local pose.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "etdem/core/mass_properties.hpp"
#include "etdem/core/math.hpp"

namespace etdem {

struct ConvexPolyhedron {
  struct Face {
    int first = 0;         // index of the face's first vertex in face_vertices
    int count = 0;         // number of vertices (>= 3)
    Vec3 normal{0, 0, 1};  // outward, unit
    double offset = 0.0;   // m, plane n.x = offset; > 0 (the centre of mass is inside)
  };
  struct Edge {
    int v0 = 0, v1 = 0;  // vertex indices; face f0 runs v0 -> v1, face f1 runs v1 -> v0
    int f0 = 0, f1 = 0;
  };

  std::vector<Vec3> vertices;      // m, body frame
  std::vector<int> face_vertices;  // vertex indices of every face, face after face
  std::vector<Face> faces;
  std::vector<Edge> edges;
  std::vector<int> neighbour_start;  // vertex -> adjacent vertices (CSR): neighbours of vertex v
  std::vector<int> neighbours;       // are neighbours[neighbour_start[v] .. neighbour_start[v+1])

  double bounding_radius = 0.0;  // m, largest |vertex|
  double inner_radius = 0.0;     // m, smallest face offset (distance to the nearest face plane)
  double min_width = 0.0;        // m, smallest extent along a face normal
  double volume = 0.0;           // m^3
  Vec3 unit_inertia{0, 0, 0};    // principal moments about the centre of mass at density 1 [m^5]

  /// Frame the input points were given in: p_input = input_centre + input_rotation * p_body.
  /// input_centre is the centre of mass in input coordinates; input_rotation turns the principal
  /// axes into the input axes (identity when the input axes were already principal).
  Vec3 input_centre{0, 0, 0};
  Quat input_rotation = Quat::Identity();

  /// Convex hull of `points` (any order; interior and duplicate points are dropped). Throws
  /// std::invalid_argument with a one-line reason for fewer than 4 points, a non-finite
  /// coordinate, coincident or coplanar points (zero volume), or a Qhull failure.
  static ConvexPolyhedron from_points(std::span<const Vec3> points);
  /// The box with these half extents, built directly (exact vertices, normals and offsets).
  static ConvexPolyhedron box(const Vec3& half_extents);

  int vertex_count() const { return static_cast<int>(vertices.size()); }
  int face_count() const { return static_cast<int>(faces.size()); }
  int edge_count() const { return static_cast<int>(edges.size()); }
  /// Vertex indices of face f, counter-clockwise about its outward normal.
  std::span<const int> face(int f) const {
    return {face_vertices.data() + faces[f].first, static_cast<std::size_t>(faces[f].count)};
  }

  /// Index of a vertex maximising dir.v (the first one on ties).
  int support_index(const Vec3& dir) const;
  Vec3 support(const Vec3& dir) const { return vertices[support_index(dir)]; }
  /// Index of the face whose outward normal is most aligned with dir (the first one on ties).
  int supporting_face(const Vec3& dir) const;

  MassProperties mass_properties(double density) const;
};

}  // namespace etdem
