// BuildTestset: read the log and the documents, group the questions into intents, pick, draft
// each item's reference, check it, and report.

#include "tala/testset.h"

#include <simdjson.h>

#include <algorithm>
#include <tuple>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/hash.h"
#include "core/text/stemmer.h"
#include "core/text/tokenize.h"
#include "core/turn_question.h"
#include "engine/llm_setup.h"
#include "io/readers/buffered_input.h"
#include "io/readers/dataset_reader.h"
#include "io/readers/results_reader.h"
#include "judges/offline/answer_relevance.h"
#include "judges/offline/relevance_blend.h"
#include "judges/offline/sentence_encoder.h"
#include "judges/registry.h"
#include "tala/metric.h"
#include "testset/documents.h"
#include "testset/gaps.h"
#include "testset/judge_embedder.h"
#include "testset/llm_plan.h"
#include "testset/meaning_merge.h"
#include "testset/pick.h"
#include "testset/question_groups.h"
#include "testset/realism.h"
#include "testset/reference_draft.h"

namespace tala {

namespace {

using testset::Grouping;

constexpr const char* kOfflineVersion = "offline-extractive-1";

using testset::kMaxQuestionBytes;
// The longest line of a results file read as a log.
constexpr size_t kMaxLogLineBytes = 64u << 20;

struct Logged {
  std::vector<LoggedQuestion> rows;
  int64_t skipped = 0;
  int64_t too_long = 0;
};

// A thumbs-down the row's own fields record: "feedback" (or "user_feedback", "thumbs") saying
// down, or the same in its tags.
bool ThumbsDown(const Sample& s) {
  auto down = [](std::string v) {
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v == "\"down\"" || v == "\"thumbs_down\"" || v == "\"thumbs-down\"" ||
           v == "\"negative\"" || v == "\"bad\"" || v == "-1" || v == "false";
  };
  for (const auto& [name, raw] : s.metadata) {
    if ((name == "feedback" || name == "user_feedback" || name == "thumbs") && down(raw)) {
      return true;
    }
    if (name == "tags") {
      simdjson::dom::parser parser;
      simdjson::dom::object tags;
      if (parser.parse(raw).get_object().get(tags)) continue;
      for (auto [key, value] : tags) {
        if ((key == "feedback" || key == "thumbs") && down(simdjson::minify(value))) return true;
      }
    }
  }
  return false;
}

// The logged questions of one row, `asked` its questions in order: one, or each question of a
// conversation after the ones before it (ids "ID#2" for the second...). Its failure counts
// against its last question. Blank questions are left out (counted in `blank` when given), and
// so are questions longer than kMaxQuestionBytes when `too_long` is given (and counted there).
void AddLoggedQuestions(const std::string& id, const std::vector<std::string>& asked, bool failed,
                        std::vector<LoggedQuestion>& out, int64_t* blank = nullptr,
                        int64_t* too_long = nullptr) {
  std::vector<std::string> earlier;
  for (size_t t = 0; t < asked.size(); ++t) {
    const std::string& question = asked[t];
    if (question.find_first_not_of(" \t\r\n") == std::string::npos) {
      if (blank != nullptr) ++*blank;
      continue;
    }
    if (too_long != nullptr && question.size() > kMaxQuestionBytes) {
      ++*too_long;
      continue;
    }
    out.push_back({asked.size() == 1 ? id : id + "#" + std::to_string(t + 1), question,
                   failed && t + 1 == asked.size(), earlier});
    earlier.push_back(question);
  }
}

// A results file's first row line: it has scores and inputs. Lines are read bounded (a file that
// never ends, such as /dev/zero, is the dataset reader's error, R2).
bool LooksLikeResults(const std::string& path) {
  auto in = io::BufferedInput::Open(path);
  if (!in) return false;
  simdjson::dom::parser parser;
  std::string_view line;
  while (in->NextLine(&line, kMaxLogLineBytes) == io::BufferedInput::LineStatus::kLine) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    simdjson::dom::element e;
    if (parser.parse(line.data(), line.size()).get(e) || !e.is_object()) return false;
    if (!e["scores"].error() && !e["inputs"].error()) return true;
    if (e["tala_manifest"].error() && e["manifest"].error()) return false;  // a dataset row
  }
  return false;
}

// The question of each row (the last user turn of a conversation); rows without one are
// counted, a bad row is the reader's error.
Result<Logged> ReadQuestions(const std::string& path, const char* flag) {
  Logged out;
  if (LooksLikeResults(path)) {
    TALA_ASSIGN_OR_RETURN(io::BufferedInput in, io::BufferedInput::Open(path));
    std::vector<std::string> lines;
    std::string_view line;
    for (;;) {
      auto status = in.NextLine(&line, kMaxLogLineBytes);
      if (status == io::BufferedInput::LineStatus::kEnd) break;
      if (status == io::BufferedInput::LineStatus::kError) {
        return IoError("reading " + path + ": " + in.error());
      }
      if (status == io::BufferedInput::LineStatus::kTooLong) {
        return DataError({path, in.line_number(), 0, ""},
                         "line longer than " + std::to_string(kMaxLogLineBytes >> 20) + " MiB");
      }
      lines.emplace_back(line);
    }
    TALA_ASSIGN_OR_RETURN(out.rows, QuestionsOfResultLines(lines, path));
    return out;
  }
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDataset(path));
  while (auto row = reader->Next()) {
    if (!row->has_value()) return row->error();
    const Sample& s = **row;
    // A conversation: each question its user asked, with the ones before it (ids "ID#2" for
    // the second...); a question asked on its own keeps its row's id.
    std::vector<std::string> asked;
    for (const Message& m : s.messages) {
      if (m.type == Message::Type::kHuman) asked.push_back(m.content);
    }
    if (asked.size() < 2) asked = {testset::QuestionOf(s)};
    // A thumbs-down is the conversation's: it counts against its last question.
    AddLoggedQuestions(s.id, asked, ThumbsDown(s), out.rows, &out.skipped, &out.too_long);
  }
  if (reader->rows_seen() == 0) {
    return InvalidArgument(std::string(flag) + " " + path + ": no rows");
  }
  return out;
}

