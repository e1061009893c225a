#include "io/reports/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/diagnosis.h"
#include "analysis/intervals.h"
#include "io/reports/diagnosis_overview.h"
#include "io/reports/markup_escape.h"
#include "io/reports/offline_trust.h"
#include "io/writers/json_text.h"
#include "metrics/registry.h"

namespace tala::io {

namespace {

// JSON inside <script>: "</" would end the element, so it is written "<\/" (same JSON value).
std::string ScriptSafe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += json[i];
    }
  }
  return out;
}

std::string Header(const ResultsFile& r, const std::string& source) {
  std::string out = "<header><h1>tala report</h1><dl>";
  auto item = [&](const std::string& k, const std::string& v) {
    out += "<div><dt>" + EscapeMarkup(k) + "</dt><dd>" + EscapeMarkup(v) + "</dd></div>";
  };
  item("results", source);
  item("rows", std::to_string(r.rows.size()));
  if (r.manifest) {
    item("dataset", r.manifest->dataset);
    item("judge", r.manifest->judge);
    if (!r.manifest->embeddings.empty()) item("embeddings", r.manifest->embeddings);
    item("created", r.manifest->created);
    item("tala", r.manifest->tala_version);
    std::string prompts;
    for (const auto& [name, version] : r.manifest->prompts) {
      prompts += (prompts.empty() ? "" : ", ") + name + "@" + version;
    }
    if (!prompts.empty()) item("prompts", prompts);
    // A --sequential run judged only the rows that decided its gates: the header says so.
    for (const auto& [name, value] : r.manifest->settings) {
      if (name == "sequential")
        item("sequential", value + " (rows judged until the gates were decided)");
    }
  }
  if (r.has_run_records) {
    item("model calls",
         fmt::format("{} ({} from the cache), {} prompt + {} completion tokens", r.calls.calls,
                     r.calls.cache_hits, r.calls.prompt_tokens, r.calls.completion_tokens));
    item("cost", r.calls.cost_usd ? fmt::format("${:.4f}", *r.calls.cost_usd) : "unknown");
  }
  out += "</dl></header>";
  return out;
}

std::string Card(const ResultsFile& r, const std::string& key) {
  std::string out;
  auto [values, nulls] = ColumnOf(r, key);
  bool lower = DirectionIn(r, key) == Direction::kLowerIsBetter;
  out += "<div class=card><h3>" + EscapeMarkup(key) + "</h3>";
  auto st = analysis::Summarise(values);
  if (st) {
    out += fmt::format(
        "<div class=mean>{:.3f}</div><div class=ci>95% {}</div>"
        "<div class=bar><span style=\"left:{:.1f}%;width:{:.1f}%\"></span><i "
        "style=\"left:{:.1f}%\"></i></div>",
        st->mean, analysis::IntervalText(*st, 3), 100 * std::clamp(st->ci_low, 0.0, 1.0),
        100 * std::max(0.0, std::min(st->ci_high, 1.0) - std::max(st->ci_low, 0.0)),
        100 * std::clamp(st->mean, 0.0, 1.0));
  } else {
    out += "<div class=mean>–</div><div class=ci>no scored row</div>";
  }
  out += fmt::format("<div class=counts>{} scored · {} null · {} is better</div>", values.size(),
                     nulls, lower ? "lower" : "higher");
  out += "<svg class=hist data-metric=\"" + EscapeMarkup(key) +
         "\" viewBox=\"0 0 200 50\"></svg></div>";
  return out;
}

std::string Cards(const ResultsFile& r) {
  std::vector<std::string> core, rest;
  for (const std::string& key : r.metric_keys)
    (metrics::IsCoreMetric(key) ? core : rest).push_back(key);
  if (core.empty()) core.swap(rest);
  std::string out = "<section class=cards>";
  for (const std::string& key : core) out += Card(r, key);
  out += "</section>";
  if (!rest.empty()) {
    out += fmt::format(
        "<details class=more><summary>{} more metrics</summary><section class=cards>", rest.size());
    for (const std::string& key : rest) out += Card(r, key);
    out += "</section></details>";
  }
  return out;
}

