#include "judges/llm/row_calls.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "core/hash.h"
#include "core/text/language.h"
#include "judges/llm/prompts.h"
#include "judges/llm/question_calls.h"
#include "judges/llm/reply_parser.h"
#include "judges/llm/request_json.h"

namespace tala::judges::llm {

namespace {

using nlohmann::json;

constexpr TaskSet kResponseClaimTasks =
    JudgeTask::kVerifyResponseClaims | JudgeTask::kCheckClaimsAgainstReference;
constexpr TaskSet kReferenceClaimTasks =
    JudgeTask::kAttributeReferenceClaims | JudgeTask::kFindReferenceClaimsInResponse;
constexpr TaskSet kChunkTasks =
    JudgeTask::kRateChunksForReference | JudgeTask::kRateChunksForResponse;

const std::vector<std::string>& Chunks(const Sample& s) {
  static const std::vector<std::string> kNone;
  return s.retrieved_contexts ? *s.retrieved_contexts : kNone;
}

// The user message of every chat call is one JSON object holding the row's texts as string
// values, so no text in a row (a line "CONTEXT:", a fake "[2] ..." chunk, "ignore the
// instructions above") can open a section of its own: the prompts say that everything inside
// the object is material to judge. Keys appear in this order: fields, question, answer,
// reference, contexts.
Request::array_t FieldList(std::initializer_list<std::pair<bool, const char*>> fields) {
  Request::array_t out;
  for (auto [wanted, name] : fields) {
    if (wanted) out.emplace_back(name);
  }
  return out;
}

Request::array_t Contexts(const std::vector<std::string>& chunks, int begin, int end) {
  Request::array_t out;
  for (int i = begin; i < end; ++i) out.push_back(Request{{"n", i + 1}, {"text", chunks[i]}});
  return out;
}

const json kString = JsonType("string");
const json kBool = JsonType("boolean");
const json kInt = JsonType("integer");

ModelCall Chat(CallKind kind, TaskSet tasks, std::string user, const json& schema) {
  return ChatCall(kind, CallKindName(kind), tasks, std::move(user), schema);
}

double Cosine(const std::vector<double>& a, const std::vector<double>& b) {
  double dot = 0, na = 0, nb = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na > 0 && nb > 0 ? dot / std::sqrt(na * nb) : 0.0;
}

}  // namespace

const char* CallKindName(CallKind kind) {
  switch (kind) {
    case CallKind::kResponseClaims:
      return "response_claims";
    case CallKind::kReferenceClaims:
      return "reference_claims";
    case CallKind::kRateChunks:
      return "rate_chunks";
    case CallKind::kGenerateQuestions:
      return "generate_questions";
    case CallKind::kExtractEntities:
      return "extract_entities";
    case CallKind::kRowVerdicts:
      return "row_verdicts";
    case CallKind::kEmbed:
      return "embeddings";
    case CallKind::kCriteria:
      return "criteria";
    case CallKind::kRating:
      return "rating";
    case CallKind::kGoal:
      return "agent_goal";
    case CallKind::kTopics:
      return "topics";
    case CallKind::kSqlEquivalence:
      return "sql_equivalence";
    case CallKind::kSummaryQuestions:
      return "summary_questions";
    case CallKind::kSummaryAnswers:
      return "summary_answers";
    case CallKind::kGEvalSteps:
      return "g_eval_steps";
    case CallKind::kGEvalScore:
      return "g_eval_score";
    case CallKind::kTestsetQuestion:
      return "testset_question";
    case CallKind::kTestsetReference:
      return "testset_reference";
    case CallKind::kSimulateUser:
      return "simulate_user";
  }
  return "?";
}

const char* LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kSeparate:
      return "separate";
    case Layout::kRowFirst:
      return "row-first";
    case Layout::kCombined:
      return "combined";
    case Layout::kAuto:
      return "auto";
  }
  return "?";
}

std::string PromptName(const ModelCall& call) {
  if (call.kind == CallKind::kEmbed || call.prompt_id.empty()) return "embeddings";
  return call.prompt_id.substr(0, call.prompt_id.find('@'));
}

