// TestsetReportHtml: the report of tala testset --report, one self-contained page (no script,
// nothing fetched; every text escaped).

#include <cstdio>
#include <string>

#include "io/reports/markup_escape.h"
#include "tala/testset.h"

namespace tala {

namespace {

constexpr const char* kStyle = R"CSS(
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2433;background:#f7f8fa}
header{background:#1d2433;color:#fff;padding:16px 28px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;opacity:.75;font-size:13px}main{padding:18px 28px;max-width:1300px}
h2{font-size:16px;margin:22px 0 10px}.cards{display:flex;flex-wrap:wrap;gap:12px}
.card{background:#fff;border:1px solid #e4e7ec;border-radius:10px;padding:10px 14px;min-width:170px}
.card b{display:block;font-size:22px}.card span{color:#667085;font-size:12px}
.bar{display:flex;align-items:center;gap:8px;margin:3px 0}.bar i{display:inline-block;height:12px;background:#3a5bd9;border-radius:2px}
.bar em{font-style:normal;width:110px;color:#667085}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e4e7ec}
th,td{padding:6px 9px;border-bottom:1px solid #e4e7ec;text-align:left;vertical-align:top}
td.ref{color:#475467;max-width:520px}.yes{color:#12805c}.no{color:#c4320a}.partly{color:#b54708}
.note{background:#fffaeb;border:1px solid #fedf89;border-radius:8px;padding:8px 12px;margin:6px 0}
)CSS";

std::string Card(const std::string& value, const std::string& label) {
  return "<div class=card><b>" + io::EscapeMarkup(value) + "</b><span>" + io::EscapeMarkup(label) +
         "</span></div>";
}

std::string Share(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * v);
  return buf;
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A conversation item's earlier questions, before its own: "after "A", "B": ".
std::string EarlierTurns(const TestsetItem& item) {
  if (item.earlier_turns.empty()) return "";
  std::string out = "<em>after</em> ";
  for (size_t t = 0; t < item.earlier_turns.size(); ++t) {
    out += (t ? ", &ldquo;" : "&ldquo;") + io::EscapeMarkup(item.earlier_turns[t]) + "&rdquo;";
  }
  return out + ": ";
}

}  // namespace

std::string TestsetReportHtml(const Testset& set) {
  const TestsetReport& r = set.report;
  std::string page =
      "<!doctype html><html lang=en><head><meta charset=utf-8>"
      "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
      "<title>tala testset</title><style>";
  page += kStyle;
  page += "</style></head><body><header><h1>tala testset: " + std::to_string(r.items) +
          " candidates</h1><p>from " + std::to_string(r.questions) + " logged questions in " +
          std::to_string(r.intents) + " intents" +
          (r.intents_joined_by_meaning
               ? " (" + std::to_string(*r.intents_joined_by_meaning) + " joined by meaning)"
               : std::string()) +
          " and " + std::to_string(r.documents) + " documents</p></header><main>";
  for (const std::string& note : r.notes) {
    page += "<div class=note>" + io::EscapeMarkup(note) + "</div>";
  }
  // First, what the documents lack (issue 53 item 6).
  if (!r.gaps.empty() && r.questions > 0) {
    const double total = static_cast<double>(r.questions);
    page += "<h2>What your documents lack</h2><p>" + std::to_string(r.gaps.size()) + " intents, " +
            Share(static_cast<double>(r.gap_questions) / total) +
            " of the logged questions, that no document answers:</p><table><tr><th>share of "
            "questions</th><th>questions</th><th>typical question</th></tr>";
    for (size_t i = 0; i < r.gaps.size() && i < 50; ++i) {
      page += "<tr><td>" + Share(static_cast<double>(r.gaps[i].questions) / total) + "</td><td>" +
              std::to_string(r.gaps[i].questions) + "</td><td>" +
              io::EscapeMarkup(r.gaps[i].question) + "</td></tr>";
    }
    page += "</table>";
    if (r.gaps.size() > 50) {
      page += "<p>and " + std::to_string(r.gaps.size() - 50) + " more</p>";
    }
  }
  page += "<h2>Coverage</h2><div class=cards>" +
          Card(r.questions > 0 ? Share(r.intents_covered) : std::string("n/a"),
               "of the intents picked") +
          Card(r.questions > 0 ? Share(r.traffic_covered) : std::string("n/a"),
               "of the logged traffic their intents carry") +
          Card(Share(r.documents_covered), "of the documents quoted") +
          Card(std::to_string(r.items_from_failures), "items from intents that failed (" +
                                                          std::to_string(r.failed_intents) +
                                                          " such intents)") +
          "</div>";
  page += "<h2>Answerability</h2><div class=cards>" +
          Card(std::to_string(r.answerable_yes), "answerable") +
          Card(std::to_string(r.answerable_partly), "partly: check the reference is whole") +
          Card(std::to_string(r.answerable_no), "not answerable: should refuse") +
          Card(std::to_string(r.answerable_unknown), "unknown: no documents") + "</div>";
  page += "<h2>Diversity, stability, realism</h2><div class=cards>" +
          Card(Fixed(r.diversity_mean), "mean distance to the nearest other item") +
          Card(Fixed(r.diversity_min), "least distance to the nearest other item") +
          Card(Share(r.stability), "of the intents picked again with the next seed") +
          Card(r.realism ? Fixed(*r.realism) : "n/a",
               "AUROC telling the items from --heldout human questions (0.5: alike)") +
          "</div>";
  if (r.synthetic_planned > 0 || r.llm.used) {
    const TestsetCalls& c = r.llm;
    page += "<h2>Written by " + io::EscapeMarkup(c.judge) + "</h2><div class=cards>" +
            Card(std::to_string(r.synthetic_items) + " / " + std::to_string(r.synthetic_planned),
                 "synthetic questions kept, for documents no logged question touches") +
            Card(std::to_string(r.multi_hop_items), "multi-hop items, quoting two passages") +
            Card(std::to_string(r.synthetic_dropped),
                 "dropped: quotes not found in their passages after a rewrite") +
            Card(std::to_string(r.flagged_items), "items flagged for the reviewer") +
            Card(std::to_string(c.calls + c.cache_hits) + (c.estimated ? " (estimated)" : ""),
                 "judge calls (" + std::to_string(c.cache_hits) + " from the cache, " +
                     std::to_string(c.repairs) + " redrafts)") +
            Card(Fixed(c.per_kept_item), "calls per item kept") + "</div>";
  }
  page +=
      "<h2>Difficulty: the rank of each item's first context when its question searches the "
      "chunks</h2>";
  int64_t most = 1;
  for (int64_t n : r.difficulty) most = std::max(most, n);
  for (size_t rank = 0; rank < r.difficulty.size(); ++rank) {
    const std::string label = rank == 0 ? "not in top 10" : "rank " + std::to_string(rank);
    page += "<div class=bar><em>" + label +
            "</em><i style=\"width:" + std::to_string(300 * r.difficulty[rank] / most) +
            "px\"></i>" + std::to_string(r.difficulty[rank]) + "</div>";
  }
  if (!r.uncovered_documents.empty()) {
    page += "<h2>Documents no item quotes (" + std::to_string(r.uncovered_documents.size()) +
            ")</h2><ul>";
    for (const std::string& d : r.uncovered_documents) page += "<li>" + io::EscapeMarkup(d);
    page += "</ul>";
  }
  page +=
      "<h2>Candidates</h2><table id=items><thead><tr><th>#</th><th>question (as logged, or "
      "written)</th>"
      "<th>answerable</th><th>style</th><th>asked</th><th>failed</th><th>rank</th>"
      "<th>reference</th></tr></thead><tbody>";
  for (size_t i = 0; i < set.items.size(); ++i) {
    const TestsetItem& item = set.items[i];
    std::string reference = item.reference;
    if (reference.size() > 240) reference = reference.substr(0, 240) + "...";
    page += "<tr><td>" + std::to_string(i + 1) + "</td><td>" +
            (item.source == "synthetic" ? "<em>written:</em> " : "") + EarlierTurns(item) +
            io::EscapeMarkup(item.user_input) + "</td><td class=\"" +
            io::EscapeMarkup(item.answerable) + "\">" + io::EscapeMarkup(item.answerable) +
            "</td><td>" + io::EscapeMarkup(item.style) + "</td><td>" +
            std::to_string(item.log_ids.size()) + "</td><td>" + std::to_string(item.failed) +
            "</td><td>" + std::to_string(item.difficulty) + "</td><td class=ref>" +
            io::EscapeMarkup(reference) + "</td></tr>";
  }
  page += "</tbody></table></main></body></html>\n";
  return page;
}

}  // namespace tala