// `q`: the question's index in the log the grouping read.
std::string StyleOf(const std::string& question, const Grouping& g, size_t q) {
  size_t marks = std::count(question.begin(), question.end(), '?');
  if (marks >= 2 || (question.find(" and ") != std::string::npos && marks >= 1 &&
                     question.find('?') + 1 < question.size())) {
    return "multi-part";
  }
  if (g.corrected[q]) return "typo";
  if (g.question_terms[q].size() <= 2) return "vague";
  return "plain";
}

// A question that leans on a context the reader does not have.
std::string NotSelfContained(const std::string& question) {
  std::vector<text::Token> tokens = text::Tokenize(question);
  std::string folded;
  for (const text::Token& t : tokens) folded += t.text + ' ';
  for (const char* phrase :
       {"according to the context ", "according to the passage ", "according to the text ",
        "according to the document ", "in the passage ", "in the context ", "the above ",
        "the given context ", "the given passage ", "this passage ", "this document "}) {
    if (folded.find(phrase) != std::string::npos) {
      return std::string("refers to \"") + std::string(phrase, std::strlen(phrase) - 1) + "\"";
    }
  }
  if (!tokens.empty()) {
    for (const char* pronoun : {"it", "this", "that", "they", "he", "she", "these", "those"}) {
      if (tokens.front().text == pronoun) {
        return std::string("begins with \"") + pronoun + "\", which nothing before it names";
      }
    }
  }
  return "";
}

// Puts a drafted reference on the item: its text, contexts, quotes and answerability.
void ApplyDraft(TestsetItem& item, const testset::ReferenceDraft& draft,
                const testset::Documents& docs, const testset::ChunkIndex& index) {
  item.answerable = draft.answerable;
  item.reference = draft.reference;
  if (draft.coverage > 0) item.coverage = draft.coverage;
  item.reference_contexts.clear();
  item.reference_context_ids.clear();
  item.quotes.clear();
  for (size_t c : draft.chunks) {
    item.reference_contexts.push_back(docs.chunks[c].text);
    item.reference_context_ids.push_back(docs.chunks[c].id);
  }
  for (const testset::Quote& quote : draft.quotes) {
    const testset::Chunk& chunk = docs.chunks[quote.chunk];
    TestsetQuote q{chunk.id, quote.text, "", -1, -1};
    const size_t at = chunk.text.find(quote.text);
    if (at != std::string::npos)
      std::tie(q.start, q.end) = testset::QuoteSpan(chunk, at, quote.text);
    if (q.start >= 0) q.document = chunk.document;
    item.quotes.push_back(std::move(q));
  }
  item.hops = static_cast<int64_t>(draft.chunks.size());
  item.difficulty = 0;
  if (!draft.chunks.empty()) {
    item.doc = docs.chunks[draft.chunks.front()].source;
    item.difficulty =
        testset::RetrievalRank(index, testset::TermsOf(item.user_input), draft.chunks.front());
  }
}

// The share of a drafted reference's claims its contexts support, by tala's own faithfulness
// reading (the offline judge): a check on the judge's draft that costs no call. nullopt when
// there is nothing to check.
std::optional<double> Grounding(Judge& judge, const TestsetItem& item) {
  if (item.reference.empty() || item.reference_contexts.empty()) return std::nullopt;
  Sample s;
  s.user_input = item.user_input;
  s.response = item.reference;
  s.retrieved_contexts = item.reference_contexts;
  auto verdicts = judge.Answer({s, static_cast<TaskSet>(JudgeTask::kVerifyResponseClaims)});
  if (!verdicts || !verdicts->response_claims || verdicts->response_claims->empty()) {
    return std::nullopt;
  }
  int64_t supported = 0;
  for (const ClaimVerdict& c : *verdicts->response_claims) supported += c.supported.value_or(false);
  return static_cast<double>(supported) / static_cast<double>(verdicts->response_claims->size());
}