std::string QuestionText(const Sample& s) {
  if (s.user_input) return *s.user_input;
  std::string out;
  size_t turns = s.messages.size();
  // The final assistant turn is the answer under review: the turns before it are its question.
  if (turns > 1 && s.messages.back().type == Message::Type::kAi && s.response &&
      s.messages.back().content == *s.response) {
    --turns;
  }
  for (size_t i = 0; i < turns; ++i) {
    const Message& m = s.messages[i];
    const char* role = m.type == Message::Type::kHuman ? "user"
                       : m.type == Message::Type::kAi  ? "assistant"
                                                       : "tool";
    out += (out.empty() ? "" : "\n") + std::string(role) + ": " + m.content;
  }
  return out;
}

RowCalls::RowCalls(const Sample& sample, RowPlan plan, const CallOptions& options)
    : sample_(sample),
      tasks_(plan.tasks),
      options_(options),
      questions_(sample, std::move(plan.questions)) {
  // Claims and generated questions come back in the row's language when the request names it,
  // so relevancy compares a question with questions in its own language.
  if (const text::Language l = text::DetectRowLanguage(sample); l.code != "en") {
    language_ = text::LanguageName(l.code);
  }
  // The row's texts with a NUL between fields, so text moved from one field to the next makes
  // another key. The key only routes a row's calls to one provider cache: a collision costs a
  // cache miss, nothing else.
  std::string texts = QuestionText(sample) + '\0' + sample.response.value_or("") + '\0' +
                      sample.reference.value_or("");
  for (const std::string& c : Chunks(sample)) texts += '\0' + c;
  char key[24];
  std::snprintf(key, sizeof key, "tala-%016llx",
                static_cast<unsigned long long>(Sha256Prefix64(texts)));
  cache_key_ = key;
  const TaskSet tasks = tasks_;
  size_t n = Chunks(sample).size();
  if (Contains(tasks, JudgeTask::kRateChunksForReference)) for_reference_.resize(n);
  if (Contains(tasks, JudgeTask::kRateChunksForResponse)) for_response_.resize(n);
  if (n == 0) {  // nothing to rate: an empty ranking, answered without a call
    if (Contains(tasks, JudgeTask::kRateChunksForReference)) {
      verdicts_.chunk_relevant.emplace();
    }
    if (Contains(tasks, JudgeTask::kRateChunksForResponse)) {
      verdicts_.chunk_relevant_to_response.emplace();
    }
  }
}

void RowCalls::ShowExamples(ModelCall& call) const {
  if (!options_.examples || call.kind == CallKind::kEmbed || !call.question_keys.empty() ||
      call.messages.size() < 2) {
    return;
  }
  // Read once per row: every call of the row (and every layout auto weighs) asks the same.
  if (!example_query_) {
    example_query_ = options_.examples->Read(QuestionText(sample_), sample_.response.value_or(""));
  }
  const std::vector<const Example*> picked = options_.examples->For(call.tasks, *example_query_);
  if (picked.empty()) return;
  // Inside the request's JSON, as every text of a row is: an example's words stay data.
  Request user = Request::parse(call.messages[1].content);
  Request list = Request::array();
  for (const Example* e : picked) {
    list.push_back({{"metric", e->metric},
                    {"question", e->question},
                    {"answer", e->answer},
                    {"people_said", e->right ? "right" : "wrong"}});
  }
  user["labelled_examples"] = std::move(list);
  call.messages[1].content = Encode(user);
  call.messages[0].content += "\n\n" + GetPrompt("labelled_examples").system;
}

void RowCalls::TellLanguage(Request& user) const {
  // English rows' requests stay as they were (and their cache keys with them).
  if (!language_.empty()) user["language"] = language_;
}

// The reply shapes of the chunk-reading calls, for the separate calls and the combined one.
json ResponseClaimSchema(bool support, bool correct) {
  json claim = {{"claim", kString}, {"reason", kString}};
  if (support) claim["supported_by"] = ArrayOf(kInt);
  if (correct) claim["correct"] = kBool;
  return ArrayOf(ObjectSchema(claim));
}
json ReferenceClaimSchema(bool attributed, bool in_response) {
  json claim = {{"claim", kString}, {"reason", kString}};
  if (attributed) claim["attributed"] = kBool;
  if (in_response) claim["in_response"] = kBool;
  return ArrayOf(ObjectSchema(claim));
}
json ChunkRatingSchema(bool for_ref, bool for_resp) {
  json rating = {{"chunk", kInt}};
  if (for_ref) rating["for_reference"] = kBool;
  if (for_resp) rating["for_response"] = kBool;
  return ArrayOf(ObjectSchema(rating));
}

