// The check that a compound's parts do not overlap. It needs the narrow phase, so it lives here
// and not in shapes/ (which the narrow phase depends on): make_compound builds, this checks.
#pragma once

#include "etdem/shapes/compound.hpp"
#include "etdem/shapes/shape.hpp"

namespace etdem {

/// Throws std::invalid_argument with a one-line reason when two parts of `compound` (parts of
/// `shapes`) overlap: penetration deeper than 1e-9 of the larger part's bounding radius, found
/// with the narrow phase. Touching is fine. Overlapping parts would make the compound's mass
/// properties, the sums of the parts', count the common volume twice.
void check_parts_disjoint(const ShapeTable& shapes, const Compound& compound);

}  // namespace etdem
