// An island's parts as the ranks of a split run send them to each other (rank_islands.cpp,
// rank_hosted.cpp): each part's header, its grains whole or slim, read back and merged in
// global id order on the ranks that solve the island, and each grain's result taken by its
// owner.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "etdem/core/bodies.hpp"
#include "etdem/core/byte_stream.hpp"
#include "etdem/distributed/host_scratch.hpp"
#include "etdem/distributed/island_gather.hpp"
#include "etdem/world/step_context.hpp"
#include "etdem/world/world.hpp"

namespace etdem::distributed {

/// How an island's part holds its contacts: a record of all of them; a record of those other
/// ranks read, each with its place in the part (an island every rank solved together last
/// sub-step, sent to the other ranks: the contacts only the sender reads stay with it); none,
/// the contacts being the rank's own (the part a rank keeps of such an island, read from its
/// contacts where they lie).
enum class PartContactsKind : std::int8_t { kWhole = 0, kSome = 1, kLocal = 2 };

/// The header of an island's part, which its host reads before the rest (share_islands): the
/// part's contacts, of them those not sent (only the sender reads them: `kept`), whether some
/// grain of it is asleep and some awake, and how it holds its contacts; and of the kept
/// contacts, the collisions and the collision groups they form (whole groups no other rank
/// reads, world/collision_groups.hpp: the other ranks count them in the island's totals).
struct PartHeader {
  long contacts = 0, kept = 0;
  bool asleep = false, awake = false;
  PartContactsKind kind = PartContactsKind::kWhole;
  long kept_collisions = 0, kept_groups = 0;
};

/// Where put_part_header writes the kind (after the two counts and the two flags), and the
/// bytes it writes (the kept collisions' two counts after the kind).
constexpr std::size_t kPartKindAt = 2 * sizeof(std::int32_t) + 2 * sizeof(std::int8_t);
constexpr std::size_t kPartHeaderBytes =
    kPartKindAt + sizeof(std::int8_t) + 2 * sizeof(std::int32_t);

/// The bytes put_part_grains writes for `whole` grains whole and `slim` slim.
constexpr std::size_t part_grains_bytes(std::size_t whole, std::size_t slim) {
  return 2 * sizeof(std::int32_t) + whole * kPartGrainBytes + slim * kSlimGrainBytes;
}

/// A part's header, kPartHeaderBytes bytes: the two counts, the two flags, the kind and the kept
/// collisions' two counts.
void put_part_header(ByteWriter& o, const PartHeader& h);

/// A written part's kind set to `kind`.
void set_part_kind(std::string& part, PartContactsKind kind);

/// A part's header (put_part_header), read from `in`; throws ByteStreamError for an unknown kind.
PartHeader read_part_header(ByteReader& in);

/// Part header `h` added to `sum`: the counts summed, the flags joined (the kind left).
void add_part_header(PartHeader& sum, const PartHeader& h);

/// An island's parts' headers summed (add_part_header): its contacts, of them those not sent,
/// whether some grain of it is asleep and some awake, and the kept collisions and groups.
PartHeader island_header(const GatheredIsland& g);

/// Grains `grains` of `bodies` (ascending local ids, so ascending global ids) as an island part
/// lists them: those `read_elsewhere` marks (all, where it is empty) whole, kPartGrainBytes each
/// (global id, owner, velocities, position, inverse mass and world inverse inertia, asleep),
/// then the others slim, kSlimGrainBytes each (global id and owner: a rank that does not hold
/// the grain numbers the island by them and reads no other field of it): each run counted and
/// ascending. Returns the slim ones' count.
std::size_t put_part_grains(ByteWriter& out, const Bodies& bodies, std::span<const int> grains,
                            const std::vector<std::int64_t>& gid, const std::vector<int>& owner,
                            std::span<const char> read_elsewhere = {});

/// A part's two runs of grains (put_part_grains), whole then slim, read from `in`.
void read_part_grains(ByteReader& in, GrainRun* runs);

/// An island's grains ascending by global id into `h` (its ids, owners, sleep and state, the
/// places of rank `me`'s grains, and which came slim only), from its parts' grains `runs` (each
/// ascending): merged, each grain read once. A grain held by several ranks came from each, the
/// same bits: the first part's whole copy is kept, else its first slim one, whose position,
/// velocities, inverse mass and inertia are left as they were (fill_slim_grains takes them from
/// a copy the rank holds). Throws std::logic_error for a run whose grains do not ascend. `next`
/// is scratch.
void merge_part_grains(std::span<const GrainRun> runs, IslandGrains& h,
                       std::vector<std::size_t>& next, std::int64_t root, int me);

/// An island's result for one grain.
struct GrainResult {
  Vec3 v, w;          // velocity [m/s], angular velocity [rad/s]
  double toi = 0.0;   // time of impact within the sub-step [s], 0 none
  Vec3 v0;            // velocity at that impact [m/s]
  bool woke = false;  // the grain was asleep and its island woke
};

/// Grain l's result written into the world and its motion.
void take_result(World& w, int l, const GrainResult& r, std::vector<Motion>& motion);

}  // namespace etdem::distributed
