#include "cli/config_file.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>

namespace tala::cli {

namespace {

using Setter = std::function<bool(const toml::node&, EvalOptions&)>;

template <typename T>
Setter Set(T EvalOptions::*field) {
  return [field](const toml::node& n, EvalOptions& o) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (auto v = n.value<std::string>()) return o.*field = *v, true;
    } else if constexpr (std::is_same_v<T, double>) {
      if (auto v = n.value<double>()) return o.*field = *v, true;
    } else if constexpr (std::is_same_v<T, int>) {
      if (auto v = n.value<int64_t>()) return o.*field = static_cast<int>(*v), true;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (auto v = n.value<bool>()) return o.*field = *v, true;
    }
    return false;
  };
}

template <typename T>
Setter SetLlm(T LlmOptions::*field) {
  return [field](const toml::node& n, EvalOptions& o) {
    if constexpr (std::is_same_v<T, std::string>) {
      if (auto v = n.value<std::string>()) return o.llm.*field = *v, true;
    } else if constexpr (std::is_same_v<T, double>) {
      if (auto v = n.value<double>()) return o.llm.*field = *v, true;
    } else if constexpr (std::is_same_v<T, int>) {
      if (auto v = n.value<int64_t>()) return o.llm.*field = static_cast<int>(*v), true;
    } else if constexpr (std::is_same_v<T, bool>) {
      if (auto v = n.value<bool>()) return o.llm.*field = *v, true;
    } else if constexpr (std::is_same_v<T, std::optional<double>>) {
      if (auto v = n.value<double>()) return o.llm.*field = *v, true;
    } else if constexpr (std::is_same_v<T, std::optional<int64_t>>) {
      if (auto v = n.value<int64_t>()) return o.llm.*field = *v, true;
    }
    return false;
  };
}

const std::map<std::string, std::pair<Setter, const char*>>& Setters() {
  static const std::map<std::string, std::pair<Setter, const char*>> kSetters = {
      {"judge", {Set(&EvalOptions::judge), "a string"}},
      {"metrics", {Set(&EvalOptions::metrics), "a string"}},
      {"out", {Set(&EvalOptions::out), "a string"}},
      {"format", {Set(&EvalOptions::format), "a string"}},
      {"diagnosis_threshold", {Set(&EvalOptions::diagnosis_threshold), "a number"}},
      {"repeats", {Set(&EvalOptions::repeats), "an integer"}},
      {"threads", {Set(&EvalOptions::threads), "an integer"}},
      {"base_url", {SetLlm(&LlmOptions::base_url), "a string"}},
      {"embeddings", {SetLlm(&LlmOptions::embeddings), "a string"}},
      {"embeddings_base_url", {SetLlm(&LlmOptions::embeddings_base_url), "a string"}},
      {"temperature", {SetLlm(&LlmOptions::temperature), "a number"}},
      {"send_temperature", {SetLlm(&LlmOptions::send_temperature), "true or false"}},
      {"seed", {SetLlm(&LlmOptions::seed), "an integer"}},
      {"max_tokens", {SetLlm(&LlmOptions::max_tokens), "an integer"}},
      {"structured_output", {SetLlm(&LlmOptions::structured_output), "true or false"}},
      {"max_in_flight", {SetLlm(&LlmOptions::max_in_flight), "an integer"}},
      {"requests_per_minute", {SetLlm(&LlmOptions::requests_per_minute), "a number"}},
      {"tokens_per_minute", {SetLlm(&LlmOptions::tokens_per_minute), "a number"}},
      {"timeout_ms", {SetLlm(&LlmOptions::timeout_ms), "an integer"}},
      {"max_retries", {SetLlm(&LlmOptions::max_retries), "an integer"}},
      {"batching", {SetLlm(&LlmOptions::batching), "a string"}},
      {"layout", {SetLlm(&LlmOptions::layout), "a string"}},
      {"prompt_cache_key", {SetLlm(&LlmOptions::prompt_cache_key), "a string"}},
      {"questions", {SetLlm(&LlmOptions::questions), "an integer"}},
      {"cache", {SetLlm(&LlmOptions::cache), "a string"}},
      {"price_input", {SetLlm(&LlmOptions::price_input), "a number"}},
      {"price_output", {SetLlm(&LlmOptions::price_output), "a number"}},
      {"price_cached_input", {SetLlm(&LlmOptions::price_cached_input), "a number"}},
      {"price_cache_write", {SetLlm(&LlmOptions::price_cache_write), "a number"}},
  };
  return kSetters;
}

std::string Where(const std::string& path, const toml::node& n) {
  return path + ":" + std::to_string(n.source().begin.line);
}

