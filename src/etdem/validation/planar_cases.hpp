// The planar LZB cases of `etdem validate` (lzb_planar_cases.cpp), listed by cases.cpp.
#pragma once

#include <vector>

#include "etdem/validation/cases.hpp"

namespace etdem::validation {

/// Bernoulli's problem (LZB 2009 §4a-b): Table 6, Eq. 4.2, the plastic and the mixed impacts.
std::vector<Check> run_bernoulli();

/// The planar four-ball systems (LZB 2009 §4c): cases A and B, one and two strikers.
std::vector<Check> run_four_balls();

}  // namespace etdem::validation
