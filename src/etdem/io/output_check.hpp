// Checks made before a run writes anything, so that a run that cannot write all its outputs
// fails before the first file is written rather than half way.
#pragma once

#include <initializer_list>
#include <string>

namespace etdem {

/// Throws InputError "DIR/NAME: reason" when `dir` exists and is not a writable directory, or one
/// of the files `names` exists in it as something else than a regular file (a directory, a FIFO,
/// ...).
void check_output_files(const std::string& dir, std::initializer_list<const char*> names);

}  // namespace etdem
