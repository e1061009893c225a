// Service::ScorePending: the background scoring of sampled rows, with the offline or replay
// judge in this thread, or an LLM judge through the runtime (its cache, retries, rate limits),
// within the daily cost budget.

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <unordered_map>

#include "analysis/diagnosis.h"
#include "engine/conversation_turns.h"
#include "engine/row_scorer.h"
#include "engine/run_tally.h"
#include "io/readers/row_parser.h"
#include "io/writers/results_jsonl_writer.h"
#include "judges/task_plan.h"
#include "runtime/clock.h"
#include "serve/service_impl.h"

namespace tala {

namespace {

struct Waiting {
  int64_t seq;
  double ts;
  std::string body;
  std::string tags;  // the row's tags object, for the aggregates
};

struct Scored {
  int64_t seq = 0;
  double ts = 0;
  std::string tags;
  std::string state;  // scored | failed | skipped
  std::string diagnosis, result;
  std::vector<std::pair<std::string, double>> values;
};

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The row's scores and diagnosis from its result (a row's, or a conversation's joined from its
// turns).
Scored Finish(const Waiting& w, io::RowResult& result, const analysis::DiagnosisRule& rule) {
  Scored out{w.seq, w.ts, w.tags, "scored", "", "", {}};
  bool failed = !result.status.ok();
  for (const io::RowScore& score : result.scores) {
    failed = failed || score.failed;
    if (score.value.value) {
      out.values.emplace_back(std::string(score.key), *score.value.value);
    }
  }
  if (failed) out.state = "failed";
  DiagnoseResult(result, rule);
  out.diagnosis = result.diagnosis;
  out.result = io::FormatResultLine(result);
  return out;
}

// USD spent on judge calls over the last day. REQUIRES: s.mu held.
double SpentToday(Service::Impl& s, double now) {
  Stmt q(s.db, "SELECT TOTAL(cost) FROM judge_spend WHERE at >= ?1");
  q.Real(1, now - 86400);
  return q.Step() ? sqlite3_column_double(q.get(), 0) : 0;
}

Status Store(Service::Impl& s, const std::vector<Scored>& done, int64_t calls, double cost,
             double now) {
  TALA_RETURN_IF_ERROR(s.Exec("BEGIN IMMEDIATE"));
  Stmt mark(s.db,
            "UPDATE rows SET state = ?2, diagnosis = ?3, result = ?4 WHERE seq = ?1 AND "
            "state = 'pending'");
  Stmt value(s.db, "INSERT OR REPLACE INTO scores (seq, metric, value, ts) VALUES (?1,?2,?3,?4)");
  bool ok = true;
  serve::AggDelta delta, capped_at_ingest;  // a capped tag value was counted when it came in
  for (const Scored& d : done) {
    mark.Int(1, d.seq);
    mark.Text(2, d.state);
    mark.Text(3, d.diagnosis);
    mark.Text(4, d.result);
    ok = ok && mark.Done() == SQLITE_DONE;
    mark.Reset();
    // A row another pass already finished is not counted twice.
    if (ok && sqlite3_changes(s.db) == 1) {
      serve::Aggregates::Scored(delta, d.ts, s.agg->TagsOf(d.tags, capped_at_ingest), d.state,
                                d.diagnosis, d.values);
    }
    for (const auto& [metric, v] : d.values) {
      if (!ok) break;
      value.Int(1, d.seq);
      value.Text(2, metric);
      value.Real(3, v);
      value.Real(4, d.ts);
      ok = value.Done() == SQLITE_DONE;
      value.Reset();
    }
  }
  if (ok && calls > 0) {
    Stmt spend(s.db, "INSERT INTO judge_spend (at, calls, cost) VALUES (?1, ?2, ?3)");
    spend.Real(1, now);
    spend.Int(2, calls);
    spend.Real(3, cost);
    ok = spend.Done() == SQLITE_DONE;
  }
  if (ok && !serve::Aggregates::Stage(s.db, delta).ok()) ok = false;
  if (!ok) {
    std::string message = sqlite3_errmsg(s.db);
    (void)s.Exec("ROLLBACK");
    return IoError("cannot store scores: " + message);
  }
  TALA_RETURN_IF_ERROR(s.Exec("COMMIT"));
  s.agg->Apply(delta);
  std::lock_guard<std::mutex> stats(s.stats_mu);
  s.judge_calls += static_cast<double>(calls);
  s.judge_cost += cost;
  return OkStatus();
}

// Past --max-pending rows waiting, the oldest are skipped (state skipped, counted in
// rows_skipped) so that the newest traffic is what gets scored and the backlog stays bounded.
Status SkipBacklog(Service::Impl& s, double now) {
  std::lock_guard<std::mutex> lock(s.mu);
  const int64_t over = s.pending - s.options.max_pending;
  if (over <= 0) return OkStatus();
  std::vector<Scored> skipped;
  Stmt oldest(s.db, "SELECT seq, ts, tags FROM rows WHERE state = 'pending' ORDER BY seq LIMIT ?1");
  oldest.Int(1, over);
  while (oldest.Step()) {
    Scored d;
    d.seq = sqlite3_column_int64(oldest.get(), 0);
    d.ts = sqlite3_column_double(oldest.get(), 1);
    d.tags = oldest.Column(2);
    d.state = "skipped";
    d.result = "skipped: more than --max-pending (" + std::to_string(s.options.max_pending) +
               ") rows were waiting to be scored";
    skipped.push_back(std::move(d));
  }
  TALA_RETURN_IF_ERROR(Store(s, skipped, 0, 0, now));
  s.pending -= static_cast<int64_t>(skipped.size());
  ForgetScored(s);
  return OkStatus();
}

}  // namespace

void ForgetScored(Service::Impl& s) {
  // The oldest row still waiting (the index on state and seq finds it at once).
  Stmt oldest(s.db, "SELECT MIN(seq) FROM rows WHERE state = 'pending'");
  const bool any = oldest.Step() && sqlite3_column_type(oldest.get(), 0) != SQLITE_NULL;
  const int64_t first = any ? sqlite3_column_int64(oldest.get(), 0) : 0;
  std::lock_guard<std::mutex> stats(s.stats_mu);
  if (!any) {
    s.waiting_since.clear();
    return;
  }
  while (!s.waiting_since.empty() && s.waiting_since.front().first < first) {
    s.waiting_since.pop_front();
  }
}

double Service::ScoringLag(double now) const {
  std::lock_guard<std::mutex> stats(impl_->stats_mu);
  if (impl_->waiting_since.empty()) return 0;
  return std::max(0.0, now - impl_->waiting_since.front().second);
}

Result<int64_t> Service::ScorePending(int max_rows) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> scoring(s.score_mu);
  const double now = Now();
  std::vector<Waiting> batch;
  bool over_budget = false;
  TALA_RETURN_IF_ERROR(SkipBacklog(s, now));
  {
    std::lock_guard<std::mutex> lock(s.mu);
    Stmt pick(s.db,
              "SELECT seq, ts, body, tags FROM rows WHERE state = 'pending' ORDER BY seq LIMIT ?1");
    pick.Int(1, max_rows);
    while (pick.Step()) {
      batch.push_back({sqlite3_column_int64(pick.get(), 0), sqlite3_column_double(pick.get(), 1),
                       pick.Column(2), pick.Column(3)});
    }
    over_budget =
        s.llm && s.options.max_cost_per_day > 0 && SpentToday(s, now) >= s.options.max_cost_per_day;
  }
  if (batch.empty()) return 0;
  // Scored outside the lock: ingest goes on meanwhile.
  std::vector<Scored> done(batch.size());
  std::vector<std::unique_ptr<Sample>> samples(batch.size());
  simdjson::dom::parser parser;
  static const std::string kStored = "stored row";
  for (size_t i = 0; i < batch.size(); ++i) {
    done[i] = {batch[i].seq, batch[i].ts, batch[i].tags, "failed", "", "", {}};
    if (over_budget) {
      done[i].state = "skipped";
      done[i].result = "skipped: the daily judge budget is spent";
      continue;
    }
    simdjson::dom::element row;
    auto sample = parser.parse(batch[i].body).get(row)
                      ? Result<Sample>(Internal("unreadable stored row"))
                      : io::ParseRow(row, {kStored, batch[i].seq, batch[i].seq});
    if (sample) {
      samples[i] = std::make_unique<Sample>(std::move(*sample));
    } else {
      done[i].result = sample.error().ToString();
    }
  }
  analysis::DiagnosisRule rule{s.options.diagnosis_threshold, s.options.diagnosis_thresholds};
  int64_t calls = 0;
  double cost = 0;
  // With conversation metrics, a conversation row is judged turn by turn (each turn once, on
  // its own passages) and its turns joined back into the row's result, as tala eval does.
  const bool by_turns = ScoresTurns(s.metrics);
  ConversationAssembler conversations(s.metrics);
  std::unordered_map<const Sample*, size_t> index;  // a row's sample (or conversation) -> i
  auto finish_conversation = [&](io::RowResult& result) -> Status {
    const size_t i = index.at(&result.sample);
    done[i] = Finish(batch[i], result, rule);
    return OkStatus();
  };
  // The samples to judge for row i: its turns (the conversation they hold is the one the
  // assembler answers with), or itself.
  auto judged = [&](size_t i) {
    std::vector<std::unique_ptr<Sample>> out = SamplesToJudge(std::move(samples[i]), by_turns);
    for (const auto& sample : out) {
      index[sample.get()] = i;
      if (sample->conversation) index[sample->conversation.get()] = i;
    }
    return out;
  };
  auto judged_one = [&](const Sample& sample, io::RowResult& result) -> Status {
    if (sample.turn > 0) return conversations.Add(result, finish_conversation);
    done[index.at(&sample)] = Finish(batch[index.at(&sample)], result, rule);
    return OkStatus();
  };
  if (!over_budget && !s.llm) {
    RowScorer scorer(s.metrics, s.judge.get(), s.judge->name());
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!samples[i]) continue;
      for (const auto& sample : judged(i)) {
        // The verdicts outlive the row result, which points at them for the drill-down.
        Result<Verdicts> verdicts = scorer.Ask(*sample);
        io::RowResult result = scorer.ScoreWith(*sample, verdicts);
        TALA_RETURN_IF_ERROR(judged_one(*sample, result));
      }
    }
  } else if (!over_budget) {
    // The runtime calls the model for many rows at once and hands each back when it is done.
    TALA_ASSIGN_OR_RETURN(auto runner,
                          runtime::JudgeRunner::Create(s.llm->backends, s.llm->runtime,
                                                       s.llm->cache.get(), runtime::SystemClock()));
    RowScorer scorer(s.metrics, nullptr, s.llm->judge_name);
    size_t next = 0;
    std::vector<std::unique_ptr<Sample>> queued;  // the turns of the row being handed out
    auto next_row = [&]() -> std::unique_ptr<Sample> {
      while (queued.empty()) {
        while (next < batch.size() && !samples[next]) ++next;
        if (next == batch.size()) return nullptr;
        queued = judged(next++);
        std::reverse(queued.begin(), queued.end());
      }
      std::unique_ptr<Sample> sample = std::move(queued.back());
      queued.pop_back();
      return sample;
    };
    auto plan = [&](const Sample& sample) { return judges::PlanRow(sample, s.metrics); };
    auto row_done = [&](std::unique_ptr<Sample> sample, Result<Verdicts> verdicts) -> Status {
      io::RowResult result = scorer.ScoreWith(*sample, verdicts);
      return judged_one(*sample, result);
    };
    Status run = runner->Run(next_row, plan, row_done, s.options.stop, nullptr);
    RunAccounting spent = ToRunAccounting(runner->accounting(), *s.llm, s.metrics);
    calls = spent.total.calls;
    cost = spent.total.cost_usd.value_or(0);
    {
      std::lock_guard<std::mutex> stats(s.stats_mu);
      const CallTally& t = spent.total;
      s.judge_prompt_uncached += t.prompt_tokens - t.cache_read_tokens - t.cache_write_tokens;
      s.judge_prompt_cache_read += t.cache_read_tokens;
      s.judge_prompt_cache_write += t.cache_write_tokens;
      s.judge_completion_tokens += t.completion_tokens;
    }
    // A fatal judge error (bad key, unknown model) leaves the unfinished rows pending: they
    // are scored once the judge works again.
    if (!run.ok()) {
      std::vector<Scored> finished;
      for (Scored& d : done) {
        if (!d.result.empty()) finished.push_back(std::move(d));
      }
      std::lock_guard<std::mutex> lock(s.mu);
      TALA_RETURN_IF_ERROR(Store(s, finished, calls, cost, now));
      s.pending -= static_cast<int64_t>(finished.size());
      ForgetScored(s);
      return run;
    }
  }
  std::lock_guard<std::mutex> lock(s.mu);
  TALA_RETURN_IF_ERROR(Store(s, done, calls, cost, now));
  s.pending -= static_cast<int64_t>(done.size());
  if (s.pending < 0) s.pending = 0;
  ForgetScored(s);
  return static_cast<int64_t>(done.size());
}

}  // namespace tala
