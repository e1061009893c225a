#include "testset/reference_draft.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "core/text/sentences.h"
#include "testset/question_groups.h"

namespace tala::testset {

namespace {

constexpr double kK1 = 1.2, kB = 0.75;  // BM25's usual constants

// A sentence without the Markdown heading lines it opens with ("## Eiffel Tower\nThe Eiffel
// Tower was..."): a heading is the section's context, never part of a quote (T1: references
// began "## Eiffel Tower"). Empty when the sentence is only headings. Still verbatim: a suffix.
std::string_view WithoutHeadings(std::string_view sentence) {
  for (;;) {
    const size_t start = sentence.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || sentence[start] != '#') return sentence;
    const size_t end = sentence.find('\n', start);
    if (end == std::string_view::npos) return {};
    sentence.remove_prefix(end + 1);
  }
}

}  // namespace

ChunkIndex::ChunkIndex(const std::vector<Chunk>& chunks) {
  double total = 0;
  for (size_t c = 0; c < chunks.size(); ++c) {
    std::unordered_map<std::string, int> tf;
    double length = 0;
    // Term frequencies count every occurrence: sentence by sentence, each's terms once, which
    // is close enough for ranking chunks of a few sentences.
    for (const std::string& sentence : text::SplitSentences(chunks[c].text)) {
      for (const std::string& t : TermsOf(sentence)) {
        ++tf[t];
        ++length;
      }
    }
    std::vector<std::string> terms;
    for (const auto& [t, n] : tf) terms.push_back(t);
    std::sort(terms.begin(), terms.end());
    for (const std::string& t : terms) postings_[t].push_back(c);
    terms_.push_back(std::move(terms));
    frequencies_.push_back(std::move(tf));
    lengths_.push_back(length);
    total += length;
  }
  mean_length_ = chunks.empty() ? 1 : std::max(1.0, total / static_cast<double>(chunks.size()));
}

double ChunkIndex::Idf(const std::string& term) const {
  const double n = static_cast<double>(terms_.size());
  auto it = postings_.find(term);
  const double df = it == postings_.end() ? 0.5 : static_cast<double>(it->second.size());
  return std::log(1.0 + (n - df + 0.5) / (df + 0.5));
}

size_t ChunkIndex::ChunksWith(const std::string& term) const {
  auto it = postings_.find(term);
  return it == postings_.end() ? 0 : it->second.size();
}

