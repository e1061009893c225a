// The gap reading shared by tala testset's report and tala serve's /v1/gaps (gaps.h), and
// GapReader, which groups production questions before reading them.

#include "testset/gaps.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "judges/offline/sentence_encoder.h"
#include "testset/meaning_merge.h"
#include "testset/question_groups.h"

namespace tala {

namespace testset {

std::string QuestionOf(const Sample& sample) {
  if (sample.user_input) return *sample.user_input;
  std::string question;
  for (const Message& m : sample.messages) {
    if (m.type == Message::Type::kHuman) question = m.content;
  }
  return question;
}

Result<bool> NothingAnswers(const std::vector<Chunk>& chunks, const ChunkIndex& index,
                            const std::vector<std::string>& terms) {
  if (std::all_of(terms.begin(), terms.end(), Filler)) return false;
  TALA_ASSIGN_OR_RETURN(ReferenceDraft draft,
                        DraftReference(chunks, index, terms, index.Search(terms, 3)));
  return draft.answerable == "no";
}

size_t TypicalQuestion(const std::vector<size_t>& members, const std::vector<LoggedQuestion>& rows,
                       bool failing) {
  bool any_failed = false;
  for (size_t q : members) any_failed = any_failed || rows[q].failed;
  std::map<std::string, std::pair<int64_t, size_t>> seen;  // text -> (count, first index)
  for (size_t q : members) {
    if (failing && any_failed && !rows[q].failed) continue;
    auto [it, added] = seen.try_emplace(rows[q].question, 0, q);
    ++it->second.first;
    it->second.second = std::min(it->second.second, q);
  }
  size_t best = members.front();
  int64_t best_n = 0;
  for (const auto& [text, v] : seen) {
    if (v.first > best_n || (v.first == best_n && v.second < best)) {
      best = v.second;
      best_n = v.first;
    }
  }
  return best;
}

}  // namespace testset

namespace {

// An intent's retrieved passages are read up to this many (distinct): enough for every passage
// of a few dozen rows, bounded for an intent of thousands.
constexpr size_t kMaxPassagesPerIntent = 60;

}  // namespace

struct GapReader::Impl {
  bool with_documents = false;
  testset::Documents docs;
  std::unique_ptr<testset::ChunkIndex> index;
};

GapReader::GapReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GapReader::GapReader(GapReader&&) noexcept = default;
GapReader& GapReader::operator=(GapReader&&) noexcept = default;
GapReader::~GapReader() = default;

Result<GapReader> GapReader::Open(const std::string& docs) {
  auto impl = std::make_unique<Impl>();
  if (!docs.empty()) {
    impl->with_documents = true;
    TALA_ASSIGN_OR_RETURN(impl->docs, testset::ReadDocuments(docs));
    if (impl->docs.chunks.empty()) {
      return InvalidArgument("--docs " + docs + ": no document text in it to read gaps against");
    }
  }
  impl->index = std::make_unique<testset::ChunkIndex>(impl->docs.chunks);
  return GapReader(std::move(impl));
}

bool GapReader::with_documents() const { return impl_->with_documents; }

Result<GapReport> GapReader::Read(const std::vector<AskedQuestion>& asked) const {
  GapReport out;
  out.against = impl_->with_documents ? "documents" : "retrieved passages";
  std::vector<const AskedQuestion*> kept;
  std::vector<std::string> questions;
  std::vector<LoggedQuestion> rows;
  for (const AskedQuestion& a : asked) {
    if (a.question.find_first_not_of(" \t\r\n") == std::string::npos ||
        a.question.size() > testset::kMaxQuestionBytes) {
      continue;
    }
    kept.push_back(&a);
    questions.push_back(a.question);
    rows.push_back({"", a.question, false});
  }
  out.questions = static_cast<int64_t>(questions.size());
  if (questions.empty()) return out;
  testset::Grouping g = testset::GroupQuestions(questions);
  // Rewordings the words keep apart join by meaning when the sentence encoder is installed, as
  // in tala testset; without it, by words alone (the report says which).
  if (auto encoder = judges::offline::SentenceEncoder::Shared()) {
    TALA_ASSIGN_OR_RETURN(testset::MeaningJoin join,
                          testset::JoinByMeaning(g, questions, **encoder));
    (void)join;
    out.by_meaning = true;
  }
  out.intents = static_cast<int64_t>(g.intents.size());
  for (const testset::Intent& intent : g.intents) {
    std::vector<size_t> members;
    for (size_t p : intent.phrasings) {
      members.insert(members.end(), g.phrasings[p].questions.begin(),
                     g.phrasings[p].questions.end());
    }
    bool gap = false;
    if (impl_->with_documents) {
      TALA_ASSIGN_OR_RETURN(
          gap, testset::NothingAnswers(impl_->docs.chunks, *impl_->index, intent.terms));
    } else {
      // The passages retrieved for the intent's questions, in the order they were asked.
      std::sort(members.begin(), members.end());
      std::vector<testset::Chunk> passages;
      std::set<std::string> seen;
      for (size_t q : members) {
        for (const std::string& c : kept[q]->contexts) {
          if (passages.size() >= kMaxPassagesPerIntent) break;
          if (c.find_first_not_of(" \t\r\n") == std::string::npos || !seen.insert(c).second) {
            continue;
          }
          passages.push_back({std::to_string(passages.size()), c, ""});
        }
      }
      const testset::ChunkIndex index(passages);
      TALA_ASSIGN_OR_RETURN(gap, testset::NothingAnswers(passages, index, intent.terms));
    }
    if (!gap) continue;
    const size_t typical =
        testset::TypicalQuestion(g.phrasings[intent.phrasings.front()].questions, rows, false);
    out.gaps.push_back({questions[typical], intent.traffic});
    out.gap_questions += intent.traffic;
  }
  std::stable_sort(out.gaps.begin(), out.gaps.end(), [](const TestsetGap& a, const TestsetGap& b) {
    return a.questions > b.questions;
  });
  return out;
}

}  // namespace tala