// Question shapes kept: each item starts as its phrasing's most common wording, which is most
// often the plain one, so a log where a fifth of the questions carry typos would give a set of
// clean ones. Where a shape (typo, vague, multi-part) falls short of its share of the log, an
// item of an over-represented shape takes another wording of its own intent that has the
// missing shape: still a logged question, verbatim, and still the same intent.
void KeepShapes(std::vector<TestsetItem>& items, const std::vector<size_t>& item_intent,
                std::vector<std::vector<std::string>>& item_terms,
                const std::vector<std::vector<size_t>>& members,
                const std::vector<LoggedQuestion>& rows, const Grouping& g,
                const std::map<std::string, int64_t>& log_styles, const testset::Documents& docs,
                const testset::ChunkIndex& index) {
  int64_t logged = 0;
  for (const auto& [style, n] : log_styles) logged += n;
  if (logged == 0 || items.empty()) return;
  const double n = static_cast<double>(items.size());
  std::map<std::string, int64_t> target, count;
  for (const auto& [style, c] : log_styles) {
    target[style] = static_cast<int64_t>(std::lround(n * static_cast<double>(c) / logged));
  }
  std::set<std::string> used;
  for (const TestsetItem& item : items) {
    ++count[item.style];
    used.insert(item.user_input);
  }
  // Each item's best wording of every shape: the most asked one among its intent's questions.
  std::vector<std::map<std::string, size_t>> wording(items.size());
  for (size_t k = 0; k < items.size(); ++k) {
    std::map<std::string, std::vector<size_t>> by_style;
    for (size_t q : members[item_intent[k]]) by_style[StyleOf(rows[q].question, g, q)].push_back(q);
    for (auto& [style, list] : by_style)
      wording[k][style] = testset::TypicalQuestion(list, rows, false);
  }
  std::unordered_map<std::string, size_t> chunk_of;
  for (size_t c = 0; c < docs.chunks.size(); ++c) chunk_of.emplace(docs.chunks[c].id, c);
  for (const char* wanted : {"typo", "vague", "multi-part"}) {
    for (size_t k = 0; k < items.size() && count[wanted] < target[wanted]; ++k) {
      TestsetItem& item = items[k];
      if (count[item.style] <= target[item.style]) continue;  // its own shape is not in excess
      if (item.failed > 0) continue;  // a failing intent keeps its failing wording
      auto it = wording[k].find(wanted);
      if (it == wording[k].end() || used.count(rows[it->second].question)) continue;
      const size_t q = it->second;
      --count[item.style];
      ++count[wanted];
      used.insert(rows[q].question);
      item.user_input = rows[q].question;
      item.id = "tq-" + Sha256Hex(item.user_input).substr(0, 16);
      item.style = wanted;
      item.not_self_contained = NotSelfContained(item.user_input);
      item.self_contained = item.not_self_contained.empty();
      item_terms[k] = g.question_terms[q];
      if (!item.reference_context_ids.empty()) {
        item.difficulty = testset::RetrievalRank(index, testset::TermsOf(item.user_input),
                                                 chunk_of.at(item.reference_context_ids.front()));
      }
    }
  }
}

// Issue 54 item 6: an item whose question leans on the question before it (LeansOnEarlier) and
// that its intent's log asked as a later turn of a conversation keeps that conversation's
// earlier questions, so the golden row replays the session, not a question that cannot stand
// alone. The earlier turns are those of the intent's first such asking of the item's wording.
bool LeansOnEarlier(const TestsetItem& item) {
  if (!item.self_contained) return true;
  // As the engine reads a turn (core/turn_question.h): it opens with "and", "what about"... or
  // is three words or fewer.
  if (LeansOnTheQuestionBefore(item.user_input)) return true;
  // Or it names what it asks about by a pronoun only ("How often do they run?").
  for (const text::Token& t : text::Tokenize(item.user_input)) {
    for (const char* pronoun : {"it", "its", "they", "them", "their", "he", "him", "his", "she",
                                "her", "this", "that", "these", "those"}) {
      if (t.text == pronoun) return true;
    }
  }
  return false;
}

void KeepConversations(std::vector<TestsetItem>& items, const std::vector<size_t>& item_intent,
                       const std::vector<std::vector<size_t>>& members,
                       const std::vector<LoggedQuestion>& rows) {
  for (size_t k = 0; k < items.size() && k < item_intent.size(); ++k) {
    TestsetItem& item = items[k];
    for (size_t q : members[item_intent[k]]) {
      if (!rows[q].earlier.empty() && rows[q].question == item.user_input && LeansOnEarlier(item)) {
        item.earlier_turns = rows[q].earlier;
        break;
      }
    }
  }
}

// How well each sentence answers `question`, read as the offline judge reads a one-sentence
// response (relevance_blend.h: the answer's kind, the words next to the question's gap, the
// sentence encoder's cosines with the question and with what it asks for), so the reference
// opens with the sentence that answers (issue 53 item 2).
testset::AnswerScorer AnswerScores(const std::string& question,
                                   judges::offline::SentenceEncoder& encoder,
                                   text::Stemmer& stemmer) {
  namespace offline = judges::offline;
  return [question, &encoder,
          &stemmer](const std::vector<std::string>& sentences) -> Result<std::vector<double>> {
    const offline::TextProfile q(question, stemmer);
    const std::string asked = offline::AskedFor(q);
    std::vector<std::string> texts = {question, asked.empty() ? question : asked};
    // A document's "It" stands for the document's subject, not the question's: no pronoun is
    // resolved here (that reading is for responses, which answer the question).
    texts.insert(texts.end(), sentences.begin(), sentences.end());
    TALA_ASSIGN_OR_RETURN(std::vector<std::vector<double>> v, encoder.Embed(texts));
    auto dot = [](const std::vector<double>& a, const std::vector<double>& b) {
      return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
    };
    std::vector<double> out;
    for (size_t i = 0; i < sentences.size(); ++i) {
      const std::string& text = texts[2 + i];
      const offline::TextProfile r(text, stemmer);
      const offline::EncoderCosines c{dot(v[0], v[2 + i]),
                                      asked.empty() ? 0.0 : dot(v[1], v[2 + i])};
      out.push_back(offline::ResponseRelevance(
          offline::ReadAnswer(q, r), c,
          offline::OnTopicShare(q, std::vector<std::string>{text}, stemmer), 1));
    }
    return out;
  };
}

}  // namespace

