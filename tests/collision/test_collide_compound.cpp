// Compound shapes: exact mass properties of disjoint parts against closed forms, rejection of
// overlapping or unsupported parts, and the narrow phase of a compound against planes, convex
// shapes and other compounds (points from every part, per-point normals, both argument orders).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "etdem/collision/collide.hpp"
#include "etdem/collision/compound_overlap.hpp"
#include "etdem/collision/contact_collector.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {
namespace {

/// The cross of ETM 2014 §7.4: three orthogonal 3a x a x a bars, as one centre cube of side a and
/// six arm cubes that touch it face to face.
int add_cross(ShapeTable& t, double a) {
  const int cube = t.add_box("cube", Vec3::Constant(0.5 * a));
  std::vector<CompoundPart> parts{{cube, Vec3::Zero()}};
  for (int axis = 0; axis < 3; ++axis)
    for (double s : {-1.0, 1.0}) parts.push_back({cube, s * a * Vec3::Unit(axis)});
  return t.add_compound("cross", make_compound(t, parts));
}

TEST(CompoundMass, CrossOfSevenCubesMatchesTheClosedForm) {
  // Each cube: rho a^5 / 6 about its own centre. About the x axis the centre cube and the two x
  // arms add nothing more; the four y and z arms add a^3 a^2 each: I = (7/6 + 4) rho a^5 = 31/6.
  ShapeTable t;
  const double a = 0.02, rho = 2400.0;
  const int s = add_cross(t, a);
  const MassProperties mp = t.mass_properties(s, rho);
  EXPECT_NEAR(mp.volume, 7 * a * a * a, 1e-14 * a * a * a);
  EXPECT_NEAR(mp.mass, 7 * rho * a * a * a, 1e-12 * rho * a * a * a);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(mp.inertia[k], 31.0 / 6.0 * rho * std::pow(a, 5), 1e-12 * rho * std::pow(a, 5));
  const Compound& c = t.compound(s);
  EXPECT_NEAR(c.input_centre.norm(), 0.0, 1e-15);
  EXPECT_NEAR(c.bounding_radius, std::sqrt(2.75) * a,
              1e-15);  // a bar's end corner (1.5, 0.5, 0.5) a
  EXPECT_DOUBLE_EQ(c.min_thickness, a);
}

TEST(CompoundMass, GluedFacesAreTheFacesPartsShare) {
  // The cross: the centre cube shares all six faces, each arm one (its inner face, with the
  // centre cube); the recorded partner is the part across the face.
  ShapeTable t;
  const int s = add_cross(t, 0.02);
  const Compound& c = t.compound(s);
  ASSERT_EQ(c.parts.size(), 7u);
  EXPECT_EQ(c.parts[0].glued_faces.size(), 6u);
  for (std::size_t k = 1; k < 7; ++k) {
    ASSERT_EQ(c.parts[k].glued_faces.size(), 1u) << k;
    EXPECT_EQ(c.parts[k].glued_faces[0].part, 0);
    const ConvexPolyhedron& h = t.hull(c.parts[k].shape);
    const Vec3 n = c.parts[k].rotation * h.faces[c.parts[k].glued_faces[0].face].normal;
    EXPECT_NEAR(n.dot(-c.parts[k].position.normalized()), 1.0, 1e-12);  // faces the centre
  }
  // Parts that only touch along an edge or a corner share no face; a sphere part none.
  const int cube = t.add_box("unit", Vec3::Constant(0.5));
  const int ball = t.add_sphere("ball", 0.5);
  const std::vector<CompoundPart> edge{
      {cube, Vec3::Zero()}, {cube, Vec3(1, 1, 0)}, {ball, Vec3(-1, 0, 0)}};
  const Compound& e = t.compound(t.add_compound("edge", make_compound(t, edge)));
  for (const CompoundPart& p : e.parts) EXPECT_TRUE(p.glued_faces.empty());
  // Two boxes of different sizes face to face: a partial overlap is glued too.
  const int slab = t.add_box("slab", Vec3(2.0, 2.0, 0.25));
  const std::vector<CompoundPart> stack{{slab, Vec3::Zero()}, {cube, Vec3(1.2, 0.3, 0.75)}};
  const Compound& st = t.compound(t.add_compound("stack", make_compound(t, stack)));
  EXPECT_EQ(st.parts[0].glued_faces.size(), 1u);
  EXPECT_EQ(st.parts[1].glued_faces.size(), 1u);
}

TEST(CompoundMass, TwoBoxesSideBySideAreOneBox) {
  // Two 2 x 1 x 0.6 boxes end to end make a 4 x 1 x 0.6 box; the second is given as a
  // 1 x 2 x 0.6 box turned a quarter turn about z, and the pair sits off the origin.
  ShapeTable t;
  const int b1 = t.add_box("b1", Vec3(1.0, 0.5, 0.3));
  const int b2 = t.add_box("b2", Vec3(0.5, 1.0, 0.3));
  const Quat quarter(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  const std::vector<CompoundPart> parts{{b1, Vec3(2, 1, 1)}, {b2, Vec3(4, 1, 1), quarter}};
  const int s = t.add_compound("pair", make_compound(t, parts));
  const MassProperties mp = t.mass_properties(s, 3.0);
  const MassProperties box = box_mass_properties(Vec3(2.0, 0.5, 0.3), 3.0);
  EXPECT_NEAR(mp.mass, box.mass, 1e-12 * box.mass);
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(mp.inertia[k], box.inertia[k], 1e-12 * box.inertia.norm());
  const Compound& c = t.compound(s);
  EXPECT_NEAR((c.input_centre - Vec3(3, 1, 1)).norm(), 0.0, 1e-14);
  EXPECT_NEAR(c.input_rotation.angularDistance(Quat::Identity()), 0.0, 1e-12);
  EXPECT_NEAR((c.parts[0].position - Vec3(-1, 0, 0)).norm(), 0.0, 1e-14);
  EXPECT_NEAR(c.bounding_radius, Vec3(2.0, 0.5, 0.3).norm(), 1e-14);  // the pair's far corners
}

TEST(CompoundMass, OnePolyhedronEqualsThePolyhedron) {
  ShapeTable t;
  const std::vector<Vec3> v{Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 0.5),
                            Vec3(0.7, 0.6, 0.4)};
  const int p = t.add_polyhedron("p", v);
  const Quat q = Quat(0.9, 0.2, -0.3, 0.1).normalized();
  const std::vector<CompoundPart> parts{{p, Vec3(0.3, -0.2, 5.0), q}};
  const int s = t.add_compound("one", make_compound(t, parts));
  const MassProperties a = t.mass_properties(s, 2.0), b = t.mass_properties(p, 2.0);
  EXPECT_NEAR(a.mass, b.mass, 1e-13 * b.mass);
  Vec3 ia = a.inertia, ib = b.inertia;
  std::sort(ia.data(), ia.data() + 3);
  std::sort(ib.data(), ib.data() + 3);
  EXPECT_NEAR((ia - ib).norm(), 0.0, 1e-12 * ib.norm());
  EXPECT_NEAR(t.compound(s).parts[0].position.norm(), 0.0, 1e-14);
  EXPECT_NEAR(t.bounding_radius[s], t.bounding_radius[p], 1e-14);
}

TEST(CompoundMass, RejectsOverlapsPlanesNestingAndNoParts) {
  ShapeTable t;
  const int bar = t.add_box("bar", Vec3(1.5, 0.5, 0.5));
  const int plane = t.add_plane("plane");
  const Quat q(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  // Two bars of a cross share the centre cube.
  EXPECT_THROW(
      check_parts_disjoint(t, make_compound(t, std::vector<CompoundPart>{{bar, Vec3::Zero()},
                                                                         {bar, Vec3::Zero(), q}})),
      std::invalid_argument);
  EXPECT_THROW(make_compound(t, std::vector<CompoundPart>{{plane, Vec3::Zero()}}),
               std::invalid_argument);
  EXPECT_THROW(make_compound(t, std::vector<CompoundPart>{}), std::invalid_argument);
  const int one =
      t.add_compound("one", make_compound(t, std::vector<CompoundPart>{{bar, Vec3::Zero()}}));
  EXPECT_THROW(make_compound(t, std::vector<CompoundPart>{{one, Vec3::Zero()}}),
               std::invalid_argument);
  // Touching face to face is not an overlap.
  EXPECT_NO_THROW(check_parts_disjoint(
      t, make_compound(t, std::vector<CompoundPart>{{bar, Vec3::Zero()}, {bar, Vec3(0, 1, 0)}})));
}

TEST(CollideCompound, CrossStandingOnAPlaneTouchesWithItsLowerArmFace) {
  ShapeTable t;
  const double a = 0.02;
  const int s = add_cross(t, a);
  const int plane = t.add_plane("floor");
  const double dz = -1e-4;  // penetration
  Manifold m;
  collide(t, s, Pose(Vec3(0.1, 0.2, 1.5 * a + dz), Quat::Identity()), plane, Pose(), 0.0, m);
  ASSERT_EQ(m.count, 4);  // the four corners of the lower arm's end face
  for (int k = 0; k < m.count; ++k) {
    EXPECT_NEAR(m.gap[k], dz, 1e-15);
    EXPECT_NEAR((m.normal_at(k) - Vec3::UnitZ()).norm(), 0.0, 1e-15);
    EXPECT_NEAR(std::abs(m.point[k].x() - 0.1), 0.5 * a, 1e-15);
  }
  // Lying on its side (a quarter turn about x): three arms and the centre cube touch the floor,
  // 4 parts x 4 corners = 16 points; the arm pointing up is a bar's length above.
  const Quat side(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));
  collide(t, s, Pose(Vec3(0, 0, 0.5 * a + dz), side), plane, Pose(), 0.0, m);
  EXPECT_EQ(m.count, 16);
  // With a margin above the upper faces every part's eight corners are candidates (7 x 8 = 56
  // > 16): the deepest point and the spread of the patch are kept.
  collide(t, s, Pose(Vec3(0, 0, 1.5 * a + dz), Quat::Identity()), plane, Pose(), 3.5 * a, m);
  EXPECT_EQ(m.count, Manifold::kMaxPoints);
  double deepest = 1.0, highest = -1.0;
  for (int k = 0; k < m.count; ++k) {
    deepest = std::min(deepest, m.gap[k]);
    highest = std::max(highest, m.gap[k]);
  }
  EXPECT_NEAR(deepest, dz, 1e-15);
  EXPECT_NEAR(highest, 3 * a + dz, 1e-15);
}

/// Points, gaps and normals of two manifolds agree as sets (normals of `b` flipped when `flip`).
void expect_same(const Manifold& a, const Manifold& b, bool flip, double tol) {
  ASSERT_EQ(a.count, b.count);
  for (int k = 0; k < a.count; ++k) {
    bool found = false;
    for (int j = 0; j < b.count && !found; ++j)
      found = (a.point[k] - b.point[j]).norm() < tol && std::abs(a.gap[k] - b.gap[j]) < tol &&
              (a.normal_at(k) - (flip ? -1.0 : 1.0) * b.normal_at(j)).norm() < 1e-12;
    EXPECT_TRUE(found) << "point " << k << " at " << a.point[k].transpose();
  }
}

TEST(CollideCompound, InterlockedCrossesTouchOnBothFacesOfTheCorner) {
  // B's centre sits at (2a - dx, a - dy, 0): A's +x arm lies in the corner of B between B's -y arm
  // (beyond the arm's end: normal -x on A, penetration dx) and B's -x arm (along the arm's side:
  // normal -y, penetration dy), and B's -x arm lies in A's corner against A's +y arm (normal -x,
  // dx). Where a corner of one cube dips into a corner of the other (dx by dy), the shallower
  // axis, x, wins. dy > dx keeps the two axes apart.
  ShapeTable t;
  const double a = 0.02, dx = 1e-4, dy = 2e-4;
  const int s = add_cross(t, a);
  const Pose pa(Vec3::Zero(), Quat::Identity());
  const Pose pb(Vec3(2 * a - dx, a - dy, 0), Quat::Identity());
  Manifold ab, ba;
  collide(t, s, pa, s, pb, 0.0, ab);
  collide(t, s, pb, s, pa, 0.0, ba);
  int minus_x = 0, minus_y = 0;
  for (int k = 0; k < ab.count; ++k) {
    const Vec3& n = ab.normal_at(k);
    if ((n + Vec3::UnitX()).norm() < 1e-12) {
      ++minus_x;
      EXPECT_NEAR(ab.gap[k], -dx, 1e-12);
    }
    if ((n + Vec3::UnitY()).norm() < 1e-12) {
      ++minus_y;
      EXPECT_NEAR(ab.gap[k], -dy, 1e-12);
    }
  }
  std::printf("cross-cross: %d points, %d on -x, %d on -y\n", ab.count, minus_x, minus_y);
  EXPECT_EQ(minus_x + minus_y, ab.count);  // no other normal
  EXPECT_EQ(minus_y, 4);                   // the side face of A's +x arm on B's -x arm
  EXPECT_GE(minus_x, 8);                   // the two end faces, plus the corner patches
  expect_same(ab, ba, true, 1e-12);
}

TEST(ContactCollector, NormalsApartKeepAPointWhoseDirectionNoKeptPointHolds) {
  // 20 points of a face patch (normal z, the deepest at the origin) and one point of another
  // direction (normal x) on top of one of them: by position alone the second is a duplicate and
  // is dropped; counted apart by normals it is kept, second after the deepest. In a pile of
  // crosses, a pair's 16 points held the end of one arm pressing along z next to the corner of
  // another pressing along x, the x corner was dropped as a duplicate, and the arm approaching
  // along x at 0.2 m/s went 6.8 % of a bar deep in one step (docs/notes/deep-contacts.md).
  ContactCollector c;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j) c.add(Vec3(1e-3 * i, 1e-3 * j, 0), 1e-5 * (i + j), Vec3::UnitZ());
  c.add(Vec3(2e-3, 1e-3, 0), 5e-5, Vec3::UnitX());
  Manifold by_position, apart;
  c.emit(by_position);
  c.emit(apart, true);
  ASSERT_EQ(by_position.count, Manifold::kMaxPoints);
  ASSERT_EQ(apart.count, Manifold::kMaxPoints);
  auto has_x = [](const Manifold& m) {
    for (int k = 0; k < m.count; ++k)
      if (m.normal_at(k) == Vec3::UnitX()) return true;
    return false;
  };
  EXPECT_FALSE(has_x(by_position));
  EXPECT_TRUE(has_x(apart));
  EXPECT_EQ(apart.normal_at(1), Vec3::UnitX());
  EXPECT_EQ(apart.point[0], Vec3::Zero());  // the deepest first, in both
  EXPECT_EQ(by_position.point[0], Vec3::Zero());
  // Points that share one normal are sampled exactly as without normals.
  ContactCollector same;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j)
      same.add(Vec3(1e-3 * i, 1e-3 * j, 0), 1e-5 * (i + j), Vec3::UnitZ());
  Manifold one, other;
  same.emit(one);
  same.emit(other, true);
  for (int k = 0; k < Manifold::kMaxPoints; ++k) EXPECT_EQ(one.point[k], other.point[k]);
}

