// Contact islands (2024 §3.3): connected components of dynamic bodies through collision
// candidates, found with union-find. Static bodies do not join islands, so a floor does not glue
// every grain into one island. Each island is resolved independently.
#pragma once

#include <span>
#include <vector>

#include "etdem/collision/contact.hpp"

namespace etdem {

struct Islands {
  // Island k owns contacts contact_order[contact_start[k] .. contact_start[k+1]) and bodies
  // body_order[body_start[k] .. body_start[k+1]), both in ascending original order.
  std::vector<int> contact_start, contact_order;
  std::vector<int> body_start, body_order;
  int count() const { return static_cast<int>(contact_start.size()) - 1; }
};

class IslandBuilder {
 public:
  /// Builds islands of the candidate contacts (indices into `contacts`). `dynamic[b]` is true
  /// for bodies that can move. The result depends only on the input order, never on threads.
  void build(std::span<const Contact> contacts, std::span<const int> candidates,
             const std::vector<char>& dynamic, Islands& out);

 private:
  std::vector<int> parent_, island_of_root_, counts_;
  std::vector<int> contact_island_;  // per candidate: its island
  std::vector<char> touched_;        // per body: in some candidate contact
};

}  // namespace etdem