std::optional<ModelCall> RowCalls::CombinedCall() const {
  const Sample& s = sample_;
  const auto& chunks = Chunks(s);
  const int n = static_cast<int>(chunks.size());
  const bool response_claims = (tasks_ & kResponseClaimTasks) != 0;
  const bool reference_claims = (tasks_ & kReferenceClaimTasks) != 0;
  const bool rate_chunks = (tasks_ & kChunkTasks) != 0 && n > 0;
  if (options_.batching != Batching::kBatched ||
      response_claims + reference_claims + rate_chunks < 2) {
    return std::nullopt;
  }
  size_t chunk_chars = 0;
  for (const std::string& c : chunks) chunk_chars += c.size();
  // Chunks past the budget are rated in slices; the combined call would hold them all.
  if (rate_chunks && chunk_chars > options_.chunk_chars_budget) return std::nullopt;
  const bool support = Contains(tasks_, JudgeTask::kVerifyResponseClaims);
  const bool correct = Contains(tasks_, JudgeTask::kCheckClaimsAgainstReference);
  const bool attributed = Contains(tasks_, JudgeTask::kAttributeReferenceClaims);
  const bool in_response = Contains(tasks_, JudgeTask::kFindReferenceClaimsInResponse);
  const bool for_ref = Contains(tasks_, JudgeTask::kRateChunksForReference);
  const bool for_resp = Contains(tasks_, JudgeTask::kRateChunksForResponse);
  Request fields = Request::object();
  json parts = json::object();
  TaskSet tasks = 0;
  if (response_claims) {
    fields["answer_claims"] = FieldList({{support, "supported_by"}, {correct, "correct"}});
    parts["answer_claims"] = ResponseClaimSchema(support, correct);
    tasks |= tasks_ & kResponseClaimTasks;
  }
  if (reference_claims) {
    fields["reference_claims"] =
        FieldList({{attributed, "attributed"}, {in_response, "in_response"}});
    parts["reference_claims"] = ReferenceClaimSchema(attributed, in_response);
    tasks |= tasks_ & kReferenceClaimTasks;
  }
  if (rate_chunks) {
    fields["chunks"] = FieldList({{for_ref, "for_reference"}, {for_resp, "for_response"}});
    parts["chunks"] = ChunkRatingSchema(for_ref, for_resp);
    tasks |= tasks_ & kChunkTasks;
  }
  const bool needs_answer = response_claims || in_response || for_resp;
  const bool needs_reference = correct || reference_claims || for_ref;
  const bool needs_chunks = support || attributed || rate_chunks;
  Request user = {{"fields", std::move(fields)}, {"question", QuestionText(s)}};
  if (needs_answer) user["answer"] = s.response.value_or("");
  if (needs_reference) user["reference"] = s.reference.value_or("");
  TellLanguage(user);
  if (needs_chunks) user["contexts"] = Contexts(chunks, 0, n);
  ModelCall call = Chat(CallKind::kRowVerdicts, tasks, Encode(user), ObjectSchema(parts));
  call.chunk_begin = 0;
  call.chunk_end = rate_chunks ? n : 0;
  return call;
}

double EstimatedBilledTokens(const ModelCall& call, const CallOptions& options) {
  size_t chars = options.schema_in_prefix ? call.schema.size() : 0;
  for (const ChatMessage& m : call.messages) chars += m.content.size();
  size_t fixed = (options.schema_in_prefix ? call.schema.size() : 0) +
                 (call.messages.empty() ? 0 : call.messages.front().content.size());
  double fixed_tokens = static_cast<double>(fixed) / 4;
  double rest = static_cast<double>(chars - fixed) / 4;
  if (fixed_tokens >= static_cast<double>(options.cache_min_tokens)) {
    fixed_tokens *= options.cached_input_ratio;
  }
  return fixed_tokens + rest;
}

double RowFirstPrefixTokens(const ModelCall& call) {
  if (!call.row_first || call.messages.size() < 2) return 0;
  return static_cast<double>(call.messages[0].content.size() + call.messages[1].content.size()) / 4;
}

