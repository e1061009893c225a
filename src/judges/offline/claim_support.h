#pragma once
// Claim support without a model: is this claim entailed by this evidence text?
// Score in [0, 1] = content-word coverage (stems, WordNet synonyms and irregular forms; words the
// question already gives count half), averaged between the whole evidence and its best window
// of two sentences (so the claim's parts must occur together), times hard refutations: a number,
// or a named entity, the evidence lacks; a negation the evidence does not carry; an antonym of a
// claim word in place of the word. Supported when the score reaches kSupportThreshold. A span of
// time the evidence states in another unit counts as stated ("a month" by "30 days":
// durations.h).
// Not thread-safe (shares the judge's Stemmer).

#include <string>

#include "judges/offline/text_profile.h"
#include "judges/offline/wordnet.h"

namespace tala::judges::offline {

inline constexpr double kSupportThreshold = 0.5;

enum class GivenWords {
  kMustMatch,     // question words must still appear in the evidence (checking the context)
  kCountAsMatch,  // question words are premises, not claims (checking against a reference)
};

struct SupportVerdict {
  double score = 0;
  bool supported = false;
  std::string reason;  // "unsupported: '1967' not in context"
};

class ClaimSupport {
 public:
  // WordNet is loaded on the first check that needs it, not at construction: runs that never
  // verify a claim (ids only, string metrics) do not pay its second and 50 MiB.
  ClaimSupport() = default;
  SupportVerdict Check(const TextProfile& claim, const TextProfile& question,
                       const TextProfile& evidence, GivenWords given,
                       const char* evidence_name) const;
  // The structure checks (structure_check.h) read English clauses: off for rows in another
  // language, which are then judged by word coverage and the hard refutations alone.
  void set_structure_checks(bool on) { structure_checks_ = on; }

 private:
  bool structure_checks_ = true;
  static const WordNet& wordnet() { return WordNet::Get(); }
};

// The evidence word that matches the token (its stem or word, an irregular base form, or a
// WordNet synonym; numbers only as written), or "" when the evidence has none. Shared with the
// offline relevancy estimate (answer_relevance.h).
std::string_view MatchInEvidence(const ProfiledToken& t, const TextProfile& evidence);

}  // namespace tala::judges::offline
