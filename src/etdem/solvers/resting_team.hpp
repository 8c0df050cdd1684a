// Processes that solve one large island together (a run split over ranks, docs/distributed.md
// "The pile's solve across ranks"). Each member holds the whole island's bodies but only the
// contacts it reads, and runs every stage; the stages over rows split their work: each block of
// the blocked order (resting_blocks.hpp) belongs to one member (the team says which: a split
// run's rank whose box holds the block's centre), the member sweeps the rows of its blocks, and
// after each colour it posts the velocities it changed to the members whose rows read them
// (point to point), and takes the others' only before the first of its later blocks that reads
// one of those bodies, sweeping the blocks that need none of them meanwhile. In
// the shock pass each member settles its own bodies in height order, each once the bodies of
// other members it rests on that come before it have arrived, and posts those the others rest
// on. A member builds only the rows it relaxes and those the bodies it settles rest on; what
// the stages took from every row, the members tell each other (the colours each moves each body
// in, the heights of the bodies others rest on, the stir limits, the times of impact), and before
// the pass the island's collision groups go to the members that settle their smallest bodies
// (world/collision_groups.hpp). A closing round's set is marked, grown, booked and guarded by
// member, each its own rows, the guard's scale from the team's sums. A stage ends with every
// member holding the latest velocity of each body it reads, settles or rests a settled body on;
// a row's impulses stay with its member until the end of the pass, when they go to the member
// that keeps its contact. Every row is updated in
// the order one process updates it, from the velocities one process reads, so the pass gives the
// one-process bits on any number of members.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "etdem/core/byte_stream.hpp"
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
  /// The island bodies this member settles (body_member), ascending; null where unknown (each
  /// member then slots every body of the island in its pass, not only those it holds).
  virtual const std::vector<int>* own_bodies() const { return nullptr; }
  /// Per island contact (by its index in the island's contacts), the member that keeps the
  /// pass's impulses of it: a split run's rank that detected it. Each member stores the impulses
  /// of the contacts it keeps, which the rows' members send it at the end of the pass. Read for
  /// every row: a view, valid while the island is solved, not a call per contact.
  virtual std::span<const int> keepers() const = 0;
  /// Per island contact, its place among its keeper's contacts of the island; and back, this
  /// member's `index`-th kept contact's index in the island's contacts (a member names a
  /// contact to its keeper by that place: the members may hold different contacts).
  virtual std::span<const int> keeper_places() const = 0;
  virtual int kept_contact(int index) const = 0;
  /// Whether island body `body` is read by this member alone: a grain it settles all of whose
  /// contacts it holds, none of them held by another member but its collisions. Its collision
  /// group's results (world/collision_groups) then go to no other member, only the group's
  /// statistics. False where unknown.
  virtual bool quiet(int /*body*/) const { return false; }
  /// The island's collisions that are not held by every member: whole collision groups of
  /// quiet bodies, each held by the member that settles them alone. Every member holds every
  /// other collision. `collisions` and `groups` count those the other members hold; `anywhere`
  /// says whether any member holds such a group (the same on every member: the island's solve
  /// enters its collision phase and splits its groups from the island's totals, not from the
  /// collisions a member sees).
  struct Kept {
    long collisions = 0;
    long groups = 0;
    bool anywhere = false;
  };
  virtual Kept kept_collisions() const { return {}; }
  /// Whether every member needs every body's latest velocity after each stage (a split run
  /// whose host books the nets' nodes of the island); otherwise a stage ends with each body's
  /// velocity on the members that read it, settle it or settle a body resting on it.
  virtual bool syncs_every_body() const = 0;
  /// The island's contacts over the whole team: a member holds those it reads, which may be
  /// fewer; the count decides whether the island is swept by blocks.
  virtual long contacts() const = 0;
  /// Collective: to[m] sent to member m (an empty string sends nothing; to[member()] is not
  /// sent); returns what each member sent here, indexed by member (empty: nothing).
  virtual std::vector<std::string> exchange(std::vector<std::string> to) = 0;
  /// Collective: `bytes` sent to every other member; returns what each sent here (exchange).
  std::vector<std::string> exchange_with_all(const std::string& bytes) {
    std::vector<std::string> to(static_cast<std::size_t>(members()));
    for (int m = 0; m < members(); ++m)
      if (m != member()) to[static_cast<std::size_t>(m)] = bytes;
    return exchange(std::move(to));
  }
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

  /// This member's own row updates (its blocks' rows and the leftovers it counts) over every pass
  /// the team has run: its share of the sweeps' work, added by each pass before the team's sum.
  long member_updates = 0;
};

/// The most members whose closing-round sweeps send the sweep's maxima with the stirred bodies,
/// in one exchange, not a reduction of their own: each then sends every other member a message,
/// where a reduction costs log2(members) latencies; up to four members a rank's stirred bodies
/// mostly go to every other member anyway.
constexpr int kMaximaWithStirredMembers = 4;

/// A member's messages of one phase, one writer per member (`out`): emptied for the phase with
/// their room kept (begin_messages), then taken as one string per member of its own size, this
/// member's (`me`) empty (take_messages). A message refilled every phase so grows once, not at
/// every doubling of every phase.
void begin_messages(std::vector<ByteWriter>& out, int members);
std::vector<std::string> take_messages(std::vector<ByteWriter>& out, int me);

}  // namespace etdem
