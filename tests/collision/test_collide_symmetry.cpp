// Every pair of shape types the narrow-phase table knows, generated from the table itself
// (has_collider): on random poses, collide(A, B) and collide(B, A) must agree up to the swap,
// with the normal flipped and the deepest gap equal. A new shape type or pair function is tested
// here without writing a case for it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "etdem/collision/collide.hpp"
#include "etdem/shapes/level_set_build.hpp"
#include "etdem/shapes/shape.hpp"
#include "etdem/shapes/terrain_build.hpp"

namespace etdem {
namespace {

/// One shape of every type, about 1 m across.
struct Samples {
  ShapeTable table;
  int of[static_cast<int>(ShapeType::Count)];

  Samples() {
    std::fill(std::begin(of), std::end(of), -1);
    of[int(ShapeType::Sphere)] = table.add_sphere("sphere", 0.5);
    of[int(ShapeType::Plane)] = table.add_plane("plane");
    of[int(ShapeType::Box)] = table.add_box("box", Vec3(0.4, 0.3, 0.2));
    const std::vector<Vec3> rock = {Vec3(0.5, 0, 0),   Vec3(-0.4, 0.1, 0), Vec3(0, 0.45, 0.1),
                                    Vec3(0, -0.35, 0), Vec3(0.1, 0, 0.4),  Vec3(0, 0.1, -0.3)};
    of[int(ShapeType::Polyhedron)] = table.add_polyhedron("rock", rock);
    const int cube = table.add_box("cube", Vec3(0.2, 0.2, 0.2));
    const std::vector<CompoundPart> parts = {
        {cube, Vec3(-0.2, 0, 0)}, {cube, Vec3(0.2, 0, 0)}, {cube, Vec3(0.2, 0.4, 0)}};
    of[int(ShapeType::Compound)] = table.add_compound("ell", make_compound(table, parts));
    const std::vector<Vec3> v = {Vec3(-2, -2, 0), Vec3(2, -2, 0), Vec3(2, 2, 0), Vec3(-2, 2, 0)};
    const std::vector<std::array<int, 3>> t = {{0, 1, 2}, {0, 2, 3}};
    of[int(ShapeType::Mesh)] =
        table.add_mesh("sheet", TriangleMesh::build(v, t, TriangleMesh::Facing::AsGiven));
    of[int(ShapeType::LevelSet)] = table.add_level_set(
        "grain", level_set_superellipsoid(Vec3(0.45, 0.35, 0.25), 0.6, 0.8, {0.04, 300}));
    // A gently rolling terrain around the origin.
    HeightMap ground;
    ground.nx = ground.ny = 41;
    ground.dx = ground.dy = 0.1;
    ground.x0 = ground.y0 = -2.0;
    for (int j = 0; j < 41; ++j)
      for (int i = 0; i < 41; ++i)
        ground.z.push_back(0.02 * std::sin(3.0 * (i * 0.1 - 2.0)) *
                           std::cos(2.0 * (j * 0.1 - 2.0)));
    of[int(ShapeType::Terrain)] = table.add_terrain(
        "ground", std::make_shared<Terrain>(build_terrain(std::move(ground), {0.1, 1.0})));
    for (int k = 0; k < static_cast<int>(ShapeType::Count); ++k)
      if (of[k] < 0) ADD_FAILURE() << "no sample shape of type " << k;
  }
};

bool is_static(ShapeType t) {
  return t == ShapeType::Plane || t == ShapeType::Mesh || t == ShapeType::Terrain;
}

/// The deepest point's gap and normal.
std::pair<double, Vec3> deepest(const Manifold& m) {
  int k = 0;
  for (int i = 1; i < m.count; ++i)
    if (m.gap[i] < m.gap[k]) k = i;
  return {m.gap[k], m.point_normal[k]};
}

struct TypePair {
  ShapeType a, b;
};

std::vector<TypePair> registered_pairs() {
  std::vector<TypePair> out;
  for (int a = 0; a < static_cast<int>(ShapeType::Count); ++a)
    for (int b = a; b < static_cast<int>(ShapeType::Count); ++b)
      if (has_collider(ShapeType(a), ShapeType(b))) out.push_back({ShapeType(a), ShapeType(b)});
  return out;
}

class CollideSymmetry : public ::testing::TestWithParam<TypePair> {};

TEST_P(CollideSymmetry, SwappedPairFlipsTheNormalAndKeepsTheDeepestGap) {
  const TypePair p = GetParam();
  ASSERT_TRUE(has_collider(p.b, p.a));
  static const Samples s;
  const int sa = s.of[int(p.a)], sb = s.of[int(p.b)];
  std::mt19937_64 rng(1234 + 16 * int(p.a) + int(p.b));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random_rotation = [&] {
    return Quat(Eigen::AngleAxisd(M_PI * u(rng), Vec3(u(rng), u(rng), u(rng)).normalized()));
  };
  const double margin = 0.05;
  int compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Contacts as the engine meets them: a shallow penetration (up to 1 % of the sizes) or a
    // small gap within the margin, found by bisection along a random direction. A static shape
    // lies flat at the origin and the other comes down onto it.
    const bool a_moves = !is_static(p.a);
    Pose fixed(Vec3::Zero(),
               is_static(p.a) || is_static(p.b) ? Quat::Identity() : random_rotation());
    const Quat turn = random_rotation();
    Vec3 d(u(rng), u(rng), u(rng));
    if (is_static(p.a) || is_static(p.b)) d = Vec3(0.2 * u(rng), 0.2 * u(rng), 1.0);
    d.normalize();
    const double target = 0.01 * u(rng);  // deepest gap wanted, [-0.01, 0.01] m
    Manifold m;
    auto gap_at = [&](double t) {
      const Pose moving(t * d, turn);
      if (a_moves)
        collide(s.table, sa, moving, sb, fixed, margin, m);
      else
        collide(s.table, sa, fixed, sb, moving, margin, m);
      return m.count ? deepest(m).first : margin;
    };
    // Starting just above a static shape: a one-sided mesh sees nothing of a body centred on it.
    double lo = is_static(p.a) || is_static(p.b) ? 0.05 : 0.0, hi = 3.0;
    if (gap_at(lo) > target) continue;
    for (int k = 0; k < 60; ++k) {
      const double mid = 0.5 * (lo + hi);
      (gap_at(mid) < target ? lo : hi) = mid;
    }
    const Pose moving(hi * d, turn);
    const Pose pa = a_moves ? moving : fixed;
    const Pose pb = a_moves ? fixed : moving;
    Manifold ab, ba;
    collide(s.table, sa, pa, sb, pb, margin, ab);
    collide(s.table, sb, pb, sa, pa, margin, ba);
    const std::string where =
        fmt::format("{} x {}, trial {}", shape_type_name(p.a), shape_type_name(p.b), trial);
    if (ab.count == 0 || ba.count == 0) {
      // Only a pair at the edge of the margin may be seen from one side alone.
      const Manifold& m = ab.count ? ab : ba;
      if (m.count) {
        EXPECT_GT(deepest(m).first, margin - 1e-6) << where;
      }
      continue;
    }
    // The deepest gap is the same seen from either side; the manifold's normal (its separating
    // axis) is flipped. Points may carry normals of their own (an edge contact with the nearby
    // face points, a compound's parts), which need not pair up point by point.
    EXPECT_NEAR(deepest(ab).first, deepest(ba).first, 1e-9) << where;
    EXPECT_NEAR(ab.normal.norm(), 1.0, 1e-12) << where;
    if (!ab.mixed && !ba.mixed) {
      EXPECT_LE((ab.normal + ba.normal).norm(), 1e-9)
          << where << ": normals " << ab.normal.transpose() << " and " << ba.normal.transpose()
          << " are not opposite";
    } else {
      // Merged manifolds (compounds): the deepest point has its flipped twin on the other side.
      const auto [g, n] = deepest(ab);
      bool twin = false;
      for (int k = 0; k < ba.count; ++k)
        twin = twin || (std::abs(ba.gap[k] - g) <= 1e-9 && (ba.point_normal[k] + n).norm() <= 1e-9);
      EXPECT_TRUE(twin) << where << ": no point with gap " << g << " and normal " << -n.transpose();
    }
    ++compared;
  }
  EXPECT_GT(compared, 20) << "too few random poses touched";
}

INSTANTIATE_TEST_SUITE_P(Pairs, CollideSymmetry, ::testing::ValuesIn(registered_pairs()),
                         [](const auto& info) {
                           return std::string(shape_type_name(info.param.a)) + "_" +
                                  shape_type_name(info.param.b);
                         });

}  // namespace
}  // namespace etdem
