// libFuzzer target: etdem::fuzz::stl (fuzz_targets.hpp).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  etdem::fuzz::stl(data, size);
  return 0;
}
