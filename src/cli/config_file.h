#pragma once
// tala.toml: every `tala eval` option can be set in a config file (toml++), under the same
// name as its flag with underscores (max_in_flight = 64), plus a [diagnosis_thresholds] table.
// Precedence: flag, then TALA_* environment variable, then the config file, then the default.
// The file is --config PATH, else $TALA_CONFIG, else ./tala.toml when it exists.

#include <string>
#include <vector>

#include "tala/evaluate.h"

namespace tala::cli {

// The config path named on the command line or by $TALA_CONFIG, or ./tala.toml when present;
// empty when there is none. `explicit_path` says whether the user named it (then it must exist).
std::string FindConfigFile(int argc, char** argv, bool* explicit_path);

// Applies the file's settings to `options`. kInvalidArgument naming file:line and the key for
// syntax errors, unknown keys and values of the wrong type; kIoError when it cannot be read.
Status ApplyConfigFile(const std::string& path, EvalOptions& options);

// The keys ApplyConfigFile knows, for --help and the docs.
const std::vector<std::string>& ConfigKeys();

}  // namespace tala::cli