double EstimatedRowBilledTokens(const std::vector<ModelCall>& calls, const CallOptions& options) {
  double billed = 0;
  bool prefix_warm = false;
  for (const ModelCall& call : calls) {
    if (!call.row_first || call.messages.size() < 3) {
      billed += EstimatedBilledTokens(call, options);
      continue;
    }
    // The frame and the row's data: written to the cache by the row's first call, read from it
    // by the others, once long enough to be cached at all.
    const double prefix = RowFirstPrefixTokens(call);
    double rest = 0;
    for (size_t i = 2; i < call.messages.size(); ++i) {
      rest += static_cast<double>(call.messages[i].content.size()) / 4;
    }
    const bool cached = prefix >= static_cast<double>(options.cache_min_tokens);
    billed += rest + prefix * (!cached       ? 1.0
                               : prefix_warm ? options.cached_input_ratio
                                             : options.cache_write_ratio);
    prefix_warm = true;
  }
  return billed;
}

std::optional<std::vector<ModelCall>> RowCalls::RowFirstCalls(
    std::vector<ModelCall> separate) const {
  const auto& chunks = Chunks(sample_);
  if (options_.batching != Batching::kBatched || chunks.empty()) return std::nullopt;
  // The row's data: the texts any chunk-reading call shows, in the order the prompts describe.
  static constexpr const char* kTexts[] = {"question", "answer", "reference", "contexts"};
  std::vector<Request> requests(separate.size());
  std::set<std::string> shown;
  int readers = 0;
  for (size_t i = 0; i < separate.size(); ++i) {
    const ModelCall& call = separate[i];
    if (call.kind == CallKind::kEmbed || call.messages.size() != 2 || !call.question_keys.empty()) {
      continue;
    }
    requests[i] = Request::parse(call.messages[1].content);
    if (!requests[i].contains("contexts")) continue;
    // Chunks rated in slices (past the budget) would not share one row prefix.
    if (requests[i]["contexts"].size() != chunks.size()) return std::nullopt;
    ++readers;
    for (const char* key : kTexts) {
      if (requests[i].contains(key)) shown.insert(key);
    }
  }
  if (readers < 2) return std::nullopt;
  Request row = Request::object();
  const int n = static_cast<int>(chunks.size());
  if (shown.count("question")) row["question"] = QuestionText(sample_);
  if (shown.count("answer")) row["answer"] = sample_.response.value_or("");
  if (shown.count("reference")) row["reference"] = sample_.reference.value_or("");
  row["contexts"] = Contexts(chunks, 0, n);
  const std::string row_text = Encode(row);
  const std::string& frame = GetPrompt("row_first").system;
  for (size_t i = 0; i < separate.size(); ++i) {
    ModelCall& call = separate[i];
    if (!requests[i].is_object() || !requests[i].contains("contexts")) continue;
    // What is left of the request once the row's texts are taken out: the task's settings.
    Request settings = Request::object();
    for (auto& [key, value] : requests[i].items()) {
      if (std::find(std::begin(kTexts), std::end(kTexts), key) == std::end(kTexts)) {
        settings[key] = value;
      }
    }
    std::string instructions = std::move(call.messages[0].content);
    call.messages = {{"system", frame},
                     {"user", row_text, /*cache_break=*/true},
                     {"user", instructions + "\n\nThis task's settings:\n" + Encode(settings)}};
    call.schema.clear();
    call.row_first = true;
  }
  return separate;
}

std::vector<ModelCall> RowCalls::FirstCallsAs(Layout layout) const {
  std::vector<ModelCall> calls = ChatCalls(layout);
  for (ModelCall& call : calls) {
    call.cache_key = cache_key_;
    ShowExamples(call);
  }
  if (layout == Layout::kRowFirst) {
    if (auto row_first = RowFirstCalls(calls)) return std::move(*row_first);
  }
  return calls;
}