TEST(ContactCollector, TouchingFirstKeepsEveryOverlapBeforeSpeculativePoints) {
  // 20 speculative points (gap > 0) spread over 20 mm, and two overlapping points 0.5 mm apart
  // with the same normal: by distance the second overlap is the nearest candidate to the
  // deepest and is cut; touching first, both overlaps are kept and the rest is sampled as
  // before.
  ContactCollector c;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 4; ++j)
      c.add(Vec3(5e-3 * i, 5e-3 * j, 0), 1e-4 * (1 + i + j), Vec3::UnitZ());
  c.add(Vec3(10e-3, 5e-3, 0), -3e-4, Vec3::UnitZ());
  c.add(Vec3(10.5e-3, 5e-3, 0), -2e-4, Vec3::UnitZ());
  Manifold by_distance, touching;
  c.emit(by_distance, true);
  c.emit(touching, true, true);
  auto overlaps = [](const Manifold& m) {
    int count = 0;
    for (int k = 0; k < m.count; ++k) count += m.gap[k] <= 0.0;
    return count;
  };
  ASSERT_EQ(by_distance.count, Manifold::kMaxPoints);
  ASSERT_EQ(touching.count, Manifold::kMaxPoints);
  EXPECT_EQ(overlaps(by_distance), 1);
  EXPECT_EQ(overlaps(touching), 2);
  EXPECT_EQ(touching.gap[0], -3e-4);  // the deepest first
  EXPECT_EQ(touching.gap[1], -2e-4);
}

