#include "testset/llm_items.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "judges/llm/request_json.h"
#include "testset/question_groups.h"

namespace tala::testset {

namespace {

using judges::llm::ArrayOf;
using judges::llm::CallKind;
using judges::llm::JsonType;
using judges::llm::ModelCall;
using judges::llm::ObjectSchema;
using judges::llm::Request;

// More passages than this dilute the draft and the prompt; the best few hold the answer.
constexpr size_t kReferencePassages = 5;

nlohmann::json QuoteSchema() {
  return ArrayOf(ObjectSchema({{"context_id", JsonType("string")}, {"text", JsonType("string")}}));
}

Request::array_t Passages(const std::vector<Chunk>& chunks, const std::vector<size_t>& which) {
  Request::array_t out;
  for (size_t c : which) out.push_back(Request{{"id", chunks[c].id}, {"text", chunks[c].text}});
  return out;
}

// The reply's "quotes" as (context_id, text) pairs; an error naming the entry that is not one.
std::string ReadQuotes(const nlohmann::json& reply,
                       std::vector<std::pair<std::string, std::string>>* quotes) {
  auto it = reply.find("quotes");
  if (it == reply.end() || !it->is_array()) return "\"quotes\" is missing or not a list";
  for (size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& q = (*it)[i];
    if (!q.is_object() || !q.contains("context_id") || !q["context_id"].is_string() ||
        !q.contains("text") || !q["text"].is_string()) {
      return "quotes[" + std::to_string(i) + "] is not {\"context_id\": string, \"text\": string}";
    }
    quotes->emplace_back(q["context_id"].get<std::string>(), q["text"].get<std::string>());
  }
  return "";
}

std::string Clip(const std::string& text) {
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

// Why quotes[i] is not a verbatim span of a passage it may name, or "" (then `checked` is set).
std::string CheckQuote(size_t i, const std::pair<std::string, std::string>& quote,
                       const std::vector<Chunk>& chunks, const std::vector<size_t>& passages,
                       CheckedQuote* checked) {
  const auto& [id, text] = quote;
  auto p =
      std::find_if(passages.begin(), passages.end(), [&](size_t c) { return chunks[c].id == id; });
  const std::string where = "quotes[" + std::to_string(i) + "]";
  if (p == passages.end()) return where + " names \"" + Clip(id) + "\", which is not a passage";
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return where + " is empty";
  // Character for character: a paraphrase, a changed number or a fixed typo is not a quote.
  if (chunks[*p].text.find(text) == std::string::npos) {
    return where + " (\"" + Clip(text) + "\") is not in passage " + id +
           " character for character; copy the span exactly";
  }
  *checked = {*p, text};
  return "";
}

}  // namespace

std::string CheckQuotes(const std::vector<std::pair<std::string, std::string>>& quotes,
                        const std::vector<Chunk>& chunks, const std::vector<size_t>& passages,
                        std::vector<CheckedQuote>* checked) {
  for (size_t i = 0; i < quotes.size(); ++i) {
    CheckedQuote one;
    if (std::string e = CheckQuote(i, quotes[i], chunks, passages, &one); !e.empty()) return e;
    if (checked != nullptr) checked->push_back(std::move(one));
  }
  return "";
}

LlmItem::LlmItem(const std::vector<Chunk>& chunks, const ChunkIndex& index, std::string question,
                 std::vector<size_t> passages)
    : chunks_(chunks),
      index_(index),
      question_(std::move(question)),
      passages_(std::move(passages)),
      stage_(Stage::kReference) {
  if (passages_.size() > kReferencePassages) passages_.resize(kReferencePassages);
}

LlmItem::LlmItem(const std::vector<Chunk>& chunks, const ChunkIndex& index, Scenario scenario)
    : chunks_(chunks), index_(index), scenario_(std::move(scenario)), stage_(Stage::kQuestion) {}

ModelCall LlmItem::QuestionCall() const {
  const Scenario& s = *scenario_;
  Request request = {{"scenario",
                      {{"type", s.chunks.size() > 1 ? "multi-hop" : "single"},
                       {"persona", s.persona},
                       {"style", s.style},
                       {"length", s.length}}},
                     {"passages", Passages(chunks_, s.chunks)}};
  nlohmann::json schema =
      ObjectSchema({{"question", JsonType("string")}, {"quotes", QuoteSchema()}});
  return judges::llm::ChatCall(CallKind::kTestsetQuestion, "testset_question", 0,
                               judges::llm::Encode(request), schema);
}

ModelCall LlmItem::ReferenceCall() const {
  Request request = {{"question", question_}, {"passages", Passages(chunks_, passages_)}};
  nlohmann::json answerable = {{"type", "string"}, {"enum", {"yes", "partly", "no"}}};
  nlohmann::json schema = ObjectSchema({{"answerable", answerable},
                                        {"reference", JsonType("string")},
                                        {"context_ids", ArrayOf(JsonType("string"))},
                                        {"quotes", QuoteSchema()}});
  return judges::llm::ChatCall(CallKind::kTestsetReference, "testset_reference", 0,
                               judges::llm::Encode(request), schema);
}

ModelCall LlmItem::FirstCall() const {
  return stage_ == Stage::kQuestion ? QuestionCall() : ReferenceCall();
}

std::vector<ModelCall> LlmItem::TakeReady() {
  if (handed_out_ || stage_ == Stage::kDone) return {};
  handed_out_ = true;
  return {FirstCall()};
}

Status LlmItem::AcceptChat(const ModelCall& call, std::string_view reply) {
  Status s =
      call.kind == CallKind::kTestsetQuestion ? AcceptQuestion(reply) : AcceptReference(reply);
  if (s.ok()) handed_out_ = false;
  return s;
}

Status LlmItem::AcceptEmbeddings(const ModelCall&, const std::vector<std::vector<double>>&) {
  return Status(ErrorCode::kInternal, "a golden-set item asks for no embeddings");
}

Status LlmItem::AcceptQuestion(std::string_view text) {
  nlohmann::json reply = nlohmann::json::parse(text, nullptr, false);
  if (!reply.is_object()) return Status(ErrorCode::kBadReply, "the reply is not a JSON object");
  if (!reply.contains("question") || !reply["question"].is_string()) {
    return Status(ErrorCode::kBadReply, "\"question\" is missing or not a string");
  }
  std::string question = reply["question"].get<std::string>();
  if (question.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status(ErrorCode::kBadReply, "\"question\" is empty");
  }
  std::vector<std::pair<std::string, std::string>> quotes;
  if (std::string e = ReadQuotes(reply, &quotes); !e.empty()) {
    return Status(ErrorCode::kBadReply, e);
  }
  const std::vector<size_t>& own = scenario_->chunks;
  std::vector<CheckedQuote> checked;
  if (std::string e = CheckQuotes(quotes, chunks_, own, &checked); !e.empty()) {
    return Status(ErrorCode::kBadReply, e);
  }
  for (size_t c : own) {
    bool quoted = std::any_of(checked.begin(), checked.end(),
                              [&](const CheckedQuote& q) { return q.chunk == c; });
    if (!quoted) {
      return Status(ErrorCode::kBadReply,
                    "no quote from passage " + chunks_[c].id +
                        (own.size() > 1 ? "; a multi-hop question quotes every passage"
                                        : "; quote the span that answers the question"));
    }
  }
  question_ = std::move(question);
  question_quotes_ = std::move(checked);
  StartReference();
  return OkStatus();
}

// The scenario's chunks first (the question was written from them), then the best others for
// the question's own words.
void LlmItem::StartReference() {
  passages_ = scenario_->chunks;
  for (const auto& [c, score] : index_.Search(TermsOf(question_), kReferencePassages + 2)) {
    if (passages_.size() >= kReferencePassages) break;
    if (std::find(passages_.begin(), passages_.end(), c) == passages_.end()) passages_.push_back(c);
  }
  stage_ = Stage::kReference;
}

Status LlmItem::AcceptReference(std::string_view text) {
  nlohmann::json reply = nlohmann::json::parse(text, nullptr, false);
  if (!reply.is_object()) return Status(ErrorCode::kBadReply, "the reply is not a JSON object");
  ReferenceDraft d;
  if (!reply.contains("answerable") || !reply["answerable"].is_string()) {
    return Status(ErrorCode::kBadReply, "\"answerable\" is missing or not a string");
  }
  d.answerable = reply["answerable"].get<std::string>();
  if (d.answerable != "yes" && d.answerable != "partly" && d.answerable != "no") {
    return Status(ErrorCode::kBadReply, "\"answerable\" must be \"yes\", \"partly\" or \"no\"");
  }
  if (!reply.contains("reference") || !reply["reference"].is_string()) {
    return Status(ErrorCode::kBadReply, "\"reference\" is missing or not a string");
  }
  d.reference = reply["reference"].get<std::string>();
  if (!reply.contains("context_ids") || !reply["context_ids"].is_array()) {
    return Status(ErrorCode::kBadReply, "\"context_ids\" is missing or not a list");
  }
  for (const nlohmann::json& id : reply["context_ids"]) {
    auto p = std::find_if(passages_.begin(), passages_.end(), [&](size_t c) {
      return id.is_string() && chunks_[c].id == id.get<std::string>();
    });
    if (p == passages_.end()) {
      return Status(ErrorCode::kBadReply,
                    "context_ids holds " + Clip(id.dump()) + ", which is not a passage's id");
    }
    if (std::find(d.chunks.begin(), d.chunks.end(), *p) == d.chunks.end()) d.chunks.push_back(*p);
  }
  std::vector<std::pair<std::string, std::string>> quotes;
  if (std::string e = ReadQuotes(reply, &quotes); !e.empty()) {
    return Status(ErrorCode::kBadReply, e);
  }
  if (d.answerable == "no") {
    d.reference.clear();
    d.chunks.clear();
    quotes.clear();
  } else if (d.reference.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status(ErrorCode::kBadReply, "\"reference\" is empty, yet \"answerable\" is not \"no\"");
  } else if (quotes.empty()) {
    return Status(ErrorCode::kBadReply, "no quote backs the reference; quote the spans it uses");
  }
  // Each quote checked on its own: the good ones are kept for the flagged draft if a redraft
  // fails too.
  std::string first_error;
  for (size_t i = 0; i < quotes.size(); ++i) {
    CheckedQuote one;
    if (std::string e = CheckQuote(i, quotes[i], chunks_, passages_, &one); !e.empty()) {
      if (first_error.empty()) first_error = std::move(e);
      continue;
    }
    // A quoted passage is a context of the reference, named or not.
    if (std::find(d.chunks.begin(), d.chunks.end(), one.chunk) == d.chunks.end()) {
      d.chunks.push_back(one.chunk);
    }
    d.quotes.push_back({one.chunk, std::move(one.text)});
  }
  if (!first_error.empty()) {
    unchecked_ = std::move(d);
    unchecked_error_ = first_error;
    return Status(ErrorCode::kBadReply, first_error);
  }
  draft_ = std::move(d);
  unchecked_.reset();
  stage_ = Stage::kDone;
  return OkStatus();
}

void LlmItem::Fail(const ModelCall& call, const std::string& reason) {
  if (call.kind == CallKind::kTestsetQuestion) {
    dropped_ = reason;
  } else if (unchecked_) {
    // The redraft's quotes still did not match: the draft is shown with its checked quotes only.
    draft_ = std::move(unchecked_);
    unchecked_.reset();
    flag_ = "a quote of the judge's draft was not found in its passage, even after a redraft (" +
            unchecked_error_ + "); it was removed: check the reference against its contexts";
  } else {
    flag_ = "the judge drafted no reference: " + reason;
  }
  stage_ = Stage::kDone;
}

std::string LlmPromptVersion(bool synthetic) {
  std::string reference = judges::llm::GetPrompt("testset_reference").id();
  return synthetic ? judges::llm::GetPrompt("testset_question").id() + "+" + reference : reference;
}

}  // namespace tala::testset