std::vector<ModelCall> RowCalls::ChosenFirstCalls() const {
  if (options_.layout != Layout::kAuto) return FirstCallsAs(options_.layout);
  // A tie keeps the earlier layout: the separate calls are the ones checked on real models, and
  // the row-first calls ask what they ask.
  std::vector<ModelCall> best = FirstCallsAs(Layout::kSeparate);
  double least = EstimatedRowBilledTokens(best, options_);
  // Row-first sends every call the row's whole data and a frame: short of the cache's minimum
  // that costs more than the separate calls (less only the schema it leaves out), so it is
  // weighed only where the row's start can be cached.
  size_t row_chars = GetPrompt("row_first").system.size() + QuestionText(sample_).size() +
                     sample_.response.value_or("").size() + sample_.reference.value_or("").size();
  for (const std::string& c : Chunks(sample_)) row_chars += c.size();
  const bool row_first_may_pay =
      static_cast<double>(row_chars) / 4 >= static_cast<double>(options_.cache_min_tokens);
  for (Layout layout : {Layout::kRowFirst, Layout::kCombined}) {
    if (layout == Layout::kRowFirst && !row_first_may_pay) continue;
    std::vector<ModelCall> calls = FirstCallsAs(layout);
    const double billed = EstimatedRowBilledTokens(calls, options_);
    if (billed < least) {
      least = billed;
      best = std::move(calls);
    }
  }
  return best;
}

std::vector<ModelCall> RowCalls::FirstCalls() const {
  std::vector<ModelCall> calls = ChosenFirstCalls();
  Verdicts scratch = verdicts_;
  for (ModelCall& call : questions_.FirstCalls(scratch)) {
    call.cache_key = cache_key_;
    calls.push_back(std::move(call));
  }
  return calls;
}

std::vector<ModelCall> RowCalls::SeparateChunkReadingCalls() const {
  const Sample& s = sample_;
  const auto& chunks = Chunks(s);
  const int n = static_cast<int>(chunks.size());
  const std::string question = QuestionText(s);
  const std::string answer = s.response.value_or("");
  const std::string reference = s.reference.value_or("");
  std::vector<ModelCall> calls;
  if (tasks_ & kResponseClaimTasks) {
    bool support = Contains(tasks_, JudgeTask::kVerifyResponseClaims);
    bool correct = Contains(tasks_, JudgeTask::kCheckClaimsAgainstReference);
    Request user = {{"fields", FieldList({{support, "supported_by"}, {correct, "correct"}})},
                    {"question", question},
                    {"answer", answer}};
    TellLanguage(user);
    if (correct) user["reference"] = reference;
    if (support) user["contexts"] = Contexts(chunks, 0, n);
    calls.push_back(Chat(CallKind::kResponseClaims, tasks_ & kResponseClaimTasks, Encode(user),
                         ObjectSchema({{"claims", ResponseClaimSchema(support, correct)}})));
  }
  if (tasks_ & kReferenceClaimTasks) {
    bool attributed = Contains(tasks_, JudgeTask::kAttributeReferenceClaims);
    bool in_response = Contains(tasks_, JudgeTask::kFindReferenceClaimsInResponse);
    Request user = {
        {"fields", FieldList({{attributed, "attributed"}, {in_response, "in_response"}})},
        {"question", question}};
    TellLanguage(user);
    if (in_response) user["answer"] = answer;
    user["reference"] = reference;
    if (attributed) user["contexts"] = Contexts(chunks, 0, n);
    calls.push_back(
        Chat(CallKind::kReferenceClaims, tasks_ & kReferenceClaimTasks, Encode(user),
             ObjectSchema({{"claims", ReferenceClaimSchema(attributed, in_response)}})));
  }
  if ((tasks_ & kChunkTasks) && n > 0) {
    bool for_ref = Contains(tasks_, JudgeTask::kRateChunksForReference);
    bool for_resp = Contains(tasks_, JudgeTask::kRateChunksForResponse);
    json schema = ObjectSchema({{"chunks", ChunkRatingSchema(for_ref, for_resp)}});
    Request head = {{"fields", FieldList({{for_ref, "for_reference"}, {for_resp, "for_response"}})},
                    {"question", question}};
    if (for_resp) head["answer"] = answer;
    if (for_ref) head["reference"] = reference;
    // Slices of chunks that fit the budget (one chunk each in per-chunk mode).
    for (int begin = 0; begin < n;) {
      int end = begin + 1;
      size_t size = chunks[begin].size();
      while (options_.batching == Batching::kBatched && end < n &&
             size + chunks[end].size() <= options_.chunk_chars_budget) {
        size += chunks[end++].size();
      }
      Request user = head;
      user["contexts"] = Contexts(chunks, begin, end);
      ModelCall call = Chat(CallKind::kRateChunks, tasks_ & kChunkTasks, Encode(user), schema);
      call.chunk_begin = begin;
      call.chunk_end = end;
      calls.push_back(std::move(call));
      begin = end;
    }
  }
  return calls;
}