TEST(ContactCollector, FewPointsHoldAFlatFaceByTheSameNodesWhateverItsTilt) {
  // A face of 7 x 7 nodes 10 mm apart, all about as deep (a tilt of 1e-6 rad about y, one way or
  // the other), ringed by 16 speculative candidates 1 to 4 mm apart (the rim of a rock within the
  // margin). Kept to 8 points, the manifold holds 8 nodes of the face, spanning it, and the same
  // 8 whichever way it tilts. Started from the deepest node without the band, the sampling took
  // the rim's candidates after it and followed the deepest from one side to the other: two
  // stacked level-set cubes kept rocking at 1.6e-3 m/s with 8 points, and rest at 2e-8 with the
  // rule (tests/shapes/test_level_set.cpp).
  auto face = [](double tilt, Manifold& m) {
    ContactCollector c;
    for (int i = -3; i <= 3; ++i)
      for (int j = -3; j <= 3; ++j) c.add(Vec3(1e-2 * i, 1e-2 * j, 0), tilt * 1e-2 * i);
    for (int k = 0; k < 16; ++k) {
      const double a = 2 * M_PI * k / 16;
      c.add(Vec3(0.045 * std::cos(a), 0.045 * std::sin(a), 1e-3), 1e-3 * (1 + k % 4));
    }
    m.normal = Vec3::UnitZ();
    c.emit(m, false, false, 8);
  };
  Manifold left, right;
  face(1e-6, left);
  face(-1e-6, right);
  ASSERT_EQ(left.count, 8);
  ASSERT_EQ(right.count, 8);
  Vec3 lo = left.point[0], hi = left.point[0];
  for (int k = 0; k < 8; ++k) {
    EXPECT_LT(std::abs(left.gap[k]), 1e-7) << k;  // a node of the face, not of the rim
    EXPECT_EQ(left.point[k], right.point[k]) << k;
    lo = lo.cwiseMin(left.point[k]);
    hi = hi.cwiseMax(left.point[k]);
  }
  EXPECT_EQ((hi - lo).head<2>(), Vec3(0.06, 0.06, 0).head<2>());  // corner to corner
  // Without a limit below 16 nothing changes: the deepest first.
  ContactCollector c;
  for (int i = -3; i <= 3; ++i)
    for (int j = -3; j <= 3; ++j) c.add(Vec3(1e-2 * i, 1e-2 * j, 0), 1e-6 * 1e-2 * i);
  Manifold full;
  c.emit(full);
  EXPECT_EQ(full.point[0].x(), -0.03);
}

