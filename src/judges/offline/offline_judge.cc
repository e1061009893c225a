#include "judges/offline/offline_judge.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "core/text/normalize.h"
#include "core/text/sentences.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "core/verdict_validation.h"

namespace tala::judges::offline {

namespace {

// A response of at most this many words in one sentence is a short answer ("Delhi") and is
// read together with the question.
constexpr size_t kShortAnswerWords = 6;

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

std::string QuestionOf(const Sample& s) {
  if (s.user_input) return *s.user_input;
  for (auto it = s.messages.rbegin(); it != s.messages.rend(); ++it) {
    if (it->type == Message::Type::kHuman) return it->content;
  }
  return {};
}

}  // namespace

bool IsNoncommittal(std::string_view response) {
  static constexpr std::array<std::string_view, 18> kPhrases = {
      "i don't know",        "i do not know",       "not sure",        "cannot be determined",
      "can't be determined", "cannot determine",    "no information",  "not enough information",
      "unable to answer",    "unable to determine", "i cannot answer", "i can't answer",
      "not mentioned",       "does not say",        "doesn't say",     "no answer",
      "i'm not aware",       "i am not aware"};
  std::string folded = text::FoldForMatching(response);
  std::replace(folded.begin(), folded.end(), '\xE2', '\'');  // crude: curly apostrophe lead byte
  for (std::string_view p : kPhrases) {
    if (folded.find(p) != std::string::npos) return true;
  }
  return false;
}

OfflineJudge::OfflineJudge() : support_(WordNet::Get()) {}

std::vector<OfflineJudge::Claim> OfflineJudge::ExtractClaims(const std::string& text,
                                                             const std::string& question) {
  std::vector<Claim> claims;
  if (IsNoncommittal(text)) return claims;
  std::vector<std::string> sentences = text::SplitSentences(text);
  if (sentences.size() == 1 && WordCount(sentences[0]) <= kShortAnswerWords && !question.empty()) {
    // Decontextualise: the claim is the question answered by the short response.
    std::string q = question;
    while (!q.empty() && (q.back() == '?' || q.back() == ' ')) q.pop_back();
    // Its support is judged on the answer's own words: the question's words are the same for
    // every answer to it, so they cannot tell a supported answer from an unsupported one.
    claims.push_back(
        {sentences[0] + " (answering: " + q + ")", TextProfile(sentences[0], stemmer_)});
    return claims;
  }
  for (const std::string& sentence : sentences) {
    for (std::string& clause : text::SplitClauses(sentence)) {
      TextProfile profile(clause, stemmer_);
      claims.push_back({std::move(clause), std::move(profile)});
    }
  }
  return claims;
}

std::vector<bool> OfflineJudge::RateChunks(const std::vector<TextProfile>& chunks,
                                           const TextProfile& target, const TextProfile& question) {
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
    for (const TextProfile& c : chunks) df += c.HasStem(term) ? 1 : 0;
    // BM25's idf, floored so a term present in every chunk still counts a little. A term in
    // no chunk weighs as one in a single chunk: it cannot tell the chunks apart, and letting it
    // weigh most would make every chunk look irrelevant to a paraphrased reference.
    df = std::max(df, 1.0);
    idf.push_back(std::max(0.1, std::log(1.0 + (n - df + 0.5) / (df + 0.5))));
  }
  double total = 0;
  for (double w : idf) total += w;
  std::vector<bool> out;
  for (const TextProfile& c : chunks) {
    double covered = 0;
    for (size_t i = 0; i < terms.size(); ++i) covered += c.HasStem(terms[i]) ? idf[i] : 0;
    out.push_back(total > 0 && covered / total >= kChunkRelevanceThreshold);
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

Result<Verdicts> OfflineJudge::Answer(const JudgeQuery& query) {
  const Sample& s = query.sample;
  const TaskSet tasks = query.tasks;
  Verdicts v;
  const std::string question = QuestionOf(s);
  TextProfile question_profile(question, stemmer_);
  std::vector<TextProfile> chunks;
  if (s.retrieved_contexts) {
    for (const std::string& c : *s.retrieved_contexts) chunks.emplace_back(c, stemmer_);
  }
  std::string joined_context;
  if (s.retrieved_contexts) {
    for (const std::string& c : *s.retrieved_contexts) joined_context += c + "\n";
  }
  // The whole context as one text, profiled once and only when needed (one chunk: itself).
  std::optional<TextProfile> whole_context;
  auto WholeContext = [&]() -> const TextProfile& {
    if (chunks.size() == 1) return chunks[0];
    if (!whole_context) whole_context.emplace(joined_context, stemmer_);
    return *whole_context;
  };
  const bool need_response_claims = Contains(tasks, JudgeTask::kVerifyResponseClaims) ||
                                    Contains(tasks, JudgeTask::kCheckClaimsAgainstReference);
  const bool need_reference_claims = Contains(tasks, JudgeTask::kAttributeReferenceClaims) ||
                                     Contains(tasks, JudgeTask::kFindReferenceClaimsInResponse);

  if (need_response_claims && s.response) {
    std::vector<Claim> claims = ExtractClaims(*s.response, question);
    TextProfile reference_profile;
    if (s.reference) reference_profile = TextProfile(*s.reference, stemmer_);
    std::vector<ClaimVerdict> out;
    for (const Claim& claim : claims) {
      ClaimVerdict cv;
      cv.text = claim.text;
      if (Contains(tasks, JudgeTask::kVerifyResponseClaims)) {
        SupportVerdict best;
        for (size_t chunk_idx = 0; chunk_idx < chunks.size(); ++chunk_idx) {
          SupportVerdict sv = support_.Check(claim.profile, question_profile, chunks[chunk_idx],
                                             GivenWords::kMustMatch, "context");
          if (sv.supported) cv.supported_by.push_back(static_cast<int>(chunk_idx));
          if (sv.score > best.score || best.reason.empty()) best = std::move(sv);
        }
        if (chunks.size() > 1 && !best.supported) {
          // A claim may combine facts from two chunks.
          SupportVerdict sv = support_.Check(claim.profile, question_profile, WholeContext(),
                                             GivenWords::kMustMatch, "context");
          if (sv.score > best.score) best = std::move(sv);
        }
        cv.supported = best.supported;
        cv.support_score = best.score;
        cv.reason = best.reason;
      }
      if (Contains(tasks, JudgeTask::kCheckClaimsAgainstReference) && s.reference) {
        SupportVerdict sv = support_.Check(claim.profile, question_profile, reference_profile,
                                           GivenWords::kCountAsMatch, "reference");
        cv.correct = sv.supported;
        if (cv.reason.empty()) cv.reason = sv.reason;
      }
      out.push_back(std::move(cv));
    }
    v.response_claims = std::move(out);
  }

  if (need_reference_claims && s.reference) {
    std::vector<Claim> claims = ExtractClaims(*s.reference, question);
    const TextProfile& context_profile = WholeContext();
    TextProfile response_profile;
    if (s.response) response_profile = TextProfile(*s.response, stemmer_);
    std::vector<ReferenceClaim> out;
    for (const Claim& claim : claims) {
      ReferenceClaim rc;
      rc.text = claim.text;
      if (Contains(tasks, JudgeTask::kAttributeReferenceClaims)) {
        SupportVerdict sv = support_.Check(claim.profile, question_profile, context_profile,
                                           GivenWords::kMustMatch, "context");
        rc.attributed = sv.supported;
        rc.reason = sv.reason;
      }
      if (Contains(tasks, JudgeTask::kFindReferenceClaimsInResponse) && s.response) {
        SupportVerdict sv = support_.Check(claim.profile, question_profile, response_profile,
                                           GivenWords::kCountAsMatch, "response");
        rc.in_response = sv.supported;
      }
      out.push_back(std::move(rc));
    }
    v.reference_claims = std::move(out);
  }

  if (Contains(tasks, JudgeTask::kRateChunksForReference) && s.reference) {
    v.chunk_relevant = RateChunks(chunks, TextProfile(*s.reference, stemmer_), question_profile);
  }
  if (Contains(tasks, JudgeTask::kRateChunksForResponse) && s.response) {
    v.chunk_relevant_to_response =
        RateChunks(chunks, TextProfile(*s.response, stemmer_), question_profile);
  }
  if (Contains(tasks, JudgeTask::kExtractEntities) && s.reference) {
    v.reference_entities = Entities(*s.reference);
    v.context_entities = Entities(joined_context);
  }
  const bool need_questions = Contains(tasks, JudgeTask::kGenerateQuestions) && s.response;
  const bool need_similarity =
      Contains(tasks, JudgeTask::kEmbedResponseAndReference) && s.response && s.reference;
  if (need_questions || need_similarity) {
    // One embedding batch per row, so the IDF comes from all of the sample's texts.
    std::string answered = *s.response;
    if (WordCount(answered) <= kShortAnswerWords) answered = question + " " + answered;
    std::vector<std::string> texts = {question, answered, *s.response,
                                      s.reference.value_or(std::string())};
    if (s.retrieved_contexts)
      texts.insert(texts.end(), s.retrieved_contexts->begin(), s.retrieved_contexts->end());
    TALA_ASSIGN_OR_RETURN(auto vectors, embedder_.Embed(texts));
    if (need_questions) {
      GeneratedQuestion q;
      q.text = "offline estimate: question-response similarity (no question generation)";
      q.noncommittal = IsNoncommittal(*s.response);
      q.cosine = Cosine(vectors[0], vectors[1]).value_or(0.0);
      v.generated_questions = std::vector<GeneratedQuestion>{q};
    }
    if (need_similarity)
      v.response_reference_similarity = Cosine(vectors[2], vectors[3]).value_or(0.0);
  }
  return v;
}

}  // namespace tala::judges::offline
