#include "io/readers/results_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <map>

#include "analysis/diagnosis.h"
#include "io/readers/json_fields.h"
#include "io/readers/json_lines.h"
#include "io/readers/row_parser.h"
#include "metrics/context_recall.h"
#include "metrics/faithfulness.h"
#include "metrics/registry.h"

namespace tala::io {

double MetricColumn::mean() const {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

MetricColumn ColumnOf(const ResultsFile& results, const std::string& key) {
  MetricColumn column;
  for (const ResultRow& row : results.rows) {
    auto it = row.scores.find(key);
    if (it == row.scores.end()) continue;
    if (it->second) {
      column.values.push_back(*it->second);
    } else {
      ++column.nulls;
    }
  }
  return column;
}

namespace {
// Each candidate row with the base row of the same key (the last such base row).
void PairByKey(const ResultsFile& base, const ResultsFile& candidate,
               std::string_view (*key)(const ResultRow&), Pairing& out) {
  std::map<std::string_view, size_t> index;
  for (size_t i = 0; i < base.rows.size(); ++i) index[key(base.rows[i])] = i;
  for (size_t c = 0; c < candidate.rows.size(); ++c) {
    auto it = index.find(key(candidate.rows[c]));
    if (it == index.end()) {
      ++out.unmatched;
    } else {
      out.pairs.emplace_back(c, it->second);
    }
  }
}
std::string_view IdOf(const ResultRow& r) { return r.id; }
std::string_view QuestionOf(const ResultRow& r) { return r.question_digest; }
}  // namespace

PairedScores PairById(const ResultsFile& base, const ResultsFile& candidate,
                      const std::string& key) {
  Pairing by_id;
  PairByKey(base, candidate, IdOf, by_id);
  return PairedColumn(base, candidate, by_id, key);
}

Result<Pairing> PairRows(const ResultsFile& base, const ResultsFile& candidate, bool by_order) {
  Pairing out;
  // Rows whose ids are their row numbers (1, 2, 3, ... in order: a dataset without ids, as most
  // Ragas datasets are) pair by what they ask, not by position.
  bool row_numbers = true, digests = true;
  for (const ResultsFile* f : {&base, &candidate}) {
    for (size_t i = 0; i < f->rows.size(); ++i) {
      row_numbers = row_numbers && f->rows[i].id == std::to_string(i + 1);
      digests = digests && !f->rows[i].question_digest.empty();
    }
  }
  if (!row_numbers || !digests) {
    PairByKey(base, candidate, IdOf, out);
    return out;
  }
  auto repeated = [](const ResultsFile& f) -> const ResultRow* {
    std::map<std::string_view, const ResultRow*> seen;
    for (const ResultRow& row : f.rows) {
      if (!seen.emplace(row.question_digest, &row).second) return &row;
    }
    return nullptr;
  };
  const ResultRow* again = repeated(base);
  if (again == nullptr) again = repeated(candidate);
  if (again != nullptr && !by_order) {
    return InvalidArgument(
        "the rows have no ids, and a question repeats (row " + again->id +
        "), so rows cannot be paired by their question; give the dataset an id column, or pass "
        "--pair-by-order if both runs scored the same rows in the same order");
  }
  if (by_order) {
    out.by = Pairing::By::kOrder;
    out.note = "rows paired by position (--pair-by-order; the data has no ids)";
    size_t n = std::min(base.rows.size(), candidate.rows.size());
    for (size_t i = 0; i < n; ++i) {
      if (base.rows[i].question_digest != candidate.rows[i].question_digest) {
        return InvalidArgument("--pair-by-order: row " + std::to_string(i + 1) +
                               " holds another question in each run, so the runs are not in the "
                               "same order");
      }
      out.pairs.emplace_back(i, i);
    }
    out.unmatched = static_cast<int64_t>(candidate.rows.size() - n);
    return out;
  }
  out.by = Pairing::By::kQuestion;
  out.note = "rows paired by their question and reference text (the data has no ids)";
  PairByKey(base, candidate, QuestionOf, out);
  return out;
}

PairedScores PairedColumn(const ResultsFile& base, const ResultsFile& candidate,
                          const Pairing& pairing, const std::string& key) {
  PairedScores out;
  for (const auto& [c, b] : pairing.pairs) {
    auto bs = base.rows[b].scores.find(key);
    auto cs = candidate.rows[c].scores.find(key);
    if (bs == base.rows[b].scores.end() || cs == candidate.rows[c].scores.end() || !bs->second ||
        !cs->second) {
      continue;
    }
    out.base.push_back(*bs->second);
    out.candidate.push_back(*cs->second);
    out.ids.push_back(candidate.rows[c].id);
  }
  return out;
}

namespace {

std::string StringAt(simdjson::dom::element e, const char* key) {
  std::string_view v;
  if (e[key].get_string().get(v)) return "";
  return std::string(v);
}

std::map<std::string, std::string> StringMapAt(simdjson::dom::element e, const char* key) {
  std::map<std::string, std::string> out;
  simdjson::dom::object obj;
  if (e[key].get_object().get(obj)) return out;
  for (auto [k, v] : obj) {
    std::string_view text;
    if (!v.get_string().get(text)) out[std::string(k)] = std::string(text);
  }
  return out;
}

}  // namespace

RunManifest ParseManifest(simdjson::dom::element m) {
  RunManifest out;
  out.tala_version = StringAt(m, "tala_version");
  out.created = StringAt(m, "created");
  out.dataset = StringAt(m, "dataset");
  out.dataset_sha256 = StringAt(m, "dataset_sha256");
  out.judge = StringAt(m, "judge");
  out.embeddings = StringAt(m, "embeddings");
  out.prompts = StringMapAt(m, "prompts");
  out.metrics = StringMapAt(m, "metrics");
  for (auto& [k, v] : StringMapAt(m, "settings")) out.settings.emplace_back(k, v);
  return out;
}

namespace {

void AddReported(simdjson::dom::element run, ResultsFile& out) {
  for (auto [key, set] : {std::pair{"models_reported", &out.models_reported},
                          {"system_fingerprints", &out.system_fingerprints}}) {
    simdjson::dom::array list;
    if (run[key].get_array().get(list)) continue;
    for (simdjson::dom::element v : list) {
      std::string_view text;
      if (!v.get_string().get(text)) set->insert(std::string(text));
    }
  }
}

CallTally ReadTally(simdjson::dom::element t) {
  CallTally out;
  auto count = [&](const char* key) {
    int64_t v = 0;
    return t[key].get_int64().get(v) ? 0 : v;
  };
  out.calls = count("calls");
  out.cache_hits = count("cache_hits");
  out.requests = count("requests");
  out.retries = count("retries");
  out.repairs = count("repairs");
  out.failed = count("failed");
  out.prompt_tokens = count("prompt_tokens");
  out.completion_tokens = count("completion_tokens");
  out.cache_read_tokens = count("cache_read_tokens");
  out.cache_write_tokens = count("cache_write_tokens");
  double cost = 0;
  if (!t["cost_usd"].get_double().get(cost)) out.cost_usd = cost;
  return out;
}

std::vector<std::pair<std::string, CallTally>> ReadTallies(simdjson::dom::element e) {
  std::vector<std::pair<std::string, CallTally>> out;
  simdjson::dom::object obj;
  if (e.get_object().get(obj)) return out;
  for (auto [k, v] : obj) out.emplace_back(std::string(k), ReadTally(v));
  return out;
}

void AddRunRecord(simdjson::dom::element run, CallTally& sum) {
  simdjson::dom::element total;
  if (run["total"].get(total)) return;
  sum += ReadTally(total);
}

}  // namespace

RunAccounting ParseRunRecord(simdjson::dom::element run) {
  RunAccounting out;
  out.used = true;
  simdjson::dom::element e;
  if (!run["total"].get(e)) out.total = ReadTally(e);
  if (!run["by_prompt"].get(e)) out.by_prompt = ReadTallies(e);
  if (!run["by_metric"].get(e)) out.by_metric = ReadTallies(e);
  int64_t rows = 0;
  if (!run["rows"].get_int64().get(rows)) out.rows = rows;
  out.models_reported = StringsAt(run, "models_reported");
  out.system_fingerprints = StringsAt(run, "system_fingerprints");
  return out;
}

std::vector<std::string> QuestionsOfUserInput(simdjson::dom::element question) {
  std::string_view text;
  std::vector<std::string> out;
  simdjson::dom::array turns;
  if (!question.get_string().get(text)) {
    out.emplace_back(text);
  } else if (!question.get_array().get(turns)) {
    for (simdjson::dom::element turn : turns) {
      std::string_view type;
      if (!turn["type"].get_string().get(type) && type == "human" &&
          !turn["content"].get_string().get(text)) {
        out.emplace_back(text);
      }
    }
  }
  return out;
}

std::vector<std::string> QuestionsOfResultLine(simdjson::dom::element root) {
  simdjson::dom::element question;
  if (root["inputs"]["user_input"].get(question)) return {};
  return QuestionsOfUserInput(question);
}

namespace {

QuestionAndReason ReadQuestionAndReason(simdjson::dom::element root, const std::string& metric) {
  QuestionAndReason out;
  // A conversation's last question.
  const std::vector<std::string> asked = QuestionsOfResultLine(root);
  if (!asked.empty()) out.question = asked.back();
  simdjson::dom::element reasons;
  std::string_view text;
  if (!root["reasons"].get(reasons) && !reasons[metric].get_string().get(text)) {
    out.reason = std::string(text);
  }
  // What to look at first: the first claim the context does not support (faithfulness), or the
  // first reference claim no chunk holds (context recall).
  const bool grounding = metric == metrics::FaithfulnessInfo().name;
  const bool recall = metric == metrics::ContextRecallInfo().name;
  if (grounding || recall) {
    simdjson::dom::array claims;
    const char* list = grounding ? "response_claims" : "reference_claims";
    const char* flag = grounding ? "supported" : "attributed";
    if (!root["verdicts"][list].get_array().get(claims)) {
      for (simdjson::dom::element claim : claims) {
        bool held = true;
        if (claim[flag].get_bool().get(held) || held || claim["text"].get_string().get(text)) {
          continue;
        }
        out.reason += std::string(out.reason.empty() ? "" : "; ") +
                      (grounding ? "unsupported: \"" : "no chunk holds: \"") + std::string(text) +
                      "\"";
        break;
      }
    }
  }
  return out;
}

}  // namespace

QuestionAndReason QuestionAndReasonOf(const ResultRow& row, const std::string& metric) {
  if (row.json.empty()) return {};
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(row.json).get(root)) return {};
  return ReadQuestionAndReason(root, metric);
}

Result<ResultRow> ParseResultRow(simdjson::dom::element root, const std::string& path,
                                 int64_t line_no, RawLines raw) {
  FieldContext ctx{path, line_no};
  simdjson::dom::element id, scores;
  if (root["id"].get(id))
    return DataError({path, line_no, 0, "id"}, "missing: is this a tala results file?");
  if (root["scores"].get(scores))
    return DataError({path, line_no, 0, "scores"}, "missing: is this a tala results file?");
  ResultRow row;
  std::string_view sid;
  int64_t nid;
  if (!id.get_string().get(sid))
    row.id = std::string(sid);
  else if (!id.get_int64().get(nid))
    row.id = std::to_string(nid);
  else
    return Expected(ctx, "id", "a string or an integer", id);
  row.diagnosis = StringAt(root, "diagnosis");
  simdjson::dom::element digests;
  if (!root["digests"].get(digests)) {
    row.input_digest = StringAt(digests, "inputs");
    row.question_digest = StringAt(digests, "question");
  }

  if (std::string metric = analysis::DecidingMetricOf(row.diagnosis); !metric.empty()) {
    QuestionAndReason read = ReadQuestionAndReason(root, metric);
    row.question = std::move(read.question);
    row.diagnosis_reason = std::move(read.reason);
  }
  row.error = StringAt(root, "error");
  row.failed = StringsAt(root, "failed");
  row.failure_reason = row.error;
  if (row.failure_reason.empty() && !row.failed.empty()) {
    simdjson::dom::element reasons;
    std::string_view text;
    if (!root["reasons"].get(reasons) && !reasons[row.failed.front()].get_string().get(text)) {
      row.failure_reason = std::string(text);
    }
  }
  TALA_ASSIGN_OR_RETURN(simdjson::dom::object obj, ReadObject(ctx, "scores", scores));
  for (auto [key, value] : obj) {
    std::string k(key);
    if (value.is_null()) {
      row.scores[k] = std::nullopt;
    } else {
      TALA_ASSIGN_OR_RETURN(double d, ReadNumber(ctx, "scores." + k, value));
      row.scores[k] = d;
    }
  }
  if (raw == RawLines::kKeep) row.json = simdjson::minify(root);
  return row;
}

Result<ResultsFile> ReadResults(const std::string& path, EmptyResults empty, RawLines raw) {
  ResultsFile out;
  std::map<std::string, size_t> where;  // id -> position in out.rows
  TALA_RETURN_IF_ERROR(ForEachJsonLine(
      path,
      [&](simdjson::dom::element root, int64_t line_no) -> Status {
        simdjson::dom::element record;
        if (!root[kManifestKey].get(record)) {
          // A resumed run of an edited dataset appends its manifest: the last one stands.
          out.manifest = ParseManifest(record);
          return OkStatus();
        }
        if (!root[kRunRecordKey].get(record)) {
          out.has_run_records = true;
          AddRunRecord(record, out.calls);
          AddReported(record, out);
          return OkStatus();
        }
        TALA_ASSIGN_OR_RETURN(ResultRow row, ParseResultRow(root, path, line_no, raw));
        simdjson::dom::object scores;  // parsed above: keys in the file's order
        if (root["scores"].get_object().get(scores)) return Internal("scores vanished");
        for (auto [key, value] : scores) {
          std::string k(key);
          if (std::find(out.metric_keys.begin(), out.metric_keys.end(), k) ==
              out.metric_keys.end()) {
            out.metric_keys.push_back(k);
          }
        }
        auto [it, fresh] = where.emplace(row.id, out.rows.size());
        if (fresh) {
          out.rows.push_back(std::move(row));
        } else {
          out.rows[it->second] = std::move(row);
          ++out.superseded;
        }
        return OkStatus();
      },
      &out.tail));
  if (out.rows.empty() && empty == EmptyResults::kError)
    return DataError({path, 0, 0, ""}, "the results file holds no rows");
  return out;
}

std::string CutOffNotice(const ResultsFile& results, const std::string& path) {
  if (results.tail.cut_off_line == 0) return "";
  return path + ":" + std::to_string(results.tail.cut_off_line) +
         ": the last row was cut off (the writing process was killed or the disk filled up) "
         "and is left out";
}

Direction DirectionIn(const ResultsFile& results, const std::string& key) {
  if (results.manifest) {
    auto it = results.manifest->metrics.find(key);
    const std::string suffix = "-lower";
    if (it != results.manifest->metrics.end() && it->second.rfind("user-", 0) == 0 &&
        it->second.size() > suffix.size() &&
        it->second.compare(it->second.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return Direction::kLowerIsBetter;
    }
  }
  return metrics::DirectionOfKey(key);
}

}  // namespace tala::io
