#include "engine/sequential_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>

#include "fs/atomic_file.h"
#include "io/readers/results_reader.h"
#include "io/writers/json_text.h"

namespace tala {

Result<fs::ScratchFile> ShuffledCopy(const std::string& path, const std::string& format,
                                     uint64_t seed) {
  const bool jsonl = format == "jsonl" ||
                     (format == "auto" && path.size() > 6 &&
                      (path.ends_with(".jsonl") || path.ends_with(".ndjson"))) ||
                     (format == "auto" && path.rfind("/tmp/tala-stdin-", 0) == 0);
  if (!jsonl) {
    return InvalidArgument("--sequential reads JSON Lines (it shuffles the rows' lines): " + path +
                           " is not (.jsonl, or --format jsonl)");
  }
  std::ifstream in(path);
  if (!in) return IoError("cannot read " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(std::move(line));
  }
  std::mt19937_64 rng(seed);
  std::shuffle(lines.begin(), lines.end(), rng);
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return fs::ScratchFile::Create("sequential", text);
}

std::string SequentialNote(const SequentialOutcome& o) {
  const int64_t total = o.judged + o.not_judged;
  std::string out =
      o.decided && o.not_judged > 0
          ? fmt::format(
                "sequential: decided after judging {} of {} rows in a seeded random order; "
                "{} not judged ({:.0f}% of the judge's work saved), listed in {}",
                o.judged, total, o.not_judged, 100.0 * o.not_judged / std::max<int64_t>(total, 1),
                o.not_judged_file)
      : o.decided ? fmt::format("sequential: decided only at the last of the {} rows", total)
                  : fmt::format(
                        "sequential: every one of the {} rows judged, and not every gate "
                        "is decided at this level: the full run's gates decide",
                        total);
  for (const SequentialGate& g : o.gates) {
    out += fmt::format("; {} {} (anytime-valid interval [{:.4f}, {:.4f}] over {} rows)", g.name,
                       !g.decided ? "undecided"
                       : g.pass   ? "pass"
                                  : "FAIL",
                       g.low, g.high, g.rows);
  }
  return out;
}

Result<std::unique_ptr<SequentialMonitor>> SequentialMonitor::Create(
    const SequentialOptions& options, const std::vector<MetricSummary>& metrics) {
  auto m = std::unique_ptr<SequentialMonitor>(new SequentialMonitor());
  m->options_ = options;
  auto direction = [&](const std::string& key) -> Result<bool> {
    for (const MetricSummary& s : metrics) {
      if (s.key == key) return s.direction == Direction::kHigherIsBetter;
    }
    return InvalidArgument("--sequential: the gate's metric " + key +
                           " is not among the metrics scored");
  };
  const size_t count = options.min.size() + options.max_drop.size();
  const size_t sequences = count > 0 ? count : metrics.size();
  const double alpha = options.alpha / static_cast<double>(std::max<size_t>(sequences, 1));
  for (const auto& [key, limit] : options.min) {
    TALA_ASSIGN_OR_RETURN(bool higher, direction(key));
    m->gates_.push_back({fmt::format("{} {} {}", key, higher ? ">=" : "<=", limit), key, false,
                         higher, limit, std::make_unique<analysis::ConfidenceSequence>(alpha)});
  }
  if (!options.max_drop.empty()) {
    if (options.baseline.empty()) return InvalidArgument("--sequential: max_drop needs --baseline");
    TALA_ASSIGN_OR_RETURN(io::ResultsFile base, io::ReadResults(options.baseline));
    for (const io::ResultRow& row : base.rows) {
      for (const auto& [key, value] : row.scores) {
        if (value && options.max_drop.count(key)) m->baseline_[key][row.id] = *value;
      }
    }
  }
  for (const auto& [key, limit] : options.max_drop) {
    TALA_ASSIGN_OR_RETURN(bool higher, direction(key));
    m->gates_.push_back({fmt::format("{} drop <= {}", key, limit), key, true, higher, limit,
                         std::make_unique<analysis::ConfidenceSequence>(alpha, -1, 1)});
  }
  if (m->gates_.empty()) {
    if (options.target_width <= 0) {
      return InvalidArgument(
          "--sequential needs a gate to decide (--min, --max-drop) or a --target-width");
    }
    for (const MetricSummary& s : metrics) {
      m->gates_.push_back({s.key + " width", s.key, false, true, 0,
                           std::make_unique<analysis::ConfidenceSequence>(alpha)});
    }
  }
  return m;
}

void SequentialMonitor::Add(const io::RowResult& row) {
  judged_.insert(row.sample.id);
  for (Gate& g : gates_) {
    for (const io::RowScore& s : row.scores) {
      if (s.key != g.metric || !s.value.value) continue;
      double x = *s.value.value;
      if (g.drop) {
        auto base = baseline_[g.metric].find(row.sample.id);
        if (base == baseline_[g.metric].end()) break;
        // The drop: how much worse the row got, by the metric's direction.
        x = g.higher_better ? base->second - x : x - base->second;
      }
      g.cs->Add(x);
      break;
    }
    Decide(g);
  }
}

void SequentialMonitor::Decide(Gate& g) {
  if (g.decision != 0 || g.cs->count() == 0) return;
  const double lo = g.cs->lower(), hi = g.cs->upper();
  if (g.name.ends_with(" width")) {
    if (hi - lo <= options_.target_width) g.decision = 1;
    return;
  }
  if (g.drop) {
    if (hi <= g.limit) g.decision = 1;  // the drop is surely within the limit
    if (lo > g.limit) g.decision = -1;  // surely beyond it
    return;
  }
  const bool higher = g.higher_better;
  if (higher ? lo >= g.limit : hi <= g.limit) g.decision = 1;
  if (higher ? hi < g.limit : lo > g.limit) g.decision = -1;
}

bool SequentialMonitor::Decided() const {
  for (const Gate& g : gates_) {
    if (g.decision == 0) return false;
    // With a width asked of gated metrics too, a decided gate still waits for it.
    if (options_.target_width > 0 && !g.name.ends_with(" width") &&
        g.cs->upper() - g.cs->lower() > options_.target_width) {
      return false;
    }
  }
  return true;
}

Result<SequentialOutcome> SequentialMonitor::Finish(const std::vector<std::string>& ids,
                                                    const std::string& out) {
  SequentialOutcome o;
  o.used = true;
  o.judged = static_cast<int64_t>(judged_.size());
  o.decided = Decided();
  for (const Gate& g : gates_) {
    o.gates.push_back(
        {g.name, g.decision != 0, g.decision > 0, g.cs->lower(), g.cs->upper(), g.cs->count()});
  }
  std::string left;
  for (const std::string& id : ids) {
    if (judged_.count(id)) continue;
    ++o.not_judged;
    left += "{\"id\":";
    io::AppendJsonString(left, id);
    left += "}\n";
  }
  if (o.not_judged > 0 && out != "-") {
    o.not_judged_file = out + ".not-judged.jsonl";
    TALA_RETURN_IF_ERROR(fs::WriteFileAtomically(o.not_judged_file, left));
  } else if (out != "-") {
    std::remove((out + ".not-judged.jsonl").c_str());  // an older run's list no longer holds
  }
  return o;
}

}  // namespace tala
