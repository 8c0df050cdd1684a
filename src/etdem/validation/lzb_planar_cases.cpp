// V7 on planar ball systems for `etdem validate` (cases.cpp lists them): Bernoulli's problem (LZB
// 2009 §4a-b: Table 6, the closed form Eq. 4.2, the fully plastic and the mixed impacts) and the
// four-ball systems of §4c (cases A and B). Unit masses, Hertz contacts (eta = 3/2), v = 1 m/s.
// The same set-ups and readings as tests/solvers/test_lzb_planar.cpp; docs/validation.md gives the
// numbers and docs/errata.md the printed values we do not take as printed.
#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "etdem/solvers/lzb.hpp"
#include "etdem/validation/balls.hpp"
#include "etdem/validation/planar_cases.hpp"

namespace etdem::validation {

namespace {

using Kind = Check::Kind;
constexpr double kPi = 3.14159265358979323846;

LzbSettings hertz() {
  LzbSettings s;
  s.eta = 1.5;
  s.model = LzbSettings::Model::Mono;
  s.steps = 20'000;
  return s;
}

/// Solves the impact with LZB; the solver's guards are returned for a check.
long solve(Balls& b) {
  LzbSolver solver(hertz());
  return b.solve(solver).guards_fired;
}

/// Largest departure from symmetry about the x-axis: B1 and B3 mirrored, B2 and B4 (if any)
/// on the axis.
double asymmetry(const Balls& b) {
  double d = std::max(
      {std::abs(b.v[0].x() - b.v[2].x()), std::abs(b.v[0].y() + b.v[2].y()), std::abs(b.v[1].y())});
  if (b.count() > 3) d = std::max(d, std::abs(b.v[3].y()));
  return d;
}

Check near(const std::string& id, const std::string& quantity, double paper, double ours,
           double tol, const std::string& note = "") {
  return {id, quantity, paper, ours, tol, Kind::Near, note};
}

}  // namespace

std::vector<Check> run_bernoulli() {
  const std::string id = "V7 Bernoulli";
  std::vector<Check> out;
  struct Row {
    const char* label;
    double alpha;
    std::array<double, 6> printed;
  };
  // Table 6 (numerical = theoretical columns). The last row is printed as pi/8 but holds the
  // values of pi/3 (docs/errata.md).
  const Row rows[4] = {
      {"pi/8", kPi / 8, {0.63, 0.26, -0.26, 0.00, 0.63, -0.26}},
      {"pi/6", kPi / 6, {0.60, 0.35, -0.20, 0.00, 0.60, -0.35}},
      {"pi/4", kPi / 4, {0.50, 0.50, -0.00, 0.00, 0.50, -0.50}},
      {"pi/3", kPi / 3, {0.33, 0.58, 0.33, 0.00, 0.33, -0.58}},
  };
  const char* names[6] = {"x1", "y1", "x2", "y2", "x3", "y3"};
  long guards = 0;
  for (const Row& r : rows) {
    Balls b = bernoulli(r.alpha, 1.0, 1.0);
    guards += solve(b);
    const double ours[6] = {b.v[0].x(), b.v[0].y(), b.v[1].x(), b.v[1].y(), b.v[2].x(), b.v[2].y()};
    // Eq. 4.2, identical balls, v0 = 1.
    const double t = std::tan(r.alpha), d = 3.0 + t * t;
    const double exact[6] = {2.0 / d, 2.0 * t / d, 1.0 - 4.0 / d, 0.0, 2.0 / d, -2.0 * t / d};
    double worst = 0.0;
    for (int k = 0; k < 6; ++k) {
      out.push_back(near(
          id, fmt::format("Table 6, alpha {}: {} [m/s]", r.label, names[k]), r.printed[k], ours[k],
          0.005, k == 0 && r.alpha == kPi / 3 ? "row printed as pi/8 (docs/errata.md)" : ""));
      worst = std::max(worst, std::abs(ours[k] - exact[k]));
    }
    out.push_back({id, fmt::format("alpha {}: largest |ours - Eq. 4.2| [m/s]", r.label), 1e-6,
                   worst, 0.0, Kind::Below, "Bernoulli's closed form, e = 1"});
  }
  // Fully plastic at pi/6 (Fig. 7): symmetric, both normal velocities end at zero, so
  // P = cos a / (1 + 2 cos^2 a) per contact and KE = 0.5 / (1 + 2 cos^2 a).
  for (const double alpha : {kPi / 6, kPi / 8}) {
    Balls b = bernoulli(alpha, 0.0, 0.0);
    guards += solve(b);
    const double c2 = std::cos(alpha) * std::cos(alpha);
    const bool printed = alpha == kPi / 8;
    out.push_back(
        near(id, fmt::format("e = 0, alpha {}: kinetic energy left [J]", printed ? "pi/8" : "pi/6"),
             printed ? 0.185 : 0.5 / (1.0 + 2.0 * c2), b.kinetic(), 0.0005,
             printed ? "the paper's 0.185 J (printed for pi/6) is the plastic outcome at pi/8"
                     : "by hand 0.2 J; the paper prints 0.185 J (docs/errata.md)"));
    if (!printed)
      out.push_back({id, "e = 0, alpha pi/6: asymmetry [m/s]", 1e-9, asymmetry(b), 0.0, Kind::Below,
                     "the paper: the solution stays symmetric"});
  }
  // Mixed at pi/3 (Fig. 8): e1 = 1, e2 = 0. No number printed; B2 leaves the symmetry line
  // towards B3.
  Balls mixed = bernoulli(kPi / 3, 1.0, 0.0);
  guards += solve(mixed);
  out.push_back({id, "e1 = 1, e2 = 0, alpha pi/3: y2 [m/s]", 0.0, mixed.v[1].y(), 0.0, Kind::Below,
                 "the paper: B2 moves towards B3 (y2 < 0)"});
  out.push_back(near(id, "solver guards fired", 0.0, static_cast<double>(guards), 0.0));
  return out;
}

std::vector<Check> run_four_balls() {
  const std::string id = "V7 four balls";
  std::vector<Check> out;
  long guards = 0;
  {  // Case A, pi/5, B2 strikes (Fig. 11).
    Balls b = four_balls(kPi / 5, 1.0, 0.0);
    guards += solve(b);
    const std::string q = "A, pi/5, B2 strikes: ";
    out.push_back(near(id, q + "x2 [m/s]", -0.1363, b.v[1].x(), 1e-4,
                       "0.7 of a unit off; the compliant model agrees with ours: 1 unit"));
    out.push_back(near(id, q + "x1 [m/s]", 0.4206, b.v[0].x(), 1e-4,
                       "0.6 of a unit off; the compliant model agrees with ours: 1 unit"));
    out.push_back(near(id, q + "y1 [m/s]", 0.52, b.v[0].y(), 0.005));
    out.push_back(near(id, q + "x4 [m/s]", 1.0 + 0.1363 - 2.0 * 0.4206, b.v[3].x(), 5e-4,
                       "printed 0.259 breaks x-momentum; from momentum (docs/errata.md)"));
    out.push_back({id, q + "asymmetry [m/s]", 1e-9, asymmetry(b), 0.0, Kind::Below,
                   "symmetric about the x-axis"});
  }
  {  // Case A, 2 pi/7, B2 strikes (Fig. 12): B4 receives no impulse.
    Balls b = four_balls(2 * kPi / 7, 1.0, 0.0);
    guards += solve(b);
    out.push_back(near(id, "A, 2pi/7, B2 strikes: |v4| [m/s]", 0.0, b.v[3].norm(), 0.0,
                       "the paper: B4 stays at rest"));
  }
  {  // Case A, 2 pi/7, B2 and B4 strike (Fig. 13).
    Balls b = four_balls(2 * kPi / 7, 1.0, -1.0);
    guards += solve(b);
    const std::string q = "A, 2pi/7, B2 and B4 strike: ";
    out.push_back(near(id, q + "y1 [m/s]", 0.975, b.v[0].y(), 0.0005));
    out.push_back(near(id, q + "x2 [m/s]", 0.2224, b.v[1].x(), 1.5e-4,
                       "with 0.975 energy-consistent only to 1.5 units"));
    out.push_back({id, q + "asymmetry [m/s]", 1e-9, asymmetry(b), 0.0, Kind::Below,
                   "symmetric about the x-axis"});
  }
  {  // Case B, pi/3 (five contacts), B2 strikes (Fig. 14).
    Balls b = four_balls(kPi / 3, 1.0, 0.0);
    guards += solve(b);
    const std::string q = "B, pi/3, B2 strikes: ";
    out.push_back(near(id, q + "contacts", 5.0, static_cast<double>(b.contacts.size()), 0.0));
    out.push_back(near(id, q + "x2 [m/s]", -0.197, b.v[1].x(), 0.0005));
    out.push_back(near(id, q + "x4 [m/s]", 0.84, b.v[3].x(), 0.005));
    out.push_back(near(id, q + "x1 [m/s]", 0.178, b.v[0].x(), 0.0005));
    out.push_back(near(id, q + "y1 [m/s]", 0.308, b.v[0].y(), 0.0005));
    out.push_back({id, q + "asymmetry [m/s]", 1e-9, asymmetry(b), 0.0, Kind::Below,
                   "symmetric about the x-axis"});
  }
  {  // Case B, pi/3, B2 and B4 strike (Fig. 15).
    Balls b = four_balls(kPi / 3, 1.0, -1.0);
    guards += solve(b);
    const std::string q = "B, pi/3, B2 and B4 strike: ";
    out.push_back(near(id, q + "x2 [m/s]", -0.964, b.v[1].x(), 0.0005,
                       "printed 0.964; B2 touches B4, so it moves back"));
    out.push_back(near(id, q + "y1 [m/s]", 0.266, b.v[0].y(), 0.0005));
  }
  out.push_back(near(id, "solver guards fired", 0.0, static_cast<double>(guards), 0.0));
  return out;
}

}  // namespace etdem::validation
