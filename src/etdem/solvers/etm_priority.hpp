// The modified energy tracking method of Tan, Wijesuriya & Sitar (2024), Algorithm 1 (§3.3) with
// the weighted ordering of §4.3:
//
//   repeat (line 6; after max_rounds rounds e = 0: guard, counted) until no contact approaches:
//     compression (lines 5-21): a priority queue of the approaching contacts keyed by u_n. Take
//         the minimum u_n^min and the contacts within a relative beta of it (the group Gamma,
//         line 9); each gets du = |u_n^min| / (alpha |Gamma|) (line 10, docs/errata.md: positive,
//         like ETM Eq. 62), never past zero, with friction (lines 12-16, ETM 2014 Eqs. 50-55) and
//         W += -dW_n (line 18, Eq. 29; W positive while compressed). Recompute, repeat.
//     restitution (lines 23-25): W <- e^2 W (docs/errata.md: Stronge, Eq. 1; the printed eps W is a
//     typo). separation (lines 27-41): a priority queue keyed by W, maximum first. The group of
//         contacts within beta of W^max gets the increment of Eq. 33 (line 30 with the energy
//         restored, docs/errata.md), du = -u_n + sqrt(u_n^2 + 2 dW n.(K n)), which releases exactly
//         dW at the head; each member is capped at the increment that releases its own W.
//
// §4.3 ("weighted relative velocity"): with ordering = mass-weighted the compression queue, the
// group and the increment use u~_n = m_A m_B / (m_A + m_B) u_n instead of u_n (a static body has
// infinite mass: the dynamic body's mass), so contacts between large grains are resolved first,
// and the members of a group change their approach momentum by equal amounts.
//
// Choices where the paper is silent or ambiguous (docs/solvers.md, "etm-priority"):
//  - Line 10 takes a fraction of the current u_n^min (line 20 recomputes it), so a lone
//    contact's approach decays geometrically, (1 - 1/alpha) per impulse; a step that would leave
//    less than the velocity tolerance goes to exactly zero (the "threshold to truncate small
//    values" of §3.3), as the last step of ETM Eq. 63 does.
//  - Groups: line 9 groups any contact with a similar u_n; §3.3 speaks of "adjacent contact
//    points glued together and treated as a single contact". grouping = pair (default) groups
//    the points of one body pair only: dividing the step by |Gamma| for unrelated contacts of a
//    large island cost 2.6 to 13 times the impulses (measured), and only points of one pair share
//    the load a glued contact implies.
//  - Release: dW = W^max (release = full) is line 30 literally and releases a contact at once;
//    the box landing flat (V3) then spins at 4.6 rad/s whatever alpha. release = gradual
//    (default) releases at most 1/alpha of the W each contact held when the phase began, the
//    last step exactly the rest; §3.3 says the elastic energy "gradually decreases to zero during
//    the energy release phase", and Eq. 33 is written for an increment of work dW_n.
//  - Line 12 as printed (P = du K^-1 n) keeps the tangential relative velocity unchanged, so a
//    sphere sliding on a plane would feel no friction; the trial impulse is that of ETM 2014
//    Eq. 50 (target u_t = 0), shared with etm through impulse::frictional_impulse.
//  - With friction, the separation increment uses the effective normal compliance du_n / p_n of
//    the frictional impulse (as etm does), refined from a trial; what a step leaves in or takes
//    from a contact beyond the energy tolerance is booked as truncated.
#pragma once

#include <string>
#include <vector>

#include "etdem/solvers/etm_rounds.hpp"
#include "etdem/solvers/solver.hpp"
#include "etdem/solvers/solver_record.hpp"

