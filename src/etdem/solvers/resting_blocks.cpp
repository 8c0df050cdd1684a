#include "etdem/solvers/resting_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>
#include <utility>

namespace etdem {

namespace {

/// Block coordinate of x on a grid of edge `cell` anchored at 0; clamped far beyond any scene
/// (2^40 blocks) so a wild position cannot overflow.
std::int64_t block_coordinate(double x, double cell) {
  const double q = std::floor(x / cell);
  constexpr double kFar = 1099511627776.0;  // 2^40
  return static_cast<std::int64_t>(std::clamp(q, -kFar, kFar));
}

}  // namespace

void BlockOrder::build(std::span<const Contact> contacts, const Vec3* x, int body_count,
                       double cell) {
  cell_of_.resize(body_count);
  for (int b = 0; b < body_count; ++b)
    for (int d = 0; d < 3; ++d) cell_of_[b][d] = block_coordinate(x[b][d], cell);
  // Bodies by block, so the bodies one block's contacts move lie near each other in memory.
  keys_.resize(body_count);
  for (int b = 0; b < body_count; ++b)
    keys_[b] = {cell_of_[b][2], cell_of_[b][1], cell_of_[b][0], b};
  auto by_block = [](const Key& p, const Key& q) {
    return std::tie(p.k, p.j, p.i, p.index) < std::tie(q.k, q.j, q.i, q.index);
  };
  std::sort(keys_.begin(), keys_.end(), by_block);
  body_order.resize(body_count);
  body_slot.resize(body_count);
  for (int s = 0; s < body_count; ++s) {
    body_order[s] = keys_[s].index;
    body_slot[keys_[s].index] = s;
  }
  // Each contact's block: the component-wise minimum of its bodies' blocks (colour -1 marks a
  // leftover: bodies more than one block apart along some axis, or no dynamic body).
  const int n = static_cast<int>(contacts.size());
  keys_.resize(n);
  colour_of_.resize(n);
  for (int c = 0; c < n; ++c) {
    const int a = contacts[c].a, b = contacts[c].b;
    std::array<std::int64_t, 3> at{};
    int colour = -1;
    if (a >= 0 || b >= 0) {
      at = cell_of_[a >= 0 ? a : b];
      bool near = true;
      if (a >= 0 && b >= 0)
        for (int d = 0; d < 3; ++d) {
          near = near && std::llabs(cell_of_[a][d] - cell_of_[b][d]) <= 1;
          at[d] = std::min(cell_of_[a][d], cell_of_[b][d]);
        }
      if (near) colour = static_cast<int>((at[0] & 1) | ((at[1] & 1) << 1) | ((at[2] & 1) << 2));
    }
    colour_of_[c] = colour;
    keys_[c] = {at[2], at[1], at[0], c};
  }
  // By colour (leftovers last), then block (k, j, i), then island order: one sort of packed
  // keys, colour in the top 3 bits and each coordinate in 20 bits counted from the island's
  // lowest block (a shift keeps the order of (k, j, i); the colours come from the absolute
  // coordinates). An island wider than 2^20 blocks along an axis is sorted by the tuples.
  std::array<std::int64_t, 3> low{};
  std::array<std::int64_t, 3> high{};
  bool first = true;
  for (int c = 0; c < n; ++c) {
    if (colour_of_[c] < 0) continue;
    const std::int64_t at[3] = {keys_[c].i, keys_[c].j, keys_[c].k};
    for (int d = 0; d < 3; ++d) {
      low[d] = first ? at[d] : std::min(low[d], at[d]);
      high[d] = first ? at[d] : std::max(high[d], at[d]);
    }
    first = false;
  }
  constexpr std::int64_t kSpan = std::int64_t{1} << 20;
  const bool packed =
      high[0] - low[0] < kSpan && high[1] - low[1] < kSpan && high[2] - low[2] < kSpan;
  sorted_.clear();
  for (int c = 0; c < n; ++c) {
    if (colour_of_[c] < 0) continue;
    const std::uint64_t key = packed ? (static_cast<std::uint64_t>(colour_of_[c]) << 60) |
                                           (static_cast<std::uint64_t>(keys_[c].k - low[2]) << 40) |
                                           (static_cast<std::uint64_t>(keys_[c].j - low[1]) << 20) |
                                           static_cast<std::uint64_t>(keys_[c].i - low[0])
                                     : static_cast<std::uint64_t>(colour_of_[c]) << 60;
    sorted_.push_back({key, c});
  }
  if (packed) {
    std::sort(sorted_.begin(), sorted_.end());
  } else {
    std::sort(sorted_.begin(), sorted_.end(), [&](const auto& p, const auto& q) {
      return std::tie(p.first, keys_[p.second].k, keys_[p.second].j, keys_[p.second].i, p.second) <
             std::tie(q.first, keys_[q.second].k, keys_[q.second].j, keys_[q.second].i, q.second);
    });
  }
  contact_order.resize(n);
  block_start.clear();
  colour_start.fill(0);
  auto same_block = [&](int p, int q) {
    return keys_[p].k == keys_[q].k && keys_[p].j == keys_[q].j && keys_[p].i == keys_[q].i;
  };
  int slot = 0, colour = -1;
  for (const auto& [key, c] : sorted_) {
    while (colour < colour_of_[c]) colour_start[++colour] = static_cast<int>(block_start.size());
    if (slot == 0 || colour_of_[contact_order[slot - 1]] != colour_of_[c] ||
        !same_block(contact_order[slot - 1], c))
      block_start.push_back(slot);
    contact_order[slot++] = c;
  }
  while (colour < kColours - 1) colour_start[++colour] = static_cast<int>(block_start.size());
  leftover_start = slot;
  for (int c = 0; c < n; ++c)
    if (colour_of_[c] < 0) contact_order[slot++] = c;
  colour_start[kColours] = static_cast<int>(block_start.size());
  block_start.push_back(leftover_start);
}

}  // namespace etdem
