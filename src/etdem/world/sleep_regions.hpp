// The regions of sleep (world/sleep_regions.cpp): a flag per occupied region, found by its key.
#pragma once

#include <cstdint>
#include <vector>

namespace etdem {

/// An open-addressing table from a region's key to a small state, emptied and sized for a number
/// of regions each time it is used (a step's awake bodies: at most one region each).
class RegionTable {
 public:
  /// Empties the table, with room for `expected` keys at most half full.
  void reset(std::size_t expected);
  /// The state of `key`, inserted as `initial` when absent. At most `expected` keys.
  std::uint8_t& at(std::int64_t key, std::uint8_t initial);
  /// The state of `key`, or null when absent.
  const std::uint8_t* find(std::int64_t key) const;
  /// f(key, state) for every key, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t s = 0; s < keys_.size(); ++s)
      if (used_[s]) f(keys_[s], values_[s]);
  }

 private:
  std::vector<std::int64_t> keys_;
  std::vector<std::uint8_t> values_, used_;
  std::size_t slot(std::int64_t key) const;  // where the probe for `key` starts
};

}  // namespace etdem
