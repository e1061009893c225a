// The history page (`tala history report`, the Runs tab of `tala serve`'s dashboard): one
// self-contained file. Its data is written into the page, so it opens from disk, and a bearer
// token never has to reach a browser.

#include "history/history_json.h"
#include "history/local_store.h"
#include "io/reports/markup_escape.h"
#include "io/reports/page_slots.h"

namespace tala::history {

namespace {

constexpr const char* kPage = R"HTML(<!doctype html><html lang=en><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1"><title>tala history</title><style>
:root{--fg:#1d2433;--muted:#667085;--line:#e4e7ec;--bg:#f7f8fa;--card:#fff;--bad:#c4320a;--ok:#12805c;--accent:#3a5bd9;--prod:#b5470b}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
header{background:#1d2433;color:#fff;padding:16px 28px}header h1{margin:0;font-size:20px}header p{margin:4px 0 0;opacity:.75;font-size:13px}
main{padding:18px 28px;max-width:1400px}h2{font-size:16px;margin:22px 0 10px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px}.card h3{margin:0 0 2px;font-size:14px}.card p{margin:0 0 6px;color:var(--muted);font-size:12px}
svg.trend{width:100%;height:auto}svg .axis{stroke:var(--line)}svg text{font-size:10px;fill:var(--muted)}
svg .seg{stroke:#98a2b3;stroke-dasharray:4 3}svg .line{fill:none;stroke:var(--accent);stroke-width:2}svg .whisker{stroke:var(--accent);opacity:.55}
svg .run{fill:var(--accent);cursor:pointer}svg .run.drop{fill:var(--bad)}svg .dropmark{fill:var(--bad)}svg .prod{fill:none;stroke:var(--prod);stroke-width:1.5;stroke-dasharray:5 3}svg .prodpt{fill:var(--prod)}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid var(--line)}th,td{padding:6px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
tbody tr.runrow{cursor:pointer}tbody tr.runrow:hover{background:#eef2ff}.drop{color:var(--bad);font-weight:600}.better{color:var(--ok);font-weight:600}.muted{color:var(--muted)}
#run-panel{display:none;margin-top:12px}#run-panel.open{display:block}.legend span{margin-right:14px;font-size:12px}.legend i{display:inline-block;width:18px;height:3px;margin-right:5px;vertical-align:middle}
select,button{font:inherit;padding:4px 8px}code{background:#eef0f4;padding:1px 4px;border-radius:4px}
</style></head><body><header><h1>tala history</h1><p id=stamp></p></header><main>
<div class=legend><span><i style="background:var(--accent)"></i>run mean, 95% interval</span><span><i style="background:var(--bad)"></i>drop: the paired interval against the previous comparable run excludes 0 and the change exceeds the minimum effect</span><span id=prod-legend hidden><i style="background:var(--prod)"></i>production window mean</span><span><i style="background:#98a2b3"></i>new segment: another dataset, judge or metric version (never compared across)</span></div>
<p id=headline></p>
<h2>Metrics across runs</h2><div class=charts id=charts></div>
<h2>Runs</h2><p class=muted>Click a run for its report.</p>
<table id=runs><thead><tr><th>run</th><th>when (UTC)</th><th>label</th><th>tags</th><th>judge</th><th>rows</th><th>drops</th></tr></thead><tbody></tbody></table>
<div id=run-panel class=card></div>
<h2>Compare two runs</h2><div class=card><label>base <select id=base></select></label> <label>candidate <select id=cand></select></label> <button id=compare>Compare</button>
<div id=compare-out></div></div>
</main>
<script id=tala-runs type=application/json>@RUNS@</script>
<script id=tala-trends type=application/json>@TRENDS@</script>
<script id=tala-values type=application/json>@VALUES@</script>
<script id=tala-production type=application/json>@PRODUCTION@</script>
<script>
(function(){
'use strict';
var errors=[];window.addEventListener('error',function(e){errors.push(String(e.message));});
function data(id){return JSON.parse(document.getElementById(id).textContent);}
var runs=data('tala-runs').runs,trends=data('tala-trends'),values=data('tala-values'),prod=data('tala-production');
var NS='http://www.w3.org/2000/svg',W=800,H=160,L=34;
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;return e;}
function sv(tag,attrs){var e=document.createElementNS(NS,tag);for(var k in attrs||{})e.setAttribute(k,attrs[k]);return e;}
function f(v,d){return v===null||v===undefined?'–':Number(v).toFixed(d===undefined?4:d);}
function sign(v){return (v>=0?'+':'')+f(v);}
function when(iso){return iso?iso.replace('T',' ').replace('Z','').slice(0,16):'';}
function ms(iso){var t=Date.parse(iso);return isNaN(t)?0:t;}
var byId={};runs.forEach(function(r){byId[r.id]=r;});
document.getElementById('stamp').textContent=runs.length+' runs'+(runs.length?' from '+when(runs[0].time)+' to '+when(runs[runs.length-1].time)+' UTC':'')+
 (prod&&prod.buckets?' · production windows from tala serve':'');
if(prod&&prod.buckets)document.getElementById('prod-legend').hidden=false;
// The time axis spans the runs and, on a serve, production's windows.
var t0=Infinity,t1=-Infinity;runs.forEach(function(r){var t=ms(r.time);t0=Math.min(t0,t);t1=Math.max(t1,t);});
if(prod&&prod.buckets&&prod.buckets.length){t0=Math.min(t0,prod.start*1000);t1=Math.max(t1,(prod.start+prod.seconds*prod.buckets.length)*1000);}
if(!(t1>t0)){t0-=3600e3;t1+=3600e3;}
function x(t){return L+(t-t0)/(t1-t0)*(W-L-10);}
var drops=0,dropsOf={};
// The headline: what the newest run changed, named (N9: a reader had to find the red dot).
function headline(){var last=runs.length?runs[runs.length-1]:null;if(!last)return 'no run yet';
 var said=[];trends.forEach(function(tr){tr.points.forEach(function(p){if(p.run.id===last.id&&p.drop)said.push(tr.metric+' dropped by '+f(Math.abs(p.change),3)+' (to '+f(p.mean,3)+')');});});
 return 'newest run '+last.id+(last.label?' ('+last.label+')':'')+', '+when(last.time)+' UTC: '+(said.length?said.join('; '):'no drop against the run before it');}
var charts=document.getElementById('charts');
trends.forEach(function(tr){
 var lo=0,hi=1;tr.points.forEach(function(p){if(p.ci_low!==null)lo=Math.min(lo,p.ci_low);if(p.ci_high!==null)hi=Math.max(hi,p.ci_high);});
 function y(v){return 8+(1-(v-lo)/(hi-lo||1))*(H-16);}
 var card=el('div',{'class':'card','data-metric':tr.metric});card.appendChild(el('h3',{},tr.metric));
 var flagged=tr.points.filter(function(p){return p.drop;});
 card.appendChild(el('p',{},tr.points.length+' runs · '+(tr.direction==='lower'?'lower':'higher')+' is better · '+(flagged.length?flagged.length+' drop'+(flagged.length>1?'s':''):'no drop')+' (minimum effect '+tr.min_effect+')'));
 var svg=sv('svg',{'class':'trend','viewBox':'0 0 '+W+' '+(H+30),'data-metric':tr.metric});
 // The time axis: when the first, the middle and the last moment of the span were (UTC).
 [t0,(t0+t1)/2,t1].forEach(function(t,i){var label=sv('text',{x:i===0?L:i===1?x(t)-30:W-72,y:H+27,'class':'tick-label'});
  label.textContent=new Date(t).toISOString().replace('T',' ').slice(5,16);svg.appendChild(label);});
 [lo,(lo+hi)/2,hi].forEach(function(v){svg.appendChild(sv('line',{'class':'axis',x1:L,x2:W,y1:y(v),y2:y(v)}));var t=sv('text',{x:2,y:y(v)+3});t.textContent=Number(v).toFixed(2);svg.appendChild(t);});
 var seg=null,pts=[];
 function flush(){if(pts.length>1)svg.appendChild(sv('polyline',{'class':'line',points:pts.join(' ')}));pts=[];}
 tr.points.forEach(function(p){var px=x(ms(p.run.time));
  if(seg!==null&&p.segment!==seg){flush();svg.appendChild(sv('line',{'class':'seg',x1:px-2,x2:px-2,y1:4,y2:H}));}
  seg=p.segment;pts.push(px+','+y(p.mean));});
 flush();
 if(prod&&prod.buckets){var pp=[];prod.buckets.forEach(function(b,i){var s=b.metrics&&b.metrics[tr.metric];if(s)pp.push(x((prod.start+prod.seconds*(i+0.5))*1000)+','+y(s.mean));});
  if(pp.length)svg.appendChild(sv('polyline',{'class':'prod',points:pp.join(' ')}));
  pp.forEach(function(q){var c=q.split(',');svg.appendChild(sv('rect',{'class':'prodpt',x:c[0]-2.5,y:c[1]-2.5,width:5,height:5}));});}
 tr.points.forEach(function(p){var px=x(ms(p.run.time));
  svg.appendChild(sv('line',{'class':'whisker',x1:px,x2:px,y1:y(p.ci_low),y2:y(p.ci_high)}));
  var c=sv('circle',{'class':'run'+(p.drop?' drop':''),cx:px,cy:y(p.mean),r:p.drop?5:3.5,'data-run':p.run.id});
  var tip=sv('title');tip.textContent='run '+p.run.id+(p.run.label?' '+p.run.label:'')+': '+f(p.mean)+(p.compared?' (change '+sign(p.change)+', ['+sign(p.change_low)+', '+sign(p.change_high)+'])':'')+(p.drop?' DROP':'')+(p.new_segment?' · new segment: '+p.new_segment:'');
  c.appendChild(tip);c.addEventListener('click',function(){openRun(p.run.id);});svg.appendChild(c);
  if(p.drop){drops++;(dropsOf[p.run.id]=dropsOf[p.run.id]||[]).push(tr.metric);
   svg.appendChild(sv('path',{'class':'dropmark',d:'M'+(px-5)+' '+(H+2)+' L'+(px+5)+' '+(H+2)+' L'+px+' '+(H+11)+' Z','data-run':p.run.id}));}
 });
 card.appendChild(svg);charts.appendChild(card);});
var head=document.getElementById('headline');head.textContent=headline();if(drops)head.className='drop';
var tbody=document.querySelector('#runs tbody');
runs.slice().reverse().forEach(function(r){var tr=el('tr',{'class':'runrow','data-run':r.id});
 tr.appendChild(el('td',{},String(r.id)));tr.appendChild(el('td',{},when(r.time)));tr.appendChild(el('td',{},r.label));
 tr.appendChild(el('td',{},r.tags.map(function(t){return t[0]+'='+t[1];}).join(' ')));tr.appendChild(el('td',{},r.judge));tr.appendChild(el('td',{},String(r.rows)));
 var d=dropsOf[r.id];tr.appendChild(el('td',d?{'class':'drop'}:{},d?'drop: '+d.join(', '):''));
 tr.addEventListener('click',function(){openRun(r.id);});tbody.appendChild(tr);});
function pointOf(metric,id){for(var i=0;i<trends.length;i++){if(trends[i].metric!==metric)continue;for(var j=0;j<trends[i].points.length;j++)if(trends[i].points[j].run.id===id)return trends[i].points[j];}return null;}
function openRun(id){var r=byId[id],panel=document.getElementById('run-panel');panel.textContent='';panel.className='card open';
 panel.appendChild(el('h3',{id:'run-title'},'Run '+r.id+(r.label?': '+r.label:'')));
 panel.appendChild(el('p',{},when(r.time)+' UTC · '+r.rows+' rows · judge '+r.judge+' · dataset '+r.dataset+' · golden set '+r.golden_digest.slice(0,12)));
 var links=el('p');[['results',r.results],['report',r.report]].forEach(function(k){if(k[1]){links.appendChild(document.createTextNode(k[0]+': '));links.appendChild(el('a',{href:'file://'+k[1]},k[1]));links.appendChild(document.createTextNode('  '));}});
 panel.appendChild(links);
 var t=el('table'),h=el('tr');['metric','mean','95% interval','rows','change vs previous','paired 95% interval',''].forEach(function(c){h.appendChild(el('th',{},c));});t.appendChild(h);
 r.metrics.forEach(function(m){var p=pointOf(m.key,r.id),row=el('tr');row.appendChild(el('td',{},m.key));row.appendChild(el('td',{},f(m.mean)));
  row.appendChild(el('td',{},'['+f(m.ci_low)+', '+f(m.ci_high)+']'));row.appendChild(el('td',{},String(m.scored)));
  row.appendChild(el('td',{},p&&p.compared?sign(p.change)+' (vs run '+p.base_id+', '+p.pairs+' pairs)':p&&p.new_segment?'new segment: '+p.new_segment:'–'));
  row.appendChild(el('td',{},p&&p.compared?'['+sign(p.change_low)+', '+sign(p.change_high)+']':''));
  row.appendChild(el('td',p&&p.drop?{'class':'drop'}:{},p&&p.drop?'drop':''));t.appendChild(row);});
 panel.appendChild(t);panel.scrollIntoView({block:'nearest'});}
// Any two runs, paired by row id as tala compare pairs them: the mean difference and the normal
// 95% interval of the row differences.
var base=document.getElementById('base'),cand=document.getElementById('cand');
runs.forEach(function(r,i){[base,cand].forEach(function(s){s.appendChild(el('option',{value:r.id},'run '+r.id+(r.label?' '+r.label:'')+' · '+when(r.time)));});});
if(runs.length>1){base.selectedIndex=runs.length-2;cand.selectedIndex=runs.length-1;}
function compare(a,b){var out=document.getElementById('compare-out');out.textContent='';var ra=byId[a],rb=byId[b];
 if(!values||!values.ids){out.appendChild(el('p',{},'These runs are too large to embed their rows in the page: run '));out.lastChild.appendChild(el('code',{},'tala compare '+ra.results+' '+rb.results));return 0;}
 var ia={};(values.ids[a]||[]).forEach(function(id,i){ia[id]=i;});
 var t=el('table',{id:'compare-table'}),h=el('tr');['metric','pairs','base','candidate','difference','95% interval','verdict'].forEach(function(c){h.appendChild(el('th',{},c));});t.appendChild(h);
 var rows=0;rb.metrics.forEach(function(m){var va=(values.values[a]||{})[m.key],vb=(values.values[b]||{})[m.key];if(!va||!vb)return;
  var d=[],sa=0,sb=0;(values.ids[b]||[]).forEach(function(id,i){var j=ia[id];if(j===undefined||va[j]===null||vb[i]===null)return;d.push(vb[i]-va[j]);sa+=va[j];sb+=vb[i];});
  if(!d.length)return;var n=d.length,mean=0;d.forEach(function(v){mean+=v;});mean/=n;var ss=0;d.forEach(function(v){ss+=(v-mean)*(v-mean);});
  var half=n>1?1.959964*Math.sqrt(ss/(n-1)/n):0,lo=mean-half,hi=mean+half,lower=m.direction==='lower';
  var verdict=lo>0?(lower?'worse':'better'):hi<0?(lower?'better':'worse'):'no detectable change';
  var row=el('tr');[m.key,String(n),f(sa/n),f(sb/n),sign(mean),'['+sign(lo)+', '+sign(hi)+']'].forEach(function(c){row.appendChild(el('td',{},c));});
  row.appendChild(el('td',{'class':verdict==='worse'?'drop':verdict==='better'?'better':''},verdict));t.appendChild(row);rows++;});
 out.appendChild(t);out.appendChild(el('p',{'class':'muted'},'Rows pair by id. tala compare '+(ra.results||'BASE')+' '+(rb.results||'CANDIDATE')+' gives the bootstrap interval and the rows that moved most.'));return rows;}
document.getElementById('compare').addEventListener('click',function(){compare(Number(base.value),Number(cand.value));});
if(location.hash==='#selftest'){var out=[];try{
 out.push('charts='+document.querySelectorAll('svg.trend').length+'/'+trends.length);
 var marks=document.querySelectorAll('svg .dropmark').length;out.push('drops='+marks+'/'+drops);
 out.push('runs='+tbody.children.length+'/'+runs.length);
 var opened=0;if(runs.length){tbody.firstChild.click();opened=document.getElementById('run-title').textContent.indexOf('Run '+runs[runs.length-1].id)===0?1:0;}
 out.push('open='+opened);
 var compared=runs.length>1&&values&&values.ids?compare(runs[0].id,runs[runs.length-1].id):-1;out.push('compare='+compared);
 out.push('prod='+document.querySelectorAll('svg .prod').length);
 var ok=document.querySelectorAll('svg.trend').length===trends.length&&marks===drops&&tbody.children.length===runs.length&&(runs.length===0||opened===1)&&compared!==0&&errors.length===0;
 out.unshift('ok='+(ok?1:0));}catch(e){errors.push(String(e));out.unshift('ok=0');}
 out.push('errors='+errors.length+(errors.length?' '+errors.join('; '):''));
 document.body.appendChild(el('pre',{'id':'selftest-result'},'SELFTEST '+out.join(' ')));}
})();
</script></body></html>
)HTML";

}  // namespace

std::string RenderHistoryPage(const std::vector<HistoryRun>& runs, const std::vector<Trend>& trends,
                              const std::string& values_json, const std::string& production_json) {
  std::string trends_json = "[";
  for (size_t i = 0; i < trends.size(); ++i) {
    if (i) trends_json += ',';
    trends_json += TrendJson(trends[i]);
  }
  trends_json += "]";
  std::string page = kPage;
  // From the last slot to the first, so no text put in holds a slot still to be filled.
  io::FillSlot(page, "@PRODUCTION@",
               io::ScriptJson(production_json.empty() ? "null" : production_json));
  io::FillSlot(page, "@VALUES@", io::ScriptJson(values_json.empty() ? "null" : values_json));
  io::FillSlot(page, "@TRENDS@", io::ScriptJson(trends_json));
  io::FillSlot(page, "@RUNS@", io::ScriptJson(RunsJson(runs)));
  return page;
}

}  // namespace tala::history
