// Hand-built islands of spheres for solver tests (etdem/validation/balls.hpp, shared with
// `etdem validate`): chains along x, Bernoulli's three balls, the four-ball rhombus.
#pragma once

#include "etdem/validation/balls.hpp"

namespace etdem::test {

using validation::Balls;
using validation::bernoulli;
using validation::chain;
using validation::four_balls;

}  // namespace etdem::test
