#pragma once
// The subcommands of `tala`. Each Add*Command declares its flags once (help, default, env var)
// and sets `*exit_code` when it runs. No evaluation logic lives here: it calls the library.

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/report.h"
#include "tala/run.h"
#include "tala/status.h"

namespace tala::cli {

// Exit codes: 0 ok; 1 run finished but gates or rows failed; 2 usage or input error;
// 3 judge or runtime failure (partial results kept).
int ExitCodeFor(const Status& status);
// --min / --max-drop values, METRIC=NUMBER each; kInvalidArgument names `flag` and the item.
Result<std::map<std::string, double>> ParseGates(const std::vector<std::string>& items,
                                                 const char* flag);
// Prints "WHO: error" on stderr: file errors with their file:line, others as the bare message.
void PrintError(const char* who, const Status& status);

void AddValidateCommand(CLI::App& app, int* exit_code);
void AddMetricsCommand(CLI::App& app, int* exit_code);
void AddJudgesCommand(CLI::App& app, int* exit_code);
// `defaults` carry the config file's settings (flags and TALA_* variables override them).
void AddEvalCommand(CLI::App& app, int* exit_code, const EvalOptions& defaults);
void AddCacheCommand(CLI::App& app, int* exit_code, const std::string& default_cache);
void AddCalibrateCommand(CLI::App& app, int* exit_code);
void AddAlignCommand(CLI::App& app, int* exit_code);
void AddPowerCommand(CLI::App& app, int* exit_code);
void AddCompareCommand(CLI::App& app, int* exit_code, const EvalOptions& defaults);
void AddGateCommand(CLI::App& app, int* exit_code);
void AddReportCommand(CLI::App& app, int* exit_code);
void AddEstimateCommand(CLI::App& app, int* exit_code);
void AddMergeCommand(CLI::App& app, int* exit_code);
void AddExportCommand(CLI::App& app, int* exit_code);
void AddTestsetCommand(CLI::App& app, int* exit_code);
struct ServeSettings;
void AddServeCommand(CLI::App& app, int* exit_code, const ServeSettings& defaults);
void AddReviewCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, int* exit_code, const RunOptions& defaults);
struct HistorySettings;
void AddHistoryCommand(CLI::App& app, int* exit_code, const HistorySettings& defaults);
// The label a CI run gets in the history: the commit and branch that GitHub Actions or GitLab
// CI variables name ("" outside CI).
std::string CiRunLabel();
// tala ci's [history]: adds the results to the store the settings name; `said` tells how.
Status AddToHistory(const HistorySettings& settings, const std::string& results,
                    const std::string& report, std::string* said);
void AddDiagnoseCommand(CLI::App& app, int* exit_code, const EvalOptions& eval_defaults,
                        const RunOptions& run_defaults);
struct CiSettings;
void AddCiCommand(CLI::App& app, int* exit_code, const EvalOptions& eval_defaults,
                  const RunOptions& run_defaults, const CiSettings& ci_defaults);

// Renders the reports of a results file; the exit code (2 when a file cannot be read or written).
int RenderReports(const std::string& results_path, const ReportPaths& paths, const char* who);

}  // namespace tala::cli