Result<std::vector<LoggedQuestion>> QuestionsOfResultLines(const std::vector<std::string>& lines,
                                                           const std::string& where,
                                                           const std::vector<std::string>* rows) {
  std::vector<LoggedQuestion> out;
  simdjson::dom::parser parser, row_parser;
  const io::ResultsFile registry_only;  // metric directions from the registry
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i + 1);
    if (lines[i].find_first_not_of(" \t\r") == std::string::npos) continue;
    simdjson::dom::element e;
    if (parser.parse(lines[i]).get(e) || !e.is_object()) {
      return DataError({where, n, 0, ""}, "not a JSON object");
    }
    simdjson::dom::object scores;
    if (e["scores"].get_object().get(scores)) continue;  // a manifest or a run record
    LoggedQuestion q;
    std::string_view text;
    if (!e["id"].get_string().get(text)) {
      q.id = std::string(text);
    } else {
      int64_t id = 0;
      if (e["id"].get_int64().get(id)) return DataError({where, n, 0, "id"}, "missing");
      q.id = std::to_string(id);
    }
    std::vector<std::string> asked;
    simdjson::dom::element received;
    if (rows != nullptr && i < rows->size() && !row_parser.parse((*rows)[i]).get(received)) {
      // The row as received: its question, or each human message of a conversation.
      simdjson::dom::element user_input;
      if (!received["user_input"].get(user_input) || !received["question"].get(user_input)) {
        asked = io::QuestionsOfUserInput(user_input);
      }
    } else {
      asked = io::QuestionsOfResultLine(e);
    }
    if (asked.empty()) continue;
    std::string_view diagnosis;
    if (!e["diagnosis"].get_string().get(diagnosis) && !diagnosis.empty() &&
        diagnosis != "healthy") {
      q.failed = true;
    }
    for (auto [key, value] : scores) {
      double v = 0;
      if (value.get_double().get(v)) continue;
      const bool lower =
          io::DirectionIn(registry_only, std::string(key)) == Direction::kLowerIsBetter;
      if (lower ? v > 0.5 : v < 0.5) q.failed = true;
    }
    // A conversation: each question its user asked, as a dataset's conversation rows are read.
    AddLoggedQuestions(q.id, asked, q.failed, out);
  }
  return out;
}

