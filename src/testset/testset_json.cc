// The candidates' lines, the report (JSON and text), and AcceptTestset: reviewed candidates into
// golden rows.

#include <simdjson.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "io/writers/json_text.h"
#include "tala/testset.h"

namespace tala {

namespace {

void Key(std::string& out, const char* key) {
  if (out.back() != '{') out += ',';
  io::AppendJsonString(out, key);
  out += ':';
}
void Text(std::string& out, const char* key, const std::string& v) {
  Key(out, key);
  io::AppendJsonString(out, v);
}
void Number(std::string& out, const char* key, double v) {
  Key(out, key);
  io::AppendJsonNumber(out, v);
}
// An array of objects under `key`, each written by `write(element)` between its braces.
template <typename T, typename Write>
void Objects(std::string& out, const char* key, const std::vector<T>& items, Write write) {
  Key(out, key);
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    out += i ? ",{" : "{";
    write(items[i]);
    out += '}';
  }
  out += ']';
}
void Null(std::string& out, const char* key) {
  Key(out, key);
  out += "null";
}
void Texts(std::string& out, const char* key, const std::vector<std::string>& v) {
  Key(out, key);
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    io::AppendJsonString(out, v[i]);
  }
  out += ']';
}

// "gaps": {"questions", "share", "intents": [{"question", "questions", "share"}]}, shares of
// `questions` (null, and left out, without any).
void GapsObject(std::string& out, const std::vector<TestsetGap>& gaps, int64_t gap_questions,
                int64_t questions) {
  Key(out, "gaps");
  out += '{';
  Number(out, "questions", static_cast<double>(gap_questions));
  if (questions > 0) {
    Number(out, "share", static_cast<double>(gap_questions) / static_cast<double>(questions));
  } else {
    Null(out, "share");
  }
  Objects(out, "intents", gaps, [&](const TestsetGap& gap) {
    Text(out, "question", gap.question);
    Number(out, "questions", static_cast<double>(gap.questions));
    if (questions > 0) {
      Number(out, "share", static_cast<double>(gap.questions) / static_cast<double>(questions));
    }
  });
  out += '}';
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * share);
  return buf;
}

}  // namespace

std::string TestsetItemJson(const TestsetItem& item) {
  std::string out = "{";
  Text(out, "id", item.id);
  Text(out, "user_input", item.user_input);
  if (item.answerable != "unknown") {
    Text(out, "reference", item.reference);
    Texts(out, "reference_contexts", item.reference_contexts);
    Texts(out, "reference_context_ids", item.reference_context_ids);
  }
  Key(out, "metadata");
  out += '{';
  Text(out, "source", item.source);
  Texts(out, "log_ids", item.log_ids);
  if (!item.earlier_turns.empty()) Texts(out, "earlier_turns", item.earlier_turns);
  if (!item.phrasings.empty()) {
    Objects(out, "phrasings", item.phrasings, [&](const TestsetPhrasing& p) {
      Text(out, "text", p.text);
      Number(out, "asked", static_cast<double>(p.asked));
      Texts(out, "log_ids", p.log_ids);
    });
    Number(out, "more_phrasings", static_cast<double>(item.more_phrasings));
  }
  Number(out, "cluster", static_cast<double>(item.cluster));
  Number(out, "failed", static_cast<double>(item.failed));
  Text(out, "doc", item.doc);
  Objects(out, "quotes", item.quotes, [&](const TestsetQuote& q) {
    Text(out, "context_id", q.context_id);
    Text(out, "text", q.text);
    if (q.start >= 0) {
      Text(out, "document", q.document);
      Number(out, "start", static_cast<double>(q.start));
      Number(out, "end", static_cast<double>(q.end));
    }
  });
  Text(out, "answerable", item.answerable);
  Number(out, "coverage", std::round(item.coverage * 1000) / 1000);
  Text(out, "style", item.style);
  Key(out, "persona");
  if (item.persona.empty()) {
    out += "null";
  } else {
    io::AppendJsonString(out, item.persona);
  }
  Number(out, "hops", static_cast<double>(item.hops));
  Number(out, "difficulty", static_cast<double>(item.difficulty));
  Key(out, "checks");
  out += '{';
  Key(out, "grounded");
  if (item.grounded) {
    io::AppendJsonNumber(out, std::round(*item.grounded * 1000) / 1000);
  } else {
    out += "null";
  }
  Number(out, "retrieval_rank", static_cast<double>(item.difficulty));
  Key(out, "self_contained");
  out += item.self_contained ? "true" : "false";
  if (!item.self_contained) Text(out, "why", item.not_self_contained);
  out += '}';
  if (!item.flag.empty()) Text(out, "flag", item.flag);
  Number(out, "seed", static_cast<double>(item.seed));
  Text(out, "prompt_version", item.prompt_version);
  out += "}}";
  return out;
}

