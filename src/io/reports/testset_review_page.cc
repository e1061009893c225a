// The review page of a golden set's candidates (tala review --testset): the review page's look
// and its way of saving (kept in the browser, exported, or saved to the server that served it),
// with the testset's decisions. Each item shows the question with its provenance and checks, the
// draft reference (editable), and the quotes marked in their chunks. Self-contained: the items
// travel as JSON inside the page, every text is rendered with textContent only.

#include <string>

#include "io/reports/markup_escape.h"
#include "io/reports/review_saving.h"
#include "io/writers/json_text.h"
#include "tala/review_page.h"

namespace tala {

namespace {

constexpr const char* kHead = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tala review: golden set candidates</title>
<style>
@COMMON_STYLE@.tag{display:inline-block;font-size:12px;padding:0 6px;border-radius:8px;margin:0 6px 4px 0;background:#e8eaf0}
.yes{background:#d4f4dd}.no{background:#fbd9d3}.partly{background:#fdf0c4}
.chunk{padding:6px 8px;border-left:4px solid #38a169;margin:6px 0;white-space:pre-wrap}
mark{background:#fde68a}
#phrasings li{cursor:pointer}.moved{text-decoration:line-through;color:#888}
#decision{font-weight:600}
textarea,input.q{width:100%;font:inherit}textarea{min-height:3em}
</style></head><body>
<header><b>tala review</b><span id="where"></span><span id="progress"></span>
<label>labeller <input id="labeller" placeholder="your name"></label>
<button id="export">export labels.jsonl (w)</button></header>
<main>
<div class="card"><h2>question, as logged</h2><input class="q" id="question"><div id="facts"></div>
<h2>the intent is asked as</h2><ul id="phrasings"></ul></div>
<div class="card"><h2>reference, drafted <span id="answerable"></span></h2><textarea id="reference"></textarea></div>
<div class="card"><h2>quotes in their chunks</h2><div id="chunks"></div></div>
<div class="card"><h2>decision</h2><div id="decision"></div><h2>reason (for a rejection)</h2><textarea id="reason"></textarea></div>
<p id="help"><kbd>a</kbd> accept &nbsp; <kbd>e</kbd> edit (the question or the reference; <kbd>Esc</kbd> to leave) &nbsp;
<kbd>u</kbd> unanswerable (should refuse) &nbsp; <kbd>r</kbd> reject, with a reason &nbsp; <kbd>n</kbd> needs an expert &nbsp;
<kbd>1</kbd>&hellip;<kbd>9</kbd>, <kbd>0</kbd> move that phrasing out of the intent, or back (or click it) &nbsp;
<kbd>x</kbd> clear &nbsp; <kbd>j</kbd>/<kbd>&rarr;</kbd> next, <kbd>k</kbd>/<kbd>&larr;</kbd> previous &nbsp; <kbd>w</kbd> export.
Then: tala testset accept CANDIDATES --labels labels.jsonl -o golden.jsonl. Work is kept in this browser until exported.</p>
<pre id="selftest-export"></pre><p id="selftest"></p>
</main>
)HTML";

constexpr const char* kScript = R"JS(<script>
"use strict";
const Q = JSON.parse(document.getElementById("queue").textContent);
const META = JSON.parse(document.getElementById("meta").textContent);
const KEY = "tala-review-testset|" + META.candidates;
let state = {}, cur = 0;
try { state = JSON.parse(localStorage.getItem(KEY) || "{}"); } catch (e) { state = {}; }
let save = function () { try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) {} };
function entry() { const k = Q[cur].id; return state[k] || (state[k] = {}); }
function decided() { return Object.values(state).filter((s) => s.decision).length; }
function progressText() { return decided() + " decided"; }
// A chunk's text with each quote marked, built node by node.
function marked(text, quotes) {
  const box = el("div", "chunk");
  let at = 0;
  const spans = [];
  quotes.forEach((q) => { const i = text.indexOf(q); if (i >= 0) spans.push([i, i + q.length]); });
  spans.sort((a, b) => a[0] - b[0]);
  spans.forEach(([b, e]) => { if (b < at) return; box.append(document.createTextNode(text.slice(at, b))); box.append(el("mark", "", text.slice(b, e))); at = e; });
  box.append(document.createTextNode(text.slice(at)));
  return box;
}
function render() {
  const item = Q[cur], s = entry(), m = item.metadata || {};
  $("where").textContent = "item " + (cur + 1) + " of " + Q.length + " · id " + item.id;
  $("progress").textContent = decided() + " decided";
  $("question").value = s.user_input !== undefined ? s.user_input : item.user_input;
  const facts = $("facts"); facts.replaceChildren();
  facts.append(el("span", "tag", "source: " + (m.source || "?")));
  if (m.log_ids) facts.append(el("span", "tag", "asked " + m.log_ids.length + " times (intent " + m.cluster + ")"));
  if (m.style) facts.append(el("span", "tag", "style: " + m.style));
  if (m.earlier_turns && m.earlier_turns.length) facts.append(el("span", "tag", "asked after: " + m.earlier_turns.map((t) => "\u201c" + t + "\u201d").join(", then ")));
  // What the intent holds: its phrasings as asked, the most asked first; a phrasing that asks
  // something else can be moved out (accept then leaves its log rows out of the item).
  const asked = $("phrasings"); asked.replaceChildren();
  const moved = s.moved_out || [];
  (m.phrasings || []).forEach((p, k) => {
    const out = moved.includes(p.text);
    const li = el("li", out ? "moved" : "", (k < 10 ? "[" + ((k + 1) % 10) + "] " : "") + "\u201c" + p.text + "\u201d \u00d7" + p.asked + (out ? " (moved out of this intent)" : ""));
    li.addEventListener("click", () => toggleMoved(k));
    asked.append(li);
  });
  if (m.more_phrasings) asked.append(el("li", "", "and " + m.more_phrasings + " more"));
  if (m.persona) facts.append(el("span", "tag", "written as " + m.persona));
  if (m.hops > 1 && m.source === "synthetic") facts.append(el("span", "tag", "multi-hop: " + m.hops + " passages"));
  if (m.difficulty !== undefined) facts.append(el("span", "tag", "retrieval rank: " + (m.difficulty || "not in top 10")));
  const checks = m.checks || {};
  if (checks.self_contained === false) facts.append(el("span", "tag no", "not self-contained: " + (checks.why || "")));
  if (typeof checks.grounded === "number" && checks.grounded < 1) facts.append(el("span", "tag " + (checks.grounded < 0.5 ? "no" : "partly"), "grounded: " + Math.round(checks.grounded * 100) + "% of its claims"));
  if (m.flag) facts.append(el("span", "tag no", "check: " + m.flag));
  const a = m.answerable || "unknown";
  const tag = $("answerable"); tag.className = "tag " + (a === "yes" ? "yes" : a === "no" ? "no" : "partly");
  tag.textContent = "answerable: " + a + (m.coverage !== undefined && m.source !== "synthetic" ? " (" + (Math.round(m.coverage * 1000) / 10) + "% of the question's weight)" : "");
  $("reference").value = s.reference !== undefined ? s.reference : (item.reference || "");
  const chunks = $("chunks"); chunks.replaceChildren();
  const quotes = m.quotes || [];
  (item.reference_contexts || []).forEach((t, i) => {
    const id = (item.reference_context_ids || [])[i];
    chunks.append(el("span", "tag", id || "#" + (i + 1)));
    chunks.append(marked(t, quotes.filter((q) => q.context_id === id).map((q) => q.text)));
  });
  if (!chunks.children.length) chunks.append(el("div", "", "(no chunk: nothing in the documents was found for this question)"));
  $("decision").textContent = s.decision ? "your decision: " + s.decision : "not decided";
  $("reason").value = s.reason || "";
}
// A phrasing of the intent moved out, or back in; never the item's own question.
function toggleMoved(k) {
  const item = Q[cur], s = entry(), p = ((item.metadata || {}).phrasings || [])[k];
  const question = s.user_input !== undefined ? s.user_input : item.user_input;
  if (!p || p.text === question) return;
  const moved = s.moved_out || [];
  s.moved_out = moved.includes(p.text) ? moved.filter((t) => t !== p.text) : moved.concat([p.text]);
  s.time = new Date().toISOString(); save(); render();
}
function decide(d) { const s = entry(); s.decision = d; s.time = new Date().toISOString(); save(); render(); }
function exportText() {
  const who = $("labeller").value.trim();
  const lines = [JSON.stringify({tala_labels: {testset: META.candidates, n: Q.length}})];
  for (const item of Q) {
    const s = state[item.id];
    if (!s || !s.decision) continue;
    const out = {id: item.id, decision: s.decision};
    if (s.decision === "edit") {
      if (s.user_input !== undefined && s.user_input !== item.user_input) out.user_input = s.user_input;
      if (s.reference !== undefined && s.reference !== (item.reference || "")) out.reference = s.reference;
    }
    if (s.reason) out.reason = s.reason;
    if (s.moved_out && s.moved_out.length) out.moved_out = s.moved_out;
    if (who) out.labeller = who;
    out.time = s.time;
    lines.push(JSON.stringify(out));
  }
  return lines.join("\n") + "\n";
}
const editors = ["question", "reference", "reason", "labeller"];
function onKey(ev) {
  if (editors.includes(ev.target.id)) {
    if (ev.key === "Escape") ev.target.blur();
    return;
  }
  switch (ev.key) {
    case "j": case "ArrowRight": cur = Math.min(Q.length - 1, cur + 1); render(); break;
    case "k": case "ArrowLeft": cur = Math.max(0, cur - 1); render(); break;
    case "a": decide("accept"); break;
    case "e": decide("edit"); $("reference").focus(); break;
    case "u": decide("unanswerable"); break;
    case "r": decide("reject"); $("reason").focus(); break;
    case "n": decide("needs-expert"); break;
    case "x": state[Q[cur].id] = {}; save(); render(); break;
    case "w": download(); break;
    default:
      if (ev.key.length === 1 && ev.key >= "0" && ev.key <= "9") { toggleMoved((Number(ev.key) + 9) % 10); break; }
      return;
  }
  ev.preventDefault();
}
document.addEventListener("keydown", onKey);
// Typing in the question or the reference is an edit.
["question", "reference"].forEach((id) => $(id).addEventListener("input", () => {
  const s = entry(); s[id === "question" ? "user_input" : "reference"] = $(id).value;
  s.decision = "edit"; s.time = new Date().toISOString(); save();
  $("decision").textContent = "your decision: edit"; $("progress").textContent = decided() + " decided";
}));
$("reason").addEventListener("input", () => { const s = entry(); s.reason = $("reason").value; save(); });
wireLabellerAndExport();
if (Q.length) render(); else $("where").textContent = "no candidates";
if (location.hash === "#selftest") {
  let errors = 0;
  window.addEventListener("error", () => { errors++; });
  state = {}; cur = 0;
  const press = (key) => document.dispatchEvent(new KeyboardEvent("keydown", {key: key, bubbles: true}));
  try {
    // Move one phrasing out (the second, or the third when the second is the item's own
    // question); one moved out and back again leaves none.
    press("a"); press("2");
    if (!(entry().moved_out || []).length) press("3");
    press("4"); press("4"); press("j");
    press("e"); $("reference").value = "Edited by the self-test."; $("reference").dispatchEvent(new Event("input"));
    document.activeElement.blur(); press("j");
    press("r"); $("reason").value = "off-topic"; $("reason").dispatchEvent(new Event("input"));
    document.activeElement.blur(); press("j");
    press("u"); press("j"); press("n");
    const marks = document.querySelectorAll("#chunks mark").length;
    $("labeller").value = "selftest";
    const text = exportText();
    $("selftest-export").textContent = text;
    const rows = text.trim().split("\n").length - 1;
    const movedOut = (state[Q[0].id].moved_out || []).length;
    $("selftest").textContent = "SELFTEST decided=" + decided() + " exported=" + rows + " errors=" + errors + " marks=" + (marks > 0 ? "yes" : "no") + " moved=" + movedOut;
  } catch (e) {
    $("selftest").textContent = "SELFTEST failed: " + e;
  }
}
</script></body></html>
)JS";

}  // namespace

std::string RenderTestsetReviewPage(const std::vector<std::string>& candidates_json,
                                    const std::string& candidates_path, bool served,
                                    const std::string& token) {
  std::string rows = "[";
  for (size_t i = 0; i < candidates_json.size(); ++i) rows += (i ? "," : "") + candidates_json[i];
  rows += "]";
  std::string meta = "{\"candidates\":";
  io::AppendJsonString(meta, candidates_path);
  meta += "}";
  std::string page = ReviewPageHead(kHead);
  page += "<script type=\"application/json\" id=\"queue\">" + io::ScriptJson(rows) + "</script>\n";
  page += "<script type=\"application/json\" id=\"meta\">" + io::ScriptJson(meta) + "</script>\n";
  page += kReviewHelpersScript;
  page += kScript;
  if (served) AddServedSaving(page, token);
  return page;
}

}  // namespace tala