std::vector<std::pair<size_t, double>> ChunkIndex::Search(const std::vector<std::string>& terms,
                                                          size_t k) const {
  std::unordered_map<size_t, double> scores;
  for (const std::string& t : terms) {
    auto it = postings_.find(t);
    if (it == postings_.end()) continue;
    const double idf = Idf(t);
    for (size_t c : it->second) {
      const double f = frequencies_[c].at(t);
      scores[c] += idf * f * (kK1 + 1) / (f + kK1 * (1 - kB + kB * lengths_[c] / mean_length_));
    }
  }
  std::vector<std::pair<size_t, double>> out(scores.begin(), scores.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (out.size() > k) out.resize(k);
  return out;
}

int RetrievalRank(const ChunkIndex& index, const std::vector<std::string>& terms, size_t chunk) {
  auto top = index.Search(terms, 10);
  for (size_t i = 0; i < top.size(); ++i) {
    if (top[i].first == chunk) return static_cast<int>(i + 1);
  }
  return 0;
}

Status ChunkVectors::Embed(const std::vector<size_t>& wanted) {
  std::vector<size_t> missing;
  std::vector<std::string> texts;
  for (size_t c : wanted) {
    if (vectors_.count(c) || std::find(missing.begin(), missing.end(), c) != missing.end()) {
      continue;
    }
    missing.push_back(c);
    texts.push_back(chunks_[c].text);
  }
  if (missing.empty()) return OkStatus();
  TALA_ASSIGN_OR_RETURN(std::vector<std::vector<double>> got, embedder_.Embed(texts));
  for (size_t i = 0; i < missing.size(); ++i) vectors_[missing[i]] = std::move(got[i]);
  return OkStatus();
}

Result<std::vector<std::pair<size_t, double>>> RankChunks(const ChunkIndex& index,
                                                          const std::vector<std::string>& terms,
                                                          size_t k,
                                                          const std::vector<double>* question,
                                                          ChunkVectors& vectors, double weight) {
  std::vector<std::pair<size_t, double>> top = index.Search(terms, std::max(k, kRankedByMeaning));
  if (question != nullptr && weight > 0 && !top.empty()) {
    const size_t n = std::min(top.size(), kRankedByMeaning);
    std::vector<size_t> wanted;
    for (size_t i = 0; i < n; ++i) wanted.push_back(top[i].first);
    TALA_RETURN_IF_ERROR(vectors.Embed(wanted));
    const double best = top.front().second;
    for (size_t i = 0; i < n; ++i) {
      const std::vector<double>& v = vectors.Of(top[i].first);
      const double cosine = std::inner_product(v.begin(), v.end(), question->begin(), 0.0);
      top[i].second = top[i].second / best + weight * cosine;
    }
    std::stable_sort(top.begin(), top.begin() + static_cast<long>(n),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
  }
  if (top.size() > k) top.resize(k);
  return top;
}

Result<ReferenceDraft> DraftReference(const std::vector<Chunk>& chunks, const ChunkIndex& index,
                                      const std::vector<std::string>& question_terms,
                                      const std::vector<std::pair<size_t, double>>& ranked,
                                      const AnswerScorer& answers) {
  ReferenceDraft draft;
  draft.answerable = "no";
  double total = 0;
  for (const std::string& t : question_terms) total += index.Idf(t);
  const std::vector<std::pair<size_t, double>> top(
      ranked.begin(), ranked.begin() + static_cast<long>(std::min<size_t>(3, ranked.size())));
  if (top.empty() || total <= 0) return draft;
  // The sentences of the best chunk, and of the next ones that score near it.
  struct Candidate {
    size_t chunk;
    std::string text;
    std::vector<std::string> terms;
  };
  std::vector<Candidate> candidates;
  for (const auto& [c, score] : top) {
    if (score < 0.5 * top.front().second) break;
    for (const std::string& sentence : text::SplitSentences(chunks[c].text)) {
      const std::string s(WithoutHeadings(sentence));
      if (s.find_first_not_of(" \t\r\n") == std::string::npos) continue;
      if (chunks[c].text.find(s) == std::string::npos) continue;  // quotes stay verbatim
      std::vector<std::string> terms = TermsOf(s);
      candidates.push_back({c, s, std::move(terms)});
    }
  }
  // The sentence that answers best opens the reference, when one answers (issue 53: the
  // sentence sharing most words often restates the question's premise).
  std::set<std::string> covered;
  double best_answer = -1;
  if (answers && !candidates.empty()) {
    std::vector<std::string> texts;
    for (const Candidate& c : candidates) texts.push_back(c.text);
    TALA_ASSIGN_OR_RETURN(std::vector<double> scores, answers(texts));
    size_t at = 0;
    for (size_t i = 0; i < scores.size(); ++i) {
      if (scores[i] > best_answer) {
        best_answer = scores[i];
        at = i;
      }
    }
    {  // the best reading opens the reference; whether it answers decides "yes" below
      const Candidate& best = candidates[at];
      for (const std::string& t : question_terms) {
        if (std::binary_search(best.terms.begin(), best.terms.end(), t)) covered.insert(t);
      }
      draft.quotes.push_back({best.chunk, best.text});
      draft.chunks.push_back(best.chunk);
    }
  }
  // Greedy cover of the question's weight, a sentence at a time (at most three).
  for (int round = static_cast<int>(draft.quotes.size()); round < 3; ++round) {
    double best_gain = 0;
    const Candidate* best = nullptr;
    for (const Candidate& c : candidates) {
      double gain = 0;
      for (const std::string& t : question_terms) {
        if (!covered.count(t) && std::binary_search(c.terms.begin(), c.terms.end(), t)) {
          gain += index.Idf(t);
        }
      }
      if (gain > best_gain) {
        best_gain = gain;
        best = &c;
      }
    }
    if (best == nullptr || best_gain < 0.1 * total) break;
    for (const std::string& t : question_terms) {
      if (std::binary_search(best->terms.begin(), best->terms.end(), t)) covered.insert(t);
    }
    draft.quotes.push_back({best->chunk, best->text});
    if (std::find(draft.chunks.begin(), draft.chunks.end(), best->chunk) == draft.chunks.end()) {
      draft.chunks.push_back(best->chunk);
    }
  }
  if (draft.quotes.empty()) return draft;
  // Coverage by the chunks the quotes come from: a question about what they hold.
  double held = 0;
  for (const std::string& t : question_terms) {
    for (size_t c : draft.chunks) {
      const auto& terms = index.TermsOfChunk(c);
      if (std::binary_search(terms.begin(), terms.end(), t)) {
        held += index.Idf(t);
        break;
      }
    }
  }
  draft.coverage = held / total;
  draft.answerable = draft.coverage >= kAnswerableCoverage ? "yes"
                     : draft.coverage >= kPartlyCoverage   ? "partly"
                                                           : "no";
  // With the relevance reading, "yes" needs a sentence that answers as well as the question's
  // words: the reading alone takes "It is 330 metres tall." (the Eiffel Tower's) for an answer to
  // "How tall is Mount Everest?" (newcomer-round4 T1), since it cannot tell whom "It" names.
  if (answers && draft.answerable == "yes" && best_answer < kAnswersQuestion) {
    draft.answerable = "partly";
  }
  if (draft.answerable == "no") {
    draft.quotes.clear();
    draft.chunks.clear();
    return draft;
  }
  // Quotes in the order they stand in their chunks, so the reference reads as written.
  std::stable_sort(draft.quotes.begin(), draft.quotes.end(), [&](const Quote& a, const Quote& b) {
    size_t ra = std::find(draft.chunks.begin(), draft.chunks.end(), a.chunk) - draft.chunks.begin();
    size_t rb = std::find(draft.chunks.begin(), draft.chunks.end(), b.chunk) - draft.chunks.begin();
    if (ra != rb) return ra < rb;
    return chunks[a.chunk].text.find(a.text) < chunks[b.chunk].text.find(b.text);
  });
  for (const Quote& q : draft.quotes) {
    draft.reference += (draft.reference.empty() ? "" : " ") + q.text;
  }
  return draft;
}

}  // namespace tala::testset
