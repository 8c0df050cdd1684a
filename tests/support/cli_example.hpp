// Runs an example through the etdem CLI (ETDEM_CLI) into a fresh directory and reads its
// summary.json back.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

namespace etdem::test {

/// `etdem run SOURCE/examples/<example> -o out <extra>`; fails the test unless it exits 0.
inline nlohmann::json run_example(const std::string& example, const std::filesystem::path& out,
                                  const std::string& extra = "") {
  std::filesystem::remove_all(out);
  const std::string cmd = std::string("'") + ETDEM_CLI + "' run '" + ETDEM_SOURCE_DIR +
                          "/examples/" + example + "' -o '" + out.string() + "' " + extra +
                          " >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(out / "summary.json");
  return f ? nlohmann::json::parse(f) : nlohmann::json::object();
}

}  // namespace etdem::test
