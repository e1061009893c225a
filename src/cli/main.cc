// tala: evaluates RAG systems. Builds the CLI, runs one subcommand, maps its Status to an exit
// code, and catches anything unexpected so that results already written are never lost.

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/help_examples.h"
#include "cli/help_format.h"
#include "cli/serve_config.h"
#include "cli/target_config.h"

namespace tala::cli {

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case ErrorCode::kOk:
      return 0;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kDataError:
    case ErrorCode::kNotFound:
    case ErrorCode::kIoError:
      return 2;
    default:
      return 3;
  }
}

Result<std::map<std::string, double>> ParseGates(const std::vector<std::string>& items,
                                                 const char* flag) {
  std::map<std::string, double> out;
  for (const std::string& item : items) {
    size_t eq = item.rfind('=');
    char* end = nullptr;
    double v = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == item.c_str() + eq + 1 || *end != '\0') {
      return InvalidArgument(std::string(flag) + " expects METRIC=NUMBER, got \"" + item + "\"");
    }
    out[item.substr(0, eq)] = v;
  }
  return out;
}

void PrintError(const char* who, const Status& s) {
  bool file_error = s.code() == ErrorCode::kIoError || s.code() == ErrorCode::kDataError;
  std::fprintf(stderr, "%s: %s\n", who, (file_error ? s.ToString() : s.message()).c_str());
}

}  // namespace tala::cli

int main(int argc, char** argv) {
  int exit_code = 0;
  try {
    CLI::App app{
        "tala: evaluate retrieval-augmented generation (RAG) systems.\n"
        "Scores logged interactions with separate retriever and generator metrics "
        "(faithfulness, context precision/recall, ...) and tells which half is failing."};
    app.require_subcommand(1);
    app.formatter(std::make_shared<tala::cli::WrappingFormatter>());
    app.footer(
        "Examples:\n"
        "  tala eval examples/data/interactions.jsonl --html report.html\n"
        "  tala gate results.jsonl --min faithfulness=0.8 --min context_recall=0.7");
    app.set_version_flag("--version", "tala 0.1.0");
    // tala.toml is read before the flags, so that flags and TALA_* variables override it.
    tala::EvalOptions defaults;
    defaults.threads = 0;  // the command line uses every core for the offline judge
    bool named = false;
    std::string config = tala::cli::FindConfigFile(argc, argv, &named);
    if (!config.empty()) {
      tala::Status s = tala::cli::ApplyConfigFile(config, defaults);
      if (!s.ok()) {
        std::fprintf(stderr, "tala: %s\n", s.ToString().c_str());
        return 2;
      }
    }
    tala::RunOptions run_defaults;
    tala::cli::CiSettings ci_defaults;
    if (!config.empty()) {
      tala::Status s = tala::cli::ApplyTargetTables(config, run_defaults, ci_defaults);
      if (!s.ok()) {
        std::fprintf(stderr, "tala: %s\n", s.message().c_str());
        return 2;
      }
    }
    tala::cli::ServeSettings serve_defaults;
    if (!config.empty()) {
      tala::Status s = tala::cli::ApplyServeTable(config, serve_defaults);
      if (!s.ok()) {
        std::fprintf(stderr, "tala: %s\n", s.message().c_str());
        return 2;
      }
    }
    // tala serve scores the metrics tala.toml defines, as tala eval does.
    serve_defaults.options.user_metrics = defaults.user_metrics;
    serve_defaults.options.rubrics = defaults.rubrics;
    tala::cli::AddEvalCommand(app, &exit_code, defaults);
    tala::cli::AddMergeCommand(app, &exit_code);
    tala::cli::AddServeCommand(app, &exit_code, serve_defaults);
    tala::cli::AddExportCommand(app, &exit_code);
    tala::cli::AddTestsetCommand(app, &exit_code);
    tala::cli::AddRunCommand(app, &exit_code, run_defaults);
    tala::cli::AddCiCommand(app, &exit_code, defaults, run_defaults, ci_defaults);
    tala::cli::AddDiagnoseCommand(app, &exit_code, defaults, run_defaults);
    tala::cli::AddCacheCommand(app, &exit_code, defaults.llm.cache);
    tala::cli::AddValidateCommand(app, &exit_code);
    tala::cli::AddCalibrateCommand(app, &exit_code);
    tala::cli::AddAlignCommand(app, &exit_code);
    tala::cli::AddEstimateCommand(app, &exit_code);
    tala::cli::AddReviewCommand(app, &exit_code);
    tala::cli::AddCompareCommand(app, &exit_code, defaults);
    tala::cli::AddHistoryCommand(app, &exit_code, ci_defaults.history);
    tala::cli::AddGateCommand(app, &exit_code);
    tala::cli::AddReportCommand(app, &exit_code);
    tala::cli::AddPowerCommand(app, &exit_code);
    tala::cli::AddMetricsCommand(app, &exit_code);
    tala::cli::AddJudgesCommand(app, &exit_code);
    tala::cli::AddExamples(app);
    // A mistyped command ("tala evl") would otherwise read "A subcommand is required".
    if (argc > 1 && argv[1][0] != '-') {
      std::string known;
      bool found = false;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        found = found || sub->get_name() == argv[1];
        known += (known.empty() ? "" : ", ") + sub->get_name();
      }
      if (!found) {
        std::fprintf(stderr, "tala: unknown command \"%s\"; the commands are: %s (tala --help)\n",
                     argv[1], known.c_str());
        return 2;
      }
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      int rc = app.exit(e);
      return rc == 0 ? 0 : 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tala: internal error: %s\n", e.what());
    return 3;
  } catch (...) {
    std::fprintf(stderr, "tala: internal error\n");
    return 3;
  }
  return exit_code;
}
