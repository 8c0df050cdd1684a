// The papers' validation cases as functions that return what they measure beside what the paper
// says (docs/validation.md): `etdem validate` prints them as a table and the tests assert the
// same numbers (tests/world/test_validation_v3_v8.cpp, test_lzb.cpp). A layer above io: it builds
// worlds and solver islands directly and is used by the apps and the tests only.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"
#include "etdem/solvers/solver.hpp"

namespace etdem::validation {

/// One number compared with the paper's.
struct Check {
  // |ours - paper| <= tol, ours <= paper, ours >= paper; Reported: printed with no verdict (a
  // claim of the paper the engine does not settle, the note says why), never a failure.
  enum class Kind { Near, Below, Above, Reported };
  std::string case_id;   // "V3", "V7 Table 2", ...
  std::string quantity;  // what is compared, with its unit
  double paper = 0.0;    // the paper's number, or the bound
  double ours = 0.0;
  double tolerance = 0.0;  // Near only
  Kind kind = Kind::Near;
  std::string note;  // where the paper's number comes from when it is not printed as such

  bool pass(double tolerance_scale = 1.0) const;
};

/// A case: its id, what it is, and the function that runs it.
struct Case {
  std::string id;
  std::string title;
  bool long_case = false;  // only with `etdem validate --long`
  std::function<std::vector<Check>()> run;
};

/// Every case in the order `etdem validate` prints them.
const std::vector<Case>& cases();

// The measurements the tests share with the cases.

inline constexpr double kV1Density = 2650.0;  // [kg/m^3] V1 and V2

/// V1 (ETM 2014 §7.1): two tetrahedra (our geometry, docs/validation.md), A at (0, 0, -100) m/s
/// and (5, 10, 3) rad/s onto B at rest, one vertex-face contact, e = 1, mu = 0; ETM with
/// `lambda` solves the island directly. What the narrow phase gave (one point, 1 mm gap, normal
/// +z), u_n before and after, the kinetic energy and its relative error, the elastic energy at
/// maximum compression, the change of linear and angular momentum.
struct V1Result {
  int points = 0;
  double gap = 0.0, normal_error = 0.0, point_error = 0.0;
  double energy_error = 0.0, un0 = 0.0, un1 = 0.0, ke0 = 0.0, w_peak = 0.0;
  Vec3 dp{0, 0, 0}, dl{0, 0, 0};
  SolverStats stats;
};
V1Result v1_tetrahedra(int lambda);

/// The vertices of a cube of half side h about the origin.
std::vector<Vec3> cube_vertices(double h);

/// V2 (ETM 2014 §7.2): a unit cube (a polyhedron) at (0, 0, -10) m/s, 1 mm above a cube offset
/// by half a side along x, e = 1, mu = 0; the lower cube fixed or free at rest; the four contact
/// points handed to ETM in `order` (empty: the narrow phase's).
struct V2Result {
  int points = 0;
  double normal_error = 0.0, gap_error = 0.0, x_min = 1e300, x_max = -1e300;
  Vec3 v{0, 0, 0}, w{0, 0, 0};  // the upper cube after
  double energy_error = 0.0;
  Vec3 dp{0, 0, 0}, dl{0, 0, 0};  // free lower cube only
  SolverStats stats;
};
V2Result v2_half_cube(int lambda, bool free_lower, std::vector<int> order = {});

/// V3 (ETM 2014 §7.3): a 2 x 2 x 1 m box hits the ground at (1, 1, -10) m/s, e = 1, mu = 0, no
/// gravity; velocities after 0.1 s and the relative change of kinetic energy.
struct V3Result {
  double vx, vy, vz, spin, energy_error;
};
V3Result v3_box_onto_ground(int lambda);

/// V4 (ETM 2014 §7.4): 54 x `layers` elastic frictionless spheres fall into a box, dt = 1/600 s,
/// 250 steps: the largest relative change of potential + kinetic energy over one step
/// (Eqs. 67-68), the restitution loss (0), the largest ledger residual relative to the total and
/// the solver's guards.
struct V4Result {
  double worst = 0.0, restitution = 0.0, residual = 0.0;
  long guards = 0;
};
V4Result v4_spheres_into_box(int layers);

}  // namespace etdem::validation
