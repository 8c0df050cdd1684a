#include "etdem/collision/compound_overlap.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "etdem/collision/collide.hpp"

namespace etdem {

void check_parts_disjoint(const ShapeTable& shapes, const Compound& compound) {
  const std::vector<CompoundPart>& parts = compound.parts;
  Manifold m;
  for (std::size_t i = 0; i < parts.size(); ++i)
    for (std::size_t j = i + 1; j < parts.size(); ++j) {
      const double ri = shapes.bounding_radius[parts[i].shape];
      const double rj = shapes.bounding_radius[parts[j].shape];
      if ((parts[i].position - parts[j].position).norm() > ri + rj) continue;
      collide(shapes, parts[i].shape, Pose(parts[i].position, parts[i].orientation), parts[j].shape,
              Pose(parts[j].position, parts[j].orientation), 0.0, m);
      double deepest = 0.0;
      for (int k = 0; k < m.count; ++k) deepest = std::min(deepest, m.gap[k]);
      if (deepest < -1e-9 * std::max(ri, rj))
        throw std::invalid_argument(fmt::format(
            "parts {} ('{}') and {} ('{}') overlap by {:.6g} m; parts must not overlap (the mass "
            "properties are the sums of the parts'): split them into disjoint pieces",
            i, shapes.name[parts[i].shape], j, shapes.name[parts[j].shape], -deepest));
    }
}

}  // namespace etdem
