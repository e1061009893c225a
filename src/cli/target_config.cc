#include "cli/target_config.h"

#include <toml++/toml.h>

#include <sstream>

#include "cli/toml_fields.h"

namespace tala::cli {

namespace {
Status ReadInt(const std::string& path, const toml::node& n, const std::string& key, int& out) {
  int64_t v = 0;
  TALA_RETURN_IF_ERROR(Read(path, n, key, v, "an integer"));
  out = static_cast<int>(v);
  return OkStatus();
}

Status ReadNumbers(const std::string& path, const toml::node& n, const std::string& key,
                   std::map<std::string, double>& out) {
  const toml::table* t = n.as_table();
  if (t == nullptr) return InvalidArgument(Where(path, n, key) + ": expected a table");
  for (const auto& [metric, value] : *t) {
    TALA_RETURN_IF_ERROR(Read(path, value, key + "." + std::string(metric.str()),
                              out[std::string(metric.str())], "a number"));
  }
  return OkStatus();
}

Status ApplyTarget(const std::string& path, const toml::table& t, RunOptions& run) {
  TargetSpec& s = run.target;
  for (const auto& [k, n] : t) {
    std::string key(k.str());
    std::string name = "target." + key;
    if (key == "headers") {
      if (const toml::table* h = n.as_table()) {
        for (const auto& [header, value] : *h) {
          std::string v;
          TALA_RETURN_IF_ERROR(Read(path, value, name, v, "a string"));
          s.headers.push_back(std::string(header.str()) + ": " + v);
        }
      } else if (const toml::array* a = n.as_array()) {
        for (const toml::node& value : *a) {
          std::string v;
          TALA_RETURN_IF_ERROR(Read(path, value, name, v, "\"Name: value\" strings"));
          s.headers.push_back(v);
        }
      } else {
        return InvalidArgument(Where(path, n, name) + ": expected a table of headers");
      }
    } else if (key == "body") {
      if (const toml::table* b = n.as_table()) {
        std::ostringstream json;
        json << toml::json_formatter{*b};
        s.body = json.str();
      } else {
        TALA_RETURN_IF_ERROR(Read(path, n, name, s.body, "a table or a JSON string"));
      }
    } else if (key == "max_in_flight") {
      TALA_RETURN_IF_ERROR(ReadInt(path, n, name, run.max_in_flight));
    } else if (key == "timeout_ms") {
      TALA_RETURN_IF_ERROR(ReadInt(path, n, name, run.timeout_ms));
    } else if (key == "max_retries") {
      TALA_RETURN_IF_ERROR(ReadInt(path, n, name, run.max_retries));
    } else if (key == "max_restarts") {
      TALA_RETURN_IF_ERROR(ReadInt(path, n, name, run.max_restarts));
    } else if (key == "requests_per_minute") {
      TALA_RETURN_IF_ERROR(Read(path, n, name, run.requests_per_minute, "a number"));
    } else {
      std::string* field = key == "target"              ? &s.target
                           : key == "method"            ? &s.method
                           : key == "response"          ? &s.response
                           : key == "contexts"          ? &s.contexts
                           : key == "context_ids"       ? &s.context_ids
                           : key == "context_text"      ? &s.context_text
                           : key == "context_id"        ? &s.context_id
                           : key == "prompt_tokens"     ? &s.prompt_tokens
                           : key == "completion_tokens" ? &s.completion_tokens
                           : key == "cost"              ? &s.cost
                           : key == "cache"             ? &run.cache
                                                        : nullptr;
      if (field == nullptr) {
        return InvalidArgument(Where(path, n, name) + ": unknown key (see `tala run --help`)");
      }
      TALA_RETURN_IF_ERROR(Read(path, n, name, *field, "a string"));
    }
  }
  return OkStatus();
}

Status ApplyCi(const std::string& path, const toml::table& t, CiSettings& ci) {
  for (const auto& [k, n] : t) {
    std::string key(k.str());
    std::string name = "ci." + key;
    if (key == "min") {
      TALA_RETURN_IF_ERROR(ReadNumbers(path, n, name, ci.min));
    } else if (key == "max_drop") {
      TALA_RETURN_IF_ERROR(ReadNumbers(path, n, name, ci.max_drop));
    } else if (key == "max_target_errors") {
      TALA_RETURN_IF_ERROR(ReadInt(path, n, name, ci.max_target_errors));
    } else if (std::string* field = key == "metrics"   ? &ci.metrics
                                    : key == "judge"   ? &ci.judge
                                    : key == "out_dir" ? &ci.out_dir
                                    : key == "dataset" ? &ci.dataset
                                    : key == "results" ? &ci.results
                                    : key == "summary" ? &ci.summary
                                    : key == "junit"   ? &ci.junit
                                    : key == "html"    ? &ci.html
                                                       : nullptr) {
      TALA_RETURN_IF_ERROR(Read(path, n, name, *field, "a string"));
    } else {
      return InvalidArgument(Where(path, n, name) + ": unknown key (see `tala ci --help`)");
    }
  }
  return OkStatus();
}
Status ApplyHistory(const std::string& path, const toml::table& t, HistorySettings& h) {
  for (const auto& [k, n] : t) {
    std::string key(k.str());
    std::string name = "history." + key;
    if (key == "tags") {
      const toml::table* tags = n.as_table();
      if (tags == nullptr) return InvalidArgument(Where(path, n, name) + ": expected a table");
      for (const auto& [tag, value] : *tags) {
        std::string v;
        TALA_RETURN_IF_ERROR(Read(path, value, name + "." + std::string(tag.str()), v, "a string"));
        h.tags.emplace_back(std::string(tag.str()), v);
      }
    } else if (std::string* field = key == "store"       ? &h.store
                                    : key == "token_env" ? &h.token_env
                                    : key == "label"     ? &h.label
                                                         : nullptr) {
      TALA_RETURN_IF_ERROR(Read(path, n, name, *field, "a string"));
    } else {
      return InvalidArgument(Where(path, n, name) +
                             ": unknown key (store, token_env, label, tags; see `tala history "
                             "--help`)");
    }
  }
  return OkStatus();
}
}  // namespace

Status ApplyTargetTables(const std::string& path, RunOptions& run, CiSettings& ci) {
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    // ApplyConfigFile has reported syntax errors already; here the file parsed once.
    return InvalidArgument(path + ": " + std::string(e.description()));
  }
  if (const toml::node* t = table.get("target")) {
    if (!t->is_table()) return InvalidArgument(Where(path, *t, "target") + ": expected a table");
    TALA_RETURN_IF_ERROR(ApplyTarget(path, *t->as_table(), run));
  }
  if (const toml::node* c = table.get("ci")) {
    if (!c->is_table()) return InvalidArgument(Where(path, *c, "ci") + ": expected a table");
    TALA_RETURN_IF_ERROR(ApplyCi(path, *c->as_table(), ci));
  }
  if (const toml::node* h = table.get("history")) {
    if (!h->is_table()) {
      return InvalidArgument(Where(path, *h, "history") + ": expected a table");
    }
    TALA_RETURN_IF_ERROR(ApplyHistory(path, *h->as_table(), ci.history));
  }
  return OkStatus();
}

}  // namespace tala::cli
