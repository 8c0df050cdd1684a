#include "etdem/solvers/resting_blocks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

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
  // Counting by colour (leftovers last), then by block within a colour, island order within a
  // block (std::stable_sort keeps it).
  std::array<int, kColours + 2> count{};
  for (int c = 0; c < n; ++c) ++count[colour_of_[c] < 0 ? kColours + 1 : colour_of_[c] + 1];
  std::array<int, kColours + 1> start{};
  for (int c = 0; c < kColours; ++c) start[c + 1] = start[c] + count[c + 1];
  leftover_start = start[kColours];
  contact_order.resize(n);
  std::array<int, kColours + 1> fill = start;
  for (int c = 0; c < n; ++c)
    contact_order[colour_of_[c] < 0 ? fill[kColours]++ : fill[colour_of_[c]]++] = c;
  auto block_less = [&](int p, int q) {
    return std::tie(keys_[p].k, keys_[p].j, keys_[p].i) <
           std::tie(keys_[q].k, keys_[q].j, keys_[q].i);
  };
  block_start.clear();
  for (int colour = 0; colour < kColours; ++colour) {
    colour_start[colour] = static_cast<int>(block_start.size());
    const auto first = contact_order.begin() + start[colour],
               last = contact_order.begin() + start[colour + 1];
    std::stable_sort(first, last, block_less);
    for (auto it = first; it != last; ++it)
      if (it == first || block_less(*(it - 1), *it))
        block_start.push_back(static_cast<int>(it - contact_order.begin()));
  }
  colour_start[kColours] = static_cast<int>(block_start.size());
  block_start.push_back(leftover_start);
}

}  // namespace etdem
