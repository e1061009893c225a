// tala history: every run remembered. add RESULTS, show --metric M, report -o PAGE, prune; with
// no subcommand, the runs. The store is [history] store in tala.toml, else --store, else
// .tala/history.sqlite; an http:// store is a running tala serve.

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "cli/target_config.h"
#include "fs/atomic_file.h"
#include "fs/output_paths.h"
#include "tala/history.h"

namespace tala::cli {

namespace {

constexpr const char* kDefaultStore = ".tala/history.sqlite";

struct HistoryFlags {
  HistorySettings settings;
  std::string token;
  std::vector<std::string> tags;
  bool json = false;
  // add
  std::string results, label, report;
  // show, report
  TrendOptions trend;
  bool fail_on_drop = false;
  std::string out;
  // prune
  int64_t keep = -1;
  std::string older_than;
  std::string config;  // read by main before the flags; named here so that it parses
};

std::string StoreOf(const HistoryFlags& f) {
  return f.settings.store.empty() ? kDefaultStore : f.settings.store;
}

std::string TokenOf(const HistorySettings& s, const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = s.token_env.empty() ? nullptr : std::getenv(s.token_env.c_str());
  return env ? env : "";
}

Result<HistoryTags> TagsOf(const std::vector<std::string>& items, HistoryTags base = {}) {
  for (const std::string& item : items) {
    TALA_ASSIGN_OR_RETURN(auto tag, ParseHistoryTag(item));
    base.push_back(std::move(tag));
  }
  return base;
}

// "30d", "12h", "90m" or a number of days.
Result<double> DaysOf(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  std::string unit = end ? end : "";
  double scale = unit.empty() || unit == "d" ? 1
                 : unit == "h"               ? 1.0 / 24
                 : unit == "m"               ? 1.0 / 1440
                                             : -1;
  if (end == text.c_str() || scale < 0 || v < 0) {
    return InvalidArgument("--older-than " + text + ": expected a duration such as 30d, 12h or 90");
  }
  return v * scale;
}

int Fail(const char* who, const Status& s) {
  PrintError(who, s);
  return ExitCodeFor(s);
}

Result<std::unique_ptr<History>> OpenStore(const HistoryFlags& f) {
  return History::Open(StoreOf(f), TokenOf(f.settings, f.token));
}

int RunList(HistoryFlags& f) {
  auto tags = TagsOf(f.tags);
  if (!tags) return Fail("tala history", tags.error());
  auto store = OpenStore(f);
  if (!store) return Fail("tala history", store.error());
  auto runs = (*store)->Runs(*tags);
  if (!runs) return Fail("tala history", runs.error());
  std::string out = f.json ? RunsJson(*runs) + "\n" : FormatRuns(*runs);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunAdd(HistoryFlags& f) {
  auto tags = TagsOf(f.tags);
  if (!tags) return Fail("tala history add", tags.error());
  if (f.label.empty()) f.label = CiRunLabel();
  auto store = OpenStore(f);
  if (!store) return Fail("tala history add", store.error());
  auto added =
      (*store)->Add({.results = f.results, .label = f.label, .tags = *tags, .report = f.report});
  if (!added) return Fail("tala history add", added.error());
  if (added->added) {
    std::printf("added run %lld (%s, %lld rows) to %s\n", static_cast<long long>(added->run.id),
                added->run.label.empty() ? "no label" : added->run.label.c_str(),
                static_cast<long long>(added->run.rows), StoreOf(f).c_str());
  } else {
    std::printf("%s has the content of run %lld (%s), already stored; not added again\n",
                f.results.c_str(), static_cast<long long>(added->run.id),
                added->run.label.empty() ? "no label" : added->run.label.c_str());
  }
  return 0;
}

int RunShow(HistoryFlags& f) {
  auto tags = TagsOf(f.tags);
  if (!tags) return Fail("tala history show", tags.error());
  f.trend.tags = *tags;
  auto store = OpenStore(f);
  if (!store) return Fail("tala history show", store.error());
  auto trend = (*store)->TrendOf(f.trend);
  if (!trend) return Fail("tala history show", trend.error());
  std::string out = f.json ? TrendJson(*trend) + "\n" : FormatTrend(*trend);
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (f.fail_on_drop && !trend->points.empty() && trend->points.back().drop) return 1;
  return 0;
}

int RunReport(HistoryFlags& f) {
  auto tags = TagsOf(f.tags);
  if (!tags) return Fail("tala history report", tags.error());
  f.trend.tags = *tags;
  if (StoreOf(f).rfind("http://", 0) != 0 && StoreOf(f).rfind("https://", 0) != 0) {
    if (Status s = fs::CheckOutputsDistinct({{"the store", StoreOf(f)}}, {{"-o", f.out}});
        !s.ok()) {
      return Fail("tala history report", s);
    }
  }
  auto store = OpenStore(f);
  if (!store) return Fail("tala history report", store.error());
  auto page = (*store)->PageHtml(f.trend);
  if (!page) return Fail("tala history report", page.error());
  if (Status s = fs::WriteFileAtomically(f.out, *page); !s.ok()) {
    return Fail("tala history report", s);
  }
  std::printf("wrote %s\n", f.out.c_str());
  return 0;
}

int RunPrune(HistoryFlags& f) {
  HistoryPrune prune;
  prune.keep = f.keep;
  if (!f.older_than.empty()) {
    auto days = DaysOf(f.older_than);
    if (!days) return Fail("tala history prune", days.error());
    prune.older_than_days = *days;
  }
  if (prune.keep < 0 && prune.older_than_days < 0) {
    std::fprintf(stderr, "tala history prune: say what to remove: --keep N or --older-than D\n");
    return 2;
  }
  auto store = OpenStore(f);
  if (!store) return Fail("tala history prune", store.error());
  auto removed = (*store)->Prune(prune);
  if (!removed) return Fail("tala history prune", removed.error());
  std::printf("removed %lld runs from %s\n", static_cast<long long>(*removed), StoreOf(f).c_str());
  return 0;
}

void StoreFlags(CLI::App* cmd, HistoryFlags* f) {
  cmd->add_option("--store", f->settings.store,
                  "the history: a SQLite file, or the http:// address of a tala serve (default: "
                  "[history] store in tala.toml, else .tala/history.sqlite)");
  cmd->add_option("--token", f->token,
                  "a tala serve store's bearer token (default: $TALA_SERVE_TOKEN, or the "
                  "variable [history] token_env names)");
  cmd->add_option("--config", f->config,
                  "tala.toml whose [history] table sets the store (default: ./tala.toml)");
}

}  // namespace

std::string CiRunLabel() {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v ? v : "");
  };
  std::string commit = env("GITHUB_SHA"), branch = env("GITHUB_HEAD_REF");
  if (branch.empty()) branch = env("GITHUB_REF_NAME");
  if (commit.empty()) commit = env("CI_COMMIT_SHA");
  if (branch.empty()) branch = env("CI_COMMIT_REF_NAME");
  if (commit.size() > 12) commit = commit.substr(0, 12);
  if (commit.empty() || branch.empty()) return commit + branch;
  return commit + " " + branch;
}