std::string GapReportJson(const GapReport& r) {
  std::string out = "{";
  Text(out, "against", r.against);
  Number(out, "questions", static_cast<double>(r.questions));
  Number(out, "intents", static_cast<double>(r.intents));
  Key(out, "by_meaning");
  out += r.by_meaning ? "true" : "false";
  GapsObject(out, r.gaps, r.gap_questions, r.questions);
  out += '}';
  return out;
}

std::string TestsetReportJson(const TestsetReport& r) {
  std::string out = "{";
  Number(out, "questions", static_cast<double>(r.questions));
  Number(out, "questions_skipped", static_cast<double>(r.questions_skipped));
  Number(out, "phrasings", static_cast<double>(r.phrasings));
  Number(out, "intents", static_cast<double>(r.intents));
  if (r.intents_joined_by_meaning) {
    Number(out, "intents_joined_by_meaning", static_cast<double>(*r.intents_joined_by_meaning));
  } else {
    Key(out, "intents_joined_by_meaning");
    out += "null";
  }
  Number(out, "failed_questions", static_cast<double>(r.failed_questions));
  Number(out, "failed_intents", static_cast<double>(r.failed_intents));
  Number(out, "items", static_cast<double>(r.items));
  Number(out, "items_from_failures", static_cast<double>(r.items_from_failures));
  Number(out, "log_items", static_cast<double>(r.log_items));
  Number(out, "synthetic_items", static_cast<double>(r.synthetic_items));
  Key(out, "answerable");
  out += '{';
  Number(out, "yes", static_cast<double>(r.answerable_yes));
  Number(out, "partly", static_cast<double>(r.answerable_partly));
  Number(out, "no", static_cast<double>(r.answerable_no));
  Number(out, "unknown", static_cast<double>(r.answerable_unknown));
  out += '}';
  GapsObject(out, r.gaps, r.gap_questions, r.questions);
  Key(out, "coverage");
  out += '{';
  if (r.questions > 0) {
    Number(out, "traffic", r.traffic_covered);
    Number(out, "intents", r.intents_covered);
  } else {
    Null(out, "traffic");
    Null(out, "intents");
  }
  Number(out, "always_in", static_cast<double>(r.intents_always));
  Number(out, "always_share", r.always_share);
  Number(out, "documents", r.documents_covered);
  Texts(out, "uncovered_documents", r.uncovered_documents);
  out += '}';
  Key(out, "documents");
  out += '{';
  Number(out, "files", static_cast<double>(r.documents));
  Number(out, "chunks", static_cast<double>(r.chunks));
  Number(out, "dropped_empty", static_cast<double>(r.chunks_dropped_empty));
  Number(out, "dropped_duplicate", static_cast<double>(r.chunks_dropped_duplicate));
  out += '}';
  Key(out, "heldout");
  out += '{';
  Number(out, "questions", static_cast<double>(r.heldout_questions));
  Number(out, "intents_removed", static_cast<double>(r.heldout_removed));
  out += '}';
  Key(out, "diversity");
  out += '{';
  Number(out, "mean_nearest_distance", r.diversity_mean);
  Number(out, "min_nearest_distance", r.diversity_min);
  out += '}';
  Key(out, "difficulty");
  out += '[';
  for (size_t i = 0; i < r.difficulty.size(); ++i) {
    if (i) out += ',';
    io::AppendJsonNumber(out, static_cast<double>(r.difficulty[i]));
  }
  out += ']';
  for (const auto& [key, styles] :
       {std::pair<const char*, const std::map<std::string, int64_t>*>{"log_styles", &r.log_styles},
        {"item_styles", &r.item_styles}}) {
    Key(out, key);
    out += '{';
    for (const auto& [style, n] : *styles) Number(out, style.c_str(), static_cast<double>(n));
    out += '}';
  }
  Key(out, "item_personas");
  out += '{';
  for (const auto& [persona, n] : r.item_personas) {
    Number(out, persona.c_str(), static_cast<double>(n));
  }
  out += '}';
  Key(out, "item_hops");
  out += '{';
  for (const auto& [hops, n] : r.item_hops) {
    Number(out, std::to_string(hops).c_str(), static_cast<double>(n));
  }
  out += '}';
  Number(out, "stability", r.stability);
  Key(out, "synthetic");
  out += '{';
  Number(out, "planned", static_cast<double>(r.synthetic_planned));
  Number(out, "kept", static_cast<double>(r.synthetic_items));
  Number(out, "dropped", static_cast<double>(r.synthetic_dropped));
  Number(out, "duplicates", static_cast<double>(r.synthetic_duplicates));
  Number(out, "multi_hop", static_cast<double>(r.multi_hop_items));
  Texts(out, "dropped_reasons", r.dropped_reasons);
  out += '}';
  Number(out, "flagged_items", static_cast<double>(r.flagged_items));
  Key(out, "judge_calls");
  if (!r.llm.used) {
    out += "null";
  } else {
    const TestsetCalls& c = r.llm;
    out += '{';
    Text(out, "judge", c.judge);
    Key(out, "estimated");
    out += c.estimated ? "true" : "false";
    Number(out, "calls", static_cast<double>(c.calls));
    Number(out, "cache_hits", static_cast<double>(c.cache_hits));
    Number(out, "requests", static_cast<double>(c.requests));
    Number(out, "repairs", static_cast<double>(c.repairs));
    Number(out, "retries", static_cast<double>(c.retries));
    Number(out, "failed", static_cast<double>(c.failed));
    Number(out, "prompt_tokens", static_cast<double>(c.prompt_tokens));
    Number(out, "completion_tokens", static_cast<double>(c.completion_tokens));
    Key(out, "cost_usd");
    if (c.cost_usd) {
      io::AppendJsonNumber(out, *c.cost_usd);
    } else {
      out += "null";
    }
    Number(out, "per_kept_item", c.per_kept_item);
    Key(out, "by_prompt");
    out += '{';
    for (const auto& [name, n] : c.by_prompt) Number(out, name.c_str(), static_cast<double>(n));
    out += '}';
    out += '}';
  }
  Key(out, "realism");
  out += '{';
  Key(out, "heldout_auroc");
  if (r.realism) {
    io::AppendJsonNumber(out, *r.realism);
  } else {
    out += "null";
  }
  out += '}';
  Texts(out, "notes", r.notes);
  out += '}';
  return out;
}

