// Processes that solve one large island together (a run split over ranks, docs/distributed.md
// "The pile's solve across ranks"). Each member holds the whole island and runs every stage, but
// the stages over rows split their work: each block of the blocked order (resting_blocks.hpp)
// belongs to one member (the team says which: a split run's rank whose box holds the block's
// centre), the member sweeps the rows of its blocks, and after each colour it posts the
// velocities it changed to the members whose rows read them (point to point: the blocks say who
// reads what) while it sweeps its next colour's blocks that need none of the others'. The shock
// pass splits its bodies the same way, level by level, point to point after the levels whose next
// level rests on another member's bodies. A member
// builds only the rows it relaxes and those the bodies it settles rest on (it reads the others'
// contacts), and before the pass the island's collision groups go to the members that settle their
// smallest bodies (world/collision_groups.hpp). A closing round's set is marked and grown by
// member, each its own rows. A stage ends with every member holding every body's latest velocity
// and every row's impulse, so the booking and its guard run whole on every member. Every member
// visits every row in the order one process does, so the pass gives the one-process bits on any
// number of members.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "etdem/core/math.hpp"

namespace etdem {

class RestingTeam {
 public:
  /// Members at most (a member's readers are one bit of a 64-bit mask).
  static constexpr int kMostMembers = 64;

  virtual ~RestingTeam() = default;
  virtual int member() const = 0;   // this member, 0 <= member() < members()
  virtual int members() const = 0;  // at least 1
  /// The member that sweeps the rows of the block centred at `centre` [m], and the member that
  /// settles island body `body` in the shock pass. Every member answers alike.
  virtual int block_member(const Vec3& centre) const = 0;
  virtual int body_member(int body) const = 0;
  /// Collective: to[m] sent to member m (an empty string sends nothing; to[member()] is not
  /// sent); returns what each member sent here, indexed by member (empty: nothing).
  virtual std::vector<std::string> exchange(std::vector<std::string> to) = 0;
  /// Point to point, not collective: sends to[m] to each member m whose bit is set in
  /// `members_to` (an empty string too: m waits for it) and returns at once.
  virtual void post(std::vector<std::string> to, std::uint64_t members_to) = 0;
  /// Waits for the next string each member whose bit is set in `from` posted here; returns them
  /// indexed by member (empty for the others).
  virtual std::vector<std::string> collect(std::uint64_t from) = 0;
  /// Collective: element-wise maxima, in place, the same on every member.
  virtual void max(std::span<double> values) = 0;
  /// Collective: element-wise sums, in place, the same on every member.
  virtual void sum(std::span<std::int64_t> values) = 0;
};

}  // namespace etdem
