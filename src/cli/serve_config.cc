#include "cli/serve_config.h"

#include <toml++/toml.h>

#include "cli/toml_fields.h"

namespace tala::cli {

namespace {

Status ReadAlert(const std::string& path, const toml::node& n, AlertRule& rule) {
  const toml::table* t = n.as_table();
  if (t == nullptr) return InvalidArgument(Where(path, n, "serve.alerts") + ": expected a table");
  std::string when;
  if (const toml::node* w = t->get("when")) {
    TALA_RETURN_IF_ERROR(Read(path, *w, "serve.alerts.when", when, "a string"));
  } else {
    return InvalidArgument(Where(path, n, "serve.alerts") +
                           ": needs when = \"METRIC.mean_WINDOW < NUMBER\"");
  }
  auto parsed = ParseAlertRule(when);
  if (!parsed)
    return InvalidArgument(Where(path, n, "serve.alerts.when") + ": " + parsed.error().message());
  rule = *parsed;
  for (const auto& [k, v] : *t) {
    std::string key(k.str()), name = "serve.alerts." + key;
    if (key == "when") continue;
    if (key == "min_rows") {
      TALA_RETURN_IF_ERROR(Read(path, v, name, rule.min_rows, "an integer"));
    } else if (key == "clear_margin") {
      TALA_RETURN_IF_ERROR(Read(path, v, name, rule.clear_margin, "a number"));
    } else if (key == "webhook") {
      TALA_RETURN_IF_ERROR(Read(path, v, name, rule.webhook, "a URL string"));
    } else if (key == "clear_on_no_data") {
      TALA_RETURN_IF_ERROR(Read(path, v, name, rule.clear_on_no_data, "true or false"));
    } else {
      return InvalidArgument(
          Where(path, v, name) +
          ": unknown key (when, min_rows, clear_margin, webhook, clear_on_no_data)");
    }
  }
  return OkStatus();
}

}  // namespace

Status ApplyServeTable(const std::string& path, ServeSettings& s) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return InvalidArgument(path + ": " + std::string(e.description()));
  }
  const toml::node* serve = table.get("serve");
  if (serve == nullptr) return OkStatus();
  const toml::table* t = serve->as_table();
  if (t == nullptr) return InvalidArgument(Where(path, *serve, "serve") + ": expected a table");
  ServeOptions& o = s.options;
  for (const auto& [k, n] : *t) {
    std::string key(k.str()), name = "serve." + key;
    if (key == "alerts") {
      const toml::array* list = n.as_array();
      if (list == nullptr) {
        return InvalidArgument(Where(path, n, name) + ": expected [[serve.alerts]] tables");
      }
      for (const toml::node& item : *list) {
        AlertRule rule;
        TALA_RETURN_IF_ERROR(ReadAlert(path, item, rule));
        o.alerts.push_back(std::move(rule));
      }
    } else if (key == "sample_by_tag") {
      const toml::table* tags = n.as_table();
      if (tags == nullptr) {
        return InvalidArgument(Where(path, n, name) +
                               ": expected a table of \"KEY=VALUE\" = share");
      }
      for (const auto& [tag, share] : *tags) {
        double v = 0;
        TALA_RETURN_IF_ERROR(
            Read(path, share, name + "." + std::string(tag.str()), v, "a number from 0 to 1"));
        o.sample_by_tag.emplace_back(std::string(tag.str()), v);
      }
    } else if (key == "db" || key == "host" || key == "metrics" || key == "judge" ||
               key == "docs") {
      std::string& field = key == "db"        ? o.db
                           : key == "host"    ? s.host
                           : key == "metrics" ? o.metrics
                           : key == "docs"    ? o.docs
                                              : o.judge;
      TALA_RETURN_IF_ERROR(Read(path, n, name, field, "a string"));
    } else if (key == "port") {
      int64_t port = 0;
      TALA_RETURN_IF_ERROR(Read(path, n, name, port, "an integer"));
      s.port = static_cast<int>(port);
    } else if (key == "sample") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.sample, "a number from 0 to 1"));
    } else if (key == "base_url" || key == "cache") {
      TALA_RETURN_IF_ERROR(
          Read(path, n, name, key == "base_url" ? o.llm.base_url : o.llm.cache, "a string"));
    } else if (key == "requests_per_minute" || key == "max_cost_per_day" || key == "price_input" ||
               key == "price_output" || key == "price_cached_input" || key == "price_cache_write") {
      double v = 0;
      TALA_RETURN_IF_ERROR(Read(path, n, name, v, "a number"));
      if (key == "price_cached_input") o.llm.price_cached_input = v;
      if (key == "price_cache_write") o.llm.price_cache_write = v;
      if (key == "requests_per_minute") o.llm.requests_per_minute = v;
      if (key == "max_cost_per_day") o.max_cost_per_day = v;
      if (key == "price_input") o.llm.price_input = v;
      if (key == "price_output") o.llm.price_output = v;
    } else if (key == "max_in_flight") {
      int64_t v = 0;
      TALA_RETURN_IF_ERROR(Read(path, n, name, v, "an integer"));
      o.llm.max_in_flight = static_cast<int>(v);
    } else if (key == "max_pending") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.max_pending, "an integer"));
    } else if (key == "tag_keys") {
      const toml::array* keys = n.as_array();
      if (keys == nullptr) {
        return InvalidArgument(Where(path, n, name) + ": expected a list of tag names");
      }
      for (const toml::node& item : *keys) {
        std::string tag;
        TALA_RETURN_IF_ERROR(Read(path, item, name, tag, "a tag name"));
        o.tag_keys.push_back(tag);
      }
    } else if (key == "trace_linger" || key == "trace_timeout") {
      TALA_RETURN_IF_ERROR(Read(path, n, name,
                                key == "trace_linger" ? o.trace_linger : o.trace_timeout,
                                "a number of seconds"));
    } else if (key == "session_quiet") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.session_quiet, "a number of seconds"));
    } else if (key == "max_open_traces") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.max_open_traces, "an integer"));
    } else if (key == "retain_days") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.retain_days, "a number of days"));
    } else if (key == "max_db_bytes") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, o.max_db_bytes, "an integer"));
    } else if (key == "max_tag_values") {
      int64_t v = 0;
      TALA_RETURN_IF_ERROR(Read(path, n, name, v, "an integer"));
      o.max_tag_values = static_cast<int>(v);
    } else if (key == "max_rows_per_request") {
      int64_t rows = 0;
      TALA_RETURN_IF_ERROR(Read(path, n, name, rows, "an integer"));
      o.max_rows_per_request = static_cast<size_t>(rows);
    } else {
      return InvalidArgument(Where(path, n, name) + ": unknown key (see `tala serve --help`)");
    }
  }
  return OkStatus();
}

}  // namespace tala::cli
