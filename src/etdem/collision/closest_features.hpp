// Exact closest points of two separated convex polyhedra, by their features: every vertex of one
// against every face of the other (when its projection falls inside the face) and every edge
// against every edge. The distance of two disjoint convex polytopes is reached at one of these
// feature pairs, so the minimum over them is exact.
//
// Used by the SAT narrow phases (box-box, polyhedron-polyhedron) where the separating axis test
// alone cannot build the manifold: the boxes are apart by less than the contact margin along
// every axis, the best axis is a face, yet clipping the incident face against the reference
// face leaves no point, because the closest features are a corner and an edge beside the face.
// The SAT separation is then only a lower bound of the distance and the manifold was empty: a
// cube falling at 2.3 m/s onto a corner of a spinning cube 0.15 mm away was not reported and went
// 2 mm (20 % of its side) deep within the step (docs/notes/deep-contacts.md "Energy created by
// shock propagation, and cubes going deep").
//
// Brute force over O(V F + E^2) pairs: about 250 tests for two cubes. It runs only on those
// pairs, not on every pair; a GJK distance would be the faster general tool if it had to.
#pragma once

#include "etdem/collision/contact.hpp"
#include "etdem/shapes/polyhedron.hpp"

namespace etdem {

struct ClosestPoints {
  Vec3 on_a{0, 0, 0};     // world
  Vec3 on_b{0, 0, 0};     // world
  double distance = 0.0;  // m, |on_a - on_b|
};

/// Closest points of polyhedra a and b at their poses. Meaningful only when the two are
/// disjoint (distance > 0); for overlapping bodies it returns some pair of surface points at a
/// small distance, which callers must not use.
ClosestPoints closest_points(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                             const Pose& pb);

/// Closest points of segments p1-q1 and p2-q2, parallel ones included (Ericson 5.1.9).
void closest_on_segments(const Vec3& p1, const Vec3& q1, const Vec3& p2, const Vec3& q2, Vec3& c1,
                         Vec3& c2);

}  // namespace etdem

namespace etdem {

/// Completes the manifold of a pair the separating axis test found apart (`separation` > 0, the
/// largest separation over the tested axes, a lower bound of the distance) but closer than the
/// margin: when no reported point is as near as that bound, the closest feature pair may be
/// missing from it (a corner beside the reference face); then the exact closest points are
/// added as one more point with their own normal, if nearer than every reported point and
/// than the margin.
void add_closest_if_missing(const ConvexPolyhedron& a, const Pose& pa, const ConvexPolyhedron& b,
                            const Pose& pb, double separation, double margin, Manifold& out);

}  // namespace etdem
