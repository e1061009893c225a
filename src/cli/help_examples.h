#pragma once
// The two examples that end each subcommand's --help (eval, compare, gate and report write their
// own beside their flags).

#include <CLI/CLI.hpp>

namespace tala::cli {

// Sets the examples footer of every subcommand in its table; call once all are added. Throws
// CLI::OptionNotFound for a subcommand the table names and `app` lacks.
void AddExamples(CLI::App& app);

}  // namespace tala::cli
