#pragma once
// The [serve] table of tala.toml, for `tala serve` (flags override it):
//
//   [serve]
//   db = "tala.sqlite"   port = 8177   host = "127.0.0.1"
//   metrics = "faithfulness,response_relevancy"   judge = "offline"   sample = 0.05
//   max_pending = 100000   max_rows_per_request = 10000
//   sample_by_tag = { "route=checkout" = 0.5 }   # a share for rows with that tag
//   judge = "openai:gpt-4o-mini"   base_url = "..."   cache = ".tala/cache.sqlite"
//   requests_per_minute = 600   max_in_flight = 32   max_cost_per_day = 5.0
//   price_input = 0.15   price_output = 0.60   price_cached_input = 0.075   price_cache_write =
//   0.15
//
//   [[serve.alerts]]
//   when = "faithfulness.mean_7d < 0.70"   # METRIC.mean_WINDOW OP NUMBER
//   min_rows = 20                          # values in the window before it can fire
//   clear_margin = 0.02                    # clears at 0.72: hysteresis
//   webhook = "http://127.0.0.1:9000/hook" # POSTed {"rule", "event", "mean", "n", ...}

#include <string>

#include "tala/serve.h"

namespace tala::cli {

struct ServeSettings {
  ServeOptions options;
  std::string host = "127.0.0.1";
  int port = 8177;
};

// kInvalidArgument names file:line and key for unknown keys, values of the wrong type and bad
// alert rules. A file without [serve] changes nothing.
Status ApplyServeTable(const std::string& path, ServeSettings& settings);

}  // namespace tala::cli