/// The cross of examples/repose/crosses.toml, its parts in the scenario's order (centre, +x, -x,
/// +y, -y, +z, -z: the order decides ties in the cut).
int add_example_cross(ShapeTable& t) {
  const double a = 0.006666666666666667;
  const int cube = t.add_box("cell", Vec3::Constant(0.0033333333333333335));
  std::vector<CompoundPart> parts{{cube, Vec3::Zero()}};
  for (int axis = 0; axis < 3; ++axis)
    for (double s : {1.0, -1.0}) parts.push_back({cube, s * a * Vec3::Unit(axis)});
  return t.add_compound("cross", make_compound(t, parts));
}

TEST(CollideCompound, CrossesInAPileKeepEveryOverlapOfTheirParts) {
  // Two crosses of the example's pile (fill seed 2, bodies 332 and 362 at t = 0.7967 s, one
  // thread, the poses to the last bit): B lies across A's -y side, B's bar face pressed along one
  // normal onto the ends of A's -x and -z arms (5.3 and 5.0 % of a bar deep), with 57 candidate
  // points within the margin (0.1 of the bounding radius plus the step's closing distance). The
  // box pair A -z arm / B +z arm reports the corner of A's arm 5.0 % deep, and no seam hides it;
  // the cut to 16 kept the farthest-spread candidates, 8 of them speculative (up to 16 % of a bar
  // apart) and dropped this corner. One step later it was 6.5 % deep, the deepest contact of that
  // pair and a "held-open" event of bench_deep_contacts. Every overlapping point of every pair of
  // parts (fewer than 16 here) must be in the manifold.
  ShapeTable t;
  const int s = add_example_cross(t);
  const int cube = t.compound(s).parts[0].shape;
  const double a = 0.006666666666666667;
  const Pose pa(
      Vec3(0.054346549813379316, 0.013390448021805746, 0.16304391116878345),
      Quat(-0.070197453492648276, 0.23922760188258949, 0.86554669977516618, -0.43436319195918427));
  const Pose pb(
      Vec3(0.061207714653662523, 0.012131688166631896, 0.17321071827826595),
      Quat(0.16224488846596383, 0.50431941830097149, -0.47920457435978181, -0.69978675066329832));
  const double margin = 1.13e-3;
  Manifold m;
  collide(t, s, pa, s, pb, margin, m);
  EXPECT_EQ(m.count, Manifold::kMaxPoints);
  // The overlapping points of the part pairs, each looked for in the manifold.
  const Compound& c = t.compound(s);
  int overlapping = 0, candidates = 0;
  bool corner = false;
  for (const CompoundPart& i : c.parts)
    for (const CompoundPart& j : c.parts) {
      // In the order the compound calls them: B's part against A's, the normal flipped.
      Manifold part;
      collide(t, cube, Pose(pb.position + pb.rotation * j.position, pb.orientation), cube,
              Pose(pa.position + pa.rotation * i.position, pa.orientation), margin, part);
      part.flip();
      candidates += part.count;
      for (int k = 0; k < part.count; ++k) {
        if (part.gap[k] > 0.0) continue;
        ++overlapping;
        bool kept = false;
        for (int q = 0; q < m.count && !kept; ++q)
          kept = (m.point[q] - part.point[k]).norm() < 1e-12 && m.gap[q] == part.gap[k] &&
                 (m.normal_at(q) - part.normal_at(k)).norm() < 1e-12;
        EXPECT_TRUE(kept) << "gap " << part.gap[k] / a << " at "
                          << (pa.rotation.transpose() * (part.point[k] - pa.position)).transpose();
        // The corner of A's -z arm at (-a/2, -a/2, -3a/2) in A's frame.
        const Vec3 local = pa.rotation.transpose() * (part.point[k] - pa.position);
        if ((local - Vec3(-0.5 * a, -0.5 * a, -1.5 * a)).norm() < 0.05 * a && kept &&
            part.gap[k] < -0.045 * a)
          corner = true;
      }
    }
  EXPECT_GT(candidates, 2 * Manifold::kMaxPoints);
  EXPECT_GE(overlapping, 6);
  EXPECT_LT(overlapping, Manifold::kMaxPoints);
  EXPECT_TRUE(corner);
}

