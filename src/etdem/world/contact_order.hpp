// The serial order of a step's contacts as a key (docs/distributed.md, design item 5): the
// narrow phase lists the contacts of bounded pairs first, by pair (a < b), then each dynamic
// body's contacts with the planes and terrains (tested apart), by body and then wall; the
// points of one pair keep the order the pair function gave them. A host that gathers an
// island's contacts from several ranks (each pair detected on one rank, its points together
// and in order) restores the serial order with a stable sort by this key, on global ids.
#pragma once

#include <cstdint>
#include <tuple>

namespace etdem {

struct ContactOrderKey {
  bool against_unbounded = false;  // the second body is a plane or a terrain
  std::int64_t a = -1, b = -1;     // global body ids as the contact names them

  friend bool operator<(const ContactOrderKey& x, const ContactOrderKey& y) {
    return std::tie(x.against_unbounded, x.a, x.b) < std::tie(y.against_unbounded, y.a, y.b);
  }
};

}  // namespace etdem
