#pragma once
// The offline judge: the embedded default. Answers every judge task with no model and no
// network, deterministically: claims by sentence and clause splitting (short answers are
// decontextualised with the question), support by ClaimSupport, chunk relevance by BM25-weighted
// coverage, entities by capitalised spans and numbers, similarity by hashed embeddings. Question
// generation needs a model, so response relevancy is estimated from the question read against
// the response (relevance_blend.h), with a reason that says what was read. A claim under a
// hedge is a claim (hedges.h). Not thread-safe: one judge per thread.

#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

#include "core/text/language.h"
#include "judges/offline/claim_support.h"
#include "judges/offline/hashed_embedder.h"
#include "judges/offline/hedges.h"
#include "judges/offline/relevance_blend.h"
#include "judges/offline/sentence_encoder.h"
#include "tala/judge.h"
#include "tala/offline_blend.h"

namespace tala::judges::offline {

// A chunk counts as relevant when it covers this share of the BM25-weighted content words of
// the reference (or the response): it holds most of what the answer says.
inline constexpr double kChunkRelevanceThreshold = 0.5;
// With a reference of several sentences, a chunk is also useful when it covers this share of
// one substantive sentence of it (see OfflineJudge::Answer).
inline constexpr double kSentenceRelevanceThreshold = 0.5;
// A user's ask counts as met (conversation_completeness) when an answer after it reads as
// addressing it this well: the middle of the relevance scale, which anchors a typical answering
// sentence at 0.85 and an off-topic one at 0.05 (relevance_blend.h).
inline constexpr double kAskMetRelevance = 0.5;

// What the offline judge embeds with in this process: "use-lite-0.2.0" when the sentence
// encoder is there, else "hashed" (then `why` says what is missing and how to fetch it).
std::string EmbedderName(std::string* why = nullptr);

class OfflineJudge : public Judge {
 public:
  // `blend`: a judge profile's refitted relevance weights (empty lists: the built-in ones).
  explicit OfflineJudge(OfflineBlend blend = {});
  std::string name() const override { return "offline"; }
  Result<Verdicts> Answer(const JudgeQuery& query) override;

  // The relevance blends' features of the rows answered while a trace is set: the response's
  // (one vector a row) and each chunk's (context_relevance reads the best chunk), for tala
  // align to refit the weights on exactly what the judge reads. Null: none are kept.
  struct BlendTrace {
    std::vector<std::vector<double>> response, context;
  };
  void set_trace(BlendTrace* trace) { trace_ = trace; }

 private:
  struct Claim {
    std::string text;
    TextProfile profile;
    // The response's own words the claim stands on: `text` less the question a short answer
    // was decontextualised with ("Delhi (answering: ...)" -> "Delhi").
    std::string said;
  };
  // One row's texts, analysed once and shared by every task.
  struct RowTexts {
    // The chunks' profiles come from `chunk_profile` (the judge's cache of them).
    template <typename ProfileOf>
    RowTexts(const Sample& s, text::Stemmer& stemmer, ProfileOf chunk_profile);
    // The whole context as one text, profiled on first use (one chunk: the chunk itself).
    const TextProfile& WholeContext(text::Stemmer& stemmer);
    std::string question;
    TextProfile question_profile;
    std::vector<std::shared_ptr<const TextProfile>> chunks;
    std::string joined_context;
    std::optional<TextProfile> whole_context;
  };
  Result<Verdicts> AnswerRow(const Sample& s, const JudgeQuery& query);
  // knowledge_retention and conversation_completeness on a turn of a conversation
  // (conversation_reading.h); the relevance reading of `answer` to `question` alone.
  Result<JudgedAnswer> ReadRetentionOf(const Sample& s);
  Result<JudgedAnswer> ReadCompletenessOf(const Sample& s);
  Result<double> RelevanceOf(const std::string& question, const std::string& answer);
  Result<GeneratedQuestion> RelevanceReading(const std::string& question,
                                             const std::string& answer);
  // A turn of a conversation: its relevance by the better of its two readings (turn_question.h).
  Status ReadTurnBothWays(const Sample& s, Verdicts& v);
  text::Stemmer* StemmerFor(const std::string& algorithm);
  ClaimVerdict VerifyAgainstContext(const Claim& claim, RowTexts& row);
  std::vector<ClaimVerdict> JudgeResponseClaims(const Sample& s, TaskSet tasks, RowTexts& row);
  std::vector<ReferenceClaim> JudgeReferenceClaims(const Sample& s, TaskSet tasks, RowTexts& row);
  Status AddSimilarities(const Sample& s, TaskSet tasks, const RowTexts& row, Verdicts& v);
  // context_relevance's two ratings (0-2), from the best chunk's ContextRelevance.
  Result<JudgedAnswer> RateContexts(const Sample& s, const RowTexts& row);
  // The encoder's cosines of `text` with the row's question and with what it asks for.
  Result<EncoderCosines> Cosines(const RowTexts& row, const std::string& text);
  // The encoder's vector of `text`, cached by text for the judge's life.
  Result<const std::vector<float>*> Vector(const std::string& text);
  // The vectors the row's tasks will ask for, embedded in one product (where that changes no
  // bit of them: SentenceEncoder::BatchesExactly).
  void PrefetchVectors(const Sample& s, const JudgeQuery& query, const RowTexts& row);
  std::vector<Claim> ExtractClaims(const std::string& text, const std::string& question);
  std::vector<bool> RateChunks(const std::vector<std::shared_ptr<const TextProfile>>& chunks,
                               const TextProfile& target, const TextProfile& question,
                               double threshold = kChunkRelevanceThreshold);
  std::vector<std::string> Entities(const std::string& text);

  text::Stemmer english_stemmer_;
  std::map<std::string, std::unique_ptr<text::Stemmer>> stemmers_;  // other languages'
  text::Stemmer* stemmer_ = &english_stemmer_;                      // the row's language's
  text::Language language_;                                         // the row's
  ClaimSupport support_;
  HashedEmbedder embedder_;
  const OfflineBlend blend_;
  BlendTrace* trace_ = nullptr;
  // The sentence encoder is read when a row first needs it, so a run whose metrics embed nothing
  // never reads its 28 MB. Once there, a model that cannot be read fails the rows that need it
  // with the reason (the run's manifest already names the encoder).
  const bool has_encoder_;                    // its files are there
  std::unique_ptr<SentenceEncoder> encoder_;  // null until read
  Result<SentenceEncoder*> Encoder();
  // A verdict that needed the encoder, which could not be read: failed, as a judge call that
  // failed is, so the metrics that need it fail and the others of the row stand.
  static void EncoderFailed(Verdicts& v, const std::string& verdict, const Status& why);
  std::unordered_map<std::string, std::vector<float>> vectors_;
  // A chunk's profile, cached by text for each stemmer (language): rows retrieved from one
  // corpus share chunks, and profiling a chunk is a third of a faithfulness check. Emptied when
  // its chunks' text passes kCachedChunkBytes, so its memory stays bounded (a profile takes about
  // ten times its text's bytes: some 6 MB when full).
  std::shared_ptr<const TextProfile> ChunkProfile(const std::string& chunk);
  static constexpr size_t kCachedChunkBytes = 512 * 1024;
  std::map<const text::Stemmer*,
           std::unordered_map<std::string, std::shared_ptr<const TextProfile>>>
      chunk_profiles_;
  size_t cached_chunk_bytes_ = 0;
};

}  // namespace tala::judges::offline
