// Body -> contacts adjacency of an island (compressed rows): the contacts an impulse on a body
// changes. Built once per island by the solvers that re-key or re-evaluate only the contacts of
// the bodies an impulse touched (etm, etm-priority, sqm, lzb).
#pragma once

#include <span>
#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

class BodyContacts {
 public:
  /// `bodies` = island-local body count; contacts name bodies 0..bodies-1, or -1 (static).
  void build(std::span<const Contact> cs, int bodies) {
    start_.assign(bodies + 1, 0);
    for (const Contact& c : cs) {
      if (c.a >= 0) ++start_[c.a + 1];
      if (c.b >= 0) ++start_[c.b + 1];
    }
    for (int i = 0; i < bodies; ++i) start_[i + 1] += start_[i];
    list_.resize(start_[bodies]);
    cursor_.assign(start_.begin(), start_.end() - 1);
    for (std::size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].a >= 0) list_[cursor_[cs[i].a]++] = static_cast<int>(i);
      if (cs[i].b >= 0) list_[cursor_[cs[i].b]++] = static_cast<int>(i);
    }
  }
  /// The contacts of a dynamic body, in contact order (a contact whose two sides are the same
  /// body appears twice).
  std::span<const int> of(int body) const {
    return {list_.data() + start_[body], list_.data() + start_[body + 1]};
  }

 private:
  std::vector<int> start_, list_, cursor_;
};

}  // namespace etdem
