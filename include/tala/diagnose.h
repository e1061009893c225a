#pragma once
// DiagnoseByExperiment: the engine behind `tala diagnose` and `tala ci --diagnose`. Scores say
// where a pipeline fails only by inference; an experiment asks the app. For each golden row it
// calls the app, scores what it answered, and for each row whose answer fails calls the app's
// generation step again with passages it is given, in up to three conditions:
//   gold       the golden row's reference passages in place of what was retrieved
//   reordered  the retrieved passages in reverse order
//   none       no passage at all
// Each answer is scored as the original was, and the failure is attributed:
//   ranking     reordering the same passages makes the answer right
//   retriever   with the gold passages the answer is right
//   parametric  with the gold passages still wrong, and the answer it gives without (or with)
//               passages is the same wrong answer: it answers from memory
//   generator   with the gold passages still wrong or unsupported, and not from memory
//   unknown     the conditions disagree, no gold passages, or the target cannot take passages
// A row none of whose gold passages was retrieved is tried with the gold ones alone: that decides
// it (right: retriever; the same wrong answer from other passages: parametric; else generator).
// An answer is right when it states the reference (its claims found in the answer, the share at
// least the threshold) and is supported by the passages it was given (faithfulness at least the
// threshold); without a reference, when it is supported and on the question. Call from one
// thread.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/run.h"
#include "tala/status.h"

namespace tala {

struct DiagnoseOptions {
  // The golden file, the target and how to call it (run.out is set for each step).
  RunOptions run;
  // The judge and its settings; the metrics the original answers are scored with (empty: the
  // core metrics); dataset and out are set for each step. The answer's verdict adds faithfulness,
  // response_relevancy and, with references, factual_correctness.
  EvalOptions eval;
  std::string out_dir = "tala-diagnose";
  // The app's answers from an earlier `tala run` of the same golden file (tala ci --diagnose):
  // used instead of calling the app for them.
  std::string answers;
  // Where gold passages come from when a golden row has reference_context_ids but no
  // reference_contexts: a knowledge base (JSON Lines of {"id", "text"}); without it, the chunks
  // the app itself returned in this run, by id.
  std::string docs;
  bool all_rows = false;  // experiment on every answered row, not only the failing ones
  int64_t sample = 0;     // > 0: a seeded sample of this many of the rows chosen
  uint64_t seed = 42;     // of the sample
  std::vector<std::string> conditions = {"gold", "reordered", "none"};
  double threshold = 0.7;  // an answer is right at or above this (see above)
  bool dry_run = false;    // count the calls; call nothing, write nothing
  const std::atomic<bool>* stop = nullptr;
  // Told each step as it starts ("calling the app", "scoring the answers", ...); may be empty.
  std::function<void(const std::string&)> step;
};

// One condition's answer for a row.
struct ConditionAnswer {
  std::string condition;  // gold | reordered | none
  std::string response;   // empty when the call failed (error says why)
  bool right = false;
  std::optional<double> faithfulness, relevancy, covers;  // covers: the reference's share stated
  std::string error;  // the call failed (an answer the judge could not score is just not right)
};

struct ExperimentRow {
  std::string id, question;
  std::string observed;  // the diagnosis read from the scores ("ranking noise")
  std::string cause;     // retriever | ranking | generator | parametric | unknown
  std::string why;       // what the conditions showed, in words
  std::string response;  // the original answer
  std::optional<double> covers, faithfulness;
  bool gold_was_retrieved = false;  // the gold passages are among those the app retrieved
  std::vector<ConditionAnswer> conditions;
};

struct DiagnoseReport {
  int64_t rows = 0;      // golden rows
  int64_t answered = 0;  // rows the app answered and the judge scored
  int64_t failing = 0;   // answered rows whose answer is not right
  int64_t chosen = 0;    // rows experimented on (failing, or all; then sampled)
  // retriever, ranking, generator, parametric, unknown: every key present.
  std::map<std::string, int64_t> causes;
  std::vector<ExperimentRow> diagnosed;  // in golden order
  // The observational diagnosis beside the experiment's: rows where both name a half, and
  // those where it is the same half (ranking and retriever are the retriever's; generator and
  // parametric the generator's).
  int64_t compared = 0, agreed = 0;
  // Why the experiments did not run (the target cannot take passages); the observational
  // diagnosis stands alone.
  std::string fallback;
  int64_t target_calls = 0, experiment_calls = 0;  // the app's calls: first answers, experiments
  int64_t judge_calls = 0;                         // LLM calls of both scorings (0 offline)
  RunSummary scored;                               // the original answers' summary
  std::string results, experiments;                // the files written
  // --dry-run: what a run would call, at most (every answered row failing).
  int64_t planned_target_calls = 0, planned_experiment_calls = 0;
  int64_t planned_judge_calls = 0;  // estimated with the golden rows standing in for answers
};

// kInvalidArgument for bad options (an unknown condition, no target); errors of the steps as
// RunTarget and Evaluate give them. Files already written stay.
Result<DiagnoseReport> DiagnoseByExperiment(const DiagnoseOptions& options);

// The causes with 95% intervals over the rows experimented on, the rows behind each, and the
// agreement with the observational diagnosis, as text and as JSON ({"causes": {...}, "rows":
// [...], ...}).
std::string FormatDiagnoseReport(const DiagnoseReport& report);
std::string DiagnoseJson(const DiagnoseReport& report);

}  // namespace tala
