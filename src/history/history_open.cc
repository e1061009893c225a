// History::Open, and what `tala history` prints.

#include <fmt/format.h>

#include "history/local_store.h"
#include "history/remote_store.h"
#include "tala/history.h"

namespace tala {

Result<std::unique_ptr<History>> History::Open(const std::string& location,
                                               const std::string& token) {
  if (location.rfind("http://", 0) == 0 || location.rfind("https://", 0) == 0) {
    return history::OpenRemote(location, token);
  }
  if (location.empty()) return InvalidArgument("the history store: no path or address given");
  TALA_ASSIGN_OR_RETURN(auto local, history::LocalHistory::OpenFile(location));
  return std::unique_ptr<History>(std::move(local));
}

Result<std::pair<std::string, std::string>> ParseHistoryTag(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("tag " + text + ": expected KEY=VALUE, such as branch=main");
  }
  return std::pair{text.substr(0, eq), text.substr(eq + 1)};
}

namespace {
std::string Trimmed(std::string line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line + "\n";
}
std::string When(const std::string& iso) {
  std::string s = iso.substr(0, 16);
  if (s.size() > 10) s[10] = ' ';
  return s;
}
std::string TagText(const HistoryTags& tags) {
  std::string out;
  for (const auto& [k, v] : tags) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}
}  // namespace

std::string FormatRuns(const std::vector<HistoryRun>& runs) {
  if (runs.empty()) return "no runs stored yet (tala history add RESULTS.jsonl)\n";
  std::string out = fmt::format("{:>5}  {:<16}  {:<34}  {:>6}  {:<12}  {}\n", "run", "when (UTC)",
                                "label", "rows", "golden set", "metrics");
  for (const HistoryRun& r : runs) {
    std::string metrics;
    for (const HistoryMetric& m : r.metrics) {
      metrics += fmt::format("{}{} {:.3f}", metrics.empty() ? "" : ", ", m.key, m.mean);
    }
    std::string label = r.label;
    if (!r.tags.empty()) label += (label.empty() ? "" : " ") + ("[" + TagText(r.tags) + "]");
    out += Trimmed(fmt::format("{:>5}  {:<16}  {:<34}  {:>6}  {:<12}  {}", r.id, When(r.time),
                               label, r.rows, r.golden_digest.substr(0, 12), metrics));
  }
  return out;
}

std::string FormatTrend(const Trend& t) {
  std::string out = fmt::format(
      "{} across {} runs ({} is better); a drop: the paired 95% interval against the previous "
      "comparable run excludes 0 and the change exceeds {}\n\n",
      t.metric, t.points.size(), t.direction == Direction::kLowerIsBetter ? "lower" : "higher",
      t.min_effect);
  out += Trimmed(fmt::format("{:>5}  {:<16}  {:<24}  {:>7}  {:<18}  {:>8}  {:<20}", "run",
                             "when (UTC)", "label", "mean", "95% interval", "change",
                             "paired 95% interval"));
  for (const TrendPoint& p : t.points) {
    if (!p.new_segment.empty()) {
      out += fmt::format("{:>5}  -- new segment: {}; not compared with the runs above --\n", "",
                         p.new_segment);
    }
    std::string change, interval, flag;
    if (p.compared) {
      change = fmt::format("{:+.4f}", p.change);
      interval = fmt::format("[{:+.4f}, {:+.4f}]", p.change_low, p.change_high);
      const bool lower = t.direction == Direction::kLowerIsBetter;
      if (p.drop) {
        flag = "drop";
      } else if (lower ? p.change_high < 0 : p.change_low > 0) {
        flag = "better";
      }
    }
    out +=
        Trimmed(fmt::format("{:>5}  {:<16}  {:<24}  {:>7.4f}  [{:.4f}, {:.4f}]  {:>8}  {:<20}  {}",
                            p.run.id, When(p.run.time), p.run.label.substr(0, 24), p.mean, p.ci_low,
                            p.ci_high, change, interval, flag));
  }
  int drops = 0;
  for (const TrendPoint& p : t.points) drops += p.drop ? 1 : 0;
  out += drops ? fmt::format("\n{} drop{} flagged\n", drops, drops > 1 ? "s" : "")
               : "\nno drop flagged\n";
  return out;
}

}  // namespace tala