/// A 2a x a x a bar made of two cubes of side a touching at x = 0 (the glued faces are hidden).
int add_bar(ShapeTable& t, double a) {
  const int cube = t.add_box("bar_cube", Vec3::Constant(0.5 * a));
  const std::vector<CompoundPart> parts{{cube, Vec3(-0.5 * a, 0, 0)}, {cube, Vec3(0.5 * a, 0, 0)}};
  return t.add_compound("bar", make_compound(t, parts));
}

TEST(CollideCompound, NoContactThroughTheFaceWhereTwoPartsTouch) {
  // A flat box pressed 0.01 a into the bar's flat top (z = a/2) across the seam x = 0, reaching
  // only 0.005 a over the left cube: that cube's least-penetration axis is its +x face, which is
  // glued to the right cube. The surface is flat there: every point must push along z.
  ShapeTable t;
  const double a = 0.02, d = 0.01 * a;
  const int s = add_bar(t, a);
  const int slab = t.add_box("slab", Vec3(0.25 * a, 0.2 * a, 0.1 * a));
  const Pose pa(Vec3::Zero(), Quat::Identity());
  const Pose pb(Vec3(-0.005 * a + 0.25 * a, 0.0, 0.5 * a + 0.1 * a - d), Quat::Identity());
  for (bool reversed : {false, true}) {
    Manifold m;
    if (reversed)
      collide(t, slab, pb, s, pa, 0.0, m);
    else
      collide(t, s, pa, slab, pb, 0.0, m);
    ASSERT_GE(m.count, 4);
    for (int k = 0; k < m.count; ++k) {
      EXPECT_NEAR(std::abs(m.normal_at(k).z()), 1.0, 1e-12)
          << "point " << k << " normal " << m.normal_at(k).transpose();
      EXPECT_NEAR(m.gap[k], -d, 1e-12);
    }
  }
  // The left cube alone reports the glued face (normal x, the shallow gap): what is dropped.
  Manifold cube;
  collide(t, t.compound(s).parts[0].shape, Pose(Vec3(-0.5 * a, 0, 0), Quat::Identity()), slab, pb,
          0.0, cube);
  ASSERT_GT(cube.count, 0);
  EXPECT_NEAR(std::abs(cube.normal_at(0).x()), 1.0, 1e-12);
  EXPECT_NEAR(cube.gap[0], -0.005 * a, 1e-12);
}

