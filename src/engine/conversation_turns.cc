#include "engine/conversation_turns.h"

#include <cstdio>

#include "core/turn_question.h"
#include "metrics/turn_metrics.h"

namespace tala {

bool ScoresTurns(const std::vector<std::unique_ptr<Metric>>& metrics) {
  for (const auto& m : metrics) {
    if (m->info().conversation_scope != ConversationScope::kRow) return true;
  }
  return false;
}

std::vector<std::unique_ptr<Sample>> TurnSamples(
    const std::shared_ptr<const Sample>& conversation) {
  const Sample& c = *conversation;
  std::vector<size_t> ais;
  for (size_t i = 0; i < c.messages.size(); ++i) {
    if (IsAnswer(c.messages[i])) ais.push_back(i);
  }
  std::vector<std::unique_ptr<Sample>> out;
  for (size_t k = 0; k < ais.size(); ++k) {
    const bool last = k + 1 == ais.size();
    const Message& ai = c.messages[ais[k]];
    auto t = std::make_unique<Sample>();
    t->id = c.id;
    t->id_is_number = c.id_is_number;
    t->id_generated = c.id_generated;
    t->line = c.line;
    t->turn = static_cast<int>(k + 1);
    t->turns = static_cast<int>(ais.size());
    t->conversation = conversation;
    t->metadata = c.metadata;  // what a judge of the caller's own may read of the row
    t->messages.assign(c.messages.begin(),
                       last ? c.messages.end() : c.messages.begin() + ais[k] + 1);
    t->user_input = TurnQuestion(c.messages, ais[k]);
    t->response = ai.content;
    t->retrieved_contexts = ai.retrieved_contexts;
    t->retrieved_context_ids = ai.retrieved_context_ids;
    t->reference = ai.reference;
    t->verdicts = ai.verdicts;
    if (last) {
      if (!t->verdicts) t->verdicts = c.verdicts;
      // What the row gives for the conversation as a whole belongs to its last answer.
      if (!t->retrieved_contexts) t->retrieved_contexts = c.retrieved_contexts;
      if (!t->retrieved_context_ids) t->retrieved_context_ids = c.retrieved_context_ids;
      if (!t->reference) t->reference = c.reference;
      t->reference_contexts = c.reference_contexts;
      t->reference_context_ids = c.reference_context_ids;
      t->reference_context_grades = c.reference_context_grades;
      t->rubrics = c.rubrics;
      t->reference_tool_calls_json = c.reference_tool_calls_json;
      t->reference_tool_calls = c.reference_tool_calls;
      t->reference_topics = c.reference_topics;
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::unique_ptr<Sample>> SamplesToJudge(std::unique_ptr<Sample> row, bool by_turns) {
  std::vector<std::unique_ptr<Sample>> out;
  if (by_turns && row->is_multi_turn()) {
    std::shared_ptr<const Sample> conversation(std::move(row));
    out = TurnSamples(conversation);
    if (out.empty()) out.push_back(std::make_unique<Sample>(*conversation));
  } else {
    out.push_back(std::move(row));
  }
  return out;
}

Status ConversationAssembler::Add(const io::RowResult& turn, const Done& done) {
  const Sample& s = turn.sample;
  Pending& p = pending_[s.conversation.get()];
  if (!p.conversation) p.conversation = s.conversation;
  if (!turn.status.ok() && p.status.ok()) p.status = turn.status;
  io::TurnResult& t = p.turns[s.turn];
  t.turn = s.turn;
  t.question = s.user_input.value_or("");
  t.response = s.response.value_or("");
  // Its answer is the last of its messages (the last turn holds them all).
  t.message = static_cast<int>(LastAnswer(s.messages));
  for (size_t i = 0; i < turn.scores.size() && i < metrics_.size(); ++i) {
    const io::RowScore& score = turn.scores[i];
    const MetricInfo& info = metrics_[i]->info();
    if (info.conversation_scope == ConversationScope::kEachTurn) {
      std::string_view base = metrics::TurnMetricBase(score.key);
      t.scores.push_back({base.empty() ? score.key : base, score.value, score.failed});
    }
    if (s.turn == s.turns) p.last[static_cast<int>(i)] = score;
  }
  if (static_cast<int>(p.turns.size()) < s.turns) return OkStatus();

  // Every turn is in: the conversation's values.
  Pending whole = std::move(p);
  pending_.erase(s.conversation.get());
  std::vector<io::TurnResult> turns;
  for (auto& [n, tr] : whole.turns) turns.push_back(std::move(tr));
  io::RowResult row{*whole.conversation, {}, whole.status};
  for (size_t i = 0; i < metrics_.size(); ++i) {
    const Metric& m = *metrics_[i];
    if (m.info().conversation_scope != ConversationScope::kEachTurn) {
      auto it = whole.last.find(static_cast<int>(i));
      if (it != whole.last.end()) row.scores.push_back(it->second);
      continue;
    }
    // The mean over the turns that define it; the reason names the weakest turn.
    const std::string_view base = metrics::TurnMetricBase(m.key());
    const std::string_view name = base.empty() ? std::string_view(m.key()) : base;
    double sum = 0;
    int defined = 0, lowest_turn = 0;
    double lowest = 0;
    std::string lowest_reason, first_undefined;
    bool failed = false;
    for (const io::TurnResult& tr : turns) {
      for (const io::RowScore& sc : tr.scores) {
        if (sc.key != name) continue;
        if (!sc.value.value) {
          failed = failed || sc.failed;
          if (first_undefined.empty()) {
            first_undefined = "turn " + std::to_string(tr.turn) + ": " + sc.value.reason;
          }
          continue;
        }
        const bool lower = defined == 0 || (m.info().direction == Direction::kHigherIsBetter
                                                ? *sc.value.value < lowest
                                                : *sc.value.value > lowest);
        sum += *sc.value.value;
        ++defined;
        if (lower) {
          lowest = *sc.value.value;
          lowest_turn = tr.turn;
          lowest_reason = sc.value.reason;
        }
      }
    }
    io::RowScore score{m.key(), {}, false};
    if (defined == 0) {
      score.value =
          MetricValue::Undefined(first_undefined.empty() ? "no turn to score" : first_undefined);
      score.failed = failed;
    } else {
      char mean[32];
      std::snprintf(mean, sizeof mean, "%.2f", lowest);
      std::string why = "mean of " + std::to_string(defined) + " turn" + (defined == 1 ? "" : "s") +
                        "; weakest turn " + std::to_string(lowest_turn) + " (" + mean +
                        "): " + lowest_reason;
      score.value = MetricValue::Number(sum / defined, std::move(why));
    }
    row.scores.push_back(std::move(score));
  }
  row.turns = &turns;
  return done(row);
}

}  // namespace tala
