// The review page: one self-contained HTML file (inline style and script, no network). The rows
// travel as JSON inside <script type="application/json">, with every '<' written as \u003c so no
// row text can end the script; the script renders text with textContent only.

#include "tala/review_page.h"

#include <string>

#include "io/reports/markup_escape.h"
#include "io/reports/review_saving.h"
#include "io/writers/json_text.h"

namespace tala {

namespace {
constexpr const char* kHead = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tala review</title>
<style>
@COMMON_STYLE@.claim{padding:6px 8px;border-radius:4px;margin:3px 0;border:2px solid transparent}
.claim.focus{border-color:#3867d6}
.tag{display:inline-block;font-size:12px;padding:0 6px;border-radius:8px;margin-right:6px;background:#e8eaf0}
.yes{background:#d4f4dd}.no{background:#fbd9d3}
.chunk{padding:6px 8px;border-left:4px solid #d9dce3;margin:4px 0;white-space:pre-wrap}
.chunk.rel{border-left-color:#38a169}
#label{font-weight:600}
textarea{width:100%;min-height:3em;font:inherit}
</style></head><body>
<header><b>tala review</b><span id="where"></span><span id="progress"></span>
<label>labeller <input id="labeller" placeholder="your name"></label>
<button id="export">export labels.jsonl (e)</button></header>
<main>
<div class="card"><h2>question</h2><div id="question"></div></div>
<div class="card"><h2>answer, by claim <span id="score"></span></h2><div id="claims"></div>
<div id="label"></div></div>
<div class="card"><h2>retrieved chunks, ranked</h2><div id="chunks"></div></div>
<div class="card"><h2>note (/ to write, Esc to leave)</h2><textarea id="note"></textarea></div>
<p id="help"><kbd>y</kbd>/<kbd>n</kbd> the row is right / wrong &nbsp; <kbd>1</kbd>–<kbd>5</kbd> a rubric score &nbsp;
<kbd>&darr;</kbd>/<kbd>&uarr;</kbd> pick a claim, <kbd>s</kbd>/<kbd>u</kbd> supported / unsupported &nbsp;
<kbd>x</kbd> clear &nbsp; <kbd>j</kbd>/<kbd>&rarr;</kbd> next, <kbd>k</kbd>/<kbd>&larr;</kbd> previous &nbsp; <kbd>e</kbd> export.
Work is kept in this browser until exported.</p>
<pre id="selftest-export"></pre><p id="selftest"></p>
</main>
)HTML";

constexpr const char* kScript = R"JS(<script>
"use strict";
const Q = JSON.parse(document.getElementById("queue").textContent);
const META = JSON.parse(document.getElementById("meta").textContent);
const KEY = "tala-review|" + META.results + "|" + META.metric + "|" + META.pick + "|" + META.seed + (META.labeller ? "|" + META.labeller : "");
let state = {}, cur = 0, focus = -1;
try { state = JSON.parse(localStorage.getItem(KEY) || "{}"); } catch (e) { state = {}; }
const idOf = (row) => JSON.stringify(row.id);
let save = function () { try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) {} };
function entry() { const k = idOf(Q[cur]); return state[k] || (state[k] = {claims: []}); }
function claimsOf(row) { return (row.verdicts && row.verdicts.response_claims) || []; }
function labelled() { return Object.values(state).filter((s) => s.value !== undefined).length; }
function progressText() { return labelled() + " labelled"; }
function render() {
  const row = Q[cur], s = entry(), inputs = row.inputs || {};
  $("where").textContent = "row " + (cur + 1) + " of " + Q.length + " · id " + row.id;
  $("progress").textContent = labelled() + " labelled";
  const q = inputs.user_input;
  $("question").textContent = typeof q === "string" ? q : JSON.stringify(q || "");
  const score = row.scores ? row.scores[META.metric] : null;
  $("score").textContent = "· judge " + META.metric + " " + (score === null || score === undefined ? "n/a" : Number(score).toFixed(3));
  const box = $("claims"); box.replaceChildren();
  const claims = claimsOf(row);
  if (!claims.length) box.append(el("div", "", inputs.response || "(no claims: label the whole answer)"));
  claims.forEach((c, i) => {
    const d = el("div", "claim" + (i === focus ? " focus" : ""));
    d.append(el("span", "tag " + (c.supported ? "yes" : "no"), "judge: " + (c.supported ? "supported" : "unsupported")));
    const mine = s.claims[i];
    if (mine !== undefined && mine !== null) d.append(el("span", "tag " + (mine ? "yes" : "no"), "you: " + (mine ? "supported" : "unsupported")));
    if (c.supported_by && c.supported_by.length) d.append(el("span", "tag", "evidence: chunk " + c.supported_by.map((k) => k + 1).join(", ")));
    d.append(el("span", "", c.text));
    if (c.reason) d.append(el("div", "tag", c.reason));
    box.append(d);
  });
  $("label").textContent = s.value === undefined ? "not labelled" : "your " + META.metric + ": " + s.value;
  const chunks = $("chunks"); chunks.replaceChildren();
  const rel = (row.verdicts && (row.verdicts.chunk_relevant || row.verdicts.chunk_relevant_to_response)) || [];
  (inputs.retrieved_contexts || []).forEach((t, i) => {
    const d = el("div", "chunk" + (rel[i] ? " rel" : ""));
    d.append(el("span", "tag", "#" + (i + 1) + (rel[i] === undefined ? "" : rel[i] ? " relevant" : " not relevant")));
    d.append(document.createTextNode(t));
    chunks.append(d);
  });
  $("note").value = s.note || "";
}
function stamp(s) { s.time = new Date().toISOString(); save(); render(); }
function setClaim(v) {
  const claims = claimsOf(Q[cur]), s = entry();
  if (focus < 0 || focus >= claims.length) return;
  s.claims[focus] = v;
  // With every claim labelled, the row's value is the share people found supported.
  const done = claims.every((_, i) => s.claims[i] === true || s.claims[i] === false);
  if (done && s.manual !== true) s.value = Number((s.claims.filter((x) => x === true).length / claims.length).toFixed(4));
  stamp(s);
}
function exportText() {
  const who = $("labeller").value.trim();
  const lines = [JSON.stringify({tala_labels: {pick: META.pick, seed: META.seed, metric: META.metric, n: Q.length, results: META.results}})];
  for (const row of Q) {
    const s = state[idOf(row)];
    if (!s || s.value === undefined) continue;
    const out = {id: row.id};
    out[META.metric] = s.value;
    if (s.claims.some((x) => x === true || x === false)) out.claims = claimsOf(row).map((_, i) => (s.claims[i] === undefined ? null : s.claims[i]));
    if (s.note) out.note = s.note;
    if (row.pick_probability !== undefined) out.pick_probability = row.pick_probability;
    if (who) out.labeller = who;
    out.time = s.time;
    lines.push(JSON.stringify(out));
  }
  return lines.join("\n") + "\n";
}
function onKey(ev) {
  if (ev.target === $("note") || ev.target === $("labeller")) {
    if (ev.key === "Escape") { ev.target.blur(); }
    return;
  }
  const s = entry(), n = claimsOf(Q[cur]).length;
  switch (ev.key) {
    case "j": case "ArrowRight": cur = Math.min(Q.length - 1, cur + 1); focus = -1; render(); break;
    case "k": case "ArrowLeft": cur = Math.max(0, cur - 1); focus = -1; render(); break;
    case "ArrowDown": focus = Math.min(n - 1, focus + 1); render(); break;
    case "ArrowUp": focus = Math.max(0, focus - 1); render(); break;
    case "y": s.value = 1; s.manual = true; stamp(s); break;
    case "n": s.value = 0; s.manual = true; stamp(s); break;
    case "1": case "2": case "3": case "4": case "5": s.value = Number(ev.key); s.manual = true; stamp(s); break;
    case "s": setClaim(true); break;
    case "u": setClaim(false); break;
    case "x": state[idOf(Q[cur])] = {claims: []}; save(); render(); break;
    case "/": ev.preventDefault(); $("note").focus(); break;
    case "e": download(); break;
    default: return;
  }
  ev.preventDefault();
}
document.addEventListener("keydown", onKey);
$("note").addEventListener("input", () => { const s = entry(); s.note = $("note").value; save(); });
wireLabellerAndExport();
render();
if (location.hash === "#selftest") {
  let errors = 0;
  window.addEventListener("error", () => { errors++; });
  state = {}; cur = 0;
  const press = (key) => document.dispatchEvent(new KeyboardEvent("keydown", {key: key, bubbles: true}));
  try {
    press("y"); press("j");
    press("ArrowDown"); press("u"); press("n"); press("j");
    $("note").value = "checked by the self-test"; $("note").dispatchEvent(new Event("input"));
    press("n");
    $("labeller").value = "selftest";
    const text = exportText();
    $("selftest-export").textContent = text;
    const rows = text.trim().split("\n").length - 1;
    $("selftest").textContent = "SELFTEST labelled=" + labelled() + " exported=" + rows + " errors=" + errors;
  } catch (e) {
    $("selftest").textContent = "SELFTEST failed: " + e;
  }
}
</script></body></html>
)JS";
}  // namespace

constexpr const char* kCommonStyle =
    R"CSS(body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{position:sticky;top:0;background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header input{font:inherit;padding:2px 6px;width:10em}
main{max-width:980px;margin:0 auto;padding:12px 16px}
.card{background:#fff;border:1px solid #d9dce3;border-radius:6px;padding:12px 16px;margin:10px 0}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:#5b6475;margin:0 0 6px}
kbd{background:#e8eaf0;border-radius:3px;padding:0 4px;font-size:12px}
#help{color:#5b6475;font-size:13px}
pre#selftest-export{white-space:pre-wrap}
)CSS";

std::string ReviewPageHead(const char* head) {
  std::string out = head;
  const std::string slot = "@COMMON_STYLE@";
  out.replace(out.find(slot), slot.size(), kCommonStyle);
  return out;
}

const char* const kReviewHelpersScript = R"JS(<script>
"use strict";
const $ = (id) => document.getElementById(id);
function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function download() {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([exportText()], {type: "application/x-ndjson"}));
  a.download = "labels.jsonl"; a.click();
}
// The labeller's name is remembered across pages; the button exports.
function wireLabellerAndExport() {
  $("labeller").value = META.labeller || localStorage.getItem("tala-review|labeller") || "";
  $("labeller").addEventListener("input", () => { try { localStorage.setItem("tala-review|labeller", $("labeller").value); } catch (e) {} });
  $("export").addEventListener("click", download);
}
</script>
)JS";

// Only the served page talks to a server (the one it came from): saving after every change.
constexpr const char* kServedScript = R"JS(<script>
"use strict";
(function () {
  let pending = null;
  function push() {
    pending = null;
    const token = JSON.parse(document.getElementById("token").textContent);
    fetch("/labels", {method: "POST", body: exportText(), headers: {"Content-Type": "application/x-ndjson", "X-Tala-Token": token}})
      .then((r) => r.text().then((t) => { $("progress").textContent = progressText() + " · " + (r.ok ? "saved" : "not saved: " + t); }))
      .catch((e) => { $("progress").textContent = progressText() + " · not saved: " + e; });
  }
  const keep = save;
  save = function () { keep(); if (!pending) pending = setTimeout(push, 300); };
})();
</script>
)JS";

std::string RenderReviewPage(const ReviewQueue& q, bool served, const std::string& token) {
  std::string rows = "[";
  for (size_t i = 0; i < q.rows_json.size(); ++i) rows += (i ? "," : "") + q.rows_json[i];
  rows += "]";
  std::string meta = "{\"metric\":";
  io::AppendJsonString(meta, q.metric);
  meta += ",\"pick\":";
  io::AppendJsonString(meta, q.pick);
  meta += ",\"seed\":" + std::to_string(q.seed) + ",\"results\":";
  io::AppendJsonString(meta, q.results);
  meta += ",\"population\":" + std::to_string(q.population) + ",\"labeller\":";
  io::AppendJsonString(meta, q.labeller);
  meta += "}";
  std::string page = ReviewPageHead(kHead);
  page += "<script type=\"application/json\" id=\"queue\">" + io::ScriptJson(rows) + "</script>\n";
  page += "<script type=\"application/json\" id=\"meta\">" + io::ScriptJson(meta) + "</script>\n";
  page += kReviewHelpersScript;
  page += kScript;
  if (served) AddServedSaving(page, token);
  return page;
}

void AddServedSaving(std::string& page, const std::string& token) {
  // Inserted before the closing tags the main script ends with.
  std::string token_json;
  io::AppendJsonString(token_json, token);
  page.insert(page.rfind("</body>"), "<script type=\"application/json\" id=\"token\">" +
                                         io::ScriptJson(token_json) + "</script>\n" +
                                         kServedScript);
}

}  // namespace tala
