// BuildTestset: read the log and the documents, group the questions into intents, pick, draft
// each item's reference, check it, and report.

#include "tala/testset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "core/hash.h"
#include "core/text/tokenize.h"
#include "io/readers/dataset_reader.h"
#include "testset/documents.h"
#include "testset/pick.h"
#include "testset/question_groups.h"
#include "testset/reference_draft.h"

namespace tala {

namespace {

using testset::Grouping;

constexpr const char* kOfflineVersion = "offline-extractive-1";

struct Logged {
  std::vector<std::string> ids, questions;
  int64_t skipped = 0;
};

// The question of each row (the last user turn of a conversation); rows without one are
// counted, a bad row is the reader's error.
Result<Logged> ReadQuestions(const std::string& path, const char* flag) {
  TALA_ASSIGN_OR_RETURN(auto reader, io::OpenDataset(path));
  Logged out;
  while (auto row = reader->Next()) {
    if (!row->has_value()) return row->error();
    const Sample& s = **row;
    std::string question;
    if (s.user_input) {
      question = *s.user_input;
    } else {
      for (const Message& m : s.messages) {
        if (m.type == Message::Type::kHuman) question = m.content;
      }
    }
    if (question.find_first_not_of(" \t\r\n") == std::string::npos) {
      ++out.skipped;
      continue;
    }
    out.ids.push_back(s.id);
    out.questions.push_back(std::move(question));
  }
  if (reader->rows_seen() == 0) {
    return InvalidArgument(std::string(flag) + " " + path + ": no rows");
  }
  return out;
}

// The question as the log has it most often among a phrasing's questions (ties: the first).
size_t TypicalQuestion(const Grouping& g, const testset::Phrasing& p,
                       const std::vector<std::string>& questions) {
  std::map<std::string, std::pair<int64_t, size_t>> seen;  // text -> (count, first index)
  for (size_t q : p.questions) {
    auto [it, added] = seen.try_emplace(questions[q], 0, q);
    ++it->second.first;
  }
  size_t best = p.questions.front();
  int64_t best_n = 0;
  for (const auto& [text, v] : seen) {
    if (v.first > best_n || (v.first == best_n && v.second < best)) {
      best = v.second;
      best_n = v.first;
    }
  }
  (void)g;
  return best;
}

std::string StyleOf(const std::string& question, const std::vector<std::string>& raw_terms,
                    const std::vector<std::string>& corrected) {
  size_t marks = std::count(question.begin(), question.end(), '?');
  if (marks >= 2 || (question.find(" and ") != std::string::npos && marks >= 1 &&
                     question.find('?') + 1 < question.size())) {
    return "multi-part";
  }
  if (raw_terms != corrected) return "typo";
  if (corrected.size() <= 2) return "vague";
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

}  // namespace

Result<Testset> BuildTestset(const TestsetOptions& o) {
  if (o.logs.empty() && o.docs.empty()) {
    return InvalidArgument("give --logs (logged questions), --docs (the documents), or both");
  }
  if (o.size < 1) return InvalidArgument("--size must be at least 1");
  if (o.judge != "offline") {
    return InvalidArgument("--judge " + o.judge +
                           ": this build drafts references with the offline judge only "
                           "(extractive, no model call); writing questions and references with "
                           "an LLM judge is not built yet");
  }
  Testset out;
  TestsetReport& r = out.report;
  Logged logged;
  if (!o.logs.empty()) {
    TALA_ASSIGN_OR_RETURN(logged, ReadQuestions(o.logs, "--logs"));
  }
  r.questions = static_cast<int64_t>(logged.questions.size());
  r.questions_skipped = logged.skipped;
  testset::Documents docs;
  if (!o.docs.empty()) {
    TALA_ASSIGN_OR_RETURN(docs, testset::ReadDocuments(o.docs));
  }
  r.documents = static_cast<int64_t>(docs.sources.size());
  r.chunks = static_cast<int64_t>(docs.chunks.size());
  r.chunks_dropped_empty = docs.dropped_empty;
  r.chunks_dropped_duplicate = docs.dropped_duplicate;
  const testset::ChunkIndex index(docs.chunks);

  Grouping g = testset::GroupQuestions(logged.questions);
  r.phrasings = static_cast<int64_t>(g.phrasings.size());
  r.intents = static_cast<int64_t>(g.intents.size());

  // Intents a held-out question already asks stay out of the set: nothing leaks.
  std::vector<bool> excluded(g.intents.size(), false);
  if (!o.heldout.empty()) {
    TALA_ASSIGN_OR_RETURN(Logged heldout, ReadQuestions(o.heldout, "--heldout"));
    r.heldout_questions = static_cast<int64_t>(heldout.questions.size());
    std::vector<std::vector<std::string>> held_terms;
    for (const std::string& q : heldout.questions) held_terms.push_back(testset::TermsOf(q));
    for (size_t i = 0; i < g.intents.size(); ++i) {
      for (const auto& h : held_terms) {
        if (testset::WeightedSimilarity(g.intents[i].terms, h, g) >= testset::kIntentSimilarity) {
          excluded[i] = true;
          ++r.heldout_removed;
          break;
        }
      }
    }
  }
  std::vector<testset::IntentForPick> pickable;
  std::vector<size_t> pickable_intent;
  std::vector<size_t> typical(g.intents.size());
  for (size_t i = 0; i < g.intents.size(); ++i) {
    const testset::Intent& intent = g.intents[i];
    typical[i] = TypicalQuestion(g, g.phrasings[intent.phrasings.front()], logged.questions);
    if (excluded[i]) continue;
    pickable.push_back({logged.questions[typical[i]], intent.traffic,
                        static_cast<int64_t>(intent.phrasings.size())});
    pickable_intent.push_back(i);
  }
  std::vector<int64_t> counts = testset::AllocateItems(pickable, o.size, o.seed);
  std::vector<int64_t> next = testset::AllocateItems(pickable, o.size, o.seed + 1);
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

  // The items, intent by intent (most asked first), a phrasing each.
  r.difficulty.assign(11, 0);
  std::set<std::string> covered_sources;
  std::vector<std::vector<std::string>> item_terms;
  for (size_t k = 0; k < counts.size(); ++k) {
    const size_t i = pickable_intent[k];
    const testset::Intent& intent = g.intents[i];
    for (int64_t n = 0; n < counts[k] && n < static_cast<int64_t>(intent.phrasings.size()); ++n) {
      const testset::Phrasing& p = g.phrasings[intent.phrasings[n]];
      const size_t q = n == 0 ? typical[i] : TypicalQuestion(g, p, logged.questions);
      TestsetItem item;
      item.user_input = logged.questions[q];
      item.id = "tq-" + Sha256Hex(item.user_input).substr(0, 16);
      item.cluster = static_cast<int64_t>(i + 1);
      // The intent's questions, in log order (at most 1,000).
      std::vector<size_t> members;
      for (size_t p2 : intent.phrasings) {
        members.insert(members.end(), g.phrasings[p2].questions.begin(),
                       g.phrasings[p2].questions.end());
      }
      std::sort(members.begin(), members.end());
      for (size_t m = 0; m < members.size() && m < 1000; ++m) {
        item.log_ids.push_back(logged.ids[members[m]]);
      }
      item.style = StyleOf(item.user_input, testset::TermsOf(item.user_input), p.terms);
      item.not_self_contained = NotSelfContained(item.user_input);
      item.self_contained = item.not_self_contained.empty();
      item.seed = o.seed;
      item.prompt_version = kOfflineVersion;
      if (docs.chunks.empty()) {
        item.answerable = "unknown";
      } else {
        // Drafted from the intent's own terms (what most of its askers wrote), so one asker's
        // typo does not steer the retrieval.
        testset::ReferenceDraft draft = testset::DraftReference(docs.chunks, index, intent.terms);
        item.answerable = draft.answerable;
        item.coverage = draft.coverage;
        item.reference = draft.reference;
        for (size_t c : draft.chunks) {
          item.reference_contexts.push_back(docs.chunks[c].text);
          item.reference_context_ids.push_back(docs.chunks[c].id);
          covered_sources.insert(docs.chunks[c].source);
        }
        for (const testset::Quote& quote : draft.quotes) {
          item.quotes.push_back({docs.chunks[quote.chunk].id, quote.text});
        }
        item.hops = static_cast<int64_t>(draft.chunks.size());
        if (!draft.chunks.empty()) {
          item.doc = docs.chunks[draft.chunks.front()].source;
          item.difficulty = testset::RetrievalRank(index, testset::TermsOf(item.user_input),
                                                   draft.chunks.front());
          ++r.difficulty[item.difficulty];
        }
      }
      (item.answerable == "yes"      ? r.answerable_yes
       : item.answerable == "partly" ? r.answerable_partly
       : item.answerable == "no"     ? r.answerable_no
                                     : r.answerable_unknown) += 1;
      item_terms.push_back(p.terms);
      out.items.push_back(std::move(item));
    }
  }
  r.items = r.log_items = static_cast<int64_t>(out.items.size());
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
  r.documents_covered =
      r.documents > 0 ? static_cast<double>(covered_sources.size()) / r.documents : 0;
  if (o.logs.empty()) {
    r.notes.push_back(
        "no logged questions: the set has no real questions, and the offline judge writes none; "
        "give --logs, and see the uncovered documents below");
  } else if (o.docs.empty()) {
    r.notes.push_back("no documents: the items have no reference yet (answerable: unknown)");
  }
  if (!r.uncovered_documents.empty() && !o.logs.empty()) {
    r.notes.push_back(std::to_string(r.uncovered_documents.size()) +
                      " documents no picked question touches; the offline judge writes no "
                      "question for them");
  }
  return out;
}

}  // namespace tala