// [metrics.NAME]: a metric defined without code (UserMetricDef). Every key is checked, and a
// fault names the file and line.
Result<UserMetricDef> ReadUserMetric(const std::string& path, const std::string& name,
                                     const toml::table& t) {
  UserMetricDef def;
  def.name = name;
  def.where = Where(path, t);
  std::string at = "metrics." + name;
  bool has_output = false;
  for (const auto& [k, node] : t) {
    std::string key(k.str());
    auto bad = [&](const char* expected) {
      return InvalidArgument(Where(path, node) + ": " + at + "." + key + ": expected " + expected);
    };
    if (key == "prompt") {
      auto v = node.value<std::string>();
      if (!v) return bad("a string");
      def.prompt = *v;
    } else if (key == "output") {
      auto v = node.value<std::string>();
      if (!v || (*v != "discrete" && *v != "numeric" && *v != "ranking")) {
        return bad("\"discrete\", \"numeric\" or \"ranking\"");
      }
      has_output = true;
      def.output = *v == "discrete"  ? UserMetricDef::Output::kDiscrete
                   : *v == "numeric" ? UserMetricDef::Output::kNumeric
                                     : UserMetricDef::Output::kRanking;
    } else if (key == "values") {
      const toml::array* a = node.as_array();
      if (a == nullptr) return bad("a list of strings");
      for (const toml::node& item : *a) {
        auto v = item.value<std::string>();
        if (!v) return bad("a list of strings");
        def.values.push_back(*v);
      }
    } else if (key == "min" || key == "max") {
      auto v = node.value<double>();
      if (!v) return bad("a number");
      (key == "min" ? def.min : def.max) = *v;
    } else if (key == "integer") {
      auto v = node.value<bool>();
      if (!v) return bad("true or false");
      def.integer = *v;
    } else if (key == "direction") {
      auto v = node.value<std::string>();
      if (!v || (*v != "higher" && *v != "lower")) return bad("\"higher\" or \"lower\"");
      def.direction = *v == "higher" ? Direction::kHigherIsBetter : Direction::kLowerIsBetter;
    } else {
      return InvalidArgument(Where(path, node) + ": " + at + ": unknown key \"" + key +
                             "\" (keys: prompt, output, values, min, max, integer, direction)");
    }
  }
  if (def.prompt.empty()) return InvalidArgument(def.where + ": " + at + " needs a prompt");
  if (!has_output) {
    return InvalidArgument(def.where + ": " + at +
                           " needs output = \"discrete\", \"numeric\" or \"ranking\"");
  }
  return def;
}

// "metrics" is either the list to score, or a table of metric definitions whose "list" key
// (a string) is that list.
Status ReadMetricsTable(const std::string& path, const toml::table& t, EvalOptions& options) {
  for (const auto& [k, node] : t) {
    std::string key(k.str());
    if (key == "list") {
      auto v = node.value<std::string>();
      if (!v) return InvalidArgument(Where(path, node) + ": metrics.list: expected a string");
      options.metrics = *v;
      continue;
    }
    const toml::table* def = node.as_table();
    if (def == nullptr) {
      return InvalidArgument(Where(path, node) + ": metrics." + key +
                             ": expected a table defining a metric ([metrics." + key + "])");
    }
    TALA_ASSIGN_OR_RETURN(UserMetricDef d, ReadUserMetric(path, key, *def));
    options.user_metrics.push_back(std::move(d));
  }
  return OkStatus();
}

}  // namespace

const std::vector<std::string>& ConfigKeys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& [k, _] : Setters()) keys.push_back(k);
    keys.push_back("[diagnosis_thresholds]");
    keys.push_back("[metrics.NAME]");
    keys.push_back("[rubrics]");
    return keys;
  }();
  return kKeys;
}

std::string FindConfigFile(int argc, char** argv, bool* explicit_path) {
  *explicit_path = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) return argv[i + 1];
    if (std::strncmp(argv[i], "--config=", 9) == 0) return argv[i] + 9;
  }
  if (const char* env = std::getenv("TALA_CONFIG"); env != nullptr && *env) return env;
  *explicit_path = false;
  std::error_code ec;
  return std::filesystem::exists("tala.toml", ec) ? "tala.toml" : "";
}

Status ApplyConfigFile(const std::string& path, EvalOptions& options) {
  // toml++ (as Debian builds it) reports errors by exception: this is the one place it is
  // called, and the exception becomes a Status here.
  toml::table table;
  try {
    table = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    if (what.find("could not be opened") != std::string::npos) {
      return IoError("config " + path + ": cannot be read");
    }
    return InvalidArgument(path + ":" + std::to_string(e.source().begin.line) + ": " + what);
  }
  for (const auto& [key, node] : table) {
    std::string name(key.str());
    // `tala run`, `tala ci`, `tala serve` and `tala history` read these.
    if (name == "target" || name == "ci" || name == "serve" || name == "history") continue;
    if (name == "diagnosis_thresholds") {
      const toml::table* t = node.as_table();
      if (t == nullptr)
        return InvalidArgument(Where(path, node) + ": diagnosis_thresholds: expected a table");
      for (const auto& [metric, value] : *t) {
        auto v = value.value<double>();
        if (!v || *v < 0 || *v > 1) {
          return InvalidArgument(Where(path, value) + ": diagnosis_thresholds." +
                                 std::string(metric.str()) + ": expected a number in [0, 1]");
        }
        options.diagnosis_thresholds[std::string(metric.str())] = *v;
      }
      continue;
    }
    if (name == "metrics" && node.is_table()) {
      TALA_RETURN_IF_ERROR(ReadMetricsTable(path, *node.as_table(), options));
      continue;
    }
    if (name == "rubrics") {
      const toml::table* t = node.as_table();
      if (t == nullptr) return InvalidArgument(Where(path, node) + ": rubrics: expected a table");
      for (const auto& [level, text] : *t) {
        auto v = text.value<std::string>();
        if (!v) {
          return InvalidArgument(Where(path, text) + ": rubrics." + std::string(level.str()) +
                                 ": expected a string");
        }
        options.rubrics[std::string(level.str())] = *v;
      }
      continue;
    }
    auto it = Setters().find(name);
    if (it == Setters().end()) {
      return InvalidArgument(Where(path, node) + ": unknown key \"" + name +
                             "\" (see `tala eval --help` for the keys)");
    }
    if (!it->second.first(node, options)) {
      return InvalidArgument(Where(path, node) + ": " + name + ": expected " + it->second.second);
    }
  }
  return OkStatus();
}

}  // namespace tala::cli
