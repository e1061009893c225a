#pragma once
// The flags `tala run` and `tala ci` share: the target and how to call it. Each overrides the
// [target] table of tala.toml.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "tala/run.h"

namespace tala::cli {

struct RunFlags {
  RunOptions options;
  std::vector<std::string> headers;  // --header, added to the config's
  std::string config;                // read before the flags (main.cc); declared so --help lists it
  bool quiet = false;
  // Checks what CLI11 cannot: a target given somewhere.
  Status Finish();
};

void AddTargetFlags(CLI::App& cmd, RunFlags& f);

// Runs the target with a progress line and Ctrl-C handling; prints the run report. Returns the
// exit code (0 when the run finished, whatever rows failed).
int CallTarget(RunOptions options, bool quiet, const char* who, tala::RunReport* report);

}  // namespace tala::cli
