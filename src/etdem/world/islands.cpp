#include "etdem/world/islands.hpp"

#include "etdem/core/group_by_key.hpp"
#include "etdem/core/union_find.hpp"

namespace etdem {

void IslandBuilder::build(std::span<const Contact> contacts, std::span<const int> candidates,
                          const std::vector<char>& dynamic, Islands& out) {
  const int nb = static_cast<int>(dynamic.size());
  parent_.resize(nb);
  for (int i = 0; i < nb; ++i) parent_[i] = i;
  touched_.assign(nb, 0);
  std::vector<char>& touched = touched_;
  for (int ci : candidates) {
    const Contact& c = contacts[ci];
    const bool da = c.a >= 0 && dynamic[c.a], db = c.b >= 0 && dynamic[c.b];
    if (da) touched[c.a] = 1;
    if (db) touched[c.b] = 1;
    if (da && db) unite(parent_, c.a, c.b);  // (the smaller index is the root: deterministic)
  }
  // Every body straight under its root. A root is its set's smallest index and a body's parent
  // is never above it (unions hang the larger root under the smaller, halving takes a
  // grandparent), so in ascending order each parent is already flat: one pass, after which a
  // body's root is its parent (the loops below read it once per body and per contact instead of
  // walking a path each time).
  for (int i = 0; i < nb; ++i) parent_[i] = parent_[parent_[i]];
  // Number islands by their smallest body index.
  island_of_root_.assign(nb, -1);
  int islands = 0;
  for (int i = 0; i < nb; ++i) {
    if (!touched[i]) continue;
    const int r = parent_[i];
    if (island_of_root_[r] < 0) island_of_root_[r] = islands++;
  }
  // Counting sort of contacts and bodies by island, stable in the original order (each
  // contact's island read once from the contact).
  contact_island_.resize(candidates.size());
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Contact& c = contacts[candidates[k]];
    const int body = (c.a >= 0 && dynamic[c.a]) ? c.a : c.b;
    contact_island_[k] = island_of_root_[parent_[body]];
  }
  group_by_key(
      islands,
      [&](auto emit) {
        for (std::size_t k = 0; k < candidates.size(); ++k) emit(contact_island_[k], candidates[k]);
      },
      out.contact_start, out.contact_order, counts_);
  group_by_key(
      islands,
      [&](auto emit) {
        for (int i = 0; i < nb; ++i)
          if (touched[i]) emit(island_of_root_[parent_[i]], i);
      },
      out.body_start, out.body_order, counts_);
}

}  // namespace etdem