std::vector<ModelCall> RowCalls::ChatCalls(Layout layout) const {
  const Sample& s = sample_;
  const auto& chunks = Chunks(s);
  const int n = static_cast<int>(chunks.size());
  const std::string answer = s.response.value_or("");
  const std::string reference = s.reference.value_or("");
  std::optional<ModelCall> combined =
      layout == Layout::kCombined ? CombinedCall() : std::optional<ModelCall>();
  std::vector<ModelCall> calls;
  if (combined) {
    calls.push_back(std::move(*combined));
  } else {
    calls = SeparateChunkReadingCalls();
  }
  if (Contains(tasks_, JudgeTask::kGenerateQuestions)) {
    Request user = {{"questions_wanted", options_.questions}, {"answer", answer}};
    TellLanguage(user);
    ModelCall call = Chat(CallKind::kGenerateQuestions,
                          static_cast<TaskSet>(JudgeTask::kGenerateQuestions), Encode(user),
                          ObjectSchema({{"questions", ArrayOf(kString)}, {"noncommittal", kBool}}));
    call.questions = options_.questions;
    calls.push_back(std::move(call));
  }
  if (Contains(tasks_, JudgeTask::kExtractEntities)) {
    Request user = {{"reference", reference}, {"contexts", Contexts(chunks, 0, n)}};
    calls.push_back(Chat(CallKind::kExtractEntities,
                         static_cast<TaskSet>(JudgeTask::kExtractEntities), Encode(user),
                         ObjectSchema({{"reference_entities", ArrayOf(kString)},
                                       {"context_entities", ArrayOf(kString)}})));
  }
  return calls;
}

std::optional<ModelCall> RowCalls::EmbedCall() const {
  ModelCall call;
  call.kind = CallKind::kEmbed;
  if (Contains(tasks_, JudgeTask::kGenerateQuestions) && verdicts_.generated_questions &&
      !verdicts_.generated_questions->empty()) {
    call.tasks |= static_cast<TaskSet>(JudgeTask::kGenerateQuestions);
    call.inputs.push_back(QuestionText(sample_));
    for (const GeneratedQuestion& q : *verdicts_.generated_questions) call.inputs.push_back(q.text);
  }
  if (Contains(tasks_, JudgeTask::kEmbedResponseAndReference)) {
    call.tasks |= static_cast<TaskSet>(JudgeTask::kEmbedResponseAndReference);
    call.inputs.push_back(sample_.response.value_or(""));
    call.inputs.push_back(sample_.reference.value_or(""));
  }
  if (call.inputs.empty()) return std::nullopt;
  return call;
}

std::vector<ModelCall> RowCalls::TakeReady() {
  if (!held_.empty() && !awaiting_prefix_) {
    std::vector<ModelCall> siblings = std::move(held_);
    held_.clear();
    outstanding_ += static_cast<int>(siblings.size());
    return siblings;
  }
  if (outstanding_ > 0) return {};
  std::vector<ModelCall> calls;
  if (stage_ == Stage::kChat) {
    for (ModelCall& call : ChosenFirstCalls()) {
      // A row-first call after the first waits for it, so it finds the row's prefix cached.
      if (call.row_first && awaiting_prefix_) {
        held_.push_back(std::move(call));
        continue;
      }
      awaiting_prefix_ = awaiting_prefix_ || call.row_first;
      calls.push_back(std::move(call));
    }
    for (ModelCall& call : questions_.FirstCalls(verdicts_)) calls.push_back(std::move(call));
    stage_ = Stage::kFollowUp;
    if (calls.empty()) return TakeReady();
  } else if (stage_ == Stage::kFollowUp) {
    calls = questions_.FollowUpCalls();
    stage_ = Stage::kEmbed;
    if (calls.empty()) return TakeReady();
  } else if (stage_ == Stage::kEmbed) {
    stage_ = Stage::kDone;
    if (auto call = EmbedCall()) calls.push_back(std::move(*call));
  }
  for (ModelCall& call : calls) call.cache_key = cache_key_;
  outstanding_ = static_cast<int>(calls.size());
  return calls;
}

