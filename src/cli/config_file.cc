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
      {"questions", {SetLlm(&LlmOptions::questions), "an integer"}},
      {"cache", {SetLlm(&LlmOptions::cache), "a string"}},
      {"price_input", {SetLlm(&LlmOptions::price_input), "a number"}},
      {"price_output", {SetLlm(&LlmOptions::price_output), "a number"}},
  };
  return kSetters;
}

std::string Where(const std::string& path, const toml::node& n) {
  return path + ":" + std::to_string(n.source().begin.line);
}

}  // namespace

const std::vector<std::string>& ConfigKeys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& [k, _] : Setters()) keys.push_back(k);
    keys.push_back("[diagnosis_thresholds]");
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
    // `tala run`, `tala ci` and `tala serve` read these.
    if (name == "target" || name == "ci" || name == "serve") continue;
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
