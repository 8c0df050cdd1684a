#include "etdem/validation/cases.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "etdem/collision/collide.hpp"
#include "etdem/solvers/etm.hpp"
#include "etdem/solvers/impulse.hpp"
#include "etdem/solvers/lzb.hpp"
#include "etdem/validation/balls.hpp"
#include "etdem/validation/incline.hpp"
#include "etdem/validation/island.hpp"
#include "etdem/validation/lzb_tables.hpp"
#include "etdem/validation/planar_cases.hpp"
#include "etdem/validation/scene.hpp"

namespace etdem::validation {

bool Check::pass(double scale) const {
  if (kind == Kind::Reported) return true;
  if (!std::isfinite(ours)) return false;
  switch (kind) {
    case Kind::Reported:
    case Kind::Below:
      return ours <= paper;
    case Kind::Above:
      return ours >= paper;
    case Kind::Near:
      break;
  }
  return std::abs(ours - paper) <= tolerance * scale;
}

namespace {

/// Contacts of a manifold between island bodies a and b (b = -1: static), e = 1, mu = 0.
std::vector<Contact> contacts(const Manifold& m, int a, const Vec3& xa, int b, const Vec3& xb) {
  std::vector<Contact> out;
  add_manifold_contacts(out, m, a, b, xa, xb, 1.0, 0.0);
  return out;
}

/// ETM with `lambda` on the island's contacts.
SolverStats solve_etm(std::vector<Contact>& cs, IslandBodies& view, int lambda) {
  EtmSettings st;
  st.lambda = lambda;
  EtmSolver solver(st);
  solver.prepare(1);
  return solver.resolve(cs, view, 0);
}

// ---------------------------------------------------------------------------------------------
// V1. Tetrahedron B lies with one face up in the plane z = 0; tetrahedron A points one vertex
// down onto that face, 1 mm above it, away from B's edges and centroid, with its other vertices
// about 1 m higher. All coordinates in metres, world frame.
const std::vector<Vec3> kTetB = {Vec3(1.0, 0.1, 0.0), Vec3(-0.6, 0.9, 0.0), Vec3(-0.4, -0.8, 0.0),
                                 Vec3(0.1, -0.1, -1.2)};
const Vec3 kApexA(0.15, 0.05, 1e-3);
const std::vector<Vec3> kTetA = {kApexA, Vec3(0.7, 0.1, 1.0), Vec3(-0.3, 0.6, 1.1),
                                 Vec3(-0.2, -0.5, 0.9)};

}  // namespace

V1Result v1_tetrahedra(int lambda) {
  ShapeTable shapes;
  const int sa = shapes.add_polyhedron("a", kTetA), sb = shapes.add_polyhedron("b", kTetB);
  const ConvexPolyhedron &ha = shapes.polyhedron(sa), &hb = shapes.polyhedron(sb);
  // Bodies at their centres of mass, turned so their vertices are where the lists put them.
  const Pose pa(ha.input_centre, ha.input_rotation), pb(hb.input_centre, hb.input_rotation);
  Manifold m;
  collide(shapes, sa, pa, sb, pb, 0.01, m);
  V1Result r;
  r.points = m.count;
  if (m.count != 1) return r;
  r.gap = m.gap[0];
  r.normal_error = (m.normal - Vec3::UnitZ()).norm();
  r.point_error = (m.point[0] - (kApexA - Vec3(0, 0, 0.5e-3))).norm();

  Island is;
  const int a = is.add(shapes.mass_properties(sa, kV1Density), pa.position, pa.orientation,
                       Vec3(0, 0, -100), Vec3(5, 10, 3));
  const int b = is.add(shapes.mass_properties(sb, kV1Density), pb.position, pb.orientation,
                       Vec3::Zero(), Vec3::Zero());
  std::vector<Contact> cs = contacts(m, a, pa.position, b, pb.position);
  IslandBodies view = is.view();
  r.un0 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  const Mat3 k = impulse::collision_matrix(cs[0], view);
  r.w_peak = 0.5 * r.un0 * r.un0 / cs[0].normal.dot(k * cs[0].normal);  // elastic energy at s_c
  r.ke0 = is.energy();
  const Vec3 p0 = is.momentum(), l0 = is.angular_momentum();
  r.stats = solve_etm(cs, view, lambda);
  r.un1 = cs[0].normal.dot(impulse::relative_velocity(cs[0], view));
  r.energy_error = std::abs(is.energy() - r.ke0) / r.ke0;
  r.dp = is.momentum() - p0;
  r.dl = is.angular_momentum() - l0;
  return r;
}

std::vector<Vec3> cube_vertices(double h) {
  std::vector<Vec3> p;
  for (int k = 0; k < 8; ++k) p.emplace_back((k & 1) ? h : -h, (k & 2) ? h : -h, (k & 4) ? h : -h);
  return p;
}

/// `free_lower`: the lower cube is a free body at rest (else fixed). `order`: the order in which
/// the manifold's points are handed to the solver (empty: as the narrow phase returns them).
V2Result v2_half_cube(int lambda, bool free_lower, std::vector<int> order) {
  ShapeTable shapes;
  const int cube = shapes.add_polyhedron("cube", cube_vertices(0.5));
  const Pose pa(Vec3(0.5, 0.0, 1.0 + 1e-3), Quat::Identity()), pb(Vec3::Zero(), Quat::Identity());
  Manifold m;
  collide(shapes, cube, pa, cube, pb, 0.01, m);
  V2Result r;
  r.points = m.count;
  if (m.count != 4) return r;
  r.normal_error = (m.normal - Vec3::UnitZ()).norm();
  for (int k = 0; k < m.count; ++k) {
    r.gap_error = std::max(r.gap_error, std::abs(m.gap[k] - 1e-3));
    r.x_min = std::min(r.x_min, m.point[k].x());
    r.x_max = std::max(r.x_max, m.point[k].x());
  }
  Island is;
  const MassProperties mp = shapes.mass_properties(cube, kV1Density);
  const int a = is.add(mp, pa.position, Quat::Identity(), Vec3(0, 0, -10), Vec3::Zero());
  int b = -1;
  if (free_lower) b = is.add(mp, pb.position, Quat::Identity(), Vec3::Zero(), Vec3::Zero());
  std::vector<Contact> all = contacts(m, a, pa.position, b, pb.position), cs;
  if (order.empty()) order = {0, 1, 2, 3};
  for (int k : order) cs.push_back(all[k]);
  IslandBodies view = is.view();
  const double e0 = is.energy();
  const Vec3 p0 = is.momentum(), l0 = is.angular_momentum();
  r.stats = solve_etm(cs, view, lambda);
  r.v = is.v[a];
  r.w = is.w[a];
  r.energy_error = std::abs(is.energy() - e0) / e0;
  r.dp = is.momentum() - p0;
  r.dl = is.angular_momentum() - l0;
  return r;
}

V3Result v3_box_onto_ground(int lambda) {
  Scene t(1.0, 0.0);
  t.world.settings.solver_settings<EtmSettings>().lambda = lambda;
  t.world.settings.resting_velocity = 0.0;
  t.add_floor();
  const int box =
      t.add_box(Vec3(1, 1, 0.5), Vec3(0, 0, 0.5 + 0.1), Quat::Identity(), Vec3(1, 1, -10));
  t.world.initialize();
  const double e0 = t.kinetic();
  t.simulate(0.1);  // the box covers 0.1 m in 6 steps; it has bounced by then
  const Vec3 v = t.world.bodies.velocity[box];
  return {v.x(), v.y(), v.z(), t.world.bodies.angular_velocity[box].norm(),
          std::abs(t.kinetic() - e0) / e0};
}

V4Result v4_spheres_into_box(int layers) {
  Scene t(1.0, 0.0);
  t.world.settings.gravity = Vec3(0, 0, -9.81);
  t.world.settings.resting_velocity = 0.0;  // fully elastic: no inelastic resting treatment
  t.world.settings.projection = 0.0;        // no position correction either
  const double r = 0.05, s = 0.12;
  t.add_container(Vec3(0, 0, 0), Vec3(9 * s, 6 * s, 10));
  fill_spheres(t, 9, 6, layers, r, s, Vec3(0, 0, 0.2), 0.0, 42, 0.5);
  t.world.initialize();
  // The paper's measure (Eqs. 67-68): E_t = sum of potential and kinetic energy, compared
  // before and after each step. Nothing is dissipated (e = 1, mu = 0), so what changes E_t is
  // the collision resolution and the time integration under gravity.
  V4Result out;
  double prev = t.world.ledger().total();
  for (int k = 0; k < 250; ++k) {
    t.world.step();
    const EnergyLedger& l = t.world.ledger();
    out.worst = std::max(out.worst, std::abs(l.total() - prev) / prev);
    out.residual = std::max(out.residual, std::abs(l.residual()) / l.total());
    prev = l.total();
  }
  out.restitution = t.world.ledger().restitution;
  out.guards = t.world.totals().solver.guards_fired;
  return out;
}

namespace {

using Kind = Check::Kind;

std::vector<Check> run_v1() {
  double worst = 0.0, reversal = 0.0;
  for (int lambda : {1, 5, 10, 100, 200, 500}) {
    const V1Result r = v1_tetrahedra(lambda);
    if (r.points != 1)
      return {{"V1", "contact points of the vertex-face contact", 1, double(r.points), 0.0,
               Kind::Near, "the narrow phase"}};
    worst = std::max(worst, r.energy_error);
    reversal = std::max(reversal, std::abs(r.un1 + r.un0) / std::abs(r.un0));
  }
  return {{"V1", "relative energy error, lambda 1..500 (worst)", 1e-13, worst, 0.0, Kind::Below,
           "round-off: the paper reports 1.7e-16 .. 1.5e-14 for its tetrahedra (not given); "
           "ours (docs/validation.md) reach 2.3e-14 at lambda 500"},
          {"V1", "|u_n after + u_n before| / |u_n|, lambda 1..500", 1e-12, reversal, 0.0,
           Kind::Below, "e = 1: the normal velocity reverses"}};
}

std::vector<Check> run_v2() {
  double worst = 0.0, smallest_spin = 1e300;
  for (int lambda : {1, 10, 100, 200}) {
    std::vector<int> order = {0, 1, 2, 3};
    do {  // every order of the four points: ETM's ties are broken by contact index
      const V2Result r = v2_half_cube(lambda, false, order);
      if (r.points != 4)
        return {{"V2", "contact points of the offset cube", 4, double(r.points), 0.0, Kind::Near,
                 "the narrow phase"}};
      worst = std::max(worst, r.energy_error);
      smallest_spin = std::min(smallest_spin, r.w.norm());
    } while (std::next_permutation(order.begin(), order.end()));
  }
  return {{"V2", "relative energy error, lambda 1..200, 24 point orders", 1e-12, worst, 0.0,
           Kind::Below, "e = 1: conserved"},
          {"V2", "smallest |omega| [rad/s], lambda 1..200, 24 orders", 1e-3, smallest_spin, 0.0,
           Kind::Above, "the off-centre impact turns the cube (Fig. 7)"}};
}

std::vector<Check> run_v3() {
  std::vector<Check> out;
  for (int lambda : {10, 200}) {
    const V3Result r = v3_box_onto_ground(lambda);
    const std::string l = fmt::format(" (lambda {})", lambda);
    out.push_back({"V3", "v_x after [m/s]" + l, 1.0, r.vx, 1e-12, Kind::Near, "exact"});
    out.push_back({"V3", "v_z after [m/s]" + l, 10.0, r.vz, 10.0 / lambda, Kind::Near,
                   "exact; ETM's one-corner-at-a-time spin takes O(1/lambda)"});
    out.push_back({"V3", "relative kinetic energy change" + l, 1e-12, r.energy_error, 0.0,
                   Kind::Below, "e = 1: conserved"});
    out.push_back({"V3", "|omega| [rad/s]" + l, 25.0 / lambda, r.spin, 0.0, Kind::Below,
                   "exact 0; falls as 1/lambda (Fig. 8b)"});
  }
  return out;
}

std::vector<Check> run_v4(int layers) {
  const V4Result r = v4_spheres_into_box(layers);
  const std::string n = fmt::format("{} spheres: ", 54 * layers);
  return {{"V4", n + "max relative energy change per step", 8e-3, r.worst, 0.0, Kind::Below,
           "the paper's bound (Fig. 9)"},
          {"V4", n + "restitution loss [J]", 0.0, r.restitution, 0.0, Kind::Near, "e = 1"},
          {"V4", n + "max ledger residual / total", 1e-9, r.residual, 0.0, Kind::Below,
           "ledger closes"}};
}

std::vector<Check> run_v6() {
  std::vector<Check> out;
  for (double phi : {20.0, 25.0}) {
    Incline inc(30.0, phi);
    inc.t.simulate(1.0);
    const double th = 30.0 * M_PI / 180, mu = std::tan(phi * M_PI / 180);
    const double d = inc.distance();
    const double expected = std::sqrt(2 * 9.81 * d * (std::sin(th) - mu * std::cos(th)));
    out.push_back({"V6", fmt::format("speed after 1 s [m/s], friction angle {:g} deg", phi),
                   expected, inc.speed(), 0.01 * expected, Kind::Near,
                   "sqrt(2 g d (sin t - mu cos t)) at the distance slid, 1 %"});
  }
  Incline stick(30.0, 35.0);
  stick.t.simulate(1.0);
  out.push_back({"V6", "distance after 1 s [m], friction angle 35 deg", 0.0, stick.distance(), 5e-5,
                 Kind::Near, "stays"});
  return out;
}

std::vector<Check> run_v8() {
  std::vector<Check> out;
  for (double speed : {100.0, 1000.0}) {
    Scene t(0.5, 0.3);
    t.world.settings.gravity = Vec3(0, 0, -9.81);
    t.add_floor();
    const double r = 0.01;
    const int s = t.add_sphere(r, Vec3(0.0, 0.0, 0.5), Vec3(0.3 * speed, 0, -speed));
    double lowest = 1e9;
    for (int k = 0; k < 600; ++k) {
      t.world.step();
      lowest = std::min(lowest, t.world.bodies.position[s].z());
    }
    out.push_back({"V8", fmt::format("lowest centre height [m], sphere at {:g} m/s", speed), 0.0,
                   lowest, 0.0, Kind::Above, "never through the plane (r/dt = 6 m/s)"});
  }
  return out;
}

LzbSettings lzb(double eta, LzbSettings::Model model) {
  LzbSettings s;
  s.eta = eta;
  s.model = model;
  s.steps = 50'000;
  return s;
}

std::vector<Check> run_three_balls(const ThreeBallRow (&rows)[4], LzbSettings::Model model,
                                   const char* table) {
  std::vector<Check> out;
  for (const ThreeBallRow& row : rows) {
    const BallType& t = kBalls[row.ball];
    Balls b = chain({t.mass, t.mass, t.mass}, {1.0}, {t.e}, {1.0});
    LzbSolver solver(lzb(1.5, model));
    (void)b.solve(solver);
    double sum = 0.0;
    for (const Vec3& v : b.v) sum += v.x() * v.x();
    const Printed* printed[4] = {&row.v1, &row.v2, &row.v3, &row.sum};
    const double ours[4] = {b.v[0].x(), b.v[1].x(), b.v[2].x(), sum};
    const char* names[4] = {"v1 [m/s]", "v2 [m/s]", "v3 [m/s]", "sum v^2"};
    for (int k = 0; k < 4; ++k)
      out.push_back({fmt::format("V7 {}", table), fmt::format("ball {}: {}", t.name, names[k]),
                     printed[k]->value, ours[k], printed[k]->tol, Kind::Near,
                     printed[k]->tol > 0.0006 ? "the paper's digit 0.6-0.7 of a unit off" : ""});
  }
  return out;
}

std::vector<Check> run_five_balls() {
  std::vector<Check> out;
  for (const FiveBallRow& r : kFive) {
    const double m = 1.0 / r.alpha;
    Balls b = chain({1.0, m, m, m, m}, {1.0}, {1.0}, {r.gamma, 1.0, 1.0, 1.0});
    LzbSolver solver(lzb(1.0, LzbSettings::Model::Mono));
    (void)b.solve(solver);
    for (int i = 0; i < 5; ++i)
      out.push_back(
          {"V7 Table 4",
           fmt::format("(alpha, gamma) = ({:g}, {:g}): v{} [m/s]", r.alpha, r.gamma, i + 1),
           r.table4[i], b.v[i].x(), 1e-3, Kind::Near,
           "the table's rows miss energy by 5e-4: 1e-3"});
  }
  return out;
}

}  // namespace

const std::vector<Case>& cases() {
  static const std::vector<Case> list = {
      {"V1", "two tetrahedra, single-point impact at 100 m/s, e = 1 (ETM 2014 §7.1)", false,
       run_v1},
      {"V2", "a cube onto a cube offset by half a side, e = 1 (ETM 2014 §7.2)", false, run_v2},
      {"V3", "2 x 2 x 1 m box onto the ground at (1, 1, -10) m/s, e = 1 (ETM 2014 §7.3)", false,
       run_v3},
      {"V4", "540 elastic spheres into a box, 250 steps (ETM 2014 §7.4)", false,
       [] { return run_v4(10); }},
      {"V4 1080", "1080 elastic spheres into a box, 250 steps (ETM 2014 §7.4)", true,
       [] { return run_v4(20); }},
      {"V6", "block on a 30 degree incline (friction angles 20, 25, 35 deg)", false, run_v6},
      {"V8", "a fast sphere against a plane: no tunnelling", false, run_v8},
      {"V7 Table 2", "LZB three-ball chains, mono-stiffness (LZB 2009 Tables 2, 3)", false,
       [] { return run_three_balls(kMono, LzbSettings::Model::Mono, "Table 2"); }},
      {"V7 Table 3", "LZB three-ball chains, bi-stiffness (LZB 2009 Table 3)", false,
       [] { return run_three_balls(kBi, LzbSettings::Model::Bi, "Table 3"); }},
      {"V7 Table 4", "LZB five-ball chains (LZB 2009 Table 4)", false, run_five_balls},
      {"V7 Bernoulli", "Bernoulli's three balls: Table 6, Eq. 4.2, plastic, mixed (LZB 2009 §4a-b)",
       false, run_bernoulli},
      {"V7 four balls", "planar four-ball systems, cases A and B (LZB 2009 §4c)", false,
       run_four_balls},
  };
  return list;
}

}  // namespace etdem::validation
