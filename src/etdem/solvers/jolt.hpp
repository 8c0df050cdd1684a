// The velocity-jolt impulse method for spheres and planes (sphere-impulse appendix B, steps a-c,
// Eqs. B.1-B.22). Spheres are treated as particles: only linear velocities change.
//
//   sweep over the island's contacts in the given order, with the current velocities:
//     v_ab = v_a - v_b (centre velocities), v_n = n.v_ab; skip unless v_n < -tol  (b.2)
//     m_red_a = m_b / (m_a + m_b) (B.6), 1 against a static body (c.1 b)
//     scalar jolt v_jolt = -(1 + e) m_red v_n                                    (B.9, c.2)
//     t = v_t / |v_t|, v_t = v_ab - n v_n                                         (B.13, c.3)
//     v_a += m_red_a (j n - s t), v_b -= m_red_b (j n - s t), j = -(1 + e) v_n, s = min(mu j,
//     |v_t|)
//                                                                                 (B.15, c.4, c.6)
//   repeat sweeps until no contact approaches, at most max_sweeps (a guard, counted).
//
// Choices (docs/solvers.md):
//  - The clip of c.4 bounds the change of the relative tangential velocity, mu j <= |v_t|, and
//    each body takes its m_red share of it. Against a plane (m_red = 1) this is the printed rule;
//    between two spheres clipping each body's term at |v_t| would let the pair's slip reverse
//    (equal spheres: to -|v_t|), which the clip exists to prevent.
//  - Particles: the normal of a sphere contact passes through the centre, so the normal jolt
//    exerts no torque; the friction jolt acts on the centre only. Angular velocities are never
//    changed and never read: v_ab is the relative velocity of the centres, whose normal component
//    equals that of the contact points.
//  - Order: the appendix treats each pair on its own. One sweep in the given order, each contact
//    with the velocities the earlier ones left, is its direct sequential reading (max_sweeps = 1);
//    by default sweeps repeat until nothing approaches, so the result does not leave contacts
//    approaching because of the order in which the narrow phase listed them.
//  - Energy: the method changes only the relative velocity of the centres, with a diagonal
//    compliance, so the kinetic energy change of a jolt splits exactly into the normal part
//    (1/2 m_ab (1 - e^2) v_n^2, Newton's loss, booked as restitution) and the tangential part
//    (1/2 m_ab (|v_t|^2 - (|v_t| - s)^2) >= 0, booked as friction). `truncated` is always 0.
//  - Position projection (c.5, B.18) is not part of the solver: the engine applies it to every
//    penetrating contact after the solvers (WorldSettings::projection = k_p).
#pragma once

#include <vector>

#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// Parameters of the velocity-jolt method.
struct JoltSettings {
  /// Sweeps over the island's contacts per step; 1 = the appendix's single pass. Reaching the
  /// bound with a contact still approaching is counted as a guard.
  int max_sweeps = 1000;
  /// A contact with v_n >= -tol no longer approaches, tol = velocity_tolerance times the largest
  /// initial approach speed of the island (as EtmSettings::velocity_tolerance).
  double velocity_tolerance = 1e-4;

  bool operator==(const JoltSettings&) const = default;
};

/// The keys of [simulation.jolt].
std::vector<Setting<JoltSettings>> jolt_setting_keys();

class JoltSolver final : public Solver {
 public:
  explicit JoltSolver(const JoltSettings& settings) : settings_(settings) {}
  const char* name() const override { return "jolt"; }
  void prepare(int) override {}
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;

 private:
  JoltSettings settings_;
};

/// The jolt solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<JoltSettings> kJoltRecord{
    .name = "jolt",
    .summary = "velocity jolts on particles (sphere-impulse appendix B)",
    .make = make_solver_from<JoltSolver, JoltSettings>,
    .keys = jolt_setting_keys,
    .shapes = shape_bit(ShapeType::Sphere) | shape_bit(ShapeType::Plane),
};

}  // namespace etdem
