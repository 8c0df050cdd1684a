// The block on an incline of V6 (etdem/validation/incline.hpp, shared with `etdem validate`).
#pragma once

#include "etdem/validation/incline.hpp"
#include "test_world_fixture.hpp"

namespace etdem::test {

using validation::Incline;

}  // namespace etdem::test