namespace etdem {

/// Parameters of the modified ETM (2024 Algorithm 1). Defaults: beta and the round guard from
/// the papers, alpha as ETM's lambda, tolerances as etm's; the choices in docs/solvers.md.
struct EtmPrioritySettings {
  /// Key of the compression queue.
  enum class Ordering {
    Velocity,      // Algorithm 1 as printed: u_n
    MassWeighted,  // §4.3: m_A m_B / (m_A + m_B) u_n
  };
  /// Which contacts may join the head of the queue in a group (lines 9 and 29).
  enum class Grouping {
    Pair,    // only contacts between the same two bodies (§3.3: "a group of adjacent contact
             // points is glued together and treated as a single contact")
    Island,  // any contact of the island (line 9 read literally)
  };
  /// How much of its W the head of a separation group releases in one increment (Eq. 33).
  enum class Release {
    Full,     // all of it (line 30 with the energy restored, docs/errata.md)
    Gradual,  // at most 1/alpha of the W it held when the separation phase began, the last
              // step exactly the rest (the energy form of ETM 2014 Eq. 66)
  };
  double alpha = 30.0;  // divides the compression increment, line 10 (>= 1)
  double beta = 0.05;   // relative width of a group, lines 9 and 29 ("beta ~ 1-5 %")
  Ordering ordering = Ordering::MassWeighted;
  Grouping grouping = Grouping::Pair;
  Release release = Release::Gradual;
  int max_rounds = 300;  // round guard after which restitution is set to zero (ETM 2014 §6)
  long max_iterations = 50'000'000;  // cap on impulses per island per step (a guard, counted)
  /// A contact with u_n >= -tol no longer approaches, tol = velocity_tolerance times the largest
  /// initial approach speed of the island (§3.3's truncation threshold; as etm).
  double velocity_tolerance = 1e-4;
  double energy_tolerance = 1e-12;  // elastic energy below this fraction of the island's peak
                                    // is truncated (booked as truncated)

  bool operator==(const EtmPrioritySettings&) const = default;
};

/// Names used in scenario files ("velocity", "mass-weighted"; "pair", "island"; "full",
/// "gradual"). parse_setting returns false for an unknown name.
bool parse_setting(const std::string& name, EtmPrioritySettings::Ordering& out);
bool parse_setting(const std::string& name, EtmPrioritySettings::Grouping& out);
bool parse_setting(const std::string& name, EtmPrioritySettings::Release& out);
const char* setting_name(EtmPrioritySettings::Ordering v);
const char* setting_name(EtmPrioritySettings::Grouping v);
const char* setting_name(EtmPrioritySettings::Release v);

/// The keys of [simulation.etm-priority].
std::vector<Setting<EtmPrioritySettings>> etm_priority_setting_keys();

/// One line of the optional phase trace (tests, plots of 2024 Fig. 2): island energies at the
/// end of each phase.
struct EtmPriorityPhase {
  enum class Kind { Start, Compression, Restitution, Separation };
  Kind kind = Kind::Start;
  long round = 0;
  long iterations = 0;   // impulses so far
  double kinetic = 0.0;  // [J] kinetic energy of the island's dynamic bodies
  double elastic = 0.0;  // [J] sum of W over the island's contacts
};

class EtmPrioritySolver final : public Solver {
 public:
  explicit EtmPrioritySolver(const EtmPrioritySettings& settings) : settings_(settings) {}
  const char* name() const override { return "etm-priority"; }
  void prepare(int threads) override;
  SolverStats resolve(std::span<Contact> contacts, IslandBodies& bodies, int thread) override;
  /// Records the energies after every phase into `trace` (nullptr: off). Single-threaded use.
  void set_trace(std::vector<EtmPriorityPhase>* trace) { trace_ = trace; }

 private:
  struct Scratch : EtmScratch {
    std::vector<double> weight;   // per contact: ordering weight, 1 or the reduced mass [kg]
    std::vector<double> quantum;  // per contact: energy released per separation step [J]
    std::vector<int> group;       // members of the current group
  };

  void setup(std::span<const Contact> cs, const IslandBodies& b, Scratch& s) const;
  /// Compression phase. Returns false when the iteration cap fired.
  bool compress(std::span<const Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st) const;
  /// Separation phase. Returns false when the iteration cap fired.
  bool separate(std::span<const Contact> cs, IslandBodies& b, Scratch& s, SolverStats& st) const;
  /// The head of a phase's queue and the contacts grouped with it into s.group.
  template <class Joins>
  void gather_group(std::span<const Contact> cs, Scratch& s, const ContactHeap::Entry& head,
                    double limit, Joins joins) const;
  void record(EtmPriorityPhase::Kind kind, long round, const IslandBodies& b, const Scratch& s,
              const SolverStats& st) const;

  EtmPrioritySettings settings_;
  std::vector<Scratch> scratch_;
  std::vector<EtmPriorityPhase>* trace_ = nullptr;
};

/// The etm-priority solver's record (solvers/solver_record.hpp); the solver registry lists it
/// (world/solver_list.hpp).
inline constexpr SolverRecord<EtmPrioritySettings> kEtmPriorityRecord{
    .name = "etm-priority",
    .summary = "modified ETM (2024): grouped priority queue",
    .make = make_solver_from<EtmPrioritySolver, EtmPrioritySettings>,
    .keys = etm_priority_setting_keys,
};

}  // namespace etdem
