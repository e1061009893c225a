#include "tala/diagnose.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "analysis/diagnosis.h"
#include "analysis/intervals.h"
#include "core/text/word_sets.h"
#include "fs/atomic_file.h"
#include "fs/scratch_file.h"
#include "io/readers/results_reader.h"
#include "metrics/factual_correctness.h"
#include "metrics/faithfulness.h"
#include "metrics/response_relevancy.h"
#include "targets/golden_rows.h"
#include "targets/request_template.h"

namespace tala {

namespace {
using nlohmann::json;
using nlohmann::ordered_json;

const std::vector<std::string>& CauseNames() {
  static const std::vector<std::string> kCauses = {"retriever", "ranking", "generator",
                                                   "parametric", "unknown"};
  return kCauses;
}

const std::string& Faithfulness() { return metrics::FaithfulnessInfo().name; }
const std::string& Relevancy() { return metrics::ResponseRelevancyInfo().name; }
const std::string& FactualCorrectness() { return metrics::FactualCorrectnessInfo().name; }

// A JSON Lines file's rows by id (rows without an object or id are passed over).
Result<std::map<std::string, ordered_json>> RowsById(const std::string& path) {
  std::ifstream in(path);
  if (!in) return IoError("cannot read " + path);
  std::map<std::string, ordered_json> rows;
  std::string line;
  while (std::getline(in, line)) {
    ordered_json row = ordered_json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("id")) continue;
    const std::string id = targets::IdText(row["id"]);
    rows[id] = std::move(row);
  }
  return rows;
}

// A list of strings from a row's field; empty when absent or of another type.
std::vector<std::string> Strings(const ordered_json& row, const char* field) {
  std::vector<std::string> out;
  auto it = row.find(field);
  if (it == row.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// What the judge said of one answer: the scores the verdict reads, and the share of the
// reference's claims the answer states (from the verdicts factual_correctness leaves).
struct Reading {
  bool scored = false;
  std::optional<double> faithfulness, relevancy, covers;
};

Reading ReadingOf(const io::ResultRow& row) {
  Reading r;
  r.scored = row.error.empty();
  auto score = [&](const std::string& key) -> std::optional<double> {
    auto it = row.scores.find(key);
    return it == row.scores.end() ? std::nullopt : it->second;
  };
  r.faithfulness = score(Faithfulness());
  r.relevancy = score(Relevancy());
  json parsed = json::parse(row.json, nullptr, false);
  const json* claims = nullptr;
  if (parsed.is_object() && parsed.contains("verdicts") && parsed["verdicts"].is_object()) {
    auto it = parsed["verdicts"].find("reference_claims");
    if (it != parsed["verdicts"].end() && it->is_array()) claims = &*it;
  }
  if (claims != nullptr && !claims->empty()) {
    int stated = 0;
    for (const json& c : *claims) stated += c.value("in_response", false) ? 1 : 0;
    r.covers = static_cast<double>(stated) / static_cast<double>(claims->size());
  } else if (auto fc = score(FactualCorrectness())) {
    r.covers = fc;  // a judge that leaves no claim verdicts: its score stands in
  }
  return r;
}

// Right: states the reference and is supported by what it was given; without a reference,
// supported and on the question. A value the judge left undefined does not count against it
// (no passages: nothing to be supported by), but an answer with nothing scored is not right.
bool IsRight(const Reading& r, bool has_reference, double t) {
  if (!r.scored) return false;
  const bool supported = !r.faithfulness || *r.faithfulness >= t;
  if (has_reference) return r.covers && *r.covers >= t && supported;
  return supported && r.relevancy && *r.relevancy >= t;
}

// The words of an answer, lower-cased, for telling the same answer given twice.
std::set<std::string> Words(const std::string& text) {
  std::set<std::string> out;
  std::string w;
  for (unsigned char c : text + " ") {
    if (std::isalnum(c) || c >= 0x80 || c == '.' || c == ':') {
      w += static_cast<char>(std::tolower(c));
    } else {
      while (!w.empty() && (w.back() == '.' || w.back() == ':')) w.pop_back();
      if (!w.empty()) out.insert(w);
      w.clear();
    }
  }
  return out;
}

// The same answer: at least 80% of the words of both in common (Jaccard), and not empty.
bool SameAnswer(const std::string& a, const std::string& b) {
  const std::set<std::string> x = Words(a), y = Words(b);
  if (x.empty() || y.empty()) return false;
  return text::Jaccard({x.begin(), x.end()}, {y.begin(), y.end()}) >= 0.8;
}

// The half of the pipeline a cause or an observed diagnosis blames, "" for none.
std::string HalfOfCause(const std::string& cause) {
  if (cause == "retriever" || cause == "ranking") return "retriever";
  if (cause == "generator" || cause == "parametric") return "generator";
  return "";
}

// The observational diagnosis as a cause, for a target that cannot take passages.
std::string CauseObserved(const std::string& diagnosis) {
  if (diagnosis == "ranking noise") return "ranking";
  const std::string half(analysis::DiagnosisStage(diagnosis));
  if (half == "retriever") return "retriever";
  if (half == "generator") return "generator";
  return "unknown";
}

struct Attribution {
  std::string cause, why;
};

const ConditionAnswer* Find(const std::vector<ConditionAnswer>& cs, const std::string& name) {
  for (const ConditionAnswer& c : cs) {
    if (c.condition == name && c.error.empty()) return &c;
  }
  return nullptr;
}

Attribution Attribute(const ExperimentRow& row) {
  const ConditionAnswer* gold = Find(row.conditions, "gold");
  const ConditionAnswer* reordered = Find(row.conditions, "reordered");
  const ConditionAnswer* none = Find(row.conditions, "none");
  if (reordered != nullptr && reordered->right) {
    if (gold != nullptr && !gold->right) {
      return {"unknown",
              "the passages reversed make the answer right, the gold passages do not: the "
              "conditions disagree"};
    }
    return {"ranking", "the same passages in reverse order make the answer right"};
  }
  if (gold != nullptr && gold->right) {
    return {"retriever", "with the gold passages the answer is right"};
  }
  if (gold == nullptr) {
    return {"unknown", "no gold passages to try (the golden row has no reference passages)"};
  }
  if (none != nullptr && SameAnswer(none->response, row.response)) {
    return {"parametric",
            "with no passage the app gives the same wrong answer: it answers from memory"};
  }
  // The same answer from other passages than it retrieved: it did not read them.
  if (!row.gold_was_retrieved && SameAnswer(gold->response, row.response)) {
    return {"parametric",
            "with the gold passages the app gives the same wrong answer: it ignores them"};
  }
  return {"generator", "with the gold passages the answer is still wrong or unsupported"};
}

struct Step {
  const DiagnoseOptions& o;
  void operator()(const std::string& what) const {
    if (o.step) o.step(what);
  }
};

// The gold passages of a golden row: its reference_contexts, else its reference_context_ids'
// texts from the knowledge base (or the chunks the app returned in this run).
std::vector<std::string> GoldPassages(const ordered_json& golden,
                                      const std::map<std::string, std::string>& texts) {
  std::vector<std::string> out = Strings(golden, "reference_contexts");
  if (!out.empty()) return out;
  for (const std::string& id : Strings(golden, "reference_context_ids")) {
    auto it = texts.find(id);
    if (it == texts.end()) return {};  // one missing passage would make a partial gold set
    out.push_back(it->second);
  }
  return out;
}

Result<std::map<std::string, std::string>> ReadDocs(const std::string& path) {
  std::map<std::string, std::string> texts;
  std::ifstream in(path);
  if (!in) return IoError("--docs " + path + ": cannot read it");
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json row = json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("id") || !row.contains("text") ||
        !row["text"].is_string()) {
      return DataError({path, n, 0, row.is_object() && row.contains("id") ? "text" : "id"},
                       "expected a JSON object with an id and a text (the knowledge base's "
                       "passages, one a line)");
    }
    texts[row["id"].is_string() ? row["id"].get<std::string>() : row["id"].dump()] =
        row["text"].get<std::string>();
  }
  return texts;
}

// The metrics an answer's verdict reads.
std::string VerdictMetrics(bool any_reference) {
  return Faithfulness() + "," + Relevancy() + (any_reference ? "," + FactualCorrectness() : "");
}

// The metrics the first answers are scored with: the user's (or the core ones) and the verdict's.
std::string FirstMetrics(const DiagnoseOptions& o, bool any_reference) {
  return (o.eval.metrics.empty() ? std::string("core") : o.eval.metrics) + "," +
         VerdictMetrics(any_reference);
}

// The judge's calls for scoring every golden row once with `metrics`, estimated by Evaluate's
// dry run over the golden rows standing in for answers (the reference as the answer, or the
// question; the gold passages, or the reference, as the passages), through a scratch file; 0 for
// the offline judge.
Result<int64_t> EstimateJudgeCalls(const DiagnoseOptions& o,
                                   const std::vector<targets::GoldenRow>& golden,
                                   const std::map<std::string, std::string>& docs,
                                   const std::string& metrics) {
  std::string rows;
  for (const targets::GoldenRow& g : golden) {
    ordered_json row = {{"id", g.id}, {"user_input", g.row["user_input"]}};
    const std::string reference = g.row.value("reference", "");
    row["response"] = reference.empty() ? g.row["user_input"] : ordered_json(reference);
    if (!reference.empty()) row["reference"] = reference;
    std::vector<std::string> passages = GoldPassages(g.row, docs);
    if (passages.empty())
      passages.push_back(reference.empty() ? row["response"].dump() : reference);
    row["retrieved_contexts"] = passages;
    rows += row.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  TALA_ASSIGN_OR_RETURN(fs::ScratchFile file, fs::ScratchFile::Create("diagnose-estimate", rows));
  EvalOptions eval = o.eval;
  eval.dataset = file.path();
  eval.out = "-";
  eval.dry_run = true;
  eval.on_error = OnError::kSkip;
  eval.metrics = metrics;
  eval.labels.clear();
  TALA_ASSIGN_OR_RETURN(RunSummary s, Evaluate(eval));
  return s.accounting.total.calls;
}

// Rewrites the results file with each experimented row's cause and the answers of its
// conditions beside it ("cause", "interventions"), in one atomic replace.
Status AnnotateResults(const std::string& path, const std::vector<ExperimentRow>& rows) {
  std::map<std::string, const ExperimentRow*> by_id;
  for (const ExperimentRow& r : rows) by_id[r.id] = &r;
  std::ifstream in(path);
  if (!in) return IoError("cannot read " + path);
  std::string out, line;
  while (std::getline(in, line)) {
    ordered_json row = ordered_json::parse(line, nullptr, false);
    auto it = row.is_object() && row.contains("id") && row.contains("scores")
                  ? by_id.find(targets::IdText(row["id"]))
                  : by_id.end();
    if (it == by_id.end()) {
      out += line + "\n";
      continue;
    }
    const ExperimentRow& r = *it->second;
    row["cause"] = r.cause;
    row["cause_reason"] = r.why;
    ordered_json interventions = ordered_json::array();
    for (const ConditionAnswer& c : r.conditions) {
      ordered_json one = {{"condition", c.condition}, {"response", c.response}, {"right", c.right}};
      if (c.covers) one["reference_stated"] = *c.covers;
      if (c.faithfulness) one["faithfulness"] = *c.faithfulness;
      if (c.relevancy) one["response_relevancy"] = *c.relevancy;
      if (!c.error.empty()) one["error"] = c.error;
      interventions.push_back(std::move(one));
    }
    row["interventions"] = std::move(interventions);
    out += row.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  }
  return fs::WriteFileAtomically(path, out);
}

Status CheckOptions(const DiagnoseOptions& o) {
  static const std::set<std::string> kConditions = {"gold", "reordered", "none"};
  if (o.conditions.empty()) return InvalidArgument("--conditions: name at least one condition");
  for (const std::string& c : o.conditions) {
    if (!kConditions.count(c)) {
      return InvalidArgument("--conditions: unknown condition \"" + c +
                             "\" (gold, reordered or none)");
    }
  }
  if (!(o.threshold > 0 && o.threshold <= 1)) {
    return InvalidArgument("--threshold must be in (0, 1]");
  }
  if (o.sample < 0) return InvalidArgument("--sample must be 0 (all) or more");
  if (o.out_dir.empty()) return InvalidArgument("--out-dir must name a folder");
  return OkStatus();
}

// Why the target cannot be given passages, from its request template; "" when it can.
std::string TemplateFallback(const TargetSpec& spec) {
  if (spec.body.empty()) return "";
  json tmpl = json::parse(spec.body, nullptr, false);
  if (tmpl.is_discarded() || targets::TemplateTakesContexts(tmpl)) return "";
  return "the target's request template has no {{contexts}} or {{contexts_json}}, so it cannot "
         "be given passages: the causes below are read from the scores";
}

bool Wants(const DiagnoseOptions& o, const std::string& condition) {
  return std::find(o.conditions.begin(), o.conditions.end(), condition) != o.conditions.end();
}

int64_t JudgeCalls(const RunSummary& s) {
  return s.accounting.total.calls + s.accounting.total.cache_hits;
}
}  // namespace

Result<DiagnoseReport> DiagnoseByExperiment(const DiagnoseOptions& o) {
  TALA_RETURN_IF_ERROR(CheckOptions(o));
  const Step step{o};
  DiagnoseReport report;
  for (const std::string& c : CauseNames()) report.causes[c] = 0;
  TALA_ASSIGN_OR_RETURN(std::vector<targets::GoldenRow> golden, targets::ReadGolden(o.run.golden));
  report.rows = static_cast<int64_t>(golden.size());
  bool any_reference = false;
  for (const targets::GoldenRow& g : golden) {
    any_reference =
        any_reference || (g.row.contains("reference") && g.row["reference"].is_string());
  }
  std::map<std::string, std::string> docs;
  if (!o.docs.empty()) {
    TALA_ASSIGN_OR_RETURN(docs, ReadDocs(o.docs));
  }
  report.fallback = TemplateFallback(o.run.target);
  if (o.dry_run) {
    report.planned_target_calls = report.rows;
    const int64_t conditions = static_cast<int64_t>(o.conditions.size());
    report.planned_experiment_calls = report.fallback.empty() ? report.rows * conditions : 0;
    TALA_ASSIGN_OR_RETURN(int64_t first,
                          EstimateJudgeCalls(o, golden, docs, FirstMetrics(o, any_reference)));
    TALA_ASSIGN_OR_RETURN(int64_t each,
                          EstimateJudgeCalls(o, golden, docs, VerdictMetrics(any_reference)));
    report.planned_judge_calls = first + (report.fallback.empty() ? each * conditions : 0);
    return report;
  }
  namespace stdfs = std::filesystem;
  std::error_code ec;
  stdfs::create_directories(o.out_dir, ec);
  if (ec) return IoError("--out-dir " + o.out_dir + ": " + ec.message());
  const std::string dir = o.out_dir + "/";

  // 1. The app answers, and its answers are scored as usual, with what the verdict reads added.
  RunOptions run = o.run;
  if (o.answers.empty()) {
    step("calling the app for " + std::to_string(report.rows) + " questions");
    run.out = dir + "answers.jsonl";
    TALA_ASSIGN_OR_RETURN(RunReport first, RunTarget(run));
    report.target_calls = first.calls;
  } else {
    run.out = o.answers;
  }
  step("scoring the answers");
  EvalOptions eval = o.eval;
  eval.dataset = run.out;
  eval.out = report.results = dir + "results.jsonl";
  eval.on_error = OnError::kSkip;
  eval.overwrite = true;
  eval.resume = false;
  eval.metrics = FirstMetrics(o, any_reference);
  TALA_ASSIGN_OR_RETURN(report.scored, Evaluate(eval));
  report.judge_calls += JudgeCalls(report.scored);
  TALA_ASSIGN_OR_RETURN(
      io::ResultsFile results,
      io::ReadResults(report.results, io::EmptyResults::kAllowed, io::RawLines::kKeep));
  TALA_ASSIGN_OR_RETURN(auto answers, RowsById(run.out));
  std::map<std::string, const io::ResultRow*> scored;
  for (const io::ResultRow& r : results.rows) scored[r.id] = &r;
  // The chunks the app returned, by id: gold passages for rows that name theirs by id only.
  std::map<std::string, std::string> pool = docs;
  if (o.docs.empty()) {
    for (const auto& [id, row] : answers) {
      const auto texts = Strings(row, "retrieved_contexts");
      const auto ids = Strings(row, "retrieved_context_ids");
      for (size_t i = 0; i < texts.size() && i < ids.size(); ++i) pool.emplace(ids[i], texts[i]);
    }
  }

  // 2. The rows whose answer fails (or every answered row), sampled when asked.
  std::vector<ExperimentRow> chosen;
  std::vector<const targets::GoldenRow*> chosen_golden;
  for (const targets::GoldenRow& g : golden) {
    auto s = scored.find(g.id);
    auto a = answers.find(g.id);
    if (s == scored.end() || a == answers.end() || !s->second->error.empty()) continue;
    ++report.answered;
    const Reading reading = ReadingOf(*s->second);
    const bool has_reference = g.row.contains("reference") && g.row["reference"].is_string();
    const bool right = IsRight(reading, has_reference, o.threshold);
    report.failing += right ? 0 : 1;
    if (right && !o.all_rows) continue;
    ExperimentRow row;
    row.id = g.id;
    row.question = g.row["user_input"].is_string() ? g.row["user_input"].get<std::string>() : "";
    row.observed = s->second->diagnosis;
    row.response = a->second.value("response", "");
    row.covers = reading.covers;
    row.faithfulness = reading.faithfulness;
    chosen.push_back(std::move(row));
    chosen_golden.push_back(&g);
  }
  if (o.sample > 0 && static_cast<int64_t>(chosen.size()) > o.sample) {
    std::vector<size_t> order(chosen.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::mt19937_64 rng(o.seed);
    std::shuffle(order.begin(), order.end(), rng);
    order.resize(static_cast<size_t>(o.sample));
    std::sort(order.begin(), order.end());
    std::vector<ExperimentRow> kept;
    std::vector<const targets::GoldenRow*> kept_golden;
    for (size_t i : order) {
      kept.push_back(std::move(chosen[i]));
      kept_golden.push_back(chosen_golden[i]);
    }
    chosen = std::move(kept);
    chosen_golden = std::move(kept_golden);
  }
  report.chosen = static_cast<int64_t>(chosen.size());

  // 3. The experiments: each chosen row again, given passages, in each condition that applies.
  std::string experiments_golden;
  int64_t planned = 0;
  for (size_t i = 0; i < chosen.size() && report.fallback.empty(); ++i) {
    const ordered_json& g = chosen_golden[i]->row;
    const ordered_json& answered = answers[chosen[i].id];
    const std::vector<std::string> gold = GoldPassages(g, pool);
    const std::vector<std::string> retrieved = Strings(answered, "retrieved_contexts");
    auto was_retrieved = [&](const std::string& p) {
      return std::find(retrieved.begin(), retrieved.end(), p) != retrieved.end();
    };
    chosen[i].gold_was_retrieved =
        !gold.empty() && std::all_of(gold.begin(), gold.end(), was_retrieved);
    // When none of the gold passages was retrieved, the gold condition alone decides: right, a
    // retriever miss; the same wrong answer from other passages, memory; else the generator.
    // Reordering passages that lack the answer, or asking with none, would tell nothing more.
    const bool gold_alone =
        Wants(o, "gold") && !gold.empty() && std::none_of(gold.begin(), gold.end(), was_retrieved);
    for (const std::string& condition : o.conditions) {
      std::vector<std::string> passages;
      if (gold_alone && condition != "gold") continue;
      if (condition == "gold") {
        passages = gold;
        if (passages.empty()) continue;
      } else if (condition == "reordered") {
        passages = Strings(answered, "retrieved_contexts");
        if (passages.size() < 2) continue;  // one passage reversed is the same passage
        std::reverse(passages.begin(), passages.end());
      }
      ordered_json row = g;
      row["id"] = chosen[i].id + "~" + condition;
      row[targets::kGivenContexts] = passages;
      experiments_golden += row.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
      ++planned;
    }
  }
  std::map<std::string, Reading> readings;
  std::map<std::string, ordered_json> experiment_rows;
  if (planned > 0) {
    const std::string golden_path = dir + "experiments-golden.jsonl";
    TALA_RETURN_IF_ERROR(fs::WriteFileAtomically(golden_path, experiments_golden));
    step("calling the app again for " + std::to_string(report.chosen) + " rows (" +
         std::to_string(planned) + " calls: passages given)");
    RunOptions again = o.run;
    again.golden = golden_path;
    again.out = report.experiments = dir + "experiments.jsonl";
    again.resume = false;
    TALA_ASSIGN_OR_RETURN(RunReport second, RunTarget(again));
    report.experiment_calls = second.calls;
    step("scoring the experiments' answers");
    EvalOptions eval2 = o.eval;
    eval2.dataset = again.out;
    eval2.out = dir + "experiment-results.jsonl";
    eval2.on_error = OnError::kSkip;
    eval2.overwrite = true;
    eval2.resume = false;
    eval2.metrics = VerdictMetrics(any_reference);
    eval2.labels.clear();
    TALA_ASSIGN_OR_RETURN(RunSummary s2, Evaluate(eval2));
    report.judge_calls += JudgeCalls(s2);
    TALA_ASSIGN_OR_RETURN(io::ResultsFile r2, io::ReadResults(eval2.out, io::EmptyResults::kAllowed,
                                                              io::RawLines::kKeep));
    for (const io::ResultRow& r : r2.rows) readings[r.id] = ReadingOf(r);
    TALA_ASSIGN_OR_RETURN(experiment_rows, RowsById(again.out));
    // A target that answers from its own retrieval whatever it is given cannot be experimented
    // on: said once, and the scores' diagnosis stands (issue 57 item 3).
    int64_t reported = 0, ignored = 0;
    for (const auto& [id, row] : experiment_rows) {
      if (!row.contains("target_contexts")) continue;
      ++reported;
      ignored += Strings(row, "target_contexts") != Strings(row, "retrieved_contexts") ? 1 : 0;
    }
    if (reported > 0 && ignored * 2 > reported) {
      report.fallback = fmt::format(
          "the target answered from its own passages, not those it was given ({} of {} calls): "
          "it cannot take passages, so the causes below are read from the scores",
          ignored, reported);
    }
  }

  // 4. Each row's cause.
  for (size_t i = 0; i < chosen.size(); ++i) {
    ExperimentRow& row = chosen[i];
    const bool has_reference = chosen_golden[i]->row.contains("reference") &&
                               chosen_golden[i]->row["reference"].is_string();
    for (const std::string& condition : o.conditions) {
      const std::string id = row.id + "~" + condition;
      auto made = experiment_rows.find(id);
      if (made == experiment_rows.end()) continue;
      ConditionAnswer c;
      c.condition = condition;
      c.response = made->second.value("response", "");
      if (made->second.contains("target_error")) {
        c.error = made->second.value("target_error", "the call failed");
      }
      // An answer the judge could not score (an empty one, with no passage) is not right, but
      // its text still tells whether the app gives the same answer from memory.
      auto reading = readings.find(id);
      if (reading != readings.end()) {
        c.faithfulness = reading->second.faithfulness;
        c.relevancy = reading->second.relevancy;
        c.covers = reading->second.covers;
        c.right = IsRight(reading->second, has_reference, o.threshold);
      }
      row.conditions.push_back(std::move(c));
    }
    if (!report.fallback.empty()) {
      row.cause = CauseObserved(row.observed);
      row.why = "read from the scores (" + (row.observed.empty() ? "no diagnosis" : row.observed) +
                "): the target cannot take passages";
    } else {
      Attribution a = Attribute(row);
      row.cause = a.cause;
      row.why = a.why;
    }
    ++report.causes[row.cause];
    const std::string observed_half(analysis::DiagnosisStage(row.observed));
    const std::string found_half = HalfOfCause(row.cause);
    if (!observed_half.empty() && !found_half.empty() && report.fallback.empty()) {
      ++report.compared;
      report.agreed += observed_half == found_half ? 1 : 0;
    }
  }
  report.diagnosed = std::move(chosen);
  if (!report.diagnosed.empty()) {
    TALA_RETURN_IF_ERROR(AnnotateResults(report.results, report.diagnosed));
  }
  TALA_RETURN_IF_ERROR(fs::WriteFileAtomically(dir + "diagnose.json", DiagnoseJson(report)));
  return report;
}

std::string FormatDiagnoseReport(const DiagnoseReport& r) {
  std::string out;
  if (r.planned_target_calls > 0) {
    return fmt::format(
               "dry run: {} calls to the app for the first answers, and at most {} more for the "
               "experiments ({} a row, if every answer fails); the judge: about {} calls at "
               "most{}; "
               "nothing was called\n",
               r.planned_target_calls, r.planned_experiment_calls,
               r.rows > 0 ? r.planned_experiment_calls / r.rows : 0, r.planned_judge_calls,
               r.planned_judge_calls == 0 ? " (the offline judge calls no model)" : "") +
           (r.fallback.empty() ? "" : "note: " + r.fallback + "\n");
  }
  out += fmt::format(
      "{} rows: {} answered and scored, {} with an answer that is not right; {} "
      "experimented on\n",
      r.rows, r.answered, r.failing, r.chosen);
  if (!r.fallback.empty()) out += "note: " + r.fallback + "\n";
  if (r.chosen > 0) {
    out += "causes:\n";
    for (const std::string& c : CauseNames()) {
      const int64_t n = r.causes.at(c);
      auto [low, high] =
          analysis::WilsonInterval(static_cast<double>(n), static_cast<double>(r.chosen), 0.95);
      std::string ids;
      int shown = 0;
      for (const ExperimentRow& row : r.diagnosed) {
        if (row.cause != c) continue;
        if (shown++ < 6) ids += (ids.empty() ? "" : " ") + row.id;
      }
      if (shown > 6) ids += " ...";
      out +=
          fmt::format("  {:<11} {:>4}  {:>3.0f}%  95% [{:>3.0f}%, {:>3.0f}%]{}\n", c, n,
                      100.0 * n / r.chosen, 100 * low, 100 * high, ids.empty() ? "" : "  " + ids);
    }
  }
  if (r.compared > 0) {
    out += fmt::format(
        "the scores' diagnosis names the same half for {} of {} rows ({:.0f}%) where both name "
        "one\n",
        r.agreed, r.compared, 100.0 * r.agreed / r.compared);
  }
  out += fmt::format("calls to the app: {} first answers, {} experiments", r.target_calls,
                     r.experiment_calls);
  if (r.judge_calls > 0) out += fmt::format("; judge calls: {}", r.judge_calls);
  out += "\nresults: " + r.results + " (each experimented row with its cause and interventions)\n";
  return out;
}

std::string DiagnoseJson(const DiagnoseReport& r) {
  ordered_json out;
  ordered_json causes = ordered_json::object();
  for (const std::string& c : CauseNames()) causes[c] = r.causes.count(c) ? r.causes.at(c) : 0;
  out["causes"] = causes;
  ordered_json rows = ordered_json::array();
  for (const ExperimentRow& row : r.diagnosed) {
    ordered_json one = {{"id", row.id},   {"question", row.question}, {"cause", row.cause},
                        {"why", row.why}, {"observed", row.observed}, {"response", row.response}};
    ordered_json conditions = ordered_json::object();
    for (const ConditionAnswer& c : row.conditions) {
      ordered_json a = {{"response", c.response}, {"right", c.right}};
      if (c.covers) a["reference_stated"] = *c.covers;
      if (c.faithfulness) a["faithfulness"] = *c.faithfulness;
      if (!c.error.empty()) a["error"] = c.error;
      conditions[c.condition] = std::move(a);
    }
    one["conditions"] = std::move(conditions);
    rows.push_back(std::move(one));
  }
  out["rows"] = std::move(rows);
  out["rows_read"] = r.rows;
  out["answered"] = r.answered;
  out["failing"] = r.failing;
  out["experimented"] = r.chosen;
  out["agreement"] = {{"compared", r.compared}, {"agreed", r.agreed}};
  if (!r.fallback.empty()) out["fallback"] = r.fallback;
  out["calls"] = {{"target_first", r.target_calls},
                  {"target_experiments", r.experiment_calls},
                  {"judge", r.judge_calls}};
  if (r.planned_target_calls > 0) {
    out["dry_run"] = {{"target_first", r.planned_target_calls},
                      {"target_experiments_at_most", r.planned_experiment_calls},
                      {"judge", r.planned_judge_calls}};
  }
  out["results"] = r.results;
  return out.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace tala
