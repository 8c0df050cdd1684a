// The simultaneous impulse method (SMM) of Tang, Paluszny & Zimmerman (2014), appendix Eqs.
// 77-109: every contact of an island is resolved at once by one linear system, so that each
// contact leaves with u_n(s1) = -e u_n(s0) (Newton's law, Eq. 83, with e in place of the
// appendix's e = 1), and Coulomb friction as in Eqs. 72-76 and 87:
//
//   - sticking contact (Eqs. 72-73): u(s1) = -e u_n(s0) n, three unknown impulse components;
//   - sliding contact (Eqs. 75-76, 87, 107): p = p_n (n + mu q), one unknown p_n, and only the
//     normal row u_n(s1) = -e u_n(s0); q is the unit friction direction.
//
// The appendix writes the system with body velocities and impulses as unknowns (Eqs. 94-108,
// whose index and factor slips docs/errata.md lists). Eliminating the velocities with the momentum
// equations (Eqs. 95-102) gives the equivalent Delassus form with the impulses alone:
//
//   A x = b,   A = R^T J M^-1 J^T C,   b = R^T (u_target - u(s0)),
//
// J the contact Jacobian (per body and contact the block [1, -r~]), M^-1 the inverse mass and
// world-frame inverse inertia, C the impulse directions of each unknown (sticking: the local
// frame n, t1, t2; sliding: n + mu q; frictionless: n) and R the velocity rows it constrains
// (sticking: n, t1, t2; otherwise n). A is sparse (two contacts couple only through a shared
// dynamic body), square, and symmetric when no contact slides.
//
// Choices where the appendix is silent (docs/solvers.md, "SMM"):
//  - Rank deficiency (four coplanar corners of a box on a plane, duplicate contacts) and
//    inconsistent targets (e.g. two sticking contacts of one sphere): x is the least-squares
//    solution of A x = b of least norm in the metric diag(A^T A), computed by iterated Tikhonov
//    regularisation, x += (A^T A + eps diag(A^T A))^-1 A^T (b - A x), eps = `regularisation`,
//    each step through the quasi-definite augmented system factored by Eigen::SimplicialLDLT.
//    Null-space impulses move no body, so the velocities are those of every least-squares
//    solution.
//  - Which contacts enter: those approaching at s0 first; then an active-set loop (block
//    principal pivoting with Murty's least-index rule as the fallback; bounded, counted) drops
//    contacts pulled by a tensile normal impulse and adds contacts whose normal velocity after
//    the solve falls short of their target -e min(u_n(s0), 0) (a contact that was not
//    approaching at s0 may not be driven into approach; it gets target 0, no bounce). At
//    convergence this is the linear complementarity problem p_n >= 0, u_n(s1) >= target,
//    p_n (u_n(s1) - target) = 0. At the bound, of the solves without tensile impulses the one
//    that left the fewest contacts short is applied (the last solve if there is none).
//  - Stick or slip: every frictional contact first sticks (Eq. 73); a contact whose impulse
//    leaves the cone (Eq. 74) slides from then on (Eq. 87), and the system is solved again until
//    no sticking contact leaves its cone (at most once per frictional contact: sliding is never
//    undone). q opposes the slip velocity at s0, or lies along the trial tangential impulse when
//    the contact does not slip (the convention of solvers/impulse.hpp).
//  - The contacts' impulse output fields (the resting pass's warm start) are left untouched.
#pragma once

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <memory>
#include <vector>

#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// Parameters of the simultaneous impulse method.
struct SmmSettings {
  /// Tikhonov weight eps, relative to the diagonal of A^T A. Large enough to factor the
  /// rank-deficient systems of coplanar contacts, small enough that iterative refinement
  /// converges in a few solves (each removes all but eps / (eps + s^2) of the error of a
  /// component with singular value s of the diagonally scaled A).
  double regularisation = 1e-10;
  /// Refinement solves per linear system; stopping short of round-off is counted as a guard.
  int max_refinements = 20;
  /// Bound on the active-set loop (contacts dropped for tension / added for approach).
  int max_active_set_iterations = 50;
  /// Relative tolerance of the tests of the active-set and stick-slip loops: velocities relative
  /// to the island's fastest approach at s0, impulses relative to its largest normal impulse.
  double tolerance = 1e-9;

  bool operator==(const SmmSettings&) const = default;
};

/// The keys of [simulation.smm].
std::vector<Setting<SmmSettings>> smm_setting_keys();

class SmmSolver final : public Solver {
 public:
  explicit SmmSolver(const SmmSettings& settings) : settings_(settings) {}
  const char* name() const override { return "smm"; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;

 private:
  using SparseMatrix = Eigen::SparseMatrix<double>;
  struct Scratch {
    // Per contact of the island.
    std::vector<Vec3> u0;        // relative velocity at s0 [m/s]
    std::vector<Vec3> u1;        // relative velocity after the latest solve [m/s]
    std::vector<Vec3> t1, t2;    // tangent frame
    std::vector<double> target;  // target normal velocity -e min(u_n(s0), 0) [m/s]
    std::vector<Vec3> q;         // friction direction of a sliding contact
    std::vector<Vec3> p;         // impulse of the latest solve, on A [N s]
    std::vector<char> active, sliding, flip;
    std::vector<int> column;  // first unknown of an active contact, -1 if inactive
    // Island bodies after the latest solve.
    std::vector<Vec3> v1, w1;
    // The solve applied if the active-set bound is reached.
    std::vector<Vec3> fallback_v, fallback_w, fallback_p, fallback_u;
    // Linear system.
    std::vector<Eigen::Triplet<double>> triplets;
    SparseMatrix jr, g, a;   // R^T J, M^-1 J^T C, A = R^T J M^-1 J^T C (columns scaled)
    SparseMatrix augmented;  // [1 A; A^T -eps 1]
    Eigen::VectorXd b, x, r, dx, dv, scale, rhs;
    Eigen::SimplicialLDLT<SparseMatrix> ldlt;
  };

  /// Assembles and solves the system for the active contacts and their stick/slide state;
  /// fills p, v1, w1 and u1. Returns false when the factorisation failed or the result was not
  /// finite (nothing usable).
  bool solve(std::span<const Contact> cs, const IslandBodies& b, Scratch& s, SolverStats& st) const;

  SmmSettings settings_;
  std::vector<std::unique_ptr<Scratch>> scratch_;  // per thread (the factorisation is not movable)
};

/// The smm solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<SmmSettings> kSmmRecord{
    .name = "smm",
    .summary = "simultaneous impulse method (ETM 2014 appendix): one linear system",
    .make = make_solver_from<SmmSolver, SmmSettings>,
    .keys = smm_setting_keys,
};

}  // namespace etdem
