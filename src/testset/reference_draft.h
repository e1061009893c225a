#pragma once
// Reference answers drafted without a model: the question's terms find chunks by BM25, and the
// reference is the chunks' sentences that cover the question's terms best, quoted verbatim
// (extractive, so every quote is in its chunk and the reference is grounded by construction).
// How much of the question's weight the chosen chunks hold decides `answerable`: a question
// about something the documents never mention holds little, and becomes a "should refuse" item.

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tala/embedder.h"
#include "tala/status.h"
#include "testset/documents.h"

namespace tala::testset {

// The share of the question's BM25 weight the reference's chunks hold. Below kPartlyCoverage:
// not answerable, chosen on the development half of the HaluEval intents
// (tests/data/testset/README.md), where the unanswerable questions held at most 0.00 and the
// answerable ones at least 0.33 (on the other half: 0.13 and 0.37). kAnswerableCoverage only
// splits "yes" from "partly", a hint to the reviewer, and is not fitted.
inline constexpr double kAnswerableCoverage = 0.6;
inline constexpr double kPartlyCoverage = 0.2;

class ChunkIndex {
 public:
  explicit ChunkIndex(const std::vector<Chunk>& chunks);
  // The best `k` chunks for the terms (sorted, unique), best first: (chunk, score).
  std::vector<std::pair<size_t, double>> Search(const std::vector<std::string>& terms,
                                                size_t k) const;
  // BM25's idf of a term; a term no chunk holds weighs as much as the rarest.
  double Idf(const std::string& term) const;
  // How many chunks hold the term.
  size_t ChunksWith(const std::string& term) const;
  const std::vector<std::string>& TermsOfChunk(size_t chunk) const { return terms_[chunk]; }
  size_t size() const { return terms_.size(); }

 private:
  std::vector<std::vector<std::string>> terms_;                    // sorted, unique
  std::vector<std::unordered_map<std::string, int>> frequencies_;  // per chunk
  std::vector<double> lengths_;
  double mean_length_ = 1;
  std::unordered_map<std::string, std::vector<size_t>> postings_;
};

// Chunk vectors by the sentence encoder, each embedded once, when first asked for.
class ChunkVectors {
 public:
  ChunkVectors(const std::vector<Chunk>& chunks, Embedder& embedder)
      : chunks_(chunks), embedder_(embedder) {}
  // The vectors of `wanted` (chunk indices), embedding in one batch those not yet embedded.
  Status Embed(const std::vector<size_t>& wanted);
  const std::vector<double>& Of(size_t chunk) const { return vectors_.at(chunk); }
  int64_t embedded() const { return static_cast<int64_t>(vectors_.size()); }

 private:
  const std::vector<Chunk>& chunks_;
  Embedder& embedder_;
  std::unordered_map<size_t, std::vector<double>> vectors_;
};

// How many of BM25's best chunks the meaning re-ranks; the rest keep BM25's order after them.
inline constexpr size_t kRankedByMeaning = 5;
// The weight of meaning (cosine) against BM25 (over the best chunk's BM25), chosen on the
// development half of the HaluEval intents' questions, as asked and reworded
// (`build/bench/bench_testset chunks`).
inline constexpr double kMeaningWeight = 1.0;

// The best `k` chunks for a question, best first: BM25 over its terms finds
// kRankedByMeaning, and each one's score becomes its BM25 over the best one's plus `weight`
// times the cosine of its vector and the question's (`question`, L2-normalised). With no
// question vector, BM25 alone.
Result<std::vector<std::pair<size_t, double>>> RankChunks(
    const ChunkIndex& index, const std::vector<std::string>& terms, size_t k,
    const std::vector<double>* question, ChunkVectors& vectors, double weight = kMeaningWeight);

struct Quote {
  size_t chunk = 0;
  std::string text;  // a sentence of the chunk, verbatim
};

struct ReferenceDraft {
  std::string answerable;      // yes | partly | no
  double coverage = 0;         // the share of the question's weight the chunks hold
  std::vector<size_t> chunks;  // the reference's contexts, the best first
  std::vector<Quote> quotes;
  std::string reference;  // the quotes, joined; empty when answerable is "no"
};

// How well each of `sentences` answers the question, on response relevancy's scale (the offline
// judge's reading of a one-sentence answer: the answer's kind, the words next to the question's
// gap, the sentence encoder's cosines; see AnswerScores in testset.cc).
using AnswerScorer =
    std::function<Result<std::vector<double>>(const std::vector<std::string>& sentences)>;

// A sentence answers the question from this score on (response relevancy's scale: the median
// answering sentence of the development sources reads 0.85, a fluent one about something else
// 0.05; bench/judge_sources.py).
inline constexpr double kAnswersQuestion = 0.5;

// The draft from chunks already ranked for the question (RankChunks, or ChunkIndex::Search),
// best first; the best three are read. With `answers`, the first quote is the sentence that
// answers best (not the one that shares most words), and `answerable` is "yes" only when it
// answers (kAnswersQuestion) and the chunks hold the question's words (kAnswerableCoverage);
// the rest of the reference covers the question's words as before.
Result<ReferenceDraft> DraftReference(const std::vector<Chunk>& chunks, const ChunkIndex& index,
                                      const std::vector<std::string>& question_terms,
                                      const std::vector<std::pair<size_t, double>>& ranked,
                                      const AnswerScorer& answers = nullptr);

// The 1-based rank of `chunk` among the best 10 for the terms; 0 when it is not among them.
int RetrievalRank(const ChunkIndex& index, const std::vector<std::string>& terms, size_t chunk);

}  // namespace tala::testset
