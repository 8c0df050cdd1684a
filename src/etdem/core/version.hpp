// The version of the engine: the release (CMakeLists.txt's project VERSION, CHANGELOG.md) and
// the commit it was built from. `etdem --version` prints version_string(), summary.json carries
// it, and checkpoints carry it too: a checkpoint written by another build is refused.
#pragma once

namespace etdem {

/// The release, e.g. "0.9.0".
const char* version();
/// `git describe --always --dirty` of the sources when the build was configured, or
/// "unknown (source tarball)" outside a git checkout.
const char* commit();
/// "0.9.0 (commit 035176d)".
const char* version_string();

}  // namespace etdem