// What the offline judge only estimates, or cannot score, as tala eval's notes say it, and how
// far to trust what it does score: a report is read without the terminal's summary beside it.
std::string OfflineNotes(const ResultsFile& r) {
  if (!r.manifest || r.manifest->judge != "offline") return "";
  std::string items;
  for (const std::string& key : r.metric_keys) {
    const metrics::RegistryEntry* e = metrics::FindMetricOfKey(key);
    if (e != nullptr && !e->info().offline_note.empty()) {
      items += "<li>" + EscapeMarkup(key + " " + e->info().offline_note) + "</li>";
    }
  }
  std::string out =
      items.empty() ? "" : "<section id=notes><h2>Notes</h2><ul>" + items + "</ul></section>";
  const std::vector<OfflineTrustLine> trust = OfflineTrustLines(r);
  if (trust.empty()) return out;
  out += "<section id=trust><h2>How far to trust the offline judge</h2><p>" +
         EscapeMarkup(kOfflineTrustAdvice) + "</p><ul>";
  for (const OfflineTrustLine& line : trust) {
    out += "<li><b>" + EscapeMarkup(line.metric) + "</b>: " + EscapeMarkup(line.measured) +
           ". <i>Misses:</i> " + EscapeMarkup(line.misses) + "</li>";
  }
  return out + "</ul></section>";
}

// The pipeline as a picture: question → retriever → generator → answer, each stage coloured by
// the share of diagnosed rows failing there, with the counts, so the half to fix shows first.
std::string Pipeline(const DiagnosisOverview& o) {
  if (o.diagnosed == 0) return "";
  auto stage = [&](const char* title, const char* a, const char* b) {
    const int64_t failing = o.FailingAt(title);
    const double share = static_cast<double>(failing) / o.diagnosed;
    const char* level = failing == 0 ? "ok" : share < 0.25 ? "warn" : "bad";
    return fmt::format(
        "<div class=\"stage {}\"><b>{}</b><span class=share>{} of {} rows fail ({:.0f}%)</span>"
        "<small>{} {} · {} {}</small></div>",
        level, title, failing, o.diagnosed, 100 * share, a, o.Count(a), b, o.Count(b));
  };
  std::string out = "<section id=pipeline aria-label=\"which stage fails\"><div class=flow>";
  out += fmt::format(
      "<div class=\"stage end\"><b>question</b><small>{} rows diagnosed</small></div><i>→</i>",
      o.diagnosed);
  out += stage("retriever", "retriever miss", "ranking noise") + "<i>→</i>";
  out += stage("generator", "generator not grounded", "off-topic answer") + "<i>→</i>";
  out += fmt::format(
      "<div class=\"stage end\"><b>answer</b><small>healthy in {} of {} rows</small></div>",
      o.Count("healthy"), o.diagnosed);
  return out + "</div></section>";
}

