// Errors about user input. Every message is one line that names the file, the key and the
// offending value: "FILE[:LINE]: KEY: message (value VALUE)". The CLI prints it and exits with
// code 2 before any simulation starts.
#pragma once

#include <stdexcept>
#include <string>

namespace etdem {

/// Bad input of any kind: a scenario file, a command-line override, a run directory to analyse.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A scenario file (or an override of it) that cannot be run.
class ScenarioError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace etdem