TEST(CollideCompound, ContactsAtAConcaveCornerAreKept) {
  // An L of three cubes (at the origin, at +a along x, at +a along z) has a concave corner line
  // where the top of the second meets the +x face of the third; a box pressed into that inner
  // corner touches both faces and keeps the four points of each, those on the line included.
  ShapeTable t;
  const double a = 0.02;
  const int cube = t.add_box("c", Vec3::Constant(0.5 * a));
  const std::vector<CompoundPart> parts{
      {cube, Vec3::Zero()}, {cube, Vec3(a, 0, 0)}, {cube, Vec3(0, 0, a)}};
  const int l = t.add_compound("l", make_compound(t, parts));
  const int box = t.add_box("box", Vec3::Constant(0.2 * a));
  // In the input frame the inner corner line is x = a/2, z = a/2 (the top of cube 1 meets the
  // +x face of cube 2); the box sits in it, 0.001 a into both faces.
  const Compound& c = t.compound(l);
  const Pose pa(c.input_centre, c.input_rotation);  // body frame -> the frame the parts were in
  const Pose pb(Vec3(0.7 * a - 0.001 * a, 0, 0.7 * a - 0.001 * a), Quat::Identity());
  Manifold m;
  collide(t, l, pa, box, pb, 0.0, m);
  int along_x = 0, along_z = 0;
  for (int k = 0; k < m.count; ++k) {
    along_x += std::abs(m.normal_at(k).x()) > 1.0 - 1e-12;
    along_z += std::abs(m.normal_at(k).z()) > 1.0 - 1e-12;
  }
  EXPECT_EQ(along_x, 4);
  EXPECT_EQ(along_z, 4);
}

