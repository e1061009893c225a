#pragma once
// The [target] and [ci] tables of tala.toml, for `tala run` and `tala ci` (flags override them):
//
//   [target]
//   target = "http://127.0.0.1:8765/ask"       # or "exec:python3 app.py", "exec-once:..."
//   method = "POST"
//   headers = { Authorization = "Bearer ${APP_TOKEN}" }
//   body = { question = "{{user_input}}", user = "{{metadata.user}}" }   # or a JSON string
//   response = "answer"            # JSON pointer or dotted path
//   contexts = "sources"           # strings, or objects with context_text / context_id fields
//   max_in_flight = 8, timeout_ms = 60000, max_retries = 3, requests_per_minute = 0
//
//   [ci]
//   metrics = "faithfulness,context_recall"   judge = "offline"
//   min = { faithfulness = 0.8 }              max_drop = { context_recall = 0.05 }
//   out_dir = "tala-ci"                       max_target_errors = 0
//   summary = "summary.md"   (also dataset, results, junit, html: one file's own path)
//
//   [history]                                 # tala ci adds its run; tala history's default
//   store = ".tala/history.sqlite"            # or "http://127.0.0.1:8177" (a tala serve)
//   token_env = "TALA_SERVE_TOKEN"            # the variable holding the serve's token
//   label = "nightly"   tags = { suite = "golden-v2" }

#include <map>
#include <string>

#include "tala/history.h"
#include "tala/run.h"

namespace tala::cli {

// Where runs are remembered ([history]; `tala history --store` overrides it).
struct HistorySettings {
  std::string store;  // empty: tala ci adds nothing; tala history uses .tala/history.sqlite
  std::string token_env = "TALA_SERVE_TOKEN";
  std::string label;  // empty: the commit and branch the CI's variables name
  HistoryTags tags;
};

struct CiSettings {
  std::string metrics, judge;
  std::map<std::string, double> min, max_drop;
  std::string out_dir = "tala-ci";  // dataset, results, summary.md, junit.xml, report.html
  // Where each file goes instead of out_dir/NAME (empty: out_dir).
  std::string dataset, results, summary, junit, html;
  int max_target_errors = 0;  // rows the target may fail before the job fails
  HistorySettings history;
};

// The three tables are optional. kInvalidArgument names file:line and key for unknown keys and
// values of the wrong type.
Status ApplyTargetTables(const std::string& path, RunOptions& run, CiSettings& ci);

}  // namespace tala::cli
