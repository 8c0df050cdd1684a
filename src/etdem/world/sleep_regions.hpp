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

 private:
  std::vector<std::int64_t> keys_;
  std::vector<std::uint8_t> values_, used_;
};

}  // namespace etdem
