#include "tala/estimate.h"

#include <fmt/format.h>

#include "engine/estimate_from.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "io/writers/json_text.h"

namespace tala {

Result<Estimate> EstimateMean(const EstimateOptions& o) {
  TALA_ASSIGN_OR_RETURN(io::ResultsFile results, io::ReadResults(o.results));
  TALA_ASSIGN_OR_RETURN(io::Labels labels, io::ReadLabels(o.labels));
  TALA_RETURN_IF_ERROR(io::CheckLabelRange(labels, o.metric, results, o.labels));
  return EstimateFrom(results, labels, o.metric, o.allow_biased_labels);
}

std::string FormatEstimate(const Estimate& e) {
  std::string s = fmt::format("{}: {} rows scored by the judge, {} labelled by people (pick: {})\n",
                              e.metric, e.n_total, e.n_labelled, e.pick);
  s += fmt::format("  prediction-powered  {:.4f}  95% interval [{:.4f}, {:.4f}]\n", e.ppi_mean,
                   e.ppi_low, e.ppi_high);
  s += fmt::format(
      "  judge only          {:.4f}  95% interval [{:.4f}, {:.4f}]  (bias on the "
      "labelled rows {:+.4f})\n",
      e.judge_mean, e.judge_low, e.judge_high, e.judge_bias);
  s += fmt::format("  people only         {:.4f}  95% interval [{:.4f}, {:.4f}]\n", e.human_mean,
                   e.human_low, e.human_high);
  if (e.effective_n > 0) {
    s +=
        fmt::format("  the judge's scores are worth {:.0f} labels: {:.1f}x the {} labelled\n",
                    e.effective_n, e.effective_n / static_cast<double>(e.n_labelled), e.n_labelled);
  }
  for (const std::string& note : e.notes) s += "note: " + note + "\n";
  return s;
}

std::string EstimateJson(const Estimate& e) {
  std::string metric, pick;
  io::AppendJsonString(metric, e.metric);
  io::AppendJsonString(pick, e.pick);
  std::string notes = "[";
  for (const std::string& n : e.notes) {
    if (notes.size() > 1) notes += ",";
    io::AppendJsonString(notes, n);
  }
  return fmt::format(
      "{{\"metric\":{},\"n_labelled\":{},\"n_total\":{},\"ppi_mean\":{:.6g},\"ppi_ci\":[{:.6g},"
      "{:.6g}],\"judge_mean\":{:.6g},\"judge_ci\":[{:.6g},{:.6g}],\"human_mean\":{:.6g},"
      "\"human_ci\":[{:.6g},{:.6g}],\"judge_bias\":{:.6g},\"effective_n\":{:.6g},\"pick\":{},"
      "\"notes\":{}]}}\n",
      metric, e.n_labelled, e.n_total, e.ppi_mean, e.ppi_low, e.ppi_high, e.judge_mean, e.judge_low,
      e.judge_high, e.human_mean, e.human_low, e.human_high, e.judge_bias, e.effective_n, pick,
      notes);
}

}  // namespace tala
