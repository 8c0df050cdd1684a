// What the solver tests assert after a solve on a hand-built island (test_island_fixture.hpp),
// shared by the registry's test over every solver (tests/solvers/test_solver_registry.cpp) and the
// solvers' own files: no kinetic energy created, the solver's statistics close the energy balance,
// momentum kept; the single contacts every solver is run on; and a solver's scenario loaded, run
// and refused.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "etdem/io/scenario.hpp"
#include "etdem/world/world.hpp"
#include "test_island_fixture.hpp"

namespace etdem::test {

/// What expect_conservation asserts beyond the energy: which momenta are kept, whether the
/// solver may book truncated energy (velocities cut below its tolerances, an impact's round-off)
/// and the round-off allowed in "no energy created".
struct Conserved {
  bool momentum = true;           // every body dynamic: linear momentum kept
  bool angular_momentum = false;  // and angular momentum (impulses at the contact points)
  bool nothing_truncated = true;  // st.truncated == 0
  double energy_rise = 1e-14;     // the kinetic energy rises by no more than this fraction
};

/// No kinetic energy created (to round-off), the energy lost equal to what the statistics book
/// (restitution + friction + truncated), and the momenta `c` names kept, each relative to its
/// scale.
inline void expect_conservation(const Island& is, const Before& b, const SolverStats& st,
                                const Conserved& c, const std::string& what = {}) {
  const double e1 = is.energy();
  EXPECT_LE(e1 - b.energy, c.energy_rise * b.energy) << what << ": energy created";
  EXPECT_NEAR(b.energy - e1, st.dissipated_restitution + st.dissipated_friction + st.truncated,
              1e-12 * b.energy)
      << what << ": the statistics do not close the energy balance";
  if (c.nothing_truncated) {
    EXPECT_EQ(st.truncated, 0.0) << what;
  }
  if (c.momentum) {
    EXPECT_LE((is.momentum() - b.momentum).norm(), 1e-12 * is.momentum_scale()) << what;
  }
  if (c.angular_momentum) {
    EXPECT_LE((is.angular_momentum() - b.angular_momentum).norm(),
              1e-12 * is.angular_momentum_scale())
        << what;
  }
}

/// The single contacts every solver is run on: two spheres head on, two spinning spheres off
/// centre, a spinning sphere onto a plane (its momentum is not kept).
enum class SingleContact { HeadOn, OffCentre, OnPlane };
constexpr SingleContact kSingleContacts[] = {SingleContact::HeadOn, SingleContact::OffCentre,
                                             SingleContact::OnPlane};

inline const char* single_contact_name(SingleContact kind) {
  return kind == SingleContact::HeadOn      ? "two spheres head on"
         : kind == SingleContact::OffCentre ? "two spinning spheres off centre"
                                            : "a spinning sphere onto a plane";
}

/// The island of `kind` with restitution e and friction mu; its one contact in `cs`.
inline Island single_contact(SingleContact kind, double e, double mu, std::vector<Contact>& cs) {
  Island is;
  if (kind == SingleContact::HeadOn) {
    const int a = is.add_sphere(0.1, 1000, Vec3(0, 0, 0.25), Vec3(0, 0, -2));
    const int b = is.add_sphere(0.15, 2500, Vec3(0, 0, 0), Vec3(0, 0, 1));
    cs = {sphere_contact(is, a, 0.1, b, 0.15, e, mu)};
  } else if (kind == SingleContact::OffCentre) {
    const Vec3 n = Vec3(0.3, -0.2, 1.0).normalized();
    const int a = is.add_sphere(0.1, 1000, 0.25 * n, Vec3(1.5, 0.5, -3), Vec3(5, -10, 3));
    const int b = is.add_sphere(0.15, 2500, Vec3::Zero(), Vec3(-0.2, 0.1, 0.4), Vec3(0, 2, -1));
    cs = {sphere_contact(is, a, 0.1, b, 0.15, e, mu)};
  } else {
    const int a = is.add_sphere(0.1, 1000, Vec3(0, 0, 0.1), Vec3(2, -1, -3), Vec3(0, 4, 1));
    cs = {plane_contact(is, a, 0.1, Vec3::UnitZ(), e, mu)};
  }
  return is;
}

/// Restitution and friction of the single contacts.
struct RestitutionFriction {
  double e, mu;
};
inline void PrintTo(const RestitutionFriction& c, std::ostream* os) {
  *os << "e = " << c.e << ", mu = " << c.mu;
}
constexpr RestitutionFriction kRestitutionFriction[] = {{0.0, 0.0}, {0.5, 0.0}, {1.0, 0.0},
                                                        {0.0, 0.4}, {0.5, 0.4}, {1.0, 0.4}};
/// "e5_mu4": a GoogleTest name for e = 0.5, mu = 0.4.
inline std::string restitution_friction_name(const RestitutionFriction& c) {
  return fmt::format("e{}_mu{}", static_cast<int>(10 * c.e), static_cast<int>(10 * c.mu));
}

/// Builds the world of `sc` and runs it for the scenario's steps: the world's solver is the one the
/// scenario names, the collisions went through it, and the ledger closes to 1e-9 of the initial
/// energy. The world is left as it ends, for the solver's own checks.
inline void run_scenario(const Scenario& sc, World& world) {
  build_world(sc, world);
  world.initialize();
  EXPECT_EQ(std::string(world.solver().name()), sc.settings.solver);
  for (long i = 0; i < sc.steps(); ++i) world.step();
  EXPECT_GT(world.totals().solver.iterations, 0) << "no collision went through the solver";
  const EnergyLedger& l = world.ledger();
  EXPECT_LE(std::abs(l.residual()), 1e-9 * std::abs(l.initial)) << l.residual();
}

/// `text` with its first `find` replaced by `replace`; `find` must occur.
inline std::string replaced(std::string text, const std::string& find, const std::string& replace) {
  const auto at = text.find(find);
  EXPECT_NE(at, std::string::npos) << find;
  if (at != std::string::npos) text.replace(at, find.size(), replace);
  return text;
}

/// Loading `text` as `file` is refused with a ScenarioError whose message holds every one of
/// `parts` (the file, the key, the value).
inline void expect_scenario_error(const std::string& text, const std::string& file,
                                  std::initializer_list<std::string> parts) {
  try {
    (void)parse_scenario(text, file);
    ADD_FAILURE() << "no error for " << file << ":\n" << text;
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    for (const std::string& part : parts) {
      EXPECT_NE(msg.find(part), std::string::npos) << part << " not in: " << msg;
    }
  }
}

}  // namespace etdem::test