Status AddToHistory(const HistorySettings& settings, const std::string& results,
                    const std::string& report, std::string* said) {
  TALA_ASSIGN_OR_RETURN(auto store, History::Open(settings.store, TokenOf(settings, "")));
  std::string label = settings.label.empty() ? CiRunLabel() : settings.label;
  TALA_ASSIGN_OR_RETURN(
      HistoryAdded added,
      store->Add({.results = results, .label = label, .tags = settings.tags, .report = report}));
  *said = added.added ? "added to the history as run " + std::to_string(added.run.id) + " (" +
                            settings.store + ")"
                      : "already in the history as run " + std::to_string(added.run.id);
  return OkStatus();
}

void AddHistoryCommand(CLI::App& app, int* exit_code, const HistorySettings& defaults) {
  auto f = std::make_shared<HistoryFlags>();
  f->settings = defaults;
  CLI::App* cmd = app.add_subcommand(
      "history",
      "Every run remembered: add a results file to the history (a SQLite file, or a tala serve "
      "beside production), list the runs, show a metric's trend with each run's paired change "
      "against the previous comparable run (same dataset digest, judge and metric version), "
      "where a drop is flagged only when its 95% interval excludes 0 and it exceeds "
      "--min-effect, and write one page with a chart per metric. With no subcommand: the runs.");
  StoreFlags(cmd, f.get());
  cmd->add_option("--tag", f->tags, "only runs with this tag, KEY=VALUE (repeatable)");
  cmd->add_flag("--json", f->json, "print JSON");
  cmd->callback([f, exit_code, cmd] {
    if (cmd->get_subcommands().empty()) *exit_code = RunList(*f);
  });

  CLI::App* add = cmd->add_subcommand(
      "add",
      "Store a run: its manifest, means and per-row scores. A results file already "
      "stored is not added twice.");
  add->add_option("RESULTS", f->results, "the run's results file")->required();
  add->add_option("--label", f->label,
                  "what the run is (default: the commit and branch of GitHub Actions or GitLab "
                  "CI variables)");
  add->add_option("--tag", f->tags, "KEY=VALUE to filter by later (repeatable)");
  add->add_option("--report", f->report, "the run's HTML report, linked from the history page");
  StoreFlags(add, f.get());
  add->callback([f, exit_code] { *exit_code = RunAdd(*f); });

  CLI::App* show = cmd->add_subcommand(
      "show",
      "A metric's trend: each run's mean and interval, and its paired change against the "
      "previous comparable run, with \"drop\" on flagged runs. Runs on another dataset, "
      "judge or metric version start a new segment and are never compared across it.");
  show->add_option("--metric", f->trend.metric, "the metric (results key or alias)")->required();
  show->add_option("--tag", f->tags, "only runs with this tag, KEY=VALUE (repeatable)");
  show->add_option("--min-effect", f->trend.min_effect, "the smallest change flagged as a drop")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  show->add_flag("--fail-on-drop", f->fail_on_drop, "exit 1 when the newest run is a drop");
  show->add_flag("--json", f->json, "print JSON");
  StoreFlags(show, f.get());
  show->callback([f, exit_code] { *exit_code = RunShow(*f); });

  CLI::App* report = cmd->add_subcommand(
      "report",
      "One self-contained page: a chart per metric across runs with intervals and "
      "drops (and production's window means when the store is a tala serve), the runs, "
      "each run's report on a click, and any two runs compared.");
  report->add_option("-o,--out", f->out, "the page to write")->required();
  report->add_option("--metric", f->trend.metric, "only this metric (default: all)");
  report->add_option("--tag", f->tags, "only runs with this tag, KEY=VALUE (repeatable)");
  report->add_option("--min-effect", f->trend.min_effect, "the smallest change flagged as a drop")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  StoreFlags(report, f.get());
  report->callback([f, exit_code] { *exit_code = RunReport(*f); });

  CLI::App* prune = cmd->add_subcommand(
      "prune",
      "Remove old runs: keep the newest N, or drop runs older than a duration. The "
      "remaining runs' trend is recomputed against their new predecessors.");
  prune->add_option("--keep", f->keep, "keep the newest N runs")->check(CLI::NonNegativeNumber);
  prune->add_option("--older-than", f->older_than,
                    "remove runs made before this long ago: 30d, "
                    "12h, or days");
  StoreFlags(prune, f.get());
  prune->callback([f, exit_code] { *exit_code = RunPrune(*f); });
}

}  // namespace tala::cli
