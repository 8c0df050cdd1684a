// libFuzzer target: etdem::fuzz::set_override (fuzz_targets.hpp).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  etdem::fuzz::set_override(data, size);
  return 0;
}