std::string TestsetReportText(const TestsetReport& r) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  if (r.llm.estimated) {
    // --dry-run: what the run would make and what it would cost, nothing else.
    const TestsetCalls& c = r.llm;
    line("questions: " + std::to_string(r.questions) + " logged, " + std::to_string(r.intents) +
         " intents; documents: " + std::to_string(r.documents) + " (" + std::to_string(r.chunks) +
         " chunks)");
    line("the run would draft " + std::to_string(r.log_items) +
         " references for logged questions and write " + std::to_string(r.synthetic_planned) +
         " questions (" + std::to_string(r.multi_hop_items) + " multi-hop) with " + c.judge);
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "estimated: %lld calls to %s (%lld more answered by the cache), about %lld "
                  "prompt and %lld completion tokens",
                  static_cast<long long>(c.calls), c.judge.c_str(),
                  static_cast<long long>(c.cache_hits), static_cast<long long>(c.prompt_tokens),
                  static_cast<long long>(c.completion_tokens));
    std::string text = buf;
    if (c.cost_usd) {
      std::snprintf(buf, sizeof buf, ", $%.4f", *c.cost_usd);
      text += buf;
    } else {
      text += " (no price known for the model: give --price-input and --price-output)";
    }
    line(text);
    for (const std::string& note : r.notes) line("note: " + note);
    return out;
  }
  // First, what the documents lack: the questions they cannot answer, by their share of traffic.
  if (!r.gaps.empty() && r.questions > 0) {
    line("what your documents lack: " + std::to_string(r.gaps.size()) + " intents, " +
         Percent(static_cast<double>(r.gap_questions) / static_cast<double>(r.questions)) +
         " of the logged questions, that no document answers:");
    for (size_t i = 0; i < r.gaps.size() && i < 10; ++i) {
      line("  " +
           Percent(static_cast<double>(r.gaps[i].questions) / static_cast<double>(r.questions)) +
           " ask \"" + r.gaps[i].question + "\" (" + std::to_string(r.gaps[i].questions) +
           (r.gaps[i].questions == 1 ? " question)" : " questions)"));
    }
    if (r.gaps.size() > 10) line("  and " + std::to_string(r.gaps.size() - 10) + " more");
  }
  line("questions: " + std::to_string(r.questions) + " logged (" +
       std::to_string(r.questions_skipped) + " rows without one), " + std::to_string(r.phrasings) +
       " distinct phrasings, " + std::to_string(r.intents) + " intents" +
       (r.intents_joined_by_meaning
            ? " (" + std::to_string(*r.intents_joined_by_meaning) + " joined by meaning)"
            : std::string()));
  line("items: " + std::to_string(r.items) + " (" + std::to_string(r.log_items) +
       " real questions, verbatim; " + std::to_string(r.synthetic_items) + " written)");
  if (r.failed_questions > 0) {
    line("failures: " + std::to_string(r.failed_questions) + " logged rows failed, in " +
         std::to_string(r.failed_intents) + " intents; " + std::to_string(r.items_from_failures) +
         " items come from them");
  }
  // Without a log there is no traffic to cover: n/a, not 0%.
  const bool logged = r.questions > 0;
  line("coverage: " + (logged ? Percent(r.intents_covered) : std::string("n/a")) + " of intents, " +
       (logged ? Percent(r.traffic_covered) : std::string("n/a")) + " of the logged traffic; " +
       Percent(r.documents_covered) + " of " + std::to_string(r.documents) + " documents");
  if (r.intents_always > 0) {
    line("top needs: " + std::to_string(r.intents_always) + " intents with " +
         Percent(r.always_share) + " of the traffic or more each, all picked (--always-share)");
  }
  line("answerable: " + std::to_string(r.answerable_yes) + " yes, " +
       std::to_string(r.answerable_partly) + " partly, " + std::to_string(r.answerable_no) +
       " no (should refuse), " + std::to_string(r.answerable_unknown) + " unknown");
  if (r.documents > 0) {
    line("documents: " + std::to_string(r.chunks) + " chunks (" +
         std::to_string(r.chunks_dropped_empty) + " near-empty and " +
         std::to_string(r.chunks_dropped_duplicate) + " near-duplicate chunks dropped)");
  }
  if (r.heldout_questions > 0) {
    line("held out: " + std::to_string(r.heldout_removed) + " intents left out, asked among " +
         std::to_string(r.heldout_questions) + " held-out questions");
  }
  auto shapes = [](const std::map<std::string, int64_t>& styles) {
    int64_t total = 0;
    for (const auto& [style, n] : styles) total += n;
    std::string text;
    for (const auto& [style, n] : styles) {
      text += (text.empty() ? "" : ", ") + Percent(total ? static_cast<double>(n) / total : 0) +
              " " + style;
    }
    return text;
  };
  if (!r.log_styles.empty() && !r.item_styles.empty()) {
    line("shapes: the log " + shapes(r.log_styles) + "; the items " + shapes(r.item_styles));
  }
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "diversity: nearest other item at distance %.2f on average, %.2f at least; "
                "stability: %.0f%% of the intents picked again with the next seed",
                r.diversity_mean, r.diversity_min, 100 * r.stability);
  line(buf);
  if (r.realism) {
    std::snprintf(buf, sizeof buf,
                  "realism: a classifier tells the items from the held-out questions by style "
                  "with AUROC %.2f (0.5: indistinguishable)",
                  *r.realism);
    line(buf);
  }
  if (r.synthetic_planned > 0) {
    line("written: " + std::to_string(r.synthetic_items) + " of " +
         std::to_string(r.synthetic_planned) + " synthetic questions kept (" +
         std::to_string(r.multi_hop_items) + " multi-hop; " + std::to_string(r.synthetic_dropped) +
         " dropped, their quotes not found; " + std::to_string(r.synthetic_duplicates) +
         " near-duplicates left out)");
    for (const std::string& why : r.dropped_reasons) line("  dropped: " + why);
    std::string personas;
    for (const auto& [persona, n] : r.item_personas) {
      personas += (personas.empty() ? "" : ", ") + std::to_string(n) + " " + persona;
    }
    if (!personas.empty()) line("  written as: " + personas);
  }
  if (!r.item_hops.empty()) {
    std::string hops;
    for (const auto& [h, n] : r.item_hops) {
      hops += (hops.empty() ? "" : ", ") + std::to_string(n) + " with " + std::to_string(h) +
              (h == 1 ? " context" : " contexts");
    }
    line("hops: " + hops);
  }
  if (r.llm.used) {
    const TestsetCalls& c = r.llm;
    std::snprintf(buf, sizeof buf, "%s%lld calls to %s",
                  c.estimated ? "estimated: " : "judge: ", static_cast<long long>(c.calls),
                  c.judge.c_str());
    std::string text = buf;
    text += " (" + std::to_string(c.cache_hits) + " more answered by the cache, " +
            std::to_string(c.repairs) + " redrafts, " + std::to_string(c.retries) + " retries, " +
            std::to_string(c.failed) + " failed), " +
            std::to_string(c.prompt_tokens + c.completion_tokens) + " tokens";
    if (c.cost_usd) {
      std::snprintf(buf, sizeof buf, ", $%.4f", *c.cost_usd);
      text += buf;
    }
    if (!c.estimated && r.items > 0) {
      std::snprintf(buf, sizeof buf, "; %.2f calls per item kept", c.per_kept_item);
      text += buf;
    }
    line(text);
  }
  if (!r.uncovered_documents.empty()) {
    std::string list;
    for (size_t i = 0; i < r.uncovered_documents.size() && i < 10; ++i) {
      list += (i ? ", " : "") + r.uncovered_documents[i];
    }
    if (r.uncovered_documents.size() > 10) {
      list += " and " + std::to_string(r.uncovered_documents.size() - 10) + " more";
    }
    line("uncovered documents: " + list);
  }
  for (const std::string& note : r.notes) line("note: " + note);
  return out;
}

