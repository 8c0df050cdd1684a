// The order in which a large island's resting rows are swept on several threads: colours whose
// rows share no dynamic body, each colour cut into blocks the threads take, the colours in a
// fixed order, the leftovers last, one by one. The order depends on the island's contacts and
// the bodies' positions only, so the sweeps give the same bits on any number of threads (and
// ranks). docs/design.md "Blocked sweeps of a large island".
//
// Blocks (the default): the island's dynamic bodies are binned into the cubes of a grid anchored
// at the origin, whose edge is at least the largest centre distance of a contact; each contact
// belongs to the block at the component-wise minimum of its bodies' block coordinates, and the
// blocks are coloured 8 ways by the parity of their (i, j, k). A contact of block X moves only
// bodies of the blocks X + {0, 1}^3, and two blocks of one colour differ by at least 2 along
// some axis: the contacts of one colour's blocks share no body. A contact whose bodies lie
// farther apart than one block is a leftover.
//
// Graph colours: the contacts, in the blocks' spatial order, each take the first of 24 colours
// neither of its dynamic bodies has yet (Box2D v3's constraint graph); a contact with none left
// is a leftover. Each colour is cut into chunks of kChunk contacts.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <utility>
#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

/// Block coordinate of x on a grid of edge `cell` anchored at 0; clamped far beyond any scene
/// (2^40 blocks) so a wild position cannot overflow.
std::int64_t block_coordinate(double x, double cell);

/// A block's cell (i, j, k) on that grid.
using BlockCell = std::array<std::int64_t, 3>;

/// The block of a contact between bodies in cells `a` and `b` (null: a body that is not
/// dynamic; not both): the component-wise least of their cells, into `at`. Returns false for a
/// leftover, whose bodies lie more than one block apart along some axis (`at` set all the same).
inline bool contact_block(const BlockCell* a, const BlockCell* b, BlockCell& at) {
  at = a ? *a : *b;
  if (!a || !b) return true;
  bool near = true;
  for (int d = 0; d < 3; ++d) {
    near = near && std::llabs((*a)[d] - (*b)[d]) <= 1;
    at[d] = std::min((*a)[d], (*b)[d]);
  }
  return near;
}

/// The centre [m] of block `cell` on a grid of edge `size` (a team's member for the block is
/// the one whose box holds it, solvers/resting_team.hpp).
inline Vec3 block_centre(const BlockCell& cell, double size) {
  return Vec3((static_cast<double>(cell[0]) + 0.5) * size,
              (static_cast<double>(cell[1]) + 0.5) * size,
              (static_cast<double>(cell[2]) + 0.5) * size);
}

struct BlockOrder {
  /// How the rows are split into colours whose rows share no dynamic body: spatial blocks
  /// coloured 8 ways by parity (kBlocks), or the rows coloured greedily in the blocks' spatial
  /// order with at most kGraphColours colours and an overflow (kGraph, as Box2D v3's constraint
  /// graph), each colour cut into chunks of kChunk rows for the threads.
  enum class Colouring { kBlocks, kGraph };
  static constexpr int kBlockColours = 8;
  static constexpr int kGraphColours = 24;
  static constexpr int kChunk = 32;
  /// Body slots: island bodies by block (k, j, i lexicographic), then by index.
  std::vector<int> body_order;  // slot -> island body
  std::vector<int> body_slot;   // island body -> slot, -1 for a body without one
  /// Contact slots: by colour, then block (k, j, i), then island order; the leftovers last.
  std::vector<int> contact_order;  // slot -> island contact
  /// Block b holds contact slots [block_start[b], block_start[b + 1]); the blocks of colour c
  /// are [colour_start[c], colour_start[c + 1]), c < colours().
  std::vector<int> block_start;
  std::vector<int> colour_start;
  int leftover_start = 0;  // contact slots [leftover_start, n) are the leftovers
  /// Counts the layouts of the blocks: changed whenever block_start or contact_order does
  /// (build, group_blocks), so what was derived from a layout knows when it is out of date.
  std::uint64_t layout = 0;
  long leftovers() const { return static_cast<long>(contact_order.size()) - leftover_start; }
  /// The cell (i, j, k) of block b's rows, b < colour_start[colours()]: the component-wise least
  /// cell of its first row's dynamic bodies (the same for every row of a kBlocks block).
  BlockCell block_cell(int b) const {
    const Key& key = keys_[static_cast<std::size_t>(
        contact_order[static_cast<std::size_t>(block_start[static_cast<std::size_t>(b)])])];
    return {key.i, key.j, key.k};
  }
  int colours() const { return static_cast<int>(colour_start.size()) - 1; }
  /// Each colour's blocks reordered by group[b] (ascending; stable; groups >= 0), their rows
  /// with them, and `group` permuted alike. Blocks of one colour share no body and each body's rows
  /// of one colour lie in one block, so a sweep gives the same bits in either order; a team
  /// member's rows then lie together in memory.
  void group_blocks(std::vector<int>& group);

  /// The order of `contacts` (island-local bodies, -1 static) of bodies centred at `x`
  /// (`body_count` of them) on a grid of edge `cell` [m] (> 0). With `order`, the contacts are
  /// contacts[order[k]], k < order.size(), numbered k (as if gathered into one array). With
  /// `bodies` (ascending island bodies, every body of the contacts among them; kBlocks only),
  /// only those get slots, in the same order among themselves as with every body slotted:
  /// body_slot is -1 for the others.
  void build(std::span<const Contact> contacts, const Vec3* x, int body_count, double cell,
             std::span<const int> order = {}, Colouring colouring = Colouring::kBlocks,
             const std::vector<int>* bodies = nullptr);

 private:
  struct Key {
    std::int64_t k, j, i;
    int index;
  };
  /// Writes the indices of `keys` (ascending index) to `out` ordered by (colour if `colours`
  /// > 1, k, j, i, index) with a counting sort over the keys' box of blocks; false when the
  /// box is too large for one (the caller sorts by comparison, to the same order).
  bool counting_sort(std::span<const Key> keys, int colours, std::span<int> out);
  /// The kGraph order of the n contacts (keys_ and body slots built), bodies_of(c) their bodies.
  template <class Bodies>
  void colour_graph(int n, Bodies&& bodies_of, int body_count);

  std::vector<BlockCell> cell_of_;   // per island body (set for those with slots)
  std::vector<Key> keys_;            // per body, then per contact
  std::vector<Key> coloured_;        // the contacts that are not leftovers
  std::vector<int> colour_of_;       // per contact, -1 a leftover
  std::vector<int> count_;           // the counting sort's table
  std::vector<int> spatial_;         // kGraph: the contacts in block order
  std::vector<std::uint32_t> used_;  // kGraph: per body slot, its colours
  std::vector<int> regroup_start_, regroup_blocks_, regroup_fill_;  // group_blocks' scratch
};

}  // namespace etdem
