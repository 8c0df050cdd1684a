// Convex parts of a tetrahedral mesh. ETM 2014 §7.4 builds its non-convex grains (the concrete
// crosses) from tetrahedral meshes; etdem's compound is a set of disjoint convex parts, so a
// tetrahedral mesh becomes a compound either tetrahedron by tetrahedron or, by default, with
// adjacent tetrahedra merged into larger convex parts: fewer parts make the narrow phase cheaper
// and leave fewer internal seams (faces shared by two parts) for contacts to catch on, and the
// union, volume and inertia are unchanged.
//
// Greedy merge: a part starts from the first tetrahedron not yet used and takes a neighbour
// (a tetrahedron sharing a face with it) when the convex hull of the part and the neighbour has
// the volume of the two together, i.e. their union is convex (the union lies inside the hull, so
// equal volumes mean equal sets). A neighbour refused once is tried again whenever the part has
// grown. A second pass then joins neighbouring parts whose union is convex (the first pass can
// cut a convex block into pieces while it grows a neighbour). The result depends on the order of
// the tetrahedra but every part is convex and the parts tile the mesh. Not a minimal
// decomposition (that is NP-hard); a cube of 6 tetrahedra comes back as one part, the cross of
// 7 cubes (42 tetrahedra) as 5 parts: one bar and four arm cubes.
#pragma once

#include <array>
#include <span>
#include <vector>

#include <string>

#include "etdem/core/math.hpp"
#include "etdem/shapes/compound.hpp"

namespace etdem {

struct ShapeTable;

struct TetMesh {
  std::vector<Vec3> nodes;               // m
  std::vector<std::array<int, 4>> tets;  // indices into nodes, either orientation
};

/// Checks the mesh: at least one tetrahedron, finite nodes, indices in range, four distinct nodes
/// and a volume above 1e-9 of the cube of the tetrahedron's longest edge (not flat). Throws
/// std::invalid_argument naming the first bad tetrahedron or node (0-based).
void check_tet_mesh(const TetMesh& mesh);

/// |signed volume| of tetrahedron t [m^3].
double tet_volume(const TetMesh& mesh, int t);

/// Groups of tetrahedra (indices into mesh.tets), each group's union convex (hull volume within
/// `tolerance` of the summed volumes, relative); every tetrahedron in exactly one group. With
/// merge = false every tetrahedron is its own group. Calls check_tet_mesh first.
std::vector<std::vector<int>> convex_parts(const TetMesh& mesh, bool merge = true,
                                           double tolerance = 1e-9);

/// The distinct nodes of a group of tetrahedra (their convex hull is the part).
std::vector<Vec3> part_points(const TetMesh& mesh, std::span<const int> group);

/// Adds the hull of every group to `shapes` as a polyhedron named "PREFIX.partK" and returns the
/// compound parts that place them where they are in the mesh's frame; make_compound(shapes,
/// parts) builds the body. Throws std::invalid_argument (from the hull) naming the part.
std::vector<CompoundPart> add_part_hulls(ShapeTable& shapes, const std::string& prefix,
                                         const TetMesh& mesh,
                                         const std::vector<std::vector<int>>& groups);

}  // namespace etdem