// The picture of the pipeline, then the headline (F23): which stage fails most, in how many
// rows, and its worst rows, then a chip per diagnosis to filter the table.
std::string Diagnoses(const ResultsFile& r) {
  const DiagnosisOverview o = OverviewOf(r);
  if (o.counts.empty()) return "";
  std::string out = Pipeline(o) + "<section id=diagnosis><h2>Diagnosis</h2>";
  const int64_t unknown =
      o.Count(std::string(analysis::DiagnosisName(analysis::Diagnosis::kUnknown)));
  if (o.principal.empty()) {
    out += "<p class=verdict>" +
           EscapeMarkup(unknown > 0 ? UnknownText(unknown, o.diagnosed, true)
                                    : "no stage fails: every diagnosed row is healthy") +
           "</p>";
  } else {
    out += fmt::format(
        "<p class=verdict>the <b>{}</b> is the principal failure: <b>{}</b> in {} of {} rows "
        "({:.0f}%){}{}</p>",
        o.stage, EscapeMarkup(o.principal), o.principal_rows, o.diagnosed,
        100.0 * o.principal_rows / o.diagnosed,
        EscapeMarkup(HalfShareText(o.FailingAt(o.stage), o.principal_rows, o.diagnosed)),
        EscapeMarkup(UnknownText(unknown, o.diagnosed, false)));
    out += "<ol class=worst>";
    // Each with its question and why it failed, as the CLI summary shows them (N8).
    for (const auto& [value, row] : o.worst) {
      out +=
          fmt::format("<li><a href=\"#\" data-row=\"{}\">{}</a> {} {:.3f}", EscapeMarkup(row->id),
                      EscapeMarkup(row->id), EscapeMarkup(o.metric), value);
      if (!row->question.empty()) {
        out += " <q>" + EscapeMarkup(row->question) + "</q>";
      }
      if (!row->diagnosis_reason.empty()) {
        out += " <span class=why>" + EscapeMarkup(row->diagnosis_reason) + "</span>";
      }
      out += "</li>";
    }
    out += "</ol>";
  }
  out += "<div class=diag>";
  for (const auto& [name, n] : o.counts) {
    out += fmt::format("<button class=\"chip{}\" data-diagnosis=\"{}\">{} <b>{}</b></button>",
                       name == "healthy" ? " ok" : "", EscapeMarkup(name), EscapeMarkup(name), n);
  }
  out += "</div></section>";
  return out;
}

