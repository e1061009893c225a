#pragma once
// The diagnosis of a results file at a glance, shared by the reports (HTML, Markdown, and so
// tala ci's summary.md): how many rows fail at each stage of the pipeline, the principal failure
// and its worst rows. Pure.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "io/readers/results_reader.h"

namespace tala::io {

struct DiagnosisOverview {
  std::map<std::string, int64_t> counts;  // rows by diagnosis name
  int64_t diagnosed = 0;                  // rows with a diagnosis other than "not diagnosed"
  std::string principal;                  // the most frequent failure; "" when no row fails
  std::string stage;                      // the half it blames: "retriever" or "generator"
  std::string metric;                     // the metric that decides it ("context_precision")
  int64_t principal_rows = 0;
  // The principal failure's rows with the lowest value of `metric`, at most 5, lowest first.
  std::vector<std::pair<double, const ResultRow*>> worst;

  int64_t Count(const std::string& diagnosis) const;
  // Rows failing at "retriever" (a miss or ranking noise) or "generator" (not grounded or
  // off-topic).
  int64_t FailingAt(const std::string& stage) const;
};

DiagnosisOverview OverviewOf(const ResultsFile& results);

// "question → retriever: 10 of 22 rows fail (45%) → generator: 5 of 22 rows fail (23%) →
// answer: healthy in 7 of 22 rows", the picture as text; "" when no row is diagnosed.
std::string PipelineText(const DiagnosisOverview& overview);
// "the retriever is the principal failure: ranking noise in 6 of 22 rows (27%) of the 10 it fails
// (45%, 95% [27%, 65%])", or the healthy line, each with UnknownText after it; "" when no row is
// diagnosed.
std::string VerdictText(const DiagnosisOverview& overview);

// The share of the principal half (N12, issue 57: the headline names the half that fails most):
// " of the 10 it fails (45%, 95% [27%, 65%])", or "" when the principal failure is all the half
// fails. Shared with the console summary.
std::string HalfShareText(int64_t failing, int64_t principal_rows, int64_t diagnosed);
// "; cause unknown in 2 rows (...)" for rows whose answer is unsupported with nothing to tell a
// retriever miss from the generator; the whole line when no other row fails (`alone`); "" for 0.
std::string UnknownText(int64_t unknown, int64_t diagnosed, bool alone);

}  // namespace tala::io
