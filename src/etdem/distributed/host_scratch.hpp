// What a rank that solves an island keeps of it for the solve (distributed/rank_hosted.cpp).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "etdem/collision/contact.hpp"
#include "etdem/collision/contact_record.hpp"
#include "etdem/core/math.hpp"
#include "etdem/distributed/decomposed_world.hpp"
#include "etdem/distributed/island_labels.hpp"
#include "etdem/world/contact_order.hpp"
#include "etdem/world/island_solve.hpp"

namespace etdem::distributed {

/// A grain of an island part: what the host's solve reads of it.
struct PartGrain {
  std::int64_t gid = -1;
  int owner = -1;
  Vec3 v, w, x;
  double inv_mass = 0.0;
  Mat3 inv_inertia;
  bool asleep = false;
};

/// The bytes of one grain in an island part (island_parts.hpp, put_part_grains): global id,
/// owner, velocities, position, inverse mass, world inverse inertia, asleep.
constexpr std::size_t kPartGrainBytes = sizeof(std::int64_t) + sizeof(std::int32_t) +
                                        3 * 3 * sizeof(double) + sizeof(double) +
                                        9 * sizeof(double) + sizeof(std::int8_t);
/// The bytes of a slim grain (one only its sender reads, or every rank holds): global id and
/// owner.
constexpr std::size_t kSlimGrainBytes = sizeof(std::int64_t) + sizeof(std::int32_t);

/// A part's run of grains: its records, `stride` bytes each (kPartGrainBytes: whole, the state
/// a solve reads; kSlimGrainBytes: slim), each beginning with the grain's global id.
struct GrainRun {
  std::string_view bytes;
  std::size_t stride = kPartGrainBytes;
  bool whole() const { return stride == kPartGrainBytes; }
  std::size_t size() const { return bytes.size() / stride; }
  std::int64_t gid(std::size_t k) const {
    std::int64_t id = 0;
    std::memcpy(&id, bytes.data() + k * stride, sizeof id);
    return id;
  }
};

/// A gathered island's grains, ascending by global id, as the host reads them: one array per
/// field (a pile's grains are walked field by field, not record by record).
struct IslandGrains {
  std::vector<std::int64_t> gid;
  std::vector<int> owner;
  std::vector<char> asleep;
  IslandArrays state;     // velocities, positions, inverse masses and inertias
  std::vector<int> own;   // the places of the rank's own grains
  std::vector<int> slim;  // the places of the grains that came slim only (fill_slim_grains)
};

/// An island part's contacts as the host reads them: a record's (global ids), or for the part a
/// rank keeps of an island every rank solves together, `which` of the rank's own contacts (read
/// where they lie in its contact list, solve_hosted).
struct PartContacts {
  ContactRecordView record;
  std::optional<std::span<const int>> which;  // none: the record's
  /// A record of some of its rank's contacts of the island: each one's place among them (empty:
  /// all of them, in their order).
  std::vector<std::int32_t> places;
  std::size_t size() const { return which ? which->size() : record.size(); }
  int place(std::size_t k) const { return places.empty() ? static_cast<int>(k) : places[k]; }
};

/// A part's collisions grouped by the rank that detected them (keep_quiet_groups,
/// rank_islands.cpp): per body, its parent in the groups' union-find (-1: in none) and whether
/// its group has a grain another rank reads (both reset after each part); the bodies met.
struct PartGroups {
  std::vector<int> up;
  std::vector<char> noisy;
  std::vector<int> met;
};

/// The host's copies of one gathered island (solve_hosted), kept from island to island.
struct DecomposedWorld::HostScratch {
  IslandGrains grains;                  // its grains, ascending by global id
  std::vector<GrainRun> grain_runs;     // each part's grains' records, whole then slim
  std::vector<std::size_t> grain_next;  // (merge_part_grains' scratch)
  std::vector<PartContacts> parts;      // each part's contacts, as gathered (global ids)
  std::vector<int> at;  // serial order: each contact's index in the rank's contact list, where
                        // it is read (those that came in records appended while it is solved)
  std::vector<std::array<int, 3>> renamed;  // the rank's own contacts read in place: index, a, b
  std::vector<std::pair<int, int>> origin;  // per gathered contact: (part, place in it)
  std::vector<int> order, place;            // serial place -> gathered, and back
  std::vector<ContactOrderKey> key;         // per gathered contact: its place in the serial order
  std::vector<std::int64_t> woken;          // grains of the island a moving grain woke
  std::vector<Vec3> sum;                    // per grain, the projection's sums (project_hosted)
  std::vector<double> weight;
  std::vector<char> seen_owner;  // per rank: owns a grain of the island (a hosted one's owners)
  // A shared island: per contact (by its index in the list, `at`), the rank that detected it
  // and its place in that rank's part; per contact of this rank's part, its index in the list.
  std::vector<int> source;
  std::vector<int> source_index;
  std::vector<int> kept;
  std::vector<int> local;       // per global id: its place in the island, -1 (reset after each)
  std::vector<char> read_here;  // per contact detected here: read where it lies (a shared island)
  std::vector<char> moving;     // per body here: in an island (dynamic, not held asleep)
  std::vector<char> read_elsewhere;   // per body here: in a contact of a shared part sent
  std::vector<char> alone;            // per body here: owned here and a ghost on no rank
  std::vector<char> held_everywhere;  // per body here: awake and held by every other rank
  std::vector<char> loud;    // per body here: in a contact of a shared part sent, not a collision
  std::vector<char> quiet;   // per body here: a grain of a shared part no other rank reads
  std::vector<int> touched;  // the moving bodies the candidates touch, ascending
  PartGroups part_groups;    // a part's collisions grouped (keep_quiet_groups)
  LocalContactGraph graph;   // what the labelling reads (its room kept)
  std::vector<int> island_body;  // per candidate: its first moving body (its island's)
  // Per island root: this rank's candidates of it, in their order, and the moving grains they
  // touch, ascending (the island's part here).
  RootLists part_contacts, part_grains;
};

}  // namespace etdem::distributed
