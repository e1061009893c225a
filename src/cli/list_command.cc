// tala metrics / tala judges: the registries, printed from the same tables the code runs on.

#include <algorithm>
#include <cstdio>

#include "cli/commands.h"
#include "cli/help_format.h"
#include "io/reports/offline_trust.h"
#include "io/writers/json_text.h"
#include "judges/registry.h"
#include "metrics/registry.h"

namespace tala::cli {

namespace {
std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string NeedsWord(const MetricInfo& info) {
  std::string out;
  if (info.needs_llm) out = "judge";
  if (info.needs_embeddings) out += out.empty() ? "embeddings" : "+embeddings";
  return out.empty() ? "none" : out;
}

void PrintMetric(const MetricInfo& m);

void PrintMetricsJson() {
  std::string out = "[";
  bool first = true;
  for (const auto& entry : metrics::MetricRegistry()) {
    const MetricInfo& m = entry.info();
    if (!first) out += ",";
    first = false;
    out += "{\"name\":";
    io::AppendJsonString(out, m.name);
    out += ",\"aliases\":[";
    for (size_t i = 0; i < m.aliases.size(); ++i) {
      if (i > 0) out += ",";
      io::AppendJsonString(out, m.aliases[i]);
    }
    out += "],\"required_fields\":[";
    bool first_field = true;
    for (Field f : AllFields()) {
      if (!Contains(m.required_fields, f)) continue;
      if (!first_field) out += ",";
      first_field = false;
      io::AppendJsonString(out, FieldName(f));
    }
    out += std::string("],\"needs_llm\":") + (m.needs_llm ? "true" : "false");
    out += std::string(",\"needs_embeddings\":") + (m.needs_embeddings ? "true" : "false");
    out += std::string(",\"direction\":\"") +
           (m.direction == Direction::kHigherIsBetter ? "higher" : "lower") + "\"";
    out += ",\"version\":";
    io::AppendJsonString(out, m.version);
    out += ",\"definition\":";
    io::AppendJsonString(out, m.summary);
    if (!m.offline_note.empty()) {
      out += ",\"offline_note\":";
      io::AppendJsonString(out, m.offline_note);
    }
    if (!m.offline_measured.empty()) {
      out += ",\"offline_trust\":{\"measured\":";
      io::AppendJsonString(out, m.offline_measured);
      out += ",\"misses\":";
      io::AppendJsonString(out, m.offline_misses);
      out += "}";
    }
    out += ",\"family\":";
    io::AppendJsonString(out, entry.family);
    out += ",\"group\":";
    io::AppendJsonString(out, entry.selector);
    out += std::string(",\"core\":") + (metrics::IsCoreMetric(m.name) ? "true" : "false");
    out += std::string(",\"by_default\":") + (m.by_default ? "true" : "false");
    out += "}";
  }
  std::printf("%s]\n", out.c_str());
}

void PrintField(const char* label, const std::string& value) {
  std::printf("  %-11s%s\n", label, WrapHanging(value, 13).c_str());
}

void PrintMetricsTable() {
  // Grouped by family, the families in the order they first appear in the registry.
  std::vector<std::string> families;
  for (const auto& entry : metrics::MetricRegistry()) {
    if (std::find(families.begin(), families.end(), entry.family) == families.end()) {
      families.push_back(entry.family);
    }
  }
  std::printf(
      "Without --metrics, tala eval scores the core metrics (marked core below) that the "
      "data allows.\n--metrics takes metric names and group names: core, all (every metric "
      "not marked\n\"default: no\" that the data allows), or a family's name, given after "
      "its heading.\n\n\"offline:\" is how far the offline judge (the default) agreed with real "
      "labels "
      "on data\nnot used to build it, \"misses:\" what it gets wrong.\n%s\n\n",
      WrapText(io::kOfflineTrustAdvice, 100).c_str());
  for (const std::string& family : families) {
    const char* selector = "";
    for (const auto& entry : metrics::MetricRegistry()) {
      if (entry.family == family) selector = entry.selector;
    }
    std::printf("== %s == (--metrics %s)\n\n", family.c_str(), selector);
    for (const auto& entry : metrics::MetricRegistry()) {
      if (entry.family == family) PrintMetric(entry.info());
    }
  }
}

void PrintMetric(const MetricInfo& m) {
  {
    std::printf("%s%s\n", m.name.c_str(), metrics::IsCoreMetric(m.name) ? "   (core)" : "");
    if (!m.aliases.empty()) PrintField("aliases:", Join(m.aliases));
    PrintField("needs:", FieldSetNames(m.required_fields));
    PrintField("judge:", NeedsWord(m));
    PrintField("better:", m.direction == Direction::kHigherIsBetter ? "higher" : "lower");
    PrintField("what:", m.summary);
    if (!m.offline_note.empty()) PrintField("note:", m.offline_note);
    if (!m.offline_measured.empty()) {
      PrintField("offline:", m.offline_measured);
      PrintField("misses:", m.offline_misses);
    }
    if (!m.by_default) std::printf("  default:   no (name it in --metrics)\n");
    std::printf("\n");
  }
}
}  // namespace

void AddMetricsCommand(CLI::App& app, int* exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "metrics",
      "List every metric: wire name, aliases, required fields, whether it needs a "
      "judge and/or embeddings, direction, and a one-line definition.");
  cmd->add_flag("--json", *json, "print the registry as JSON");
  cmd->callback([json, exit_code] {
    *json ? PrintMetricsJson() : PrintMetricsTable();
    *exit_code = 0;
  });
}

void AddJudgesCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("judges", "List the judges --judge accepts.");
  cmd->callback([exit_code] {
    for (const auto& j : judges::JudgeRegistry()) {
      std::printf("%-16s %s\n", j.name, WrapHanging(j.summary, 17).c_str());
    }
    // The figures are bench/prompt_layouts.py's (the core four metrics, 40 NQ rows, through the
    // mock judge with a provider-like prompt cache): run it again when a prompt changes.
    static const std::pair<const char*, const char*> kLayouts[] = {
        {"auto",
         "the default: for each row, the layout below estimated to bill the fewest input "
         "tokens with the provider's prompt cache; tala eval --dry-run prints all three. On the "
         "rows measured it is combined: 0.47x and 0.38x of separate (OpenAI), 0.64x and 0.44x "
         "(Anthropic)"},
        {"separate",
         "a call each for the response's claims, the reference's claims and the chunks' "
         "ratings, each carrying the chunks; 4 chat calls a row for the core four metrics, "
         "2,551 prompt tokens a row on short rows and 6,928 on long ones (OpenAI wire)"},
        {"row-first",
         "the same calls, each starting with the row's data, which the provider's cache serves "
         "to all but the row's first call (prompt row_first; checked on the mock judge only); "
         "4 chat calls, billed 1.24x and 0.81x of separate (OpenAI), 1.41x and 0.67x "
         "(Anthropic): it pays only where a row's data passes the cache's minimum"},
        {"combined",
         "one call returns the three verdict lists, the chunks sent once (prompt row_verdicts; "
         "checked on the mock judge only); 2 chat calls a row, 1,690 and 3,149 prompt tokens, "
         "billed 0.47x and 0.38x of separate (OpenAI), 0.64x and 0.44x (Anthropic)"},
    };
    std::printf("\nLLM judges' request layouts (--layout), measured by bench/prompt_layouts.py:\n");
    for (const auto& [name, text] : kLayouts) {
      std::printf("%-16s %s\n", name, WrapHanging(text, 17).c_str());
    }
    *exit_code = 0;
  });
}

}  // namespace tala::cli
