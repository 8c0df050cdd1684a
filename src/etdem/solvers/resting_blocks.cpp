#include "etdem/solvers/resting_blocks.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "etdem/core/group_by_key.hpp"
#include "etdem/core/parallel.hpp"

namespace etdem {

std::int64_t block_coordinate(double x, double cell) {
  const double q = std::floor(x / cell);
  constexpr double kFar = 1099511627776.0;  // 2^40
  return static_cast<std::int64_t>(std::clamp(q, -kFar, kFar));
}

void BlockOrder::build(std::span<const Contact> contacts, const Vec3* x, int body_count,
                       double cell, std::span<const int> order, Colouring colouring,
                       const std::vector<int>* bodies) {
  ++layout;
  auto contact = [&](int c) -> const Contact& {
    return order.empty() ? contacts[c] : contacts[order[c]];
  };
  if (bodies && colouring != Colouring::kBlocks)
    throw std::logic_error("BlockOrder::build: some bodies slotted, and not by blocks");
  const int slots = bodies ? static_cast<int>(bodies->size()) : body_count;
  auto island_body = [&](int k) { return bodies ? (*bodies)[static_cast<std::size_t>(k)] : k; };
  // (Each body's and each contact's key on its own: on every thread when there are many.)
  cell_of_.resize(body_count);
  // Bodies by block (k, j, i), then index, so the bodies one block's contacts move lie near
  // each other in memory.
  keys_.resize(slots);
  parallel_for(static_cast<std::size_t>(slots), [&](std::size_t k) {
    const int b = island_body(static_cast<int>(k));
    for (int d = 0; d < 3; ++d) cell_of_[b][d] = block_coordinate(x[b][d], cell);
    keys_[k] = {cell_of_[b][2], cell_of_[b][1], cell_of_[b][0], b};
  });
  body_order.resize(slots);
  if (!counting_sort(keys_, 1, body_order)) {
    auto by_block = [](const Key& p, const Key& q) {
      return std::tie(p.k, p.j, p.i, p.index) < std::tie(q.k, q.j, q.i, q.index);
    };
    std::sort(keys_.begin(), keys_.end(), by_block);
    for (int s = 0; s < slots; ++s) body_order[s] = keys_[s].index;
  }
  if (bodies)
    body_slot.assign(body_count, -1);
  else
    body_slot.resize(body_count);
  for (int s = 0; s < slots; ++s) body_slot[body_order[s]] = s;
  // Each contact's block: the component-wise minimum of its bodies' blocks (colour -1 marks a
  // leftover: bodies more than one block apart along some axis, or no dynamic body).
  const int n = static_cast<int>(order.empty() ? contacts.size() : order.size());
  keys_.resize(n);
  colour_of_.resize(n);
  parallel_for(static_cast<std::size_t>(n), [&](std::size_t slot) {
    const int c = static_cast<int>(slot);
    const int a = contact(c).a, b = contact(c).b;
    BlockCell at{};
    int colour = -1;
    if ((a >= 0 || b >= 0) &&
        contact_block(a >= 0 ? &cell_of_[a] : nullptr, b >= 0 ? &cell_of_[b] : nullptr, at))
      colour = static_cast<int>((at[0] & 1) | ((at[1] & 1) << 1) | ((at[2] & 1) << 2));
    colour_of_[c] = colour;
    keys_[c] = {at[2], at[1], at[0], c};
  });
  contact_order.resize(n);
  if (colouring == Colouring::kGraph) {
    colour_graph(
        n,
        [&](int c) -> std::pair<int, int> {
          return {contact(c).a, contact(c).b};
        },
        body_count);
    return;
  }
  // By colour (leftovers last), then block (k, j, i), then island order.
  coloured_.clear();
  for (int c = 0; c < n; ++c)
    if (colour_of_[c] >= 0) coloured_.push_back(keys_[c]);
  const int placed = static_cast<int>(coloured_.size());
  std::span<int> by_colour(contact_order.data(), static_cast<std::size_t>(placed));
  if (!counting_sort(coloured_, kBlockColours, by_colour)) {
    std::sort(coloured_.begin(), coloured_.end(), [&](const Key& p, const Key& q) {
      return std::tie(colour_of_[p.index], p.k, p.j, p.i, p.index) <
             std::tie(colour_of_[q.index], q.k, q.j, q.i, q.index);
    });
    for (int s = 0; s < placed; ++s) by_colour[s] = coloured_[s].index;
  }
  block_start.clear();
  colour_start.assign(kBlockColours + 1, 0);
  auto same_block = [&](int p, int q) {
    return keys_[p].k == keys_[q].k && keys_[p].j == keys_[q].j && keys_[p].i == keys_[q].i;
  };
  int colour = -1;
  for (int slot = 0; slot < placed; ++slot) {
    const int c = contact_order[slot];
    while (colour < colour_of_[c]) colour_start[++colour] = static_cast<int>(block_start.size());
    if (slot == 0 || colour_of_[contact_order[slot - 1]] != colour_of_[c] ||
        !same_block(contact_order[slot - 1], c))
      block_start.push_back(slot);
  }
  while (colour < kBlockColours - 1) colour_start[++colour] = static_cast<int>(block_start.size());
  leftover_start = placed;
  int slot = placed;
  for (int c = 0; c < n; ++c)
    if (colour_of_[c] < 0) contact_order[slot++] = c;
  colour_start[kBlockColours] = static_cast<int>(block_start.size());
  block_start.push_back(leftover_start);
}

template <class Bodies>
void BlockOrder::colour_graph(int n, Bodies&& bodies_of, int body_count) {
  // Every contact in block order (k, j, i), then island order: the keys built above.
  spatial_.resize(static_cast<std::size_t>(n));
  if (!counting_sort(keys_, 1, spatial_)) {
    coloured_.assign(keys_.begin(), keys_.end());
    std::sort(coloured_.begin(), coloured_.end(), [](const Key& p, const Key& q) {
      return std::tie(p.k, p.j, p.i, p.index) < std::tie(q.k, q.j, q.i, q.index);
    });
    for (int s = 0; s < n; ++s) spatial_[s] = coloured_[s].index;
  }
  // Greedy: each contact takes the first colour neither of its dynamic bodies has yet; one with
  // none left (or no dynamic body) is a leftover. The order is the contacts', so the colours do
  // not depend on the number of threads.
  used_.assign(static_cast<std::size_t>(body_count), 0);
  constexpr std::uint32_t kAll = (std::uint32_t{1} << kGraphColours) - 1;
  int colours = 0;
  for (const int c : spatial_) {
    const auto [a, b] = bodies_of(c);
    int colour = -1;
    if (a >= 0 || b >= 0) {
      const std::uint32_t taken = (a >= 0 ? used_[a] : 0u) | (b >= 0 ? used_[b] : 0u);
      const std::uint32_t free = ~taken & kAll;
      if (free != 0) {
        colour = std::countr_zero(free);
        if (a >= 0) used_[a] |= std::uint32_t{1} << colour;
        if (b >= 0) used_[b] |= std::uint32_t{1} << colour;
        colours = std::max(colours, colour + 1);
      }
    }
    colour_of_[c] = colour;
  }
  // By colour in block order, each colour cut into chunks of kChunk contacts; leftovers last.
  count_.assign(static_cast<std::size_t>(colours) + 2, 0);
  for (const int c : spatial_)
    ++count_[static_cast<std::size_t>(colour_of_[c] < 0 ? colours : colour_of_[c]) + 1];
  for (std::size_t k = 1; k < count_.size(); ++k) count_[k] += count_[k - 1];
  leftover_start = count_[static_cast<std::size_t>(colours)];
  block_start.clear();
  colour_start.assign(static_cast<std::size_t>(colours) + 1, 0);
  for (int colour = 0; colour < colours; ++colour) {
    colour_start[colour] = static_cast<int>(block_start.size());
    for (int slot = count_[colour]; slot < count_[colour + 1]; slot += kChunk)
      block_start.push_back(slot);
  }
  colour_start[colours] = static_cast<int>(block_start.size());
  block_start.push_back(leftover_start);
  for (const int c : spatial_)
    contact_order[static_cast<std::size_t>(count_[colour_of_[c] < 0 ? colours : colour_of_[c]]++)] =
        c;
}

void BlockOrder::group_blocks(std::vector<int>& group) {
  ++layout;
  // The blocks by (colour, group), each such run in its order (a stable counting sort), then the
  // rows copied block by block in that order.
  const int count = colours();
  const int blocks = colour_start[static_cast<std::size_t>(count)];
  const int groups = blocks == 0 ? 0 : *std::max_element(group.begin(), group.end()) + 1;
  group_by_key(
      count * groups,
      [&](auto&& emit) {
        for (int colour = 0; colour < count; ++colour)
          for (int k = colour_start[static_cast<std::size_t>(colour)];
               k < colour_start[static_cast<std::size_t>(colour) + 1]; ++k)
            emit(colour * groups + group[static_cast<std::size_t>(k)], k);
      },
      regroup_start_, regroup_blocks_, regroup_fill_);
  std::vector<int>& slots = regroup_fill_;  // (scratch again: the rows in their new places)
  slots.resize(static_cast<std::size_t>(leftover_start));
  std::vector<int>& starts = regroup_start_;
  starts.resize(static_cast<std::size_t>(blocks));
  int at = 0;
  for (int k = 0; k < blocks; ++k) {
    const int from = regroup_blocks_[static_cast<std::size_t>(k)];
    starts[static_cast<std::size_t>(k)] = at;
    for (int i = block_start[static_cast<std::size_t>(from)];
         i < block_start[static_cast<std::size_t>(from) + 1]; ++i)
      slots[static_cast<std::size_t>(at++)] = contact_order[static_cast<std::size_t>(i)];
  }
  std::copy(slots.begin(), slots.end(), contact_order.begin());
  std::copy(starts.begin(), starts.end(), block_start.begin());
  for (int k = 0; k < blocks; ++k)
    starts[static_cast<std::size_t>(k)] =
        group[static_cast<std::size_t>(regroup_blocks_[static_cast<std::size_t>(k)])];
  std::copy(starts.begin(), starts.end(), group.begin());
}

bool BlockOrder::counting_sort(std::span<const Key> keys, int colours, std::span<int> out) {
  // The keys' box of blocks; with `colours` > 1 the key's colour (colour_of_ of its index) is
  // the most significant part. Too wide a box for a table is left to the comparison sort.
  if (keys.empty()) return true;
  std::int64_t low[3] = {keys[0].k, keys[0].j, keys[0].i};
  std::int64_t high[3] = {keys[0].k, keys[0].j, keys[0].i};
  for (const Key& key : keys) {
    const std::int64_t at[3] = {key.k, key.j, key.i};
    for (int d = 0; d < 3; ++d) {
      low[d] = std::min(low[d], at[d]);
      high[d] = std::max(high[d], at[d]);
    }
  }
  const std::int64_t limit = 4 * static_cast<std::int64_t>(keys.size()) + 4096;
  std::int64_t span[3];
  std::int64_t cells = colours;
  for (int d = 0; d < 3; ++d) {
    span[d] = high[d] - low[d] + 1;
    if (span[d] > limit) return false;
    cells *= span[d];
    if (cells > limit) return false;
  }
  auto bucket = [&](const Key& key) {
    const std::int64_t colour = colours > 1 ? colour_of_[key.index] : 0;
    return static_cast<std::size_t>(
        ((colour * span[0] + (key.k - low[0])) * span[1] + (key.j - low[1])) * span[2] +
        (key.i - low[2]));
  };
  // Stable: keys of one bucket keep their (ascending index) order.
  count_.assign(static_cast<std::size_t>(cells) + 1, 0);
  for (const Key& key : keys) ++count_[bucket(key) + 1];
  for (std::size_t b = 1; b < count_.size(); ++b) count_[b] += count_[b - 1];
  for (const Key& key : keys) out[static_cast<std::size_t>(count_[bucket(key)]++)] = key.index;
  return true;
}

}  // namespace etdem