constexpr const char* kStyle = R"CSS(
:root{--fg:#1d2433;--muted:#667085;--line:#e4e7ec;--bg:#f7f8fa;--card:#fff;--ok:#12805c;--bad:#c4320a;--accent:#3a5bd9}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2433;color:#fff;padding:18px 28px}header h1{margin:0 0 8px;font-size:20px}
header dl{display:flex;flex-wrap:wrap;gap:6px 28px;margin:0}header dt{font-size:11px;text-transform:uppercase;opacity:.6}header dd{margin:0;font-size:13px}
main{padding:20px 28px;max-width:1400px}h2{font-size:16px;margin:24px 0 10px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px}.card h3{margin:0;font-size:13px;color:var(--muted);font-weight:600}
details.more{margin-top:12px}details.more summary{cursor:pointer;color:var(--accent);margin-bottom:10px}
#pipeline .flow{display:flex;align-items:stretch;gap:8px;margin:4px 0 8px}#pipeline i{align-self:center;font-style:normal;font-size:20px;color:var(--muted)}
.stage{flex:1;border:1px solid var(--line);border-radius:10px;padding:10px 12px;background:var(--card);display:flex;flex-direction:column;gap:2px}
.stage.end{flex:.6;background:#fafbfc}.stage small{color:var(--muted)}.stage .share{font-size:15px;font-weight:650}
.stage.ok{border-color:#a6e3c4;background:#ecfdf3}.stage.warn{border-color:#fec84b;background:#fffaeb}.stage.bad{border-color:#fda29b;background:#fef3f2}
#gates{border-radius:10px;padding:10px 16px;margin:4px 0 8px;border:1px solid}#gates h2{margin:0 0 4px}#gates ul{margin:0;padding-left:18px}
#gates.fail{background:#fef3f2;border-color:#fda29b}#gates.pass{background:#ecfdf3;border-color:#a6e3c4}#gates li.fail b{color:var(--bad)}#gates li.pass b{color:var(--ok)}
.worst .why{display:block;font-size:12px}
.verdict{font-size:16px;margin:0 0 6px}.worst{margin:0 0 10px;padding-left:22px;color:var(--muted)}.worst a{color:var(--accent)}
.mean{font-size:28px;font-weight:650}.ci,.counts{color:var(--muted);font-size:12px}
.bar{position:relative;height:6px;background:var(--line);border-radius:3px;margin:8px 0}.bar span{position:absolute;top:0;height:6px;background:#a9b8f0;border-radius:3px}.bar i{position:absolute;top:-3px;width:2px;height:12px;background:var(--accent)}
.hist{width:100%;height:50px;margin-top:6px}.hist rect{fill:#a9b8f0}
.diag{display:flex;flex-wrap:wrap;gap:8px}.chip{border:1px solid var(--line);background:#fff;border-radius:16px;padding:5px 12px;cursor:pointer;color:var(--bad)}.chip.ok{color:var(--ok)}.chip.on{background:#1d2433;color:#fff}
.tools{display:flex;gap:10px;align-items:center;margin:8px 0}.tools input{flex:1;max-width:360px;padding:7px 10px;border:1px solid var(--line);border-radius:6px}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line)}th,td{padding:6px 9px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
th{cursor:pointer;user-select:none;background:#fafbfc;font-size:12px}th.asc:after{content:" ▲"}th.desc:after{content:" ▼"}
tbody tr{cursor:pointer}tbody tr:hover{background:#f0f3ff}td.num{text-align:right;font-variant-numeric:tabular-nums}td.low{color:var(--bad);font-weight:600}
.pager{display:flex;gap:8px;align-items:center;margin:8px 0;color:var(--muted)}.pager button{border:1px solid var(--line);background:#fff;border-radius:6px;padding:3px 10px;cursor:pointer}
#detail{position:fixed;top:0;right:0;width:min(640px,100%);height:100%;overflow:auto;background:#fff;border-left:1px solid var(--line);box-shadow:-8px 0 24px rgba(0,0,0,.08);padding:18px 22px;display:none}
#detail.open{display:block}#detail h3{margin:16px 0 6px;font-size:13px;text-transform:uppercase;color:var(--muted)}#detail .close{float:right;cursor:pointer;border:0;background:none;font-size:20px}
.claim{padding:6px 8px;border-radius:6px;margin:4px 0;border-left:4px solid var(--line);background:#fafbfc}.claim.yes{border-color:var(--ok)}.claim.no{border-color:var(--bad)}
.turn{margin:8px 0;padding:4px 0;border-bottom:1px solid var(--line)}.turn.first{background:#fff5f5}
.bubble{padding:6px 10px;border-radius:10px;margin:4px 0;max-width:85%;white-space:pre-wrap}.bubble.user{background:#eef2f7}.bubble.ai{background:#f3faf4;margin-left:auto}
.turnscores{font-size:90%;margin-left:15%}.turnscores small{color:var(--muted)}
.claim small,.chunk small{color:var(--muted)}.chunk{padding:6px 8px;margin:4px 0;border:1px solid var(--line);border-radius:6px}.chunk.rel{border-color:var(--ok)}
.tag{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;background:var(--line);margin-right:4px}.tag.yes{background:#d1fadf;color:var(--ok)}.tag.no{background:#fee4e2;color:var(--bad)}
pre.text{white-space:pre-wrap;background:#fafbfc;padding:8px;border-radius:6px;margin:0}
)CSS";

constexpr const char* kScript = R"JS(
(function(){
'use strict';
var errors=[];window.addEventListener('error',function(e){errors.push(String(e.message));});
var rows=JSON.parse(document.getElementById('tala-rows').textContent);
var metrics=JSON.parse(document.getElementById('tala-metrics').textContent);
var lowerBetter=JSON.parse(document.getElementById('tala-lower').textContent);
var PAGE=100,page=0,sortKey=null,sortDir=1,filter='',diag='';
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;return e;}
function score(r,k){var v=r.scores?r.scores[k]:null;return v===undefined?null:v;}
function fmt(v){return v===null||v===undefined?'–':(Math.round(v*1000)/1000).toFixed(3);}
function hist(svg,k){var b=[0,0,0,0,0,0,0,0,0,0],n=0;rows.forEach(function(r){var v=score(r,k);if(v===null)return;n++;b[Math.min(9,Math.max(0,Math.floor(v*10)))]++;});
 var max=Math.max.apply(null,b)||1;b.forEach(function(c,i){var h=c/max*46;var rc=document.createElementNS('http://www.w3.org/2000/svg','rect');rc.setAttribute('x',i*20+1);rc.setAttribute('y',48-h);rc.setAttribute('width',18);rc.setAttribute('height',h);var t=document.createElementNS('http://www.w3.org/2000/svg','title');t.textContent=(i/10).toFixed(1)+'–'+((i+1)/10).toFixed(1)+': '+c;rc.appendChild(t);svg.appendChild(rc);});}
document.querySelectorAll('svg.hist').forEach(function(s){hist(s,s.getAttribute('data-metric'));});
var view=rows.slice();
function apply(){var q=filter.toLowerCase();view=rows.filter(function(r){if(diag&&r.diagnosis!==diag)return false;if(!q)return true;
  var t=String(r.id)+' '+(r.diagnosis||'')+' '+(r.inputs?(r.inputs.user_input||'')+' '+(r.inputs.response||''):'');return t.toLowerCase().indexOf(q)>=0;});
 if(sortKey!==null){view.sort(function(a,b){var x=sortKey==='id'?String(a.id):sortKey==='diagnosis'?(a.diagnosis||''):score(a,sortKey),y=sortKey==='id'?String(b.id):sortKey==='diagnosis'?(b.diagnosis||''):score(b,sortKey);
  if(x===null&&y===null)return 0;if(x===null)return 1;if(y===null)return -1;return (x<y?-1:x>y?1:0)*sortDir;});}
 page=Math.min(page,Math.max(0,Math.ceil(view.length/PAGE)-1));render();}
var thead=document.querySelector('#rows thead tr'),tbody=document.querySelector('#rows tbody');
var CORE=JSON.parse(document.getElementById('tala-core').textContent);
var core=metrics.filter(function(k){return CORE.indexOf(k)>=0;});
var cols=core.length&&core.length<metrics.length?core:metrics;
function head(){thead.textContent='';['id'].concat(cols).concat(['diagnosis']).forEach(function(k){var th=el('th',{'data-key':k},k);th.addEventListener('click',function(){if(sortKey===k)sortDir=-sortDir;else{sortKey=k;sortDir=1;}
  document.querySelectorAll('#rows th').forEach(function(h){h.className='';});th.className=sortDir>0?'asc':'desc';apply();});thead.appendChild(th);});}
head();
var allcols=document.getElementById('allcols');
if(cols!==metrics){allcols.hidden=false;allcols.textContent='show all '+metrics.length+' metric columns';allcols.addEventListener('click',function(){cols=metrics;allcols.hidden=true;head();render();});}
function render(){tbody.textContent='';var start=page*PAGE;view.slice(start,start+PAGE).forEach(function(r){var tr=el('tr');tr.appendChild(el('td',{},String(r.id)));
  cols.forEach(function(k){var v=score(r,k);var low=v!==null&&(lowerBetter.indexOf(k)>=0?v>0.3:v<0.7);tr.appendChild(el('td',{'class':'num'+(low?' low':'')},fmt(v)));});
  tr.appendChild(el('td',{},r.diagnosis||''));tr.addEventListener('click',function(){open(r);});tbody.appendChild(tr);});
 document.getElementById('count').textContent=view.length+' of '+rows.length+' rows';
 document.getElementById('pageinfo').textContent='page '+(page+1)+' of '+Math.max(1,Math.ceil(view.length/PAGE));}
document.querySelectorAll('.worst a').forEach(function(a){a.addEventListener('click',function(ev){ev.preventDefault();var id=a.getAttribute('data-row');for(var i=0;i<rows.length;i++){if(String(rows[i].id)===id){open(rows[i]);break;}}});});
document.getElementById('prev').addEventListener('click',function(){if(page>0){page--;render();}});
document.getElementById('next').addEventListener('click',function(){if((page+1)*PAGE<view.length){page++;render();}});
document.getElementById('filter').addEventListener('input',function(e){filter=e.target.value;page=0;apply();});
document.querySelectorAll('.chip').forEach(function(c){c.addEventListener('click',function(){var d=c.getAttribute('data-diagnosis');diag=diag===d?'':d;
  document.querySelectorAll('.chip').forEach(function(x){x.classList.toggle('on',x.getAttribute('data-diagnosis')===diag);});page=0;apply();});});
var panel=document.getElementById('detail');
function section(title){panel.appendChild(el('h3',{},title));}
function open(r){panel.textContent='';var x=el('button',{'class':'close','title':'close'},'×');x.addEventListener('click',function(){panel.classList.remove('open');});panel.appendChild(x);
 panel.appendChild(el('h2',{},'row '+r.id));if(r.diagnosis)panel.appendChild(el('div',{'class':'tag '+(r.diagnosis==='healthy'?'yes':'no')},r.diagnosis));
 var inp=r.inputs||{},v=r.verdicts||{},ctx=inp.retrieved_contexts||[];
 section('scores');metrics.forEach(function(k){var d=el('div');d.appendChild(el('b',{},k+': '+fmt(score(r,k))+' '));d.appendChild(el('small',{},(r.reasons&&r.reasons[k])||''));panel.appendChild(d);});
 if(r.error){section('error');panel.appendChild(el('pre',{'class':'text'},r.error));}
 if(r.turns){section('conversation'+(r.first_failing_turn?' (first failing turn: '+r.first_failing_turn+')':''));r.turns.forEach(function(t){
   var d=el('div',{'class':'turn'+(t.turn===r.first_failing_turn?' first':'')});d.appendChild(el('div',{'class':'bubble user'},t.question));
   var a=el('div',{'class':'bubble ai'});a.appendChild(el('span',{'class':'tag '+(t.diagnosis==='healthy'?'yes':'no')},'turn '+t.turn+': '+(t.diagnosis||'')));a.appendChild(document.createTextNode(t.response));d.appendChild(a);
   var sc=el('div',{'class':'turnscores'});Object.keys(t.scores||{}).forEach(function(k){var v=t.scores[k];var line=el('div');line.appendChild(el('b',{},k+': '+fmt(v===null?null:v)+' '));line.appendChild(el('small',{},(t.reasons&&t.reasons[k])||''));sc.appendChild(line);});
   d.appendChild(sc);panel.appendChild(d);});}
 if(inp.user_input!==undefined){section('question');panel.appendChild(el('pre',{'class':'text'},inp.user_input));}
 if(inp.response!==undefined){section('response');panel.appendChild(el('pre',{'class':'text'},inp.response));}
 if(v.response_claims){section('response claims');v.response_claims.forEach(function(c){var d=el('div',{'class':'claim '+(c.supported===true?'yes':c.supported===false?'no':'')});
   d.appendChild(el('span',{'class':'tag '+(c.supported?'yes':'no')},c.supported===null?'?':c.supported?'supported':'unsupported'));
   if(c.correct!==null&&c.correct!==undefined)d.appendChild(el('span',{'class':'tag '+(c.correct?'yes':'no')},c.correct?'agrees with reference':'not in reference'));
   d.appendChild(document.createTextNode(c.text));if(c.supported_by&&c.supported_by.length)d.appendChild(el('small',{},' — chunk '+c.supported_by.map(function(i){return i+1;}).join(', ')));
   if(c.reason)d.appendChild(el('div',{},'')).appendChild(el('small',{},c.reason));panel.appendChild(d);});}
 if(ctx.length){section('retrieved chunks (rank order)');ctx.forEach(function(t,i){var rel=v.chunk_relevant?v.chunk_relevant[i]:undefined;var d=el('div',{'class':'chunk'+(rel?' rel':'')});
   d.appendChild(el('span',{'class':'tag'},'#'+(i+1)));if(rel!==undefined)d.appendChild(el('span',{'class':'tag '+(rel?'yes':'no')},rel?'relevant':'not relevant'));
   if(v.chunk_relevant_to_response)d.appendChild(el('span',{'class':'tag'},v.chunk_relevant_to_response[i]?'used by response':'not used'));d.appendChild(document.createTextNode(t));panel.appendChild(d);});}
 if(inp.reference!==undefined){section('reference');panel.appendChild(el('pre',{'class':'text'},inp.reference));}
 if(v.reference_claims){section('reference claims');v.reference_claims.forEach(function(c){var d=el('div',{'class':'claim '+(c.attributed===true?'yes':c.attributed===false?'no':'')});
   if(c.attributed!==null)d.appendChild(el('span',{'class':'tag '+(c.attributed?'yes':'no')},c.attributed?'in context':'not in context'));
   if(c.in_response!==null)d.appendChild(el('span',{'class':'tag '+(c.in_response?'yes':'no')},c.in_response?'in response':'missing from response'));
   d.appendChild(document.createTextNode(c.text));if(c.reason)d.appendChild(el('div',{},'')).appendChild(el('small',{},c.reason));panel.appendChild(d);});}
 if(r.interventions){section('experiments (tala diagnose): cause '+(r.cause||'?'));if(r.cause_reason)panel.appendChild(el('small',{},r.cause_reason));
   r.interventions.forEach(function(i){var d=el('div',{'class':'claim '+(i.right?'yes':'no')});d.appendChild(el('span',{'class':'tag'},i.condition));
   d.appendChild(el('span',{'class':'tag '+(i.right?'yes':'no')},i.error?'call failed':i.right?'right':'not right'));d.appendChild(document.createTextNode(i.error||i.response||'(no answer)'));
   var f=[];if(i.reference_stated!==undefined)f.push('reference stated '+fmt(i.reference_stated));if(i.faithfulness!==undefined)f.push('faithfulness '+fmt(i.faithfulness));
   if(f.length)d.appendChild(el('div',{},'')).appendChild(el('small',{},f.join(', ')));panel.appendChild(d);});}
 if(v.generated_questions){section('generated questions');v.generated_questions.forEach(function(q){panel.appendChild(el('div',{},q.text+' (cosine '+fmt(q.cosine)+(q.noncommittal?', noncommittal':'')+')'));});}
 if(v.answers){section('judged criteria');Object.keys(v.answers).forEach(function(k){var a=v.answers[k];var d=el('div',{'class':'claim'});d.appendChild(el('span',{'class':'tag'},k));
   d.appendChild(document.createTextNode((a.label?a.label:a.values.join(', '))+(a.weighted!==undefined?' (weighted '+fmt(a.weighted)+')':'')));if(a.reason)d.appendChild(el('div',{},'')).appendChild(el('small',{},a.reason));
   (a.items||[]).forEach(function(it){var t=el('div',{},'');Object.keys(it).forEach(function(f){if(f!=='text')t.appendChild(el('span',{'class':'tag '+(it[f]?'yes':'no')},(it[f]?'':'not ')+f.replace('_',' ')));});t.appendChild(document.createTextNode(it.text));d.appendChild(t);});panel.appendChild(d);});}
 panel.classList.add('open');}
apply();
if(location.hash==='#selftest'){var out=[];try{var key=cols[0]||'id';var th=document.querySelector('#rows th[data-key="'+key+'"]');th.click();th.click();
  var cells=Array.prototype.map.call(document.querySelectorAll('#rows tbody tr'),function(tr){return tr.children[1]?tr.children[1].textContent:'';}).filter(function(t){return t!=='–';}).map(Number);
  var sorted=cells.every(function(c,i){return i===0||cells[i-1]>=c;});out.push('sorted='+(sorted&&cells.length>0?1:0));
  document.querySelector('#rows tbody tr').click();out.push('drilldown='+(panel.classList.contains('open')&&panel.querySelectorAll('h3').length>1?1:0));
  var f=document.getElementById('filter');f.value=String(rows[0].id);f.dispatchEvent(new Event('input'));out.push('filtered='+(view.length>=1&&view.length<=rows.length?1:0));
  var chat=rows.filter(function(x){return x.turns;})[0];if(chat){open(chat);out.push('conversation='+(panel.querySelectorAll('.turn').length===chat.turns.length&&panel.querySelectorAll('.bubble.ai .tag').length===chat.turns.length?1:0));}
  var tried=rows.filter(function(x){return x.interventions;})[0];if(tried){open(tried);out.push('experiments='+(panel.textContent.indexOf('experiments (tala diagnose): cause '+tried.cause)>=0&&panel.querySelectorAll('.claim .tag').length>=2*tried.interventions.length?1:0));}
 }catch(e){errors.push(String(e));}out.push('errors='+errors.length);if(errors.length)out.push(errors.join(' | '));
 var res=el('pre',{'id':'selftest-result'},'SELFTEST '+out.join(' '));document.body.appendChild(res);}
// #foldtest: what the page shows before any scrolling, at the window's size: the pipeline picture
// first, then the principal failure and its worst rows, all inside the first screen.
if(location.hash==='#foldtest'){var f=[];var main=document.querySelector('main');
 f.push('first='+(main.firstElementChild?main.firstElementChild.id:''));
 ['#pipeline','#diagnosis .verdict','#diagnosis .worst'].forEach(function(sel){var e=document.querySelector(sel);var b=e?e.getBoundingClientRect():null;
  f.push(sel.replace(/[^a-z]/g,'')+'='+(b&&b.height>0&&b.top>=0&&b.bottom<=window.innerHeight?1:0));});
 f.push('errors='+errors.length);document.body.appendChild(el('pre',{'id':'foldtest-result'},'FOLDTEST '+f.join(' ')));}
})();
)JS";

// The CI verdict first: each gate, passed or failed (N3: report.html never said FAIL).
std::string Gates(const std::vector<GateLine>& gates) {
  if (gates.empty()) return "";
  bool failed = false;
  for (const GateLine& g : gates) failed = failed || !g.pass;
  std::string out = fmt::format("<section id=gates class=\"{}\"><h2>{}</h2><ul>",
                                failed ? "fail" : "pass", EscapeMarkup(GateHeadline(gates)));
  for (const GateLine& g : gates) {
    out += fmt::format("<li class={}><b>{}</b> {}</li>", g.pass ? "pass" : "fail",
                       g.pass ? "PASS" : "FAIL", EscapeMarkup(g.detail));
  }
  return out + "</ul></section>";
}

}  // namespace

std::string RenderHtml(const ResultsFile& r, const std::string& source,
                       const std::vector<GateLine>& gates) {
  std::string rows = "[";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    if (i) rows += ',';
    rows += r.rows[i].json.empty() ? "{}" : r.rows[i].json;
  }
  rows += ']';
  std::string metrics = "[", lower = "[", core = "[";
  for (size_t i = 0; i < r.metric_keys.size(); ++i) {
    if (i) metrics += ',';
    AppendJsonString(metrics, r.metric_keys[i]);
    if (metrics::IsCoreMetric(r.metric_keys[i])) {
      if (core.size() > 1) core += ',';
      AppendJsonString(core, r.metric_keys[i]);
    }
    if (DirectionIn(r, r.metric_keys[i]) == Direction::kLowerIsBetter) {
      if (lower.size() > 1) lower += ',';
      AppendJsonString(lower, r.metric_keys[i]);
    }
  }
  metrics += ']';
  lower += ']';
  core += ']';
  std::string out =
      "<!doctype html><html lang=en><head><meta charset=utf-8>"
      "<meta name=viewport content=\"width=device-width,initial-scale=1\">"
      "<title>tala report: " +
      EscapeMarkup(source) + "</title><style>" + kStyle + "</style></head><body>";
  out += Header(r, source);
  out += "<main>" + Gates(gates) + Diagnoses(r) + "<h2>Metrics</h2>" + Cards(r) + OfflineNotes(r);
  out +=
      "<section><h2>Rows</h2><div class=tools><input id=filter type=search placeholder=\"filter by "
      "id, "
      "diagnosis or text\"><span id=count></span><button id=allcols hidden></button></div>"
      "<table id=rows><thead><tr></tr></thead><tbody></tbody></table>"
      "<div class=pager><button id=prev>‹ prev</button><span id=pageinfo></span>"
      "<button id=next>next ›</button></div></section></main><aside id=detail></aside>";
  out += "<script id=tala-rows type=application/json>" + ScriptSafe(rows) + "</script>";
  out += "<script id=tala-metrics type=application/json>" + ScriptSafe(metrics) + "</script>";
  out += "<script id=tala-lower type=application/json>" + ScriptSafe(lower) + "</script>";
  out += "<script id=tala-core type=application/json>" + ScriptSafe(core) + "</script>";
  out += std::string("<script>") + kScript + "</script></body></html>\n";
  return out;
}

}  // namespace tala::io