Status RowCalls::AcceptChat(const ModelCall& call, std::string_view reply) {
  const int n = static_cast<int>(Chunks(sample_).size());
  switch (call.kind) {
    case CallKind::kResponseClaims: {
      ClaimFields f{Contains(call.tasks, JudgeTask::kVerifyResponseClaims),
                    Contains(call.tasks, JudgeTask::kCheckClaimsAgainstReference)};
      TALA_ASSIGN_OR_RETURN(verdicts_.response_claims, ParseResponseClaims(reply, f, n));
      break;
    }
    case CallKind::kReferenceClaims: {
      ReferenceFields f{Contains(call.tasks, JudgeTask::kAttributeReferenceClaims),
                        Contains(call.tasks, JudgeTask::kFindReferenceClaimsInResponse)};
      TALA_ASSIGN_OR_RETURN(verdicts_.reference_claims, ParseReferenceClaims(reply, f));
      break;
    }
    case CallKind::kRateChunks:
      TALA_RETURN_IF_ERROR(AcceptChunkRatings(call, reply));
      break;
    case CallKind::kRowVerdicts:
      TALA_RETURN_IF_ERROR(AcceptRowVerdicts(call, reply));
      break;
    case CallKind::kGenerateQuestions: {
      TALA_ASSIGN_OR_RETURN(QuestionsReply r, ParseQuestions(reply, call.questions));
      std::vector<GeneratedQuestion> qs;
      for (std::string& text : r.questions) qs.push_back({std::move(text), r.noncommittal, {}});
      verdicts_.generated_questions = std::move(qs);
      break;
    }
    case CallKind::kExtractEntities: {
      TALA_ASSIGN_OR_RETURN(EntitiesReply r, ParseEntities(reply));
      verdicts_.reference_entities = std::move(r.reference);
      verdicts_.context_entities = std::move(r.context);
      break;
    }
    case CallKind::kEmbed:
      return Internal("an embeddings call was given a chat reply");
    default:
      TALA_RETURN_IF_ERROR(questions_.Accept(call, reply, verdicts_));
      break;
  }
  if (call.row_first) awaiting_prefix_ = false;
  --outstanding_;
  return OkStatus();
}

Status RowCalls::AcceptChunkRatings(const ModelCall& call, std::string_view reply) {
  ChunkFields f{!for_reference_.empty(), !for_response_.empty()};
  TALA_ASSIGN_OR_RETURN(ChunkRatings r,
                        ParseChunkRatings(reply, f, call.chunk_begin, call.chunk_end));
  for (int i = call.chunk_begin; i < call.chunk_end; ++i) {
    if (f.for_reference) for_reference_[i] = r.for_reference[i - call.chunk_begin];
    if (f.for_response) for_response_[i] = r.for_response[i - call.chunk_begin];
  }
  auto complete = [](const std::vector<std::optional<bool>>& v) {
    std::vector<bool> out;
    for (const auto& x : v) {
      if (!x) return std::optional<std::vector<bool>>();
      out.push_back(*x);
    }
    return std::optional<std::vector<bool>>(out);
  };
  if (f.for_reference) verdicts_.chunk_relevant = complete(for_reference_);
  if (f.for_response) verdicts_.chunk_relevant_to_response = complete(for_response_);
  return OkStatus();
}

