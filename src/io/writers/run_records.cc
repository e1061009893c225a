#include "io/writers/run_records.h"

#include <ctime>

#include "io/writers/json_text.h"

namespace tala::io {

namespace {

void Key(std::string& out, const char* key) {
  AppendJsonString(out, key);
  out += ':';
}

void StringMap(std::string& out, const std::map<std::string, std::string>& map) {
  out += '{';
  bool first = true;
  for (const auto& [k, v] : map) {
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, k);
    out += ':';
    AppendJsonString(out, v);
  }
  out += '}';
}

void Tally(std::string& out, const CallTally& t) {
  out +=
      "{\"calls\":" + std::to_string(t.calls) + ",\"cache_hits\":" + std::to_string(t.cache_hits) +
      ",\"requests\":" + std::to_string(t.requests) + ",\"retries\":" + std::to_string(t.retries) +
      ",\"repairs\":" + std::to_string(t.repairs) + ",\"failed\":" + std::to_string(t.failed) +
      ",\"prompt_tokens\":" + std::to_string(t.prompt_tokens) +
      ",\"completion_tokens\":" + std::to_string(t.completion_tokens) +
      ",\"cache_read_tokens\":" + std::to_string(t.cache_read_tokens) +
      ",\"cache_write_tokens\":" + std::to_string(t.cache_write_tokens) + ",\"cost_usd\":";
  if (t.cost_usd) {
    AppendJsonNumber(out, *t.cost_usd);
  } else {
    out += "null";
  }
  out += '}';
}

void TallyList(std::string& out, const std::vector<std::pair<std::string, CallTally>>& list) {
  out += '{';
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out += ',';
    AppendJsonString(out, list[i].first);
    out += ':';
    Tally(out, list[i].second);
  }
  out += '}';
}

}  // namespace

std::string FormatManifestLine(const RunManifest& m) {
  std::string out = "{";
  Key(out, kManifestKey);
  out += '{';
  for (const auto& [key, value] : {std::pair{"tala_version", &m.tala_version},
                                   {"created", &m.created},
                                   {"dataset", &m.dataset},
                                   {"dataset_sha256", &m.dataset_sha256},
                                   {"judge", &m.judge},
                                   {"embeddings", &m.embeddings}}) {
    Key(out, key);
    AppendJsonString(out, *value);
    out += ',';
  }
  Key(out, "prompts");
  StringMap(out, m.prompts);
  out += ',';
  Key(out, "metrics");
  StringMap(out, m.metrics);
  out += ',';
  Key(out, "settings");
  std::map<std::string, std::string> settings(m.settings.begin(), m.settings.end());
  StringMap(out, settings);
  out += "}}";
  return out;
}

std::string FormatRunRecordLine(const RunAccounting& a, const std::string& status,
                                const std::string& finished) {
  std::string out = "{";
  Key(out, kRunRecordKey);
  out += '{';
  Key(out, "status");
  AppendJsonString(out, status);
  out += ',';
  Key(out, "finished");
  AppendJsonString(out, finished);
  out += ",\"rows\":" + std::to_string(a.rows) + ',';
  Key(out, "total");
  Tally(out, a.total);
  out += ',';
  Key(out, "by_prompt");
  TallyList(out, a.by_prompt);
  out += ',';
  Key(out, "by_metric");
  TallyList(out, a.by_metric);
  for (auto [name, list] : {std::pair{"models_reported", &a.models_reported},
                            {"system_fingerprints", &a.system_fingerprints}}) {
    if (list->empty()) continue;
    out += ',';
    Key(out, name);
    out += '[';
    for (size_t i = 0; i < list->size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, (*list)[i]);
    }
    out += ']';
  }
  out += "}}";
  return out;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace tala::io