Result<Testset> BuildTestset(const TestsetOptions& o) {
  if (o.logs.empty() && o.logged.empty() && o.docs.empty()) {
    return InvalidArgument("give --logs (logged questions), --docs (the documents), or both");
  }
  if (o.size < 1) return InvalidArgument("--size must be at least 1");
  const bool llm = IsLlmJudge(o.judge);
  if (o.judge != "offline" && !llm) {
    return InvalidArgument("--judge " + o.judge +
                           ": not a judge; use offline (extractive, no model call), "
                           "openai:MODEL or anthropic:MODEL");
  }
  if (!(o.synthetic_share >= 0 && o.synthetic_share <= 1)) {
    return InvalidArgument("--synthetic-share must be between 0 and 1");
  }
  Testset out;
  TestsetReport& r = out.report;
  if (!(o.failed_share >= 0 && o.failed_share <= 1)) {
    return InvalidArgument("--failed-share must be between 0 and 1");
  }
  Logged logged;
  if (!o.logs.empty()) {
    TALA_ASSIGN_OR_RETURN(logged, ReadQuestions(o.logs, "--logs"));
  } else {
    logged.rows = o.logged;
  }
  std::vector<std::string> questions;
  for (const LoggedQuestion& q : logged.rows) {
    questions.push_back(q.question);
    r.failed_questions += q.failed ? 1 : 0;
  }
  r.questions = static_cast<int64_t>(questions.size());
  r.questions_skipped = logged.skipped;
  if (logged.too_long > 0) {
    r.notes.push_back(std::to_string(logged.too_long) + " logged questions over " +
                      std::to_string(kMaxQuestionBytes) +
                      " bytes were left out (a pasted document or a blob, not a question users "
                      "ask again)");
  }
  testset::Documents docs;
  if (!o.docs.empty()) {
    TALA_ASSIGN_OR_RETURN(docs, testset::ReadDocuments(o.docs));
  }
  r.documents = static_cast<int64_t>(docs.sources.size());
  r.chunks = static_cast<int64_t>(docs.chunks.size());
  r.chunks_dropped_empty = docs.dropped_empty;
  r.chunks_dropped_duplicate = docs.dropped_duplicate;
  const testset::ChunkIndex index(docs.chunks);

  // An LLM judge is opened before the grouping: its embeddings may read the intents' meaning.
  std::optional<testset::LlmJudge> judge;
  if (llm) {
    TALA_ASSIGN_OR_RETURN(testset::LlmJudge opened, testset::OpenLlmJudge(o));
    judge.emplace(std::move(opened));
  }
  Grouping g = testset::GroupQuestions(questions);
  // Rewordings the words kept apart are joined by meaning (meaning_merge.h), and chunks are
  // ranked by meaning as well as BM25, read by the offline sentence encoder, or by the LLM
  // judge's embeddings model when it has a remote one (judge_embedder.h). Without either, the
  // words alone, and the report says so.
  std::unique_ptr<judges::offline::SentenceEncoder> encoder;
  text::Stemmer stemmer;  // the relevance reading's, which reads English (AnswerScores)
  std::unique_ptr<testset::JudgeEmbedder> remote;
  Embedder* meaning = nullptr;
  // A step that reads meaning. When the remote model fails for good (a bad reply past the
  // runtime's retries), the note says so and the encoder reads this step and the rest.
  auto read_meaning = [&](const std::function<Status(Embedder&)>& step) -> Status {
    Status s = step(*meaning);
    if (s.ok() || meaning != remote.get() || s.code() != ErrorCode::kBadReply || !encoder) {
      return s;
    }
    r.notes.push_back("the embeddings model failed (" + s.message() +
                      "); the offline sentence encoder read the intents and chunks instead");
    meaning = encoder.get();
    return step(*meaning);
  };
  if (!questions.empty()) {
    auto loaded = judges::offline::SentenceEncoder::Shared();
    if (loaded) encoder = std::move(*loaded);
    if (judge && judge->setup.backends.embeddings && (encoder || !o.dry_run)) {
      remote = std::make_unique<testset::JudgeEmbedder>(*judge, o.dry_run, encoder.get(), o.stop);
      meaning = remote.get();
    } else {
      meaning = encoder.get();
    }
    if (meaning != nullptr) {
      TALA_RETURN_IF_ERROR(read_meaning([&](Embedder& e) -> Status {
        TALA_ASSIGN_OR_RETURN(testset::MeaningJoin join, testset::JoinByMeaning(g, questions, e));
        r.intents_joined_by_meaning = join.joined;
        return OkStatus();
      }));
    } else {
      r.notes.push_back(
          "intents were grouped and chunks found by their words only: the sentence encoder "
          "that reads their meaning is not installed (" +
          loaded.error().message() + ")");
    }
  }
  for (size_t q = 0; q < questions.size(); ++q) {
    ++r.log_styles[StyleOf(questions[q], g, q)];
  }
  r.phrasings = static_cast<int64_t>(g.phrasings.size());
  r.intents = static_cast<int64_t>(g.intents.size());

  // Intents a held-out question already asks stay out of the set: nothing leaks.
  std::vector<bool> excluded(g.intents.size(), false);
  Logged heldout;
  if (!o.heldout.empty()) {
    TALA_ASSIGN_OR_RETURN(heldout, ReadQuestions(o.heldout, "--heldout"));
    r.heldout_questions = static_cast<int64_t>(heldout.rows.size());
    std::vector<std::vector<std::string>> held_terms;
    for (const LoggedQuestion& q : heldout.rows) held_terms.push_back(testset::TermsOf(q.question));
    for (size_t i = 0; i < g.intents.size(); ++i) {
      for (const auto& h : held_terms) {
        if (testset::WeightedSimilarity(g.intents[i].terms, h, g) >=
            testset::kSameQuestionSimilarity) {
          excluded[i] = true;
          ++r.heldout_removed;
          break;
        }
      }
    }
  }
  // Each intent's questions in log order, and how many failed.
  std::vector<std::vector<size_t>> members(g.intents.size());
  std::vector<int64_t> failed(g.intents.size(), 0);
  for (size_t i = 0; i < g.intents.size(); ++i) {
    for (size_t p : g.intents[i].phrasings) {
      members[i].insert(members[i].end(), g.phrasings[p].questions.begin(),
                        g.phrasings[p].questions.end());
    }
    std::sort(members[i].begin(), members[i].end());
    for (size_t q : members[i]) failed[i] += logged.rows[q].failed ? 1 : 0;
    r.failed_intents += failed[i] > 0 ? 1 : 0;
  }
  std::vector<testset::IntentForPick> pickable;
  std::vector<size_t> pickable_intent;
  std::vector<size_t> typical(g.intents.size());
  for (size_t i = 0; i < g.intents.size(); ++i) {
    const testset::Intent& intent = g.intents[i];
    // Its most asked phrasing's most asked wording; a failing intent's most asked failing one.
    typical[i] = failed[i] > 0
                     ? testset::TypicalQuestion(members[i], logged.rows, true)
                     : testset::TypicalQuestion(g.phrasings[intent.phrasings.front()].questions,
                                                logged.rows, false);
    if (excluded[i]) continue;
    pickable.push_back({logged.rows[typical[i]].question, intent.traffic,
                        static_cast<int64_t>(intent.phrasings.size()), failed[i]});
    pickable_intent.push_back(i);
  }
  // An LLM judge writes questions for the documents no logged question touches (by the intent's
  // best chunk): all of the set without a log, up to --synthetic-share of it with one.
  std::vector<std::string> untouched;
  int64_t synthetic = 0;
  if (llm && !docs.chunks.empty()) {
    std::set<std::string> touched;
    for (size_t i = 0; i < g.intents.size(); ++i) {
      for (const auto& [c, score] : index.Search(g.intents[i].terms, 1)) {
        touched.insert(docs.chunks[c].source);
      }
    }
    std::set<std::string> with_chunks;
    for (const testset::Chunk& c : docs.chunks) with_chunks.insert(c.source);
    for (const std::string& source : docs.sources) {
      if (with_chunks.count(source) && !touched.count(source)) untouched.push_back(source);
    }
    synthetic =
        questions.empty()
            ? o.size
            : std::min<int64_t>(static_cast<int64_t>(untouched.size()),
                                static_cast<int64_t>(std::ceil(o.synthetic_share * o.size)));
  }
  const int64_t from_log = o.size - synthetic;
  // The top needs: an intent with half an item's share of the traffic or more is always in.
  const double always_share =
      o.always_share.value_or(from_log > 0 ? 0.5 / static_cast<double>(from_log) : 1.0);
  std::vector<int64_t> counts = testset::AllocateItems(pickable, from_log, o.seed, o.failed_share,
                                                       always_share, &r.intents_always);
  std::vector<int64_t> next =
      testset::AllocateItems(pickable, from_log, o.seed + 1, o.failed_share, always_share);
  r.always_share = always_share;
  int64_t picked_intents = 0, both = 0, traffic = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    ++picked_intents;
    both += next[k] > 0 ? 1 : 0;
    traffic += g.intents[pickable_intent[k]].traffic;
  }
  r.stability = picked_intents > 0 ? static_cast<double>(both) / picked_intents : 0;
  r.traffic_covered = r.questions > 0 ? static_cast<double>(traffic) / r.questions : 0;
  r.intents_covered = r.intents > 0 ? static_cast<double>(picked_intents) / r.intents : 0;

  // The chunks that answer a picked intent: BM25 over its terms, re-ranked by the meaning of
  // its typical wording (reference_draft.h's RankChunks). The wordings and every candidate
  // chunk are embedded up front, in as few calls as a remote model needs.
  std::map<size_t, std::vector<double>> intent_vector;
  std::optional<testset::ChunkVectors> chunk_vectors;
  if (meaning != nullptr && !docs.chunks.empty()) {
    std::vector<size_t> picked, candidates;
    std::vector<std::string> texts;
    for (size_t k = 0; k < counts.size(); ++k) {
      if (counts[k] == 0) continue;
      const size_t i = pickable_intent[k];
      picked.push_back(i);
      texts.push_back(questions[testset::RepresentativeQuestion(g, g.intents[i])]);
      for (const auto& [c, score] : index.Search(g.intents[i].terms, testset::kRankedByMeaning)) {
        candidates.push_back(c);
      }
    }
    TALA_RETURN_IF_ERROR(read_meaning([&](Embedder& e) -> Status {
      TALA_ASSIGN_OR_RETURN(std::vector<std::vector<double>> vectors, e.Embed(texts));
      for (size_t k = 0; k < picked.size(); ++k) intent_vector[picked[k]] = std::move(vectors[k]);
      chunk_vectors.emplace(docs.chunks, e);
      return chunk_vectors->Embed(candidates);
    }));
  }
  auto chunks_for = [&](size_t intent, size_t k) -> Result<std::vector<std::pair<size_t, double>>> {
    auto it = intent_vector.find(intent);
    if (it == intent_vector.end()) return index.Search(g.intents[intent].terms, k);
    return testset::RankChunks(index, g.intents[intent].terms, k, &it->second, *chunk_vectors);
  };

  // What the documents lack: every intent (not only the picked ones) whose draft reference,
  // by its words, is "no", most asked first. Cheap: BM25 and the greedy cover, no encoder.
  if (!docs.chunks.empty()) {
    for (size_t i = 0; i < g.intents.size(); ++i) {
      if (excluded[i]) continue;
      const testset::Intent& intent = g.intents[i];
      TALA_ASSIGN_OR_RETURN(bool gap, testset::NothingAnswers(docs.chunks, index, intent.terms));
      if (!gap) continue;
      r.gaps.push_back({logged.rows[typical[i]].question, intent.traffic});
      r.gap_questions += intent.traffic;
    }
    std::stable_sort(r.gaps.begin(), r.gaps.end(), [](const TestsetGap& a, const TestsetGap& b) {
      return a.questions > b.questions;
    });
  }

  // The items, intent by intent (most asked first), a phrasing each.
  std::vector<std::vector<std::string>> item_terms;
  std::vector<std::unique_ptr<testset::LlmItem>> llm_items;  // with an LLM judge
  std::vector<size_t> llm_item_of;  // the log item each of llm_items drafts for
  std::vector<size_t> item_intent;  // each log item's intent
  for (size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    const size_t i = pickable_intent[k];
    const testset::Intent& intent = g.intents[i];
    // What every item of the intent carries: its questions, in log order (at most 1,000), and,
    // for the review, its phrasings, the most asked first (intent.phrasings' order), each with
    // its questions' ids among those.
    std::vector<std::string> log_ids;
    const size_t listed = std::min<size_t>(members[i].size(), 1000);
    for (size_t m = 0; m < listed; ++m) log_ids.push_back(logged.rows[members[i][m]].id);
    const std::set<size_t> in_ids(members[i].begin(),
                                  members[i].begin() + static_cast<std::ptrdiff_t>(listed));
    constexpr size_t kShownPhrasings = 10;
    std::vector<TestsetPhrasing> shown;
    for (size_t ph = 0; ph < intent.phrasings.size() && ph < kShownPhrasings; ++ph) {
      const testset::Phrasing& phrasing = g.phrasings[intent.phrasings[ph]];
      TestsetPhrasing one;
      one.text =
          logged.rows[testset::TypicalQuestion(phrasing.questions, logged.rows, false)].question;
      one.asked = static_cast<int64_t>(phrasing.questions.size());
      for (size_t asked : phrasing.questions) {
        if (in_ids.count(asked)) one.log_ids.push_back(logged.rows[asked].id);
      }
      shown.push_back(std::move(one));
    }
    const int64_t more_phrasings = static_cast<int64_t>(intent.phrasings.size() - shown.size());
    std::set<std::string> taken;
    for (int64_t n = 0; n < counts[k] && n < static_cast<int64_t>(intent.phrasings.size()); ++n) {
      const testset::Phrasing& p = g.phrasings[intent.phrasings[n]];
      size_t q = n == 0 ? typical[i] : testset::TypicalQuestion(p.questions, logged.rows, true);
      if (taken.count(logged.rows[q].question)) {
        q = testset::TypicalQuestion(p.questions, logged.rows, false);
        if (taken.count(logged.rows[q].question)) continue;
      }
      taken.insert(logged.rows[q].question);
      TestsetItem item;
      item.user_input = logged.rows[q].question;
      item.id = "tq-" + Sha256Hex(item.user_input).substr(0, 16);
      item.cluster = static_cast<int64_t>(i + 1);
      item.failed = failed[i];
      r.items_from_failures += failed[i] > 0 ? 1 : 0;
      item.log_ids = log_ids;
      item.phrasings = shown;
      item.more_phrasings = more_phrasings;
      item.style = StyleOf(item.user_input, g, q);
      item.not_self_contained = NotSelfContained(item.user_input);
      item.self_contained = item.not_self_contained.empty();
      item.seed = o.seed;
      item.prompt_version = kOfflineVersion;
      if (docs.chunks.empty()) {
        item.answerable = "unknown";
      } else {
        // Drafted from the intent's own terms (what most of its askers wrote), so one asker's
        // typo does not steer the retrieval.
        TALA_ASSIGN_OR_RETURN(auto ranked, chunks_for(i, 3));
        TALA_ASSIGN_OR_RETURN(
            testset::ReferenceDraft draft,
            testset::DraftReference(docs.chunks, index, intent.terms, ranked,
                                    encoder ? AnswerScores(item.user_input, *encoder, stemmer)
                                            : testset::AnswerScorer()));
        item.grounded = 1;  // extractive: the reference is the contexts' own sentences
        ApplyDraft(item, draft, docs, index);
      }
      item_terms.push_back(p.terms);
      item_intent.push_back(i);
      out.items.push_back(std::move(item));
    }
  }
  KeepShapes(out.items, item_intent, item_terms, members, logged.rows, g, r.log_styles, docs,
             index);
  KeepConversations(out.items, item_intent, members, logged.rows);
  // A conversation item's reference answers its question as asked after the one before it
  // ("Are there night buses? - How often do they run?"), not its words alone.
  for (TestsetItem& item : out.items) {
    if (item.earlier_turns.empty() || docs.chunks.empty()) continue;
    const std::string read = item.earlier_turns.back() + " - " + item.user_input;
    const std::vector<std::string> terms = testset::TermsOf(read);
    const auto ranked = index.Search(terms, 3);
    TALA_ASSIGN_OR_RETURN(testset::ReferenceDraft draft,
                          testset::DraftReference(docs.chunks, index, terms, ranked,
                                                  encoder ? AnswerScores(read, *encoder, stemmer)
                                                          : testset::AnswerScorer()));
    ApplyDraft(item, draft, docs, index);
  }
  for (size_t k = 0; llm && !docs.chunks.empty() && k < out.items.size(); ++k) {
    std::vector<size_t> passages;
    TALA_ASSIGN_OR_RETURN(auto ranked, chunks_for(item_intent[k], 5));
    for (const auto& [c, score] : ranked) passages.push_back(c);
    llm_items.push_back(
        std::make_unique<testset::LlmItem>(docs.chunks, index, out.items[k].user_input, passages));
    llm_item_of.push_back(k);
  }
  if (llm) {
    std::vector<testset::PlannedScenario> scenarios =
        testset::PlanScenarios(docs, index, untouched, synthetic, o.seed, r.log_styles);
    r.synthetic_planned = static_cast<int64_t>(scenarios.size());
    for (const testset::PlannedScenario& p : scenarios) {
      llm_items.push_back(std::make_unique<testset::LlmItem>(docs.chunks, index, p.scenario));
    }
    TALA_ASSIGN_OR_RETURN(testset::LlmRun run,
                          testset::RunLlmItems(o, *judge, std::move(llm_items)));
    r.llm = run.calls;
    r.notes.insert(r.notes.end(), run.warnings.begin(), run.warnings.end());
    if (o.dry_run) {
      // What the run would make: its logged items and the questions it would write.
      r.log_items = static_cast<int64_t>(out.items.size());
      for (const testset::PlannedScenario& p : scenarios) {
        r.multi_hop_items += p.scenario.chunks.size() > 1 ? 1 : 0;
      }
      out.items.clear();
      r.notes.push_back("--dry-run: nothing was called or written; the calls above are estimates");
      return out;
    }
    TALA_ASSIGN_OR_RETURN(auto grounding, judges::CreateJudge("offline"));
    for (size_t k = 0; k < llm_item_of.size(); ++k) {
      TestsetItem& item = out.items[llm_item_of[k]];
      const testset::LlmItem& drafted = *run.items[k];
      item.prompt_version = testset::LlmPromptVersion(false);
      item.flag = drafted.flag();
      if (!drafted.draft()) {
        item.flag += "; the offline extractive draft is shown";
        continue;
      }
      ApplyDraft(item, *drafted.draft(), docs, index);
      item.grounded = Grounding(*grounding, item);
    }
    for (size_t k = llm_item_of.size(); k < run.items.size(); ++k) {
      const testset::LlmItem& written = *run.items[k];
      const testset::PlannedScenario& plan = scenarios[k - llm_item_of.size()];
      if (!written.dropped().empty()) {
        ++r.synthetic_dropped;
        if (r.dropped_reasons.size() < 5) r.dropped_reasons.push_back(written.dropped());
        continue;
      }
      TestsetItem item;
      item.source = "synthetic";
      item.user_input =
          plan.typo ? testset::InjectTypo(written.question(), o.seed) : written.question();
      std::vector<std::string> terms = testset::TermsOf(item.user_input);
      // Nothing that repeats an item already in the set, or a held-out question.
      bool repeat = false;
      for (const auto& other : item_terms) {
        repeat = repeat ||
                 testset::WeightedSimilarity(terms, other, g) >= testset::kSameQuestionSimilarity;
      }
      for (const LoggedQuestion& h : heldout.rows) {
        repeat = repeat || testset::WeightedSimilarity(terms, testset::TermsOf(h.question), g) >=
                               testset::kSameQuestionSimilarity;
      }
      if (repeat) {
        ++r.synthetic_duplicates;
        continue;
      }
      item.id = "ts-" + Sha256Hex(item.user_input).substr(0, 16);
      item.style = plan.typo ? "typo" : plan.scenario.style;
      item.persona = plan.scenario.persona;
      item.not_self_contained = NotSelfContained(item.user_input);
      item.self_contained = item.not_self_contained.empty();
      item.seed = o.seed;
      item.prompt_version = testset::LlmPromptVersion(true);
      item.flag = written.flag();
      if (written.draft()) {
        testset::ReferenceDraft draft = *written.draft();
        // The spans the question was written from back its reference too: a multi-hop item
        // quotes each of its passages.
        for (const testset::CheckedQuote& q : written.question_quotes()) {
          if (draft.answerable == "no") break;
          bool known = std::any_of(draft.quotes.begin(), draft.quotes.end(),
                                   [&](const testset::Quote& d) { return d.text == q.text; });
          if (!known) draft.quotes.push_back({q.chunk, q.text});
          if (std::find(draft.chunks.begin(), draft.chunks.end(), q.chunk) == draft.chunks.end()) {
            draft.chunks.push_back(q.chunk);
          }
        }
        ApplyDraft(item, draft, docs, index);
        item.grounded = Grounding(*grounding, item);
        if (draft.answerable == "no" && item.flag.empty()) {
          item.flag = "the judge wrote this question from " +
                      docs.chunks[plan.scenario.chunks.front()].id +
                      " yet found the passages do not answer it";
        }
      } else {
        item.answerable = "no";
      }
      // The passages it was written from: its hops, its document, and its difficulty.
      item.hops = static_cast<int64_t>(plan.scenario.chunks.size());
      item.doc = docs.chunks[plan.scenario.chunks.front()].source;
      item.difficulty = testset::RetrievalRank(index, terms, plan.scenario.chunks.front());
      r.multi_hop_items += item.hops > 1 ? 1 : 0;
      item_terms.push_back(std::move(terms));
      out.items.push_back(std::move(item));
    }
  }
  // What the items hold, counted once they are final.
  r.difficulty.assign(11, 0);
  std::set<std::string> covered_sources;
  std::unordered_map<std::string, std::string> source_of;  // chunk id -> its document
  for (const testset::Chunk& c : docs.chunks) source_of.emplace(c.id, c.source);
  for (const TestsetItem& item : out.items) {
    ++r.item_styles[item.style];
    if (!item.persona.empty()) ++r.item_personas[item.persona];
    if (item.answerable != "unknown") ++r.item_hops[item.hops];
    (item.answerable == "yes"      ? r.answerable_yes
     : item.answerable == "partly" ? r.answerable_partly
     : item.answerable == "no"     ? r.answerable_no
                                   : r.answerable_unknown) += 1;
    if (!item.reference_context_ids.empty() || item.source == "synthetic") {
      ++r.difficulty[item.difficulty];
    }
    for (const std::string& id : item.reference_context_ids) {
      if (auto it = source_of.find(id); it != source_of.end()) covered_sources.insert(it->second);
    }
    if (!item.doc.empty()) covered_sources.insert(item.doc);
    r.flagged_items += item.flag.empty() ? 0 : 1;
    (item.source == "log" ? r.log_items : r.synthetic_items) += 1;
  }
  r.items = static_cast<int64_t>(out.items.size());
  if (r.llm.used && r.items > 0) {
    r.llm.per_kept_item =
        static_cast<double>(r.llm.calls + r.llm.repairs + r.llm.cache_hits) / r.items;
  }
  // Diversity: each item's nearest other item.
  if (item_terms.size() > 1) {
    double sum = 0, least = 1;
    for (size_t a = 0; a < item_terms.size(); ++a) {
      double nearest = 0;
      for (size_t b = 0; b < item_terms.size(); ++b) {
        if (a != b) {
          nearest = std::max(nearest, testset::WeightedSimilarity(item_terms[a], item_terms[b], g));
        }
      }
      sum += 1 - nearest;
      least = std::min(least, 1 - nearest);
    }
    r.diversity_mean = sum / static_cast<double>(item_terms.size());
    r.diversity_min = least;
  }
  for (const std::string& source : docs.sources) {
    if (!covered_sources.count(source)) r.uncovered_documents.push_back(source);
  }
  if (!heldout.rows.empty()) {
    std::vector<std::string> set, human;
    for (const TestsetItem& item : out.items) set.push_back(item.user_input);
    for (const LoggedQuestion& q : heldout.rows) human.push_back(q.question);
    r.realism = testset::RealismAuroc(set, human, o.seed);
  }
  r.documents_covered =
      r.documents > 0 ? static_cast<double>(covered_sources.size()) / r.documents : 0;
  if (questions.empty()) {
    r.notes.push_back(llm ? "no logged questions: every item is synthetic, written by " + o.judge +
                                " from the documents; real questions (--logs) make a set "
                                "that sounds like your users"
                          : "no logged questions: the set has no real questions, and the "
                            "offline judge writes none; give --logs, or an LLM --judge to write "
                            "questions from the documents, and see the uncovered documents below");
  } else if (o.docs.empty()) {
    r.notes.push_back("no documents: the items have no reference yet (answerable: unknown)");
  }
  if (!r.uncovered_documents.empty() && !questions.empty()) {
    r.notes.push_back(std::to_string(r.uncovered_documents.size()) + " documents no item touches" +
                      (llm ? " (raise --synthetic-share or --size to write questions for more)"
                           : "; the offline judge writes no question for them (an LLM --judge "
                             "does)"));
  }
  if (r.synthetic_dropped > 0) {
    r.notes.push_back(std::to_string(r.synthetic_dropped) +
                      " synthetic questions were dropped: their quotes were not found in their "
                      "passages even after a rewrite");
  }
  if (r.flagged_items > 0) {
    r.notes.push_back(std::to_string(r.flagged_items) +
                      " items are flagged for the reviewer (metadata.flag says why)");
  }
  return out;
}

}  // namespace tala
