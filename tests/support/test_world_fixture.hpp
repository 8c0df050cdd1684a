// A small fixture for physics tests: build a world in a few lines, step it, read energies. The
// fixture is the validation cases' (etdem/validation/scene.hpp), shared with `etdem validate`.
#pragma once

#include "etdem/validation/scene.hpp"

namespace etdem::test {

using TestWorld = validation::Scene;
using validation::fill_spheres;
using validation::random_rock;

}  // namespace etdem::test
