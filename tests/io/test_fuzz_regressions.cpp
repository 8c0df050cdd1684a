// Replays the fuzz targets' inputs in the ordinary build: the seed corpora (fuzz/seeds/) and every
// input a fuzzing run found (tests/fuzz_regressions/<target>/<file>, see fuzz/CMakeLists.txt).
// Each must be handled without a crash and quickly; errors of the input are fine.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "../../fuzz/fuzz_targets.hpp"

namespace etdem {
namespace {

namespace fs = std::filesystem;

const std::map<std::string, std::function<void(const std::uint8_t*, std::size_t)>> kTargets = {
    {"scenario", fuzz::scenario}, {"set_override", fuzz::set_override},
    {"stl", fuzz::stl},           {"obj", fuzz::obj},
    {"msh", fuzz::msh},           {"vtk", fuzz::vtk}};

int replay(const fs::path& root) {
  int n = 0;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(root, ec)) {
    if (!dir.is_directory()) continue;
    const std::string target = dir.path().filename().string();
    const auto it = kTargets.find(target);
    EXPECT_NE(it, kTargets.end()) << dir.path() << ": no fuzz target of that name";
    if (it == kTargets.end()) continue;
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::ifstream in(file.path(), std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      const std::string bytes = s.str();
      const auto t0 = std::chrono::steady_clock::now();
      it->second(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
      const double sec =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_LT(sec, 5.0) << file.path();
      ++n;
    }
  }
  return n;
}

TEST(FuzzRegressions, SeedsAndFoundInputsAreHandled) {
  EXPECT_GT(replay(fs::path(ETDEM_SOURCE_DIR) / "fuzz" / "seeds"), 0);
  replay(fs::path(ETDEM_SOURCE_DIR) / "tests" / "fuzz_regressions");
}

}  // namespace
}  // namespace etdem