TEST(CollideCompound, ABodyOnlyAtAHiddenFaceIsStillPushedOut) {
  // A turned cube's corner dips 0.01 a into the bar's top 0.002 a beyond the seam: only the right
  // cube meets it, and its nearest face is the glued one. Dropping that point would leave no
  // contact and let the cube sink through the bar; the pair keeps it.
  ShapeTable t;
  const double a = 0.02;
  const int s = add_bar(t, a);
  const int cube = t.add_box("cube", Vec3::Constant(0.2 * a));
  const Quat corner_down = Quat::FromTwoVectors(Vec3(1, 1, 1).normalized(), Vec3(0, 0, -1));
  const double reach = 0.2 * a * std::sqrt(3.0);  // centre to corner
  const Pose pb(Vec3(0.002 * a, 0.0, 0.5 * a - 0.01 * a + reach), corner_down);
  Manifold m;
  collide(t, s, Pose(Vec3::Zero(), Quat::Identity()), cube, pb, 0.0, m);
  ASSERT_GT(m.count, 0);
  double deepest = 0.0;
  for (int k = 0; k < m.count; ++k) deepest = std::min(deepest, m.gap[k]);
  EXPECT_LT(deepest, -1e-3 * a);
}

TEST(CollideCompound, CompoundOfOnePartEqualsThePart) {
  ShapeTable t;
  const int box = t.add_box("box", Vec3(0.02, 0.01, 0.005));
  const int tet = t.add_polyhedron(
      "tet", std::vector<Vec3>{Vec3(0.01, 0.01, 0.01), Vec3(0.01, -0.01, -0.01),
                               Vec3(-0.01, 0.01, -0.01), Vec3(-0.01, -0.01, 0.01)});
  const int ball = t.add_sphere("ball", 0.008);
  const int plane = t.add_plane("plane");
  const int one =
      t.add_compound("one", make_compound(t, std::vector<CompoundPart>{{box, Vec3::Zero()}}));
  const Pose pa(Vec3(0.001, 0.002, 0.0), Quat(0.95, 0.1, 0.2, -0.1).normalized());
  for (const auto& [other, pose] :
       {std::pair{tet, Pose(Vec3(0.004, 0.001, 0.014), Quat(0.8, -0.3, 0.1, 0.4).normalized())},
        std::pair{ball, Pose(Vec3(0.0, 0.003, 0.015), Quat::Identity())},
        std::pair{box, Pose(Vec3(0.01, 0.0, 0.0095), Quat::Identity())},
        std::pair{plane, Pose(Vec3(0, 0, -0.012), Quat::Identity())}}) {
    Manifold part, comp, rev;
    collide(t, box, pa, other, pose, 1e-3, part);
    collide(t, one, pa, other, pose, 1e-3, comp);
    collide(t, other, pose, one, pa, 1e-3, rev);
    ASSERT_GT(part.count, 0) << t.name[other];
    expect_same(part, comp, false, 1e-14);
    expect_same(part, rev, true, 1e-14);
  }
}

}  // namespace
}  // namespace etdem