Result<AcceptedTestset> AcceptTestset(const std::string& candidates_path,
                                      const std::string& labels_path) {
  simdjson::dom::parser parser;
  auto read_lines = [](const std::string& path) -> Result<std::vector<std::string>> {
    std::ifstream in(path, std::ios::binary);
    if (!in) return NotFound("cannot read " + path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
  };
  TALA_ASSIGN_OR_RETURN(std::vector<std::string> labels, read_lines(labels_path));
  struct Label {
    std::string decision;
    std::optional<std::string> user_input, reference;
    std::vector<std::string> moved_out;  // phrasings the reviewer took out of the intent
  };
  std::map<std::string, Label> by_id;
  std::map<std::string, int64_t> decided_on;  // id -> the line that decided it
  for (size_t i = 0; i < labels.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i + 1);
    if (labels[i].find_first_not_of(" \t\r") == std::string::npos) continue;
    simdjson::dom::element e;
    if (parser.parse(labels[i]).get(e) || !e.is_object()) {
      return DataError({labels_path, n, 0, ""}, "not a JSON object");
    }
    std::string_view id, decision, text;
    if (!e["tala_labels"].error()) continue;  // the review page's header line
    if (e["id"].get_string().get(id)) {
      return DataError({labels_path, n, 0, "id"}, "missing or not a string");
    }
    if (e["decision"].get_string().get(decision) ||
        (decision != "accept" && decision != "edit" && decision != "unanswerable" &&
         decision != "reject" && decision != "needs-expert")) {
      return DataError({labels_path, n, 0, "decision"},
                       "expected accept, edit, unanswerable, reject or needs-expert");
    }
    Label label{std::string(decision), std::nullopt, std::nullopt, {}};
    if (!e["user_input"].get_string().get(text)) label.user_input = std::string(text);
    if (simdjson::dom::element moved; !e["moved_out"].get(moved)) {
      simdjson::dom::array list;
      if (moved.get_array().get(list)) {
        return DataError({labels_path, n, 0, "moved_out"},
                         "expected a list of phrasings (texts) taken out of the intent");
      }
      for (simdjson::dom::element m : list) {
        if (m.get_string().get(text)) {
          return DataError({labels_path, n, 0, "moved_out"}, "each phrasing is a text");
        }
        label.moved_out.emplace_back(text);
      }
    }
    if (!e["reference"].get_string().get(text)) label.reference = std::string(text);
    if (decision == "edit" && !label.user_input && !label.reference) {
      return DataError({labels_path, n, 0, "reference"},
                       "an edit gives the new user_input or reference");
    }
    // Two decisions for one item: which one a person meant is not tala's to guess (R10: the
    // last won silently).
    if (auto [at, first] = decided_on.emplace(std::string(id), n); !first) {
      return DataError({labels_path, n, 0, "id"},
                       "\"" + std::string(id) + "\" was decided on line " +
                           std::to_string(at->second) + " already; keep one decision per item");
    }
    by_id[std::string(id)] = std::move(label);
  }
  TALA_ASSIGN_OR_RETURN(std::vector<std::string> candidates, read_lines(candidates_path));
  AcceptedTestset out;
  std::map<std::string, bool> known;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i + 1);
    if (candidates[i].find_first_not_of(" \t\r") == std::string::npos) continue;
    simdjson::dom::element e;
    std::string_view id;
    if (parser.parse(candidates[i]).get(e) || e["id"].get_string().get(id)) {
      return DataError({candidates_path, n, 0, "id"}, "not a candidate line (no id)");
    }
    known[std::string(id)] = true;
    auto it = by_id.find(std::string(id));
    if (it == by_id.end()) {
      ++out.unlabelled;
      continue;
    }
    const Label& label = it->second;
    if (label.decision == "reject") {
      ++out.rejected;
      continue;
    }
    if (label.decision == "needs-expert") {
      ++out.needs_expert;
      continue;
    }
    // The candidate's fields, the edits applied, and the decision kept in metadata.
    std::string row = "{";
    simdjson::dom::object fields;
    if (e.get_object().get(fields)) {
      return DataError({candidates_path, n, 0, ""}, "not a JSON object");
    }
    // A conversation item: its golden row asks the session's earlier questions first, then its
    // own (edited or not), as messages tala run plays turn by turn.
    simdjson::dom::array earlier;
    const bool conversation =
        !e["metadata"]["earlier_turns"].get_array().get(earlier) && earlier.size() > 0;
    for (auto [key, value] : fields) {
      if (key == "metadata") continue;
      if (key == "user_input" && conversation) {
        std::string_view own;
        if (!label.user_input && value.get_string().get(own)) own = {};
        Key(row, "user_input");
        row += '[';
        for (simdjson::dom::element turn : earlier) {
          std::string_view text;
          if (turn.get_string().get(text)) continue;
          row += "{\"type\":\"human\",\"content\":";
          io::AppendJsonString(row, text);
          row += "},";
        }
        row += "{\"type\":\"human\",\"content\":";
        io::AppendJsonString(row, label.user_input ? std::string_view(*label.user_input) : own);
        row += "}]";
      } else if (key == "user_input" && label.user_input) {
        Text(row, "user_input", *label.user_input);
      } else if (key == "reference" && (label.reference || label.decision == "unanswerable")) {
        if (label.reference) Text(row, "reference", *label.reference);
      } else if ((key == "reference_contexts" || key == "reference_context_ids") &&
                 label.decision == "unanswerable") {
        continue;
      } else {
        Key(row, std::string(key).c_str());
        row += simdjson::minify(value);
      }
    }
    if (label.reference && e["reference"].error()) Text(row, "reference", *label.reference);
    Key(row, "metadata");
    simdjson::dom::object meta;
    std::string metadata = "{";
    // Phrasings the reviewer moved out of the intent: they leave its phrasings and its log
    // ids, and are kept aside under moved_out, so the item stands for the traffic it asks.
    std::set<std::string> moved_ids;
    std::string moved_json;
    if (!label.moved_out.empty()) {
      const int64_t line = decided_on.at(std::string(id));  // the label's line
      std::string_view asked;
      if (label.user_input) {
        asked = *label.user_input;
      } else if (e["user_input"].get_string().get(asked)) {
        asked = {};
      }
      simdjson::dom::array listed;
      if (e["metadata"]["phrasings"].get_array().get(listed)) {
        return DataError({labels_path, line, 0, "moved_out"},
                         "item \"" + std::string(id) + "\" lists no phrasings to move out");
      }
      for (const std::string& text : label.moved_out) {
        if (text == asked) {
          return DataError({labels_path, line, 0, "moved_out"},
                           "moves out the item's own question \"" + text +
                               "\"; edit the question or reject the item instead");
        }
        bool found = false;
        for (simdjson::dom::element p : listed) {
          std::string_view p_text;
          if (p["text"].get_string().get(p_text) || p_text != text) continue;
          found = true;
          moved_json += moved_json.empty() ? "" : ",";
          moved_json += simdjson::minify(p);
          simdjson::dom::array ids;
          if (!p["log_ids"].get_array().get(ids)) {
            for (simdjson::dom::element id : ids) {
              std::string_view s;
              if (!id.get_string().get(s)) moved_ids.emplace(s);
            }
          }
        }
        if (!found) {
          return DataError({labels_path, line, 0, "moved_out"},
                           "\"" + text + "\" is not among the phrasings listed for item \"" +
                               std::string(id) + "\"");
        }
      }
    }
    if (!e["metadata"].get_object().get(meta)) {
      for (auto [key, value] : meta) {
        if (key == "review" || (key == "answerable" && label.decision == "unanswerable")) continue;
        if (!label.moved_out.empty() && (key == "phrasings" || key == "log_ids")) {
          Key(metadata, std::string(key).c_str());
          metadata += '[';
          bool first = true;
          simdjson::dom::array values;
          if (value.get_array().get(values)) {
            return DataError({candidates_path, n, 0, "metadata." + std::string(key)},
                             "expected a list");
          }
          for (simdjson::dom::element v : values) {
            std::string_view s;
            const bool out_id =
                key == "log_ids" && !v.get_string().get(s) && moved_ids.count(std::string(s));
            const bool out_phrasing = key == "phrasings" && !v["text"].get_string().get(s) &&
                                      std::find(label.moved_out.begin(), label.moved_out.end(),
                                                s) != label.moved_out.end();
            if (out_id || out_phrasing) continue;
            metadata += first ? "" : ",";
            metadata += simdjson::minify(v);
            first = false;
          }
          metadata += ']';
          continue;
        }
        Key(metadata, std::string(key).c_str());
        metadata += simdjson::minify(value);
      }
    }
    if (!moved_json.empty()) {
      Key(metadata, "moved_out");
      metadata += "[" + moved_json + "]";
    }
    if (label.decision == "unanswerable") Text(metadata, "answerable", "no");
    Text(metadata, "review", label.decision);
    row += metadata + "}}";
    out.golden_jsonl += row + "\n";
    (label.decision == "accept" ? out.accepted
     : label.decision == "edit" ? out.edited
                                : out.unanswerable) += 1;
  }
  for (const auto& [id, label] : by_id) {
    if (!known.count(id)) {
      // The labels file's line that names it (issue 53 item 7).
      return DataError({labels_path, decided_on.count(id) ? decided_on.at(id) : 0, 0, "id"},
                       "\"" + id + "\" is not among the candidates in " + candidates_path);
    }
  }
  return out;
}

}  // namespace tala