Status RowCalls::AcceptRowVerdicts(const ModelCall& call, std::string_view reply) {
  TALA_ASSIGN_OR_RETURN(std::string text, ExtractJsonObject(reply));
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {ErrorCode::kBadReply, "reply is not a JSON object"};
  // Each part is read by the separate call's reader, as the reply that call would have had; an
  // error names the part. Nothing is kept until every part reads.
  auto part = [&](const char* name, const char* key) -> Result<std::string> {
    auto it = j.find(name);
    if (it == j.end()) {
      return Status{ErrorCode::kBadReply, std::string("missing part \"") + name + "\""};
    }
    return json{{key, *it}}.dump();
  };
  auto named = [](const char* name, const Status& s) {
    return Status{s.code(), std::string(name) + ": " + s.message()};
  };
  const int n = static_cast<int>(Chunks(sample_).size());
  std::optional<std::vector<ClaimVerdict>> response_claims;
  std::optional<std::vector<ReferenceClaim>> reference_claims;
  if (call.tasks & kResponseClaimTasks) {
    TALA_ASSIGN_OR_RETURN(std::string claims, part("answer_claims", "claims"));
    ClaimFields f{Contains(call.tasks, JudgeTask::kVerifyResponseClaims),
                  Contains(call.tasks, JudgeTask::kCheckClaimsAgainstReference)};
    auto parsed = ParseResponseClaims(claims, f, n);
    if (!parsed) return named("answer_claims", parsed.error());
    response_claims = std::move(*parsed);
  }
  if (call.tasks & kReferenceClaimTasks) {
    TALA_ASSIGN_OR_RETURN(std::string claims, part("reference_claims", "claims"));
    ReferenceFields f{Contains(call.tasks, JudgeTask::kAttributeReferenceClaims),
                      Contains(call.tasks, JudgeTask::kFindReferenceClaimsInResponse)};
    auto parsed = ParseReferenceClaims(claims, f);
    if (!parsed) return named("reference_claims", parsed.error());
    reference_claims = std::move(*parsed);
  }
  if (call.chunk_end > call.chunk_begin) {
    TALA_ASSIGN_OR_RETURN(std::string chunks, part("chunks", "chunks"));
    if (Status s = AcceptChunkRatings(call, chunks); !s.ok()) return named("chunks", s);
  }
  if (response_claims) verdicts_.response_claims = std::move(*response_claims);
  if (reference_claims) verdicts_.reference_claims = std::move(*reference_claims);
  return OkStatus();
}

Status RowCalls::AcceptEmbeddings(const ModelCall& call,
                                  const std::vector<std::vector<double>>& vectors) {
  if (vectors.size() != call.inputs.size()) {
    return {ErrorCode::kBadReply, "embeddings: expected " + std::to_string(call.inputs.size()) +
                                      " vectors, got " + std::to_string(vectors.size())};
  }
  // A zero or non-finite vector has no direction: a cosine from it would read as "off topic"
  // (N11), so the metrics it feeds are left undefined with the reason instead.
  for (const std::vector<double>& v : vectors) {
    double norm = 0;
    bool finite = true;
    for (double x : v) {
      finite = finite && std::isfinite(x);
      norm += x * x;
    }
    if (v.empty() || !finite || !(norm > 0)) {
      return {ErrorCode::kBadReply, std::string("the embeddings server returned ") +
                                        (v.empty() ? "an empty vector"
                                         : !finite ? "a vector with NaN or infinite values"
                                                   : "a zero vector")};
    }
  }
  size_t next = 0;
  if (Contains(call.tasks, JudgeTask::kGenerateQuestions)) {
    const std::vector<double>& question = vectors[next++];
    for (GeneratedQuestion& q : *verdicts_.generated_questions) {
      q.cosine = Cosine(question, vectors[next++]);
    }
  }
  if (Contains(call.tasks, JudgeTask::kEmbedResponseAndReference)) {
    verdicts_.response_reference_similarity = Cosine(vectors[next], vectors[next + 1]);
  }
  --outstanding_;
  return OkStatus();
}

void RowCalls::MarkMissing(TaskSet tasks, const std::string& reason) {
  for (JudgeTask task : AllJudgeTasks()) {
    if (Contains(tasks, task)) verdicts_.missing_reasons[JudgeTaskVerdictName(task)] = reason;
  }
}

void RowCalls::Fail(const ModelCall& call, const std::string& reason) {
  if (call.row_first) awaiting_prefix_ = false;
  if (!call.question_keys.empty()) {
    questions_.Fail(call, reason, verdicts_);
    --outstanding_;
    return;
  }
  MarkMissing(call.tasks, reason);
  for (JudgeTask task : AllJudgeTasks()) {
    if (Contains(call.tasks, task)) verdicts_.failed.insert(JudgeTaskVerdictName(task));
  }
  if (call.kind == CallKind::kRateChunks || call.kind == CallKind::kRowVerdicts) {
    // A failed slice leaves the whole ranking unrated: precision needs every rank.
    if (!for_reference_.empty()) verdicts_.chunk_relevant.reset();
    if (!for_response_.empty()) verdicts_.chunk_relevant_to_response.reset();
    for_reference_.clear();
    for_response_.clear();
  }
  if (call.kind == CallKind::kGenerateQuestions ||
      (call.kind == CallKind::kEmbed && Contains(call.tasks, JudgeTask::kGenerateQuestions))) {
    verdicts_.generated_questions.reset();  // questions without cosines cannot be scored
  }
  --outstanding_;
}

}  // namespace tala::judges::llm
