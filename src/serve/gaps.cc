// Service::GapsJson: what the documents lack, read from the production questions the database
// holds (GapReader, the same reading as tala testset's report).

#include "testset/gaps.h"

#include <simdjson.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/readers/row_parser.h"
#include "io/writers/json_text.h"
#include "serve/service_impl.h"

namespace tala {

Result<std::string> Service::GapsJson(const std::string& window, int64_t limit, double now) {
  Impl& s = *impl_;
  TALA_ASSIGN_OR_RETURN(int64_t seconds, WindowSeconds(s.options, window));
  if (limit < 1 || limit > kMaxGapRows) {
    return InvalidArgument("limit " + std::to_string(limit) + ": read between 1 and " +
                           std::to_string(kMaxGapRows) + " rows");
  }
  const double since = now - static_cast<double>(seconds);
  // One reading at a time: a second request waits for the first and is answered from it.
  std::lock_guard<std::mutex> one(s.gaps_mu);
  std::vector<AskedQuestion> asked;
  int64_t rows = 0;
  std::string key;
  int64_t seq = 0;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Stmt newest(s.db, "SELECT COALESCE(MAX(seq), 0) FROM rows");
    if (!newest || !newest.Step()) return IoError(std::string("gaps: ") + sqlite3_errmsg(s.db));
    key = std::to_string(seconds) + "/" + std::to_string(limit);
    seq = std::stoll(newest.Column(0));
    // The last reading stands for a minute, and while no row came for ten (the window moves on
    // slowly): grouping the rows again costs seconds of CPU, and the dashboard asks every
    // minute.
    const double age = now - s.gaps_at;
    if (key == s.gaps_key && age >= 0 && (age < 60 || (seq == s.gaps_seq && age < 600))) {
      return s.gaps_json;
    }
    // The newest rows first, so a limit keeps the recent traffic.
    Stmt read(s.db, "SELECT body FROM rows WHERE ts >= ?1 ORDER BY ts DESC, seq DESC LIMIT ?2");
    if (!read) return IoError(std::string("gaps: ") + sqlite3_errmsg(s.db));
    read.Real(1, since);
    read.Int(2, limit);
    simdjson::dom::parser parser;
    static const std::string kStored = "stored row";
    while (read.Step()) {
      ++rows;
      simdjson::dom::element row;
      if (parser.parse(read.Column(0)).get(row)) continue;  // stored rows were checked on ingest
      auto sample = io::ParseRow(row, {kStored, rows, rows});
      if (!sample) continue;
      AskedQuestion a;
      a.question = testset::QuestionOf(*sample);  // as tala testset reads a log
      if (sample->retrieved_contexts) a.contexts = std::move(*sample->retrieved_contexts);
      asked.push_back(std::move(a));
    }
  }
  // Read oldest first, as a log is: an intent's typical wording is, on a tie, the first asked.
  std::reverse(asked.begin(), asked.end());
  TALA_ASSIGN_OR_RETURN(GapReport report, s.gap_reader->Read(asked));
  std::string out = "{\"window\":";
  io::AppendJsonString(out, window);
  out += ",\"rows\":" + std::to_string(rows) + ",\"limit\":" + std::to_string(limit) + ",";
  out += GapReportJson(report).substr(1);
  s.gaps_key = key;
  s.gaps_seq = seq;
  s.gaps_at = now;
  s.gaps_json = out;
  return out;
}

}  // namespace tala
