// The long cases of `etdem validate --long` (validate_long.cpp): V5 and V9 run as scenarios
// through this executable's `run` and `analyze` commands, `parallel` processes at a time.
#pragma once

#include <vector>

#include "etdem/validation/cases.hpp"

namespace etdem::cli {

std::vector<validation::Case> long_cases(int parallel);

}  // namespace etdem::cli
