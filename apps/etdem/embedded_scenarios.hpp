// The example scenarios built into the binary for `etdem validate --long`, by their path in the
// source tree (examples/repose/spheres.toml, ...); the list is CMakeLists.txt's
// ETDEM_EMBEDDED_SCENARIOS.
#pragma once

#include <map>
#include <string>

namespace etdem::cli {

const std::map<std::string, std::string>& embedded_scenarios();

}  // namespace etdem::cli
