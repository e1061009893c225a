#include "judges/offline/offline_judge.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <span>
#include <string_view>

#include "core/logistic.h"
#include "core/text/language.h"
#include "core/text/normalize.h"
#include "core/text/sentences.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "core/turn_question.h"
#include "core/verdict_validation.h"
#include "judges/offline/answer_relevance.h"
#include "judges/offline/cjk_values.h"
#include "judges/offline/conversation_reading.h"
#include "judges/offline/question_parts.h"
#include "metrics/conversation_completeness.h"
#include "metrics/knowledge_retention.h"

namespace tala::judges::offline {

namespace {

// A response of at most this many words in one sentence is a short answer ("Delhi") and is
// read together with the question.
constexpr size_t kShortAnswerWords = 6;
// The graded support of a Chinese or Japanese claim holding a name or value the context lacks
// (AbsentCjkRun): unsupported, as an English claim with a value the context contradicts reads.
constexpr double kAbsentValueSupport = 0.05;

size_t WordCount(std::string_view s) {
  size_t n = 0;
  bool in_word = false;
  for (char c : s) {
    bool w = c != ' ' && c != '\t' && c != '\n';
    if (w && !in_word) ++n;
    in_word = w;
  }
  return n;
}

// response_relevancy's reason: what the offline reading found (issue 52: never the wording of
// an LLM judge's generated questions, which the offline judge does not generate).
std::string RelevanceReason(const TextProfile& question, const AnswerReading& reading,
                            const EncoderCosines* cosines, const PartsReading& parts,
                            double on_topic, size_t sentences, bool pronoun_resolved,
                            double score) {
  std::string out = fmt::format("offline reading {:.2f}: ", score);
  if (reading.fragment) out += "a short answer; ";
  if (parts.parts.size() >= 2) {
    out += fmt::format("answers {} of {} parts", parts.answered, parts.parts.size());
    const std::string missing = parts.Unanswered();
    if (!missing.empty()) out += fmt::format(" (not answered: \"{}\")", missing);
    out += "; ";
  }
  out += fmt::format("states {:.0f}% of the question's focus words", 100 * reading.coverage);
  const std::string asked = AskedFor(question);
  if (reading.typed_question && !asked.empty()) {
    out += reading.typed ? fmt::format("; holds an answer of the kind \"{}\" asks for", asked)
                         : fmt::format("; no answer of the kind \"{}\" asks for", asked);
  }
  if (cosines != nullptr) {
    out += fmt::format("; sentence-encoder similarity {:.2f} to the question", cosines->question);
    if (!asked.empty()) out += fmt::format(", {:.2f} to \"{}\"", cosines->asked, asked);
  }
  if (sentences >= 2) {
    out +=
        fmt::format("; {:.0f}% of its {} sentences about the question", 100 * on_topic, sentences);
  }
  if (pronoun_resolved) out += "; its opening pronoun read as the question's subject";
  return out;
}

std::string QuestionOf(const Sample& s) {
  if (s.user_input) return *s.user_input;
  for (auto it = s.messages.rbegin(); it != s.messages.rend(); ++it) {
    if (it->type == Message::Type::kHuman) return it->content;
  }
  return {};
}

}  // namespace

std::string EmbedderName(std::string* why) {
  Status available = SentenceEncoder::Available();
  if (available.ok()) return SentenceEncoder::kName;
  if (why != nullptr) *why = available.message();
  return "hashed";
}

OfflineJudge::OfflineJudge(OfflineBlend blend)
    : blend_(std::move(blend)), has_encoder_(SentenceEncoder::Available().ok()) {}

void OfflineJudge::EncoderFailed(Verdicts& v, const std::string& verdict, const Status& why) {
  v.missing_reasons[verdict] =
      "the offline judge's sentence encoder cannot be read: " + why.ToString() +
      " (fetch it again: make deps)";
  v.failed.insert(verdict);
}

Result<SentenceEncoder*> OfflineJudge::Encoder() {
  if (!encoder_) {
    TALA_ASSIGN_OR_RETURN(encoder_, SentenceEncoder::Shared());
  }
  return encoder_.get();
}

Result<const std::vector<float>*> OfflineJudge::Vector(const std::string& text) {
  auto it = vectors_.find(text);
  if (it != vectors_.end()) return &it->second;
  // A text PrefetchVectors did not foresee, embedded alone.
  TALA_ASSIGN_OR_RETURN(SentenceEncoder * encoder, Encoder());
  std::vector<std::vector<float>> one = encoder->EmbedPieces({encoder->Tokenize(text)});
  return &vectors_.emplace(text, std::move(one[0])).first->second;
}

void OfflineJudge::PrefetchVectors(const Sample& s, const JudgeQuery& query, const RowTexts& row) {
  // A bound on the cache, for a judge that lives through a long `tala serve`; cleared between
  // rows, never while a row holds vectors from it.
  if (vectors_.size() >= 50'000) vectors_.clear();
  // Batched only where a text's vector is the same in any batch: a row's scores must not depend
  // on which texts were cached before it (a shard scores its rows exactly as the whole run
  // does, MergeTest). Elsewhere each text is embedded alone as it is asked for.
  if (!has_encoder_ || language_.code != "en" || !SentenceEncoder::BatchesExactly()) return;
  std::vector<const std::string*> texts;
  std::optional<std::string> asked;  // read only for a row whose tasks use the question
  auto with_question = [&] {
    if (!asked) asked = AskedFor(row.question_profile);
    texts.push_back(&row.question);
    if (!asked->empty()) texts.push_back(&*asked);
  };
  if (Contains(query.tasks, JudgeTask::kGenerateQuestions) && s.response) {
    texts.push_back(&*s.response);
    with_question();
  }
  if (Contains(query.tasks, JudgeTask::kEmbedResponseAndReference) && s.response && s.reference) {
    texts.push_back(&*s.response);
    texts.push_back(&*s.reference);
  }
  for (const JudgeQuestion& q : query.questions) {
    if (q.kind == JudgeQuestion::Kind::kRating && q.definition == "context_relevance" &&
        s.retrieved_contexts) {
      for (const std::string& chunk : *s.retrieved_contexts) texts.push_back(&chunk);
      with_question();
    }
  }
  if (texts.empty()) return;  // the row's metrics embed nothing: the model is not even read
  auto encoder = Encoder();
  if (!encoder) return;  // Vector() reports it for the row
  std::vector<const std::string*> missing;
  std::vector<std::vector<int32_t>> ids;
  for (const std::string* text : texts) {
    if (text->empty() || vectors_.count(*text)) continue;
    if (std::find_if(missing.begin(), missing.end(),
                     [&](const std::string* m) { return *m == *text; }) != missing.end()) {
      continue;
    }
    missing.push_back(text);
    ids.push_back((*encoder)->Tokenize(*text));
  }
  if (missing.empty()) return;
  std::vector<std::vector<float>> vectors = (*encoder)->EmbedPieces(ids);
  for (size_t i = 0; i < missing.size(); ++i) vectors_.emplace(*missing[i], std::move(vectors[i]));
}

namespace {
// The cosine of two of the encoder's vectors, which are L2-normalised.
double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += double(a[i]) * double(b[i]);
  return sum;
}

// A judge profile's refitted weights, else the built-in ones.
std::span<const double> Fitted(const std::vector<double>& fitted,
                               const std::vector<double>& built_in) {
  return fitted.empty() ? std::span<const double>(built_in) : std::span<const double>(fitted);
}
}  // namespace

Result<EncoderCosines> OfflineJudge::Cosines(const RowTexts& row, const std::string& text) {
  EncoderCosines out;
  TALA_ASSIGN_OR_RETURN(const std::vector<float>* t, Vector(text));
  TALA_ASSIGN_OR_RETURN(const std::vector<float>* q, Vector(row.question));
  out.question = Dot(*t, *q);
  const std::string asked = AskedFor(row.question_profile);
  if (!asked.empty()) {
    TALA_ASSIGN_OR_RETURN(const std::vector<float>* a, Vector(asked));
    out.asked = Dot(*t, *a);
  }
  return out;
}

Result<JudgedAnswer> OfflineJudge::RateContexts(const Sample& s, const RowTexts& row) {
  double best = 0;
  for (size_t i = 0; i < row.chunks.size(); ++i) {
    const std::string& chunk = (*s.retrieved_contexts)[i];
    TALA_ASSIGN_OR_RETURN(EncoderCosines c, Cosines(row, chunk));
    double bearing = 0;
    const double on_topic =
        OnTopicShare(row.question_profile, chunk, *stemmer_, /*sentences=*/nullptr, &bearing);
    std::vector<double> features = ContextBlendFeatures(
        ReadAnswer(row.question_profile, *row.chunks[i]), on_topic, c, bearing);
    best = std::max(
        best, BlendScore(Fitted(blend_.context_relevance, BuiltInContextWeights()), features));
    if (trace_ != nullptr) trace_->context.push_back(std::move(features));
  }
  // Two ratings on the 0-2 scale, cut at staggered points of the estimate, as a model's two
  // would read; the estimate itself is the expected rating that scores the row, so that two
  // contexts of one question tie only when the judge reads them the same.
  JudgedAnswer a;
  a.values = {double((best >= 0.35) + (best >= 0.65)), double((best >= 0.5) + (best >= 0.8))};
  a.weighted = 2 * std::clamp(best, 0.0, 1.0);
  a.reason = fmt::format(
      "offline estimate {:.2f}: the best chunk's similarity to the question by the sentence "
      "encoder, the question's words it states, its sentences about the question and the share "
      "of them that bear on it",
      best);
  return a;
}

std::vector<OfflineJudge::Claim> OfflineJudge::ExtractClaims(const std::string& text,
                                                             const std::string& question) {
  std::vector<Claim> claims;
  // A claim under a hedge is a claim: the hedges go, and so do sentences that only decline.
  std::vector<std::string> sentences = text::SplitSentences(CommittedText(text));
  if (sentences.size() == 1 && WordCount(sentences[0]) <= kShortAnswerWords && !question.empty()) {
    // Decontextualise: the claim is the question answered by the short response.
    std::string q = question;
    while (!q.empty() && (q.back() == '?' || q.back() == ' ')) q.pop_back();
    // Its support is judged on the answer's own words: the question's words are the same for
    // every answer to it, so they cannot tell a supported answer from an unsupported one.
    claims.push_back({sentences[0] + " (answering: " + q + ")",
                      TextProfile(sentences[0], *stemmer_), sentences[0]});
    return claims;
  }
  for (const std::string& sentence : sentences) {
    for (std::string& clause : text::SplitClauses(sentence)) {
      TextProfile profile(clause, *stemmer_);
      std::string said = clause;
      claims.push_back({std::move(clause), std::move(profile), std::move(said)});
    }
  }
  return claims;
}

std::vector<bool> OfflineJudge::RateChunks(
    const std::vector<std::shared_ptr<const TextProfile>>& chunks, const TextProfile& target,
    const TextProfile& question, double threshold) {
  // The target's own content words decide; a target with none ("Yes.") falls back on the
  // question's.
  std::vector<std::string_view> terms;
  for (const ProfiledToken& t : target.tokens()) {
    if (!t.stop && !t.negation) terms.push_back(t.stem);
  }
  if (terms.empty()) {
    for (const ProfiledToken& t : question.tokens()) {
      if (!t.stop) terms.push_back(t.stem);
    }
  }
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  const double n = static_cast<double>(chunks.size());
  std::vector<double> idf;
  for (std::string_view term : terms) {
    double df = 0;
    for (const auto& c : chunks) df += c->HasStem(term) ? 1 : 0;
    // BM25's idf, floored so a term present in every chunk still counts a little. A term in
    // no chunk weighs as one in a single chunk: it cannot tell the chunks apart, and letting it
    // weigh most would make every chunk look irrelevant to a paraphrased reference.
    df = std::max(df, 1.0);
    idf.push_back(std::max(0.1, std::log(1.0 + (n - df + 0.5) / (df + 0.5))));
  }
  double total = 0;
  for (double w : idf) total += w;
  std::vector<bool> out;
  for (const auto& c : chunks) {
    double covered = 0;
    for (size_t i = 0; i < terms.size(); ++i) covered += c->HasStem(terms[i]) ? idf[i] : 0;
    out.push_back(total > 0 && covered / total >= threshold);
  }
  return out;
}

std::vector<std::string> OfflineJudge::Entities(const std::string& text) {
  std::vector<std::string> out;
  std::vector<text::Token> tokens = text::Tokenize(text);
  std::string span;
  size_t span_end = 0;
  auto flush = [&] {
    if (!span.empty()) out.push_back(span);
    span.clear();
  };
  for (const text::Token& t : tokens) {
    bool entity_word = (t.capitalised && !text::IsStopWord(t.text)) || t.number;
    if (!entity_word) {
      flush();
      continue;
    }
    if (t.number) {
      flush();
      out.push_back(t.text);
      continue;
    }
    // Consecutive capitalised words separated by a single space form one name.
    if (!span.empty() && t.offset > span_end + 1) flush();
    span += (span.empty() ? "" : " ") + t.text;
    span_end = t.offset + t.text.size();
  }
  flush();
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

template <typename ProfileOf>
OfflineJudge::RowTexts::RowTexts(const Sample& s, text::Stemmer& stemmer, ProfileOf chunk_profile)
    : question(QuestionOf(s)), question_profile(question, stemmer) {
  if (!s.retrieved_contexts) return;
  for (const std::string& c : *s.retrieved_contexts) {
    chunks.push_back(chunk_profile(c));
    joined_context += c + "\n";
  }
}

std::shared_ptr<const TextProfile> OfflineJudge::ChunkProfile(const std::string& chunk) {
  auto& cache = chunk_profiles_[stemmer_];
  if (auto it = cache.find(chunk); it != cache.end()) return it->second;
  auto profile = std::make_shared<const TextProfile>(chunk, *stemmer_);
  if (chunk.size() > kCachedChunkBytes) return profile;  // larger than the whole cache
  if (cached_chunk_bytes_ + chunk.size() > kCachedChunkBytes) {
    for (auto& [stemmer, profiles] : chunk_profiles_) profiles.clear();  // rows keep theirs
    cached_chunk_bytes_ = 0;
  }
  cache.emplace(chunk, profile);
  cached_chunk_bytes_ += chunk.size();
  return profile;
}

const TextProfile& OfflineJudge::RowTexts::WholeContext(text::Stemmer& stemmer) {
  if (chunks.size() == 1) return *chunks[0];
  if (!whole_context) whole_context.emplace(joined_context, stemmer);
  return *whole_context;
}

ClaimVerdict OfflineJudge::VerifyAgainstContext(const Claim& claim, RowTexts& row) {
  ClaimVerdict cv;
  SupportVerdict best;
  for (size_t chunk_idx = 0; chunk_idx < row.chunks.size(); ++chunk_idx) {
    SupportVerdict sv = support_.Check(claim.profile, row.question_profile, *row.chunks[chunk_idx],
                                       GivenWords::kMustMatch, "context");
    if (sv.supported) cv.supported_by.push_back(static_cast<int>(chunk_idx));
    if (sv.score > best.score || best.reason.empty()) best = std::move(sv);
  }
  if (row.chunks.size() > 1 && !best.supported) {
    // A claim may combine facts from two chunks.
    SupportVerdict sv =
        support_.Check(claim.profile, row.question_profile, row.WholeContext(*stemmer_),
                       GivenWords::kMustMatch, "context");
    if (sv.score > best.score) best = std::move(sv);
  }
  cv.supported = best.supported;
  cv.support_score = best.score;
  cv.reason = best.reason;
  // Chinese and Japanese have no spaces to find a swapped name or value by words: a run of
  // their characters the context lacks entirely is one (cjk_values.h).
  if (language_.code == "zh" || language_.code == "ja") {
    const std::string absent = AbsentCjkRun(claim.said, row.joined_context);
    if (!absent.empty()) {
      cv.supported = false;
      cv.supported_by.clear();
      cv.support_score = std::min(cv.support_score.value_or(1.0), kAbsentValueSupport);
      cv.reason = "'" + absent + "' is not in the context";
    }
  }
  // The structure checks read English clauses: in another language a supported claim may still
  // hold a value or name moved from elsewhere in the context, and the verdict says so.
  if (language_.code != "en" && cv.supported == true) {
    cv.unchecked =
        "a value or name moved within the context (the structure checks read "
        "English, not " +
        text::LanguageName(language_.code) + ")";
  }
  return cv;
}

std::vector<ClaimVerdict> OfflineJudge::JudgeResponseClaims(const Sample& s, TaskSet tasks,
                                                            RowTexts& row) {
  TextProfile reference;
  if (s.reference) reference = TextProfile(*s.reference, *stemmer_);
  std::vector<ClaimVerdict> out;
  for (Claim& claim : ExtractClaims(*s.response, row.question)) {
    ClaimVerdict cv;
    if (Contains(tasks, JudgeTask::kVerifyResponseClaims)) cv = VerifyAgainstContext(claim, row);
    cv.text = std::move(claim.text);
    if (Contains(tasks, JudgeTask::kCheckClaimsAgainstReference) && s.reference) {
      SupportVerdict sv = support_.Check(claim.profile, row.question_profile, reference,
                                         GivenWords::kCountAsMatch, "reference");
      cv.correct = sv.supported;
      if (cv.reason.empty()) cv.reason = sv.reason;
    }
    out.push_back(std::move(cv));
  }
  return out;
}

std::vector<ReferenceClaim> OfflineJudge::JudgeReferenceClaims(const Sample& s, TaskSet tasks,
                                                               RowTexts& row) {
  TextProfile response;
  if (s.response) response = TextProfile(*s.response, *stemmer_);
  std::vector<ReferenceClaim> out;
  for (Claim& claim : ExtractClaims(*s.reference, row.question)) {
    ReferenceClaim rc;
    if (Contains(tasks, JudgeTask::kAttributeReferenceClaims)) {
      SupportVerdict sv =
          support_.Check(claim.profile, row.question_profile, row.WholeContext(*stemmer_),
                         GivenWords::kMustMatch, "context");
      rc.attributed = sv.supported;
      rc.reason = sv.reason;
    }
    if (Contains(tasks, JudgeTask::kFindReferenceClaimsInResponse) && s.response) {
      rc.in_response = support_
                           .Check(claim.profile, row.question_profile, response,
                                  GivenWords::kCountAsMatch, "response")
                           .supported;
    }
    rc.text = std::move(claim.text);
    out.push_back(std::move(rc));
  }
  return out;
}

Status OfflineJudge::AddSimilarities(const Sample& s, TaskSet tasks, const RowTexts& row,
                                     Verdicts& v) {
  const bool need_questions = Contains(tasks, JudgeTask::kGenerateQuestions) && s.response;
  const bool need_similarity =
      Contains(tasks, JudgeTask::kEmbedResponseAndReference) && s.response && s.reference;
  const bool english = language_.code == "en";
  if (need_questions && !english) {
    v.missing_reasons[JudgeTaskVerdictName(JudgeTask::kGenerateQuestions)] =
        "offline judge: its relevance reading is English only, and the row is in " +
        text::LanguageName(language_.code) + "; use an LLM judge (--judge openai:MODEL)";
  } else if (need_questions) {
    // No questions are generated offline: one stand-in "question" carries the estimate of how
    // well the response addresses the question (answer_relevance.h), so response_relevancy
    // reads it on its own scale.
    GeneratedQuestion q;
    q.text =
        "offline estimate: does the response address the question (focus words, answer "
        "type, each part of a question of several)";
    q.noncommittal = IsNoncommittal(*s.response);
    // "It was completed in 1889." is read with the question's subject for "It".
    const std::string response = WithPronounResolved(row.question, *s.response);
    const TextProfile response_profile(response, *stemmer_);
    const AnswerReading reading = ReadAnswer(row.question_profile, response_profile);
    q.cosine = reading.lexical;
    Result<EncoderCosines> cosines = EncoderCosines{};
    PartsReading parts;
    size_t sentences = 0;
    double on_topic = 0;
    if (has_encoder_ && !s.response->empty()) {
      cosines = Cosines(row, response);
      std::vector<std::string> asks = QuestionParts(row.question);
      if (cosines && asks.size() >= 2) {
        auto part_cosines = [this](const std::string& sentence, const std::string& part,
                                   const std::string& asked) -> Result<EncoderCosines> {
          TALA_ASSIGN_OR_RETURN(const std::vector<float>* t, Vector(sentence));
          TALA_ASSIGN_OR_RETURN(const std::vector<float>* p, Vector(part));
          EncoderCosines c;
          c.question = Dot(*t, *p);
          if (!asked.empty()) {
            TALA_ASSIGN_OR_RETURN(const std::vector<float>* a, Vector(asked));
            c.asked = Dot(*t, *a);
          }
          return c;
        };
        Result<PartsReading> read = ReadParts(std::move(asks), response, *stemmer_, part_cosines);
        if (read) {
          parts = std::move(*read);
        } else {
          cosines = read.error();
        }
      }
      if (cosines) {
        // The share of the answer's sentences about the question: a lone sentence about
        // something else reads 0, and an answer that goes on about something else loses by it.
        on_topic = OnTopicShare(row.question_profile, response, *stemmer_, &sentences);
        std::vector<double> features = ResponseBlendFeatures(
            reading, *cosines, on_topic, sentences,
            parts.parts.empty() ? PartsScore{} : PartsScore{parts.parts.size(), parts.mean});
        q.cosine =
            BlendScore(Fitted(blend_.response_relevancy, BuiltInResponseWeights()), features);
        if (trace_ != nullptr) trace_->response.push_back(std::move(features));
      }
    }
    q.reading =
        RelevanceReason(row.question_profile, reading,
                        has_encoder_ && cosines && !s.response->empty() ? &*cosines : nullptr,
                        parts, on_topic, sentences, response != *s.response, *q.cosine);
    if (cosines) {
      v.generated_questions = std::vector<GeneratedQuestion>{q};
    } else {
      EncoderFailed(v, JudgeTaskVerdictName(JudgeTask::kGenerateQuestions), cosines.error());
    }
  }
  if (!need_similarity) return OkStatus();
  if (has_encoder_ && english) {
    auto a = Vector(*s.response);
    auto b = a ? Vector(*s.reference) : a;
    if (a && b) {
      v.response_reference_similarity = Dot(**a, **b);
    } else {
      EncoderFailed(v, JudgeTaskVerdictName(JudgeTask::kEmbedResponseAndReference),
                    a ? b.error() : a.error());
    }
    return OkStatus();
  }
  // One embedding batch per row, so the IDF comes from all of the sample's texts.
  std::string answered = *s.response;
  if (WordCount(answered) <= kShortAnswerWords) answered = row.question + " " + answered;
  std::vector<std::string> texts = {row.question, answered, *s.response,
                                    s.reference.value_or(std::string())};
  if (s.retrieved_contexts) {
    texts.insert(texts.end(), s.retrieved_contexts->begin(), s.retrieved_contexts->end());
  }
  TALA_ASSIGN_OR_RETURN(auto vectors, embedder_.Embed(texts));
  v.response_reference_similarity = Cosine(vectors[2], vectors[3]).value_or(0.0);
  return OkStatus();
}

namespace {

// Full-width and Arabic punctuation as ASCII with a space after it, so the sentence and clause
// rules (written for ". " and ", ") split Japanese, Chinese and Arabic text too.
std::string AsciiPunctuation(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kMarks = {{
      {"\xE3\x80\x82", ". "},  // 。
      {"\xEF\xBC\x81", "! "},  // ！
      {"\xEF\xBC\x9F", "? "},  // ？
      {"\xE3\x80\x81", ", "},  // 、
      {"\xEF\xBC\x8C", ", "},  // ，
      {"\xEF\xBC\x9B", "; "},  // ；
      {"\xEF\xBC\x9A", ": "},  // ：
      {"\xD8\x9F", "? "},      // ؟
      {"\xD8\x8C", ", "},      // ،
  }};
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    for (const auto& [mark, ascii] : kMarks) {
      if (text.substr(i, mark.size()) == mark) {
        out += ascii;
        i += mark.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

Sample WithAsciiPunctuation(const Sample& s) {
  Sample out = s;
  auto fix = [](std::optional<std::string>& t) {
    if (t) t = AsciiPunctuation(*t);
  };
  fix(out.user_input);
  fix(out.response);
  fix(out.reference);
  if (out.retrieved_contexts) {
    for (std::string& c : *out.retrieved_contexts) c = AsciiPunctuation(c);
  }
  return out;
}

}  // namespace

text::Stemmer* OfflineJudge::StemmerFor(const std::string& algorithm) {
  if (algorithm == "english") return &english_stemmer_;
  std::unique_ptr<text::Stemmer>& st = stemmers_[algorithm];
  // "none" (an unspaced script): libstemmer has no such algorithm, so words stay as they are.
  if (!st) st = std::make_unique<text::Stemmer>(algorithm.empty() ? "none" : algorithm.c_str());
  return st.get();
}

Result<Verdicts> OfflineJudge::Answer(const JudgeQuery& query) {
  language_ = text::DetectRowLanguage(query.sample);
  if (!language_.supported()) {
    // Null with the reason, never a confident 0 that sends the user to fix a retriever that
    // worked. (String metrics such as ROUGE need no judge and still score the row.)
    const std::string why = "offline judge: the row is in " + text::LanguageName(language_.code) +
                            ", which it has no word stemmer for; use an LLM judge (--judge "
                            "openai:MODEL)";
    Verdicts v;
    for (JudgeTask task : AllJudgeTasks()) {
      if (Contains(query.tasks, task)) v.missing_reasons[JudgeTaskVerdictName(task)] = why;
    }
    for (const JudgeQuestion& q : query.questions) v.missing_reasons[QuestionVerdictName(q)] = why;
    return v;
  }
  if (language_.code == "en") return AnswerRow(query.sample, query);
  // Another language: its own stemmer, its punctuation read as ASCII, and no structure checks
  // (they read English clauses); restored for the next row whatever happens.
  stemmer_ = StemmerFor(language_.stemmer);
  support_.set_structure_checks(false);
  Result<Verdicts> v = AnswerRow(WithAsciiPunctuation(query.sample), query);
  stemmer_ = &english_stemmer_;
  support_.set_structure_checks(true);
  return v;
}

Result<Verdicts> OfflineJudge::AnswerRow(const Sample& s, const JudgeQuery& query) {
  const TaskSet tasks = query.tasks;
  Verdicts v;

  RowTexts row(s, *stemmer_, [this](const std::string& c) { return ChunkProfile(c); });
  PrefetchVectors(s, query, row);
  if ((Contains(tasks, JudgeTask::kVerifyResponseClaims) ||
       Contains(tasks, JudgeTask::kCheckClaimsAgainstReference)) &&
      s.response) {
    v.response_claims = JudgeResponseClaims(s, tasks, row);
  }
  if ((Contains(tasks, JudgeTask::kAttributeReferenceClaims) ||
       Contains(tasks, JudgeTask::kFindReferenceClaimsInResponse)) &&
      s.reference) {
    v.reference_claims = JudgeReferenceClaims(s, tasks, row);
  }
  if (Contains(tasks, JudgeTask::kRateChunksForReference) && s.reference) {
    v.chunk_relevant =
        RateChunks(row.chunks, TextProfile(*s.reference, *stemmer_), row.question_profile);
    // A reference whose facts are spread over several chunks: a chunk that holds any
    // substantive sentence of it (three content words or more) is useful too, although it
    // holds little of the whole.
    const std::vector<std::string> sentences = text::SplitSentences(*s.reference);
    if (sentences.size() > 1) {
      for (const std::string& sentence : sentences) {
        TextProfile part(sentence, *stemmer_);
        int content = 0;
        for (const ProfiledToken& t : part.tokens()) content += !t.stop && !t.negation ? 1 : 0;
        if (content < 3) continue;
        std::vector<bool> holds =
            RateChunks(row.chunks, part, row.question_profile, kSentenceRelevanceThreshold);
        for (size_t c = 0; c < holds.size(); ++c) {
          if (holds[c]) (*v.chunk_relevant)[c] = true;
        }
      }
    }
  }
  if (Contains(tasks, JudgeTask::kRateChunksForResponse) && s.response) {
    v.chunk_relevant_to_response =
        RateChunks(row.chunks, TextProfile(*s.response, *stemmer_), row.question_profile);
  }
  if (Contains(tasks, JudgeTask::kExtractEntities) && s.reference) {
    v.reference_entities = Entities(*s.reference);
    v.context_entities = Entities(row.joined_context);
  }
  TALA_RETURN_IF_ERROR(AddSimilarities(s, tasks, row, v));
  if (auto both = ReadTurnBothWays(s, v); !both.ok()) {
    EncoderFailed(v, JudgeTaskVerdictName(JudgeTask::kGenerateQuestions), both);
    v.generated_questions.reset();
  }
  // The metrics' own questions (aspects, rubrics, goals...) need a model that reads the
  // criterion; word statistics would only pretend to. Context relevance is the exception when
  // the encoder is there: it is what the encoder and the answer reading estimate.
  for (const JudgeQuestion& q : query.questions) {
    const bool retention = q.definition == metrics::kKnowledgeRetentionDefinition;
    const bool completeness = q.definition == metrics::kConversationCompletenessDefinition;
    if ((retention || completeness) && language_.code != "en") {
      v.missing_reasons[QuestionVerdictName(q)] =
          "offline judge: its reading of conversations is English only, and the row is in " +
          text::LanguageName(language_.code) + "; use an LLM judge (--judge openai:MODEL)";
      continue;
    }
    if (retention || completeness) {
      Result<JudgedAnswer> read = retention ? ReadRetentionOf(s) : ReadCompletenessOf(s);
      if (read) {
        v.answers[q.key] = std::move(*read);
      } else {
        EncoderFailed(v, QuestionVerdictName(q), read.error());
      }
      continue;
    }
    if (q.kind == JudgeQuestion::Kind::kRating && q.definition == "context_relevance") {
      if (!has_encoder_) {
        v.missing_reasons[QuestionVerdictName(q)] =
            "the offline judge rates context relevance with its sentence encoder, which is not "
            "fetched (`make deps`, or tools/fetch_sentence_encoder.sh); or use an LLM judge";
        continue;
      }
      if (language_.code != "en") {
        v.missing_reasons[QuestionVerdictName(q)] =
            "offline judge: its context relevance reading (the sentence encoder) is English "
            "only, and the row is in " +
            text::LanguageName(language_.code) + "; use an LLM judge (--judge openai:MODEL)";
        continue;
      }
      if (s.retrieved_contexts && !row.chunks.empty()) {
        if (auto rated = RateContexts(s, row)) {
          v.answers[q.key] = std::move(*rated);
        } else {
          EncoderFailed(v, QuestionVerdictName(q), rated.error());
        }
        continue;
      }
    }
    v.missing_reasons[QuestionVerdictName(q)] =
        "needs an LLM judge (the offline judge does not answer " +
        std::string(JudgeQuestionKindName(q.kind)) + " questions; use --judge openai:MODEL)";
  }
  return v;
}

Result<JudgedAnswer> OfflineJudge::ReadRetentionOf(const Sample& s) {
  JudgedAnswer a;
  const size_t ai = LastAnswer(s.messages);
  if (ai == s.messages.size()) {
    a.values = {1};
    a.reason = "no answer to read";
    return a;
  }
  RetentionReading r = ReadRetention(s.messages, ai, *stemmer_);
  a.values = {r.kept ? 1.0 : 0.0};
  a.reason = "offline reading: " + r.reason;
  return a;
}

Result<GeneratedQuestion> OfflineJudge::RelevanceReading(const std::string& question,
                                                         const std::string& answer) {
  Sample pair;
  pair.user_input = question;
  pair.response = answer;
  RowTexts row(pair, *stemmer_, [this](const std::string& c) { return ChunkProfile(c); });
  Verdicts v;
  TALA_RETURN_IF_ERROR(
      AddSimilarities(pair, static_cast<TaskSet>(JudgeTask::kGenerateQuestions), row, v));
  if (!v.generated_questions || v.generated_questions->empty()) {
    auto why = v.missing_reasons.find(JudgeTaskVerdictName(JudgeTask::kGenerateQuestions));
    return Status(ErrorCode::kInternal, why != v.missing_reasons.end()
                                            ? why->second
                                            : "the relevance reading gave nothing");
  }
  return std::move(v.generated_questions->front());
}

Result<double> OfflineJudge::RelevanceOf(const std::string& question, const std::string& answer) {
  if (IsNoncommittal(answer)) return 0.0;
  TALA_ASSIGN_OR_RETURN(GeneratedQuestion q, RelevanceReading(question, answer));
  return q.cosine.value_or(0.0);
}

Status OfflineJudge::ReadTurnBothWays(const Sample& s, Verdicts& v) {
  if (s.turn == 0 || !v.generated_questions || v.generated_questions->empty() || !s.response) {
    return OkStatus();
  }
  // A turn's question reads alone or after the user's question before it ("How often do they
  // run?" alone; "And after that?" after it): the offline reading cannot tell which the user
  // meant, so it takes the reading the answer addresses better.
  const TurnAsk ask = ReadTurnAsk(s.messages, LastAnswer(s.messages));
  const std::string& other = ask.leans ? ask.alone : ask.with_before;
  if (other.empty() || other == s.user_input.value_or("")) return OkStatus();
  TALA_ASSIGN_OR_RETURN(GeneratedQuestion alt, RelevanceReading(other, *s.response));
  GeneratedQuestion& have = v.generated_questions->front();
  if (alt.cosine.value_or(0) <= have.cosine.value_or(0)) return OkStatus();
  alt.noncommittal = have.noncommittal;
  alt.reading = (ask.leans ? "read alone, " : "read after the question before it, ") + alt.reading;
  have = std::move(alt);
  return OkStatus();
}

Result<JudgedAnswer> OfflineJudge::ReadCompletenessOf(const Sample& s) {
  JudgedAnswer a;
  const std::vector<UserAsk> asks = UserAsks(s.messages);
  if (asks.empty()) {
    a.values = {1};
    a.reason = "offline reading: the user asked for nothing (no question or request)";
    return a;
  }
  int met = 0;
  std::string unmet;
  for (const UserAsk& ask : asks) {
    double best = 0;
    for (size_t i = ask.first_answer; i < s.messages.size(); ++i) {
      if (!IsAnswer(s.messages[i])) continue;
      for (const std::string* reading : {&ask.question, &ask.other}) {
        if (reading->empty()) continue;
        TALA_ASSIGN_OR_RETURN(double r, RelevanceOf(*reading, s.messages[i].content));
        best = std::max(best, r);
      }
    }
    if (best >= kAskMetRelevance) {
      ++met;
      continue;
    }
    std::string text = ask.question.size() > 90 ? ask.question.substr(0, 90) + "..." : ask.question;
    unmet += (unmet.empty() ? "" : "; ") + std::string("turn ") + std::to_string(ask.turn) + " \"" +
             text + "\"";
  }
  a.values = {static_cast<double>(met) / static_cast<double>(asks.size())};
  a.reason = "offline reading: " + std::to_string(met) + " of " + std::to_string(asks.size()) +
             " asks met (an answer after it reads as addressing it, relevance >= " +
             fmt::format("{:.2f}", kAskMetRelevance) + ")" +
             (unmet.empty() ? "" : "; not met: " + unmet);
  return a;
}

}  // namespace tala::judges::offline
