// The blocked order of a large island's resting contacts (docs/design.md, "Blocked sweeps of a
// large island"). The island's dynamic bodies are binned into the cubes of a grid anchored at
// the origin, whose edge is at least the largest centre distance of a contact; each contact
// belongs to the block at the component-wise minimum of its bodies' block coordinates, and the
// blocks are coloured 8 ways by the parity of their (i, j, k). A contact of block X moves only
// bodies of the blocks X + {0, 1}^3, and two blocks of one colour differ by at least 2 along
// some axis: the contacts of one colour's blocks share no body, so the blocks of a colour can be
// relaxed in any order, on any thread, with the same bits. A contact whose bodies lie farther
// apart than one block (a speculative contact wider than the grid assumed) is a leftover,
// relaxed after the coloured phases, one by one in island order.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

struct BlockOrder {
  static constexpr int kColours = 8;
  /// Body slots: island bodies by block (k, j, i lexicographic), then by index.
  std::vector<int> body_order;  // slot -> island body
  std::vector<int> body_slot;   // island body -> slot
  /// Contact slots: by colour, then block (k, j, i), then island order; the leftovers last.
  std::vector<int> contact_order;  // slot -> island contact
  /// Block b holds contact slots [block_start[b], block_start[b + 1]); the blocks of colour c
  /// are [colour_start[c], colour_start[c + 1]).
  std::vector<int> block_start;
  std::array<int, kColours + 1> colour_start{};
  int leftover_start = 0;  // contact slots [leftover_start, n) are the leftovers
  long leftovers() const { return static_cast<long>(contact_order.size()) - leftover_start; }

  /// The order of `contacts` (island-local bodies, -1 static) of bodies centred at `x`
  /// (`body_count` of them) on a grid of edge `cell` [m] (> 0). With `order`, the contacts are
  /// contacts[order[k]], k < order.size(), numbered k (as if gathered into one array).
  void build(std::span<const Contact> contacts, const Vec3* x, int body_count, double cell,
             std::span<const int> order = {});

 private:
  struct Key {
    std::int64_t k, j, i;
    int index;
  };
  /// Writes the indices of `keys` (ascending index) to `out` ordered by (colour if `colours`
  /// > 1, k, j, i, index) with a counting sort over the keys' box of blocks; false when the
  /// box is too large for one (the caller sorts by comparison, to the same order).
  bool counting_sort(std::span<const Key> keys, int colours, std::span<int> out);

  std::vector<std::array<std::int64_t, 3>> cell_of_;  // per body
  std::vector<Key> keys_;                             // per body, then per contact
  std::vector<Key> coloured_;                         // the contacts that are not leftovers
  std::vector<int> colour_of_;                        // per contact, -1 a leftover
  std::vector<int> count_;                            // the counting sort's table
};

}  // namespace etdem
