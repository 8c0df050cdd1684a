// A compound shape: one rigid body made of several convex parts (spheres, boxes, polyhedra of the
// shape table), each with a local pose, for non-convex grains such as the concrete cross of three
// orthogonal bars (ETM 2014 §7.4). Parts must not overlap: the body's mass properties are the
// exact sums of the parts' (volume, first and second moments), which is the union's only when no
// volume is counted twice. A cross is therefore built as one centre cube and six arm cubes that
// touch face to face; check_parts_disjoint (collision/compound_overlap.hpp) rejects parts that
// overlap by more than round-off, with the narrow phase. Like every other shape the compound is
// stored in its body frame, centre of mass at the origin and principal axes along x, y, z; the
// parts' poses are expressed in it.
#pragma once

#include <span>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

struct ShapeTable;

struct CompoundPart {
  int shape = -1;                       // a sphere, box or polyhedron of the shape table
  Vec3 position{0, 0, 0};               // m, part centre of mass in the compound frame
  Quat orientation = Quat::Identity();  // part frame -> compound frame
  Mat3 rotation = Mat3::Identity();     // the same as a matrix
  /// Faces of the part's hull that lie against a face of another part of the same compound,
  /// inside the body, with that part: {face index into ShapeTable::hull(shape).faces, part
  /// index}; filled by make_compound. The narrow phase drops contacts through them
  /// (collide_compound.cpp).
  struct Glued {
    int face = -1, part = -1;
  };
  std::vector<Glued> glued_faces{};
};

struct Compound {
  std::vector<CompoundPart> parts;  // body frame
  double volume = 0.0;              // m^3
  Vec3 unit_inertia{0, 0, 0};       // principal moments about the centre of mass at density 1 [m^5]
  double bounding_radius = 0.0;     // m, farthest part vertex (sphere part: centre + radius)
  double min_thickness = 0.0;       // m, smallest thickness of a part
  /// Frame the parts were given in: p_input = input_centre + input_rotation * p_body.
  Vec3 input_centre{0, 0, 0};
  Quat input_rotation = Quat::Identity();
};

/// The compound of `parts` given in any frame (the input frame): re-centred at the centre of mass
/// and turned to the principal axes. Throws std::invalid_argument with a one-line reason for no
/// parts or a part that is not a sphere, box or polyhedron (planes, compounds). Whether parts
/// overlap is checked by check_parts_disjoint (collision/compound_overlap.hpp), not here.
/// Faces of two parts that are coplanar, opposite and overlap in area are recorded as glued.
Compound make_compound(const ShapeTable& shapes, std::span<const CompoundPart> parts);

}  // namespace etdem
