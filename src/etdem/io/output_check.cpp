#include "etdem/io/output_check.hpp"

#include <filesystem>

#include <fmt/format.h>
#include <unistd.h>

#include "etdem/io/scenario_error.hpp"

namespace etdem {

void check_output_files(const std::string& dir, std::initializer_list<const char*> names) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_type type = fs::status(dir, ec).type();
  if (type == fs::file_type::not_found) return;  // created empty by the caller
  if (type != fs::file_type::directory)
    throw InputError(fmt::format("{}: the output directory is not a directory", dir));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(fmt::format("{}: the output directory is not writable", dir));
  for (const char* name : names) {
    const fs::path p = fs::path(dir) / name;
    const fs::file_status st = fs::status(p, ec);
    if (st.type() == fs::file_type::not_found || st.type() == fs::file_type::regular) continue;
    const char* what = st.type() == fs::file_type::directory ? "a directory" : "not a regular file";
    throw InputError(fmt::format(
        "{}: is {}, where the run writes a file; nothing was written (remove it or choose "
        "another output directory)",
        p.string(), what));
  }
}

}  // namespace etdem
