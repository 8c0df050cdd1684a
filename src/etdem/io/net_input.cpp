#include "etdem/io/net_input.hpp"

#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "etdem/world/world.hpp"

namespace etdem {
namespace {

/// Dashpots stiffer than this damping ratio are refused (a link 10 times overdamped creeps).
constexpr double kMaxDampingRatio = 10.0;
/// [N/m] stiffest link accepted.
constexpr double kMaxStiffness = 1e12;
/// The time step must not exceed this fraction of the net's shortest period (symplectic Euler
/// is stable below 1/pi and its frequency error is (omega dt)^2 / 24 = 1.6 % at 1/10).
constexpr double kPeriodFraction = 0.1;

constexpr const char* kEdges[4] = {"u0", "u1", "v0", "v1"};

Vec3 unit_axis(const TomlReader& r, std::string_view key, const Vec3& fallback) {
  const Vec3 a = r.vec3(key, fallback);
  const double n = a.norm();
  if (!(n > 1e-12) || !std::isfinite(n)) r.fail(key, "must be a non-zero direction");
  return a / n;
}

}  // namespace

NetSpec read_net(const TomlReader& r, Scenario& sc, std::set<std::string>& names) {
  NetSpec n;
  n.line = r.line();
  n.name = r.string("name");
  if (n.name.empty()) r.fail("name", "must not be empty");
  if (n.name.find_first_not_of(
          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != std::string::npos)
    r.fail("name", "letters, digits, '_' and '-' only (it names the file net_NAME.csv)");
  if (!names.insert(n.name).second) r.fail("name", "duplicate net name");
  const std::string pattern = r.string("pattern", "square");
  if (pattern == "square")
    n.pattern = NetPattern::Square;
  else if (pattern == "hexagonal")
    n.pattern = NetPattern::Hexagonal;
  else
    r.fail("pattern", "unknown pattern (known: square, hexagonal)");
  n.origin = r.vec3("origin");
  if (n.origin.cwiseAbs().maxCoeff() > kMaxCoordinate)
    r.fail("origin", fmt::format("lies beyond {:g} m of the origin", kMaxCoordinate));
  n.axis_u = unit_axis(r, "axis_u", n.axis_u);
  n.axis_v = unit_axis(r, "axis_v", n.axis_v);
  if (std::abs(n.axis_u.dot(n.axis_v)) > 1e-6)
    r.fail("axis_v",
           fmt::format("must be orthogonal to axis_u (the cosine of their angle is {:.3g})",
                       n.axis_u.dot(n.axis_v)));
  const std::vector<double> counts = r.numbers("counts", 2);
  for (double c : counts)
    if (!(c == std::floor(c) && c >= 2 && c <= 10000))
      r.fail("counts", "must be two whole numbers of nodes [nu, nv], each in [2, 10000]");
  n.nu = static_cast<int>(counts[0]);
  n.nv = static_cast<int>(counts[1]);
  n.spacing = r.number("spacing");
  if (!(n.spacing > 0.0 && std::isfinite(n.spacing))) r.fail("spacing", "must be finite and > 0");
  n.node_radius = r.number("node_radius");
  if (!(n.node_radius > 0.0 && std::isfinite(n.node_radius)))
    r.fail("node_radius", "must be finite and > 0");
  if (n.node_radius >= 0.5 * n.spacing)
    r.fail("node_radius",
           fmt::format("neighbouring nodes overlap: the radius must be below spacing / 2 = {:g} m",
                       0.5 * n.spacing));
  const std::string material = r.string("material");
  n.material = -1;
  for (std::size_t m = 0; m < sc.materials.size(); ++m)
    if (sc.materials[m].name == material) n.material = static_cast<int>(m);
  if (n.material < 0) r.fail("material", "unknown material name");
  n.stiffness = r.number("stiffness");
  if (!(n.stiffness > 0.0 && n.stiffness <= kMaxStiffness))
    r.fail("stiffness", fmt::format("must be in (0, {:g}] N/m", kMaxStiffness));
  n.damping = r.number("damping", 0.0);
  if (!(n.damping >= 0.0 && n.damping <= kMaxDampingRatio))
    r.fail("damping", fmt::format("the damping ratio must be in [0, {:g}]", kMaxDampingRatio));
  if (r.has("clamp")) {
    for (const std::string& e : r.strings("clamp")) {
      int k = 0;
      while (k < 4 && e != kEdges[k]) ++k;
      if (k == 4) r.fail("clamp", fmt::format("unknown edge '{}' (known: u0, u1, v0, v1)", e));
      n.clamp[k] = true;
    }
  }
  n.prestrain = r.number("prestrain", 0.0);
  if (!(n.prestrain >= 0.0 && n.prestrain < 1.0)) r.fail("prestrain", "must be in [0, 1)");
  n.break_strain = r.number("break_strain", 0.0);
  if (!(n.break_strain >= 0.0 && n.break_strain <= 10.0))
    r.fail("break_strain", "must be in [0, 10] (0: links never break)");
  if (n.break_strain > 0.0 && n.break_strain <= n.prestrain)
    r.fail("break_strain", fmt::format("must exceed the prestrain {:g}", n.prestrain));
  // The links' stiffness against the time step.
  const double density = sc.materials[n.material].density;
  const double mass = density * 4.0 / 3.0 * std::numbers::pi * std::pow(n.node_radius, 3);
  const double period = net_shortest_period(n.pattern, n.stiffness, mass);
  if (sc.settings.dt > kPeriodFraction * period)
    r.fail(
        "stiffness",
        fmt::format("net '{}': its links vibrate with a period of {:.4g} s (nodes of {:.4g} kg); "
                    "simulation.dt = {:g} s exceeds {:g} of it: lower dt or the stiffness",
                    n.name, period, mass, sc.settings.dt, kPeriodFraction));
  const std::string shape = n.name + ".node";
  for (int s = 0; s < sc.shapes.size(); ++s)
    if (sc.shapes.name[s] == shape)
      r.fail("name", fmt::format("a shape is already named '{}'", shape));
  n.shape = sc.shapes.add_sphere(shape, n.node_radius);
  sc.shape_sources.push_back(ShapeSource{"", {}, n.line});
  r.finish();
  return n;
}

void add_nets(const Scenario& sc, const std::vector<int>& material_id, World& world,
              std::vector<BodyOrigin>& origin) {
  for (std::size_t k = 0; k < sc.nets.size(); ++k) {
    const NetSpec& s = sc.nets[k];
    const NetLayout layout =
        net_layout(s.pattern, s.origin, s.axis_u, s.axis_v, s.nu, s.nv, s.spacing);
    Net net;
    net.name = s.name;
    net.nu = s.nu;
    net.nv = s.nv;
    net.break_strain = s.break_strain;
    net.start = layout.positions;
    net.normal = s.axis_u.cross(s.axis_v);
    for (std::size_t i = 0; i < layout.positions.size(); ++i) {
      bool held = false;
      for (int e = 0; e < 4; ++e) held = held || (s.clamp[e] && layout.on_edge[e][i]);
      net.nodes.push_back(world.add_body(s.shape, material_id[s.material], layout.positions[i],
                                         Quat::Identity(), Vec3::Zero(), Vec3::Zero(), held));
      net.clamped.push_back(held);
      origin.push_back({BodyOrigin::Kind::Net, static_cast<int>(k), static_cast<long>(i)});
    }
    const Bodies& b = world.bodies;
    for (const auto& [i, j] : layout.links) {
      NetLink l;
      l.a = net.nodes[i];
      l.b = net.nodes[j];
      l.rest = s.spacing / (1.0 + s.prestrain);
      l.stiffness = s.stiffness;
      const double inv = b.inv_mass[l.a] + b.inv_mass[l.b];
      l.damping = inv > 0.0 ? 2.0 * s.damping * std::sqrt(s.stiffness / inv) : 0.0;
      net.links.push_back(l);
    }
    world.nets.push_back(std::move(net));
  }
}

}  // namespace etdem
