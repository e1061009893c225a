// Service::DashboardHtml: the page `tala serve` shows at /. Its data is written into the page
// when it is served (no requests from the page, so a bearer token never has to reach a
// browser); the worst rows are the HTML report itself, in an inline frame, for the same
// drill-down.

#include <simdjson.h>

#include <algorithm>
#include <cmath>

#include "history/local_store.h"
#include "io/readers/results_reader.h"
#include "io/reports/html_report.h"
#include "io/reports/markup_escape.h"
#include "io/reports/page_slots.h"
#include "io/writers/json_text.h"
#include "serve/service_impl.h"

namespace tala {

namespace {

constexpr const char* kPage = R"HTML(<!doctype html><html lang=en><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1"><meta http-equiv=refresh content=60>
<title>tala serve</title><style>
:root{--fg:#1d2433;--muted:#667085;--line:#e4e7ec;--bg:#f7f8fa;--card:#fff;--ok:#12805c;--bad:#c4320a;--accent:#3a5bd9}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2433;color:#fff;padding:16px 28px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;opacity:.7;font-size:13px}
main{padding:18px 28px;max-width:1400px}h2{font-size:16px;margin:22px 0 10px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px}.card h3{margin:0 0 4px;font-size:13px;color:var(--muted)}
svg.series{width:100%;height:auto}svg.series text{font-size:14px}svg.mix{width:100%;height:165px}svg .band{fill:#a9b8f0;opacity:.45}svg .line{fill:none;stroke:var(--accent);stroke-width:2}svg .axis{stroke:var(--line)}svg text{font-size:10px;fill:var(--muted)}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line)}th,td{padding:6px 9px;border-bottom:1px solid var(--line);text-align:left}
.fired{color:var(--bad);font-weight:600}.cleared{color:var(--ok);font-weight:600}.legend span{display:inline-block;margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
iframe{width:100%;height:760px;border:1px solid var(--line);border-radius:10px;background:#fff}
nav.tabs{display:flex;gap:4px;padding:0 28px;background:#1d2433}nav.tabs button{font:inherit;color:#cfd4dc;background:none;border:0;border-bottom:3px solid transparent;padding:8px 14px;cursor:pointer}
nav.tabs button.on{color:#fff;border-bottom-color:#7f9cf5}
.range{margin:8px 0 0}.range button{font:inherit;font-size:13px;background:#fff;border:1px solid var(--line);padding:4px 12px;cursor:pointer}.range button:first-child{border-radius:6px 0 0 6px}.range button:last-child{border-radius:0 6px 6px 0}.range button.on{background:var(--accent);border-color:var(--accent);color:#fff}
svg .tick{stroke:#d0d5dd;stroke-dasharray:2 3}section[hidden]{display:none}iframe#runs-frame{height:1400px}
</style></head><body><header><h1>tala serve</h1><p id=stamp></p></header>
<nav class=tabs><button id=tab-production class=on>Production</button><button id=tab-runs>Runs</button></nav><main><section id=production>
<div class=range><button id=range-day class=on>last 24 hours</button><button id=range-week>last 7 days</button></div>
<h2 id=charts-title></h2><div class=charts id=charts></div>
<h2>Traffic</h2><div class=card><h3 id=traffic-title></h3><svg class=mix id=traffic viewBox="0 0 800 165" preserveAspectRatio=none></svg></div>
<h2>Diagnosis mix over time</h2><div class=card><div class=legend id=legend></div><svg class=mix id=mix viewBox="0 0 800 165" preserveAspectRatio=none></svg></div>
<h2>Alerts</h2><table id=alerts><thead><tr><th>rule</th><th>state</th><th>since</th></tr></thead><tbody></tbody></table>
<table id=history><thead><tr><th>when</th><th>rule</th><th>event</th><th>mean</th><th>rows</th></tr></thead><tbody></tbody></table>
<h2>What your documents lack (last 7 days)</h2><p id=gaps-title></p><table id=gaps><thead><tr><th>share of questions</th><th>questions</th><th>intent (its most asked wording)</th></tr></thead><tbody></tbody></table>
<h2>Worst rows of the last day</h2><iframe id=worst title="worst rows" srcdoc="@WORST@"></iframe>
</section><section id=runs hidden><h2>Runs: CI and other runs added to this store (tala history add, tala ci with [history])</h2>
<iframe id=runs-frame title="runs" srcdoc="@RUNS@"></iframe></section>
</main>
<script id=tala-series type=application/json>@SERIES@</script>
<script id=tala-day type=application/json>@DAY@</script>
<script id=tala-alerts type=application/json>@ALERTS@</script>
<script id=tala-metrics type=application/json>@METRICS@</script>
<script id=tala-gaps type=application/json>@GAPS@</script>
<script>
(function(){
'use strict';
var errors=[];window.addEventListener('error',function(e){errors.push(String(e.message));});
function data(id){return JSON.parse(document.getElementById(id).textContent);}
var ranges={week:data('tala-series'),day:data('tala-day')},alerts=data('tala-alerts'),metrics=data('tala-metrics'),gaps=data('tala-gaps');
var NS='http://www.w3.org/2000/svg',W=800,H=130;
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;return e;}
function sv(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);return e;}
function when(t){return new Date(t*1000).toISOString().replace('T',' ').slice(0,16);}
function span(s){return s>=3600?Math.round(s/3600)+' h':Math.round(s/60)+' min';}
function rate(r){return r>=1?r.toFixed(1)+' rows/s':(r*60).toFixed(1)+' rows/min';}
function clear(e){while(e.firstChild)e.removeChild(e.firstChild);}
var series,B,n,range='day',names=[];
// A bucket's time on the x axis: the chart spans the window, each bucket its share of it.
function tx(t){return (t-series.start)/(series.seconds*n)*W;}function x(i){return tx(series.start+(i+0.5)*series.seconds);}
function y(v){return 5+(1-v)*(H-10);}
// Time ticks a reader can place: every 3 hours over a day, every midnight (UTC) over a week.
function ticks(svg,top,labelY){labelY=labelY||148;var step=series.seconds*n>2*86400?86400:10800,end=series.start+series.seconds*n;
 for(var t=Math.ceil(series.start/step)*step;t<end;t+=step){var d=new Date(t*1000),iso=d.toISOString();
  svg.appendChild(sv('line',{'class':'tick',x1:tx(t),x2:tx(t),y1:top,y2:150}));
  var label=step===86400?['Sun','Mon','Tue','Wed','Thu','Fri','Sat'][d.getUTCDay()]+' '+iso.slice(5,10):iso.slice(11,16);
  var txt=sv('text',{x:tx(t)+2,y:labelY,'class':'tick-label'});txt.textContent=label;svg.appendChild(txt);}}
var charts=document.getElementById('charts'),traffic=document.getElementById('traffic'),legend=document.getElementById('legend'),mix=document.getElementById('mix');
var colors={'healthy':'#12805c','retriever miss':'#c4320a','ranking noise':'#f79009','generator not grounded':'#9e2a9b','off-topic answer':'#3a5bd9'};
function draw(name){range=name;series=ranges[name];B=series.buckets;n=B.length;
 ['day','week'].forEach(function(r){document.getElementById('range-'+r).className=r===name?'on':'';});
 [charts,traffic,legend,mix].forEach(clear);
 document.getElementById('stamp').textContent='as of '+when(series.start+series.seconds*n)+' UTC · refreshes every minute';
 document.getElementById('charts-title').textContent='Metrics over the '+(name==='day'?'last 24 hours, per '+span(series.seconds):'last 7 days, per '+span(series.seconds))+' (window mean, 95% band)';
 metrics.forEach(function(m){var card=el('div',{'class':'card'});card.appendChild(el('h3',{},m));
  // Drawn at the viewBox's own proportions (height follows the width): stretched to a fixed
  // height, its tick labels were squeezed sideways (serve finding 7).
  var svg=sv('svg',{'class':'series','viewBox':'0 0 '+W+' 150','data-metric':m});
  [0,0.5,1].forEach(function(v){svg.appendChild(sv('line',{'class':'axis',x1:0,x2:W,y1:y(v),y2:y(v)}));var t=sv('text',{x:2,y:v===1?y(v)+11:y(v)-2});t.textContent=v;svg.appendChild(t);});
  ticks(svg,0);
  var pts=[];B.forEach(function(b,i){var s=b.metrics[m];if(s)pts.push([i,s]);});
  if(pts.length){var up=pts.map(function(p){return x(p[0])+','+y(p[1].ci[1]);}),down=pts.slice().reverse().map(function(p){return x(p[0])+','+y(p[1].ci[0]);});
   svg.appendChild(sv('polygon',{'class':'band',points:up.concat(down).join(' ')}));
   svg.appendChild(sv('polyline',{'class':'line',points:pts.map(function(p){return x(p[0])+','+y(p[1].mean);}).join(' ')}));
   pts.forEach(function(p){var c=sv('circle',{cx:x(p[0]),cy:y(p[1].mean),r:3,fill:'#3a5bd9'});var t=sv('title');t.textContent=when(B[p[0]].t)+': '+p[1].mean.toFixed(3)+' ('+p[1].n+' rows)';c.appendChild(t);svg.appendChild(c);});
   // The headline is the range's mean over all its rows (serve finding 7: the newest bucket, 3
   // rows, stood for a day of a million); the newest bucket follows it.
   var rows=0,sum=0;pts.forEach(function(p){rows+=p[1].n;sum+=p[1].mean*p[1].n;});
   var last=pts[pts.length-1][1];
   card.appendChild(el('div',{'class':'headline'},(name==='day'?'last 24 hours':'last 7 days')+': '+(sum/rows).toFixed(3)+' over '+rows.toLocaleString('en')+' rows'));
   card.appendChild(el('div',{},'latest '+span(series.seconds)+' with rows: '+last.mean.toFixed(3)+' ['+last.ci[0].toFixed(3)+', '+last.ci[1].toFixed(3)+'], '+last.n+' rows'));}
  else card.appendChild(el('div',{},'no scored rows in this range'));
  card.appendChild(svg);charts.appendChild(card);});
 // Rows ingested per bucket (bars) and rows scored (dots): whether scoring keeps up; the
 // backlog and how long its oldest row has waited.
 var tmax=1;B.forEach(function(b){tmax=Math.max(tmax,b.ingested||0,b.scored||0);});
 var tw=W/Math.max(1,n);
 B.forEach(function(b,i){var h=(b.ingested||0)/tmax*140;var r=sv('rect',{x:i*tw+1,y:150-h,width:Math.max(1,tw-2),height:h,fill:'#a9b8f0','class':'ingest'});
  var t=sv('title');t.textContent=when(b.t)+': '+(b.ingested||0)+' ingested, '+(b.scored||0)+' scored';r.appendChild(t);traffic.appendChild(r);
  if(b.scored)traffic.appendChild(sv('circle',{cx:i*tw+tw/2,cy:150-b.scored/tmax*140,r:2.5,fill:'#12805c'}));});
 ticks(traffic,0,162);
 var lastB=B.length?B[B.length-1]:{ingested:0};
 document.getElementById('traffic-title').textContent='rows ingested per '+span(series.seconds)+' (bars) and scored (dots); latest: '+
  rate(lastB.ingested/series.seconds)+' · waiting to be scored now: '+series.pending+' · the oldest has waited '+Math.round(series.lag||0)+' s'+
  (function(){var c=0,t=0;B.forEach(function(b){c+=b.conversations||0;t+=b.turns||0;});return c?' · conversations in the range: '+c+' ('+t+' turns)':'';})();
 names=[];B.forEach(function(b){for(var d in b.diagnoses)if(names.indexOf(d)<0)names.push(d);});
 names.forEach(function(d){var c=colors[d]||'#667085';var s=el('span');var i=el('i');i.style.background=c;s.appendChild(i);s.appendChild(document.createTextNode(d));legend.appendChild(s);});
 B.forEach(function(b,i){var total=0;for(var d in b.diagnoses)total+=b.diagnoses[d];if(!total)return;var top=150;
  names.forEach(function(d){var c=b.diagnoses[d]||0;if(!c)return;var h=c/total*140;top-=h;var r=sv('rect',{x:i*tw+1,y:top,width:Math.max(1,tw-2),height:h,fill:colors[d]||'#667085','class':'seg'});
   var t=sv('title');t.textContent=when(b.t)+': '+d+' '+c;r.appendChild(t);mix.appendChild(r);});});
 ticks(mix,0,162);}
document.getElementById('range-day').addEventListener('click',function(){draw('day');});
document.getElementById('range-week').addEventListener('click',function(){draw('week');});
draw('day');
var ab=document.querySelector('#alerts tbody');
if(!alerts.rules.length){var none=el('tr');var td=el('td',{},'no alert rules: add [[serve.alerts]] to tala.toml (docs/production.md)');td.colSpan=3;none.appendChild(td);ab.appendChild(none);}
alerts.rules.forEach(function(r){var tr=el('tr');tr.appendChild(el('td',{},r.rule));
 tr.appendChild(el('td',{'class':r.firing?'fired':'cleared'},r.firing?'firing':'ok'));tr.appendChild(el('td',{},r.since||'–'));ab.appendChild(tr);});
var hb=document.querySelector('#history tbody');alerts.history.forEach(function(e){var tr=el('tr');tr.appendChild(el('td',{},e.at));tr.appendChild(el('td',{},e.rule));
 tr.appendChild(el('td',{'class':e.event},e.event));tr.appendChild(el('td',{},e.mean===null?'no data':e.mean.toFixed(3)));tr.appendChild(el('td',{},String(e.n)));hb.appendChild(tr);});
// What the documents lack: intents of the last week that nothing answers, most asked first.
var gb=document.querySelector('#gaps tbody'),gapList=gaps.gaps?gaps.gaps.intents:[];
document.getElementById('gaps-title').textContent=gaps.error?'could not be read: '+gaps.error:
 gaps.questions+' questions in '+gaps.intents+' intents (the newest '+gaps.limit+' rows at most), read against the '+gaps.against+
 (gaps.against==='documents'?'':' (tala serve --docs tells a missing document from one the retriever never finds)')+': '+
 gapList.length+' intents, '+(gaps.gaps&&gaps.gaps.share!==null?(gaps.gaps.share*100).toFixed(1):'0')+'% of the questions, have no answer';
gapList.slice(0,25).forEach(function(g){var tr=el('tr');tr.appendChild(el('td',{},(g.share*100).toFixed(1)+'%'));
 tr.appendChild(el('td',{},String(g.questions)));tr.appendChild(el('td',{},g.question));gb.appendChild(tr);});
if(gapList.length>25){var more=el('tr');var mtd=el('td',{},'and '+(gapList.length-25)+' more: GET /v1/gaps');mtd.colSpan=3;more.appendChild(mtd);gb.appendChild(more);}
// The Runs tab: the history page (tala history report) of this database, production's window
// means drawn under the runs.
function tab(name){['production','runs'].forEach(function(t){document.getElementById(t).hidden=t!==name;document.getElementById('tab-'+t).className=t===name?'on':'';});}
document.getElementById('tab-production').addEventListener('click',function(){tab('production');});
document.getElementById('tab-runs').addEventListener('click',function(){tab('runs');});
if(location.hash==='#runs'){tab('runs');window.addEventListener('load',function(){window.scrollTo(0,0);});}
function selftest(){var out=[];try{
  var dayTicks=document.querySelectorAll('svg.series text.tick-label').length/Math.max(1,metrics.length);
  draw('week');var weekOk=document.querySelectorAll('#traffic rect.ingest').length===ranges.week.buckets.length;
  var weekTicks=document.querySelectorAll('svg.series text.tick-label').length/Math.max(1,metrics.length);draw('day');
  out.push('ranges='+(weekOk&&range==='day'?1:0));out.push('ticks='+dayTicks+','+weekTicks);
  var lines=document.querySelectorAll('svg.series polyline').length,withData=metrics.filter(function(m){return B.some(function(b){return b.metrics[m];});}).length;
  out.push('charts='+(document.querySelectorAll('svg.series').length===metrics.length&&lines===withData?1:0));
  out.push('mix='+(document.querySelectorAll('#mix rect.seg').length>0||names.length===0?1:0));
  out.push('traffic='+(document.querySelectorAll('#traffic rect.ingest').length===B.length?1:0));
  out.push('alerts='+(hb.children.length===alerts.history.length&&ab.children.length===alerts.rules.length?1:0));
  out.push('gaps='+gb.children.length);
  var doc=document.getElementById('worst').contentDocument;var row=doc.querySelector('#rows tbody tr');
  if(row)row.click();out.push('drilldown='+(row&&doc.getElementById('detail').classList.contains('open')?1:0));
  document.getElementById('tab-runs').click();var rdoc=document.getElementById('runs-frame').contentDocument;
  var labels=[].map.call(rdoc.querySelectorAll('#runs tbody tr td:nth-child(3)'),function(td){return td.textContent;});
  out.push('runs='+labels.length+(document.getElementById('runs').hidden?' hidden':' shown'));out.push('labels='+labels.join('|').replace(/ /g,'_'));
 }catch(e){errors.push(String(e));}out.push('errors='+errors.length);if(errors.length)out.push(errors.join(' | '));
 document.body.appendChild(el('pre',{'id':'selftest-result'},'SELFTEST '+out.join(' ')));}
if(location.hash==='#selftest')window.addEventListener('load',selftest);
// Where the first chart is drawn, for the screenshot test to read its pixels.
if(location.hash==='#layout')window.addEventListener('load',function(){var r=document.querySelector('svg.series').getBoundingClientRect();
 document.body.appendChild(el('pre',{'id':'layout'},'LAYOUT '+[r.left,r.top,r.width,r.height].map(Math.round).join(',')));});
})();
</script></body></html>
)HTML";

// The dashboard's gaps read the newest this many rows of the week: grouped in a few CPU seconds
// on the first load of a minute (bench_serve), where /v1/gaps may read up to kMaxGapRows.
constexpr int64_t kDashboardGapRows = 2000;

}  // namespace

Result<std::string> Service::HistoryPageHtml(const TrendOptions& options) {
  TALA_ASSIGN_OR_RETURN(auto store, history::LocalHistory::OpenFile(impl_->options.db));
  store->SetProductionSeries([this](double from, double to) {
    // A window a day over the runs' days (at most the 90 the page asks for).
    int days = std::clamp(static_cast<int>(std::ceil((to - from) / 86400)), 1, 90);
    return SeriesJson(int64_t{days} * 86400, days, to);
  });
  return store->PageHtml(options);
}

Result<std::string> Service::DashboardHtml(double now) {
  // Each range binned so that its hours can be told apart: 15 minutes over a day, 2 hours
  // over a week.
  TALA_ASSIGN_OR_RETURN(std::string day, SeriesJson(86400, 96, now));
  TALA_ASSIGN_OR_RETURN(std::string series, SeriesJson(7 * 86400, 84, now));
  TALA_ASSIGN_OR_RETURN(std::string alerts, AlertsJson());
  std::string metrics = "[";
  for (const auto& m : impl_->metrics) {
    if (metrics.size() > 1) metrics += ',';
    io::AppendJsonString(metrics, m->key());
  }
  metrics += "]";
  // The worst rows of the last day by the first metric, as the HTML report renders them.
  RowQuery worst;
  worst.since = now - 86400;
  worst.metric = impl_->metrics.front()->key();
  worst.worst_first = true;
  worst.limit = 50;
  TALA_ASSIGN_OR_RETURN(std::vector<StoredRow> rows, Rows(worst));
  io::ResultsFile results;
  simdjson::dom::parser parser;
  for (size_t i = 0; i < rows.size(); ++i) {
    simdjson::dom::element root;
    if (parser.parse(rows[i].result).get(root)) continue;
    auto row =
        io::ParseResultRow(root, "tala serve", static_cast<int64_t>(i + 1), io::RawLines::kKeep);
    if (row) results.rows.push_back(std::move(*row));
  }
  for (const auto& m : impl_->metrics) results.metric_keys.push_back(m->key());
  std::string report = io::RenderHtml(results, "tala serve: worst rows of the last day");
  TALA_ASSIGN_OR_RETURN(std::string runs, HistoryPageHtml({}));
  // The gaps of the last week; a reading that fails leaves the rest of the page standing.
  auto read = GapsJson("7d", kDashboardGapRows, now);
  std::string gaps = "{\"error\":";
  if (read) {
    gaps = *read;
  } else {
    io::AppendJsonString(gaps, read.error().ToString());
    gaps += "}";
  }
  // Filled from the last slot to the first, so that text put in never holds a slot still to
  // be filled (the runs' frame comes after the worst rows' and before the scripts: a run
  // labelled "@METRICS@" was filled first and took the metrics' slot).
  std::string page = kPage;
  io::FillSlot(page, "@GAPS@", io::ScriptJson(gaps));
  io::FillSlot(page, "@METRICS@", io::ScriptJson(metrics));
  io::FillSlot(page, "@ALERTS@", io::ScriptJson(alerts));
  io::FillSlot(page, "@DAY@", io::ScriptJson(day));
  io::FillSlot(page, "@SERIES@", io::ScriptJson(series));
  io::FillSlot(page, "@RUNS@", io::EscapeMarkup(runs));
  io::FillSlot(page, "@WORST@", io::EscapeMarkup(report));
  return page;
}

}  // namespace tala
