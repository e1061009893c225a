#pragma once
// StructureCheck: reads who did what in a claim and in its evidence, clause segment by clause
// segment, and refutes a claim whose words are all in the evidence but in the wrong places.
// ClaimSupport calls it after word coverage. No parser: a light reading by these rules.
//
// Segments. A sentence is cut at , ; : ( ) and before and/but/while/whereas/although/so/...
// (clause_lexicon.h). A segment that starts with "and"/"but"/"so"/"yet" and a verb-like word
// ("... and went public in 2004") borrows the first content word of the segment before as its
// subject. A personal pronoun (he, she, it, they, him, her, them) stands for the first content
// word of the nearest earlier segment that has one ("Bob reports to her" -> "to alice").
// Words are compared by key: the WordNet base form of an irregular word ("rose" -> "rise"), else
// the stem; numbers by value and unit ("$6", "3%").
//
// Checks, for each segment of the claim with two or more content words:
// 1. Polarity: the evidence segment that shares most of the claim's other words, if it beats
//    every segment that agrees, holds a word on the same scale as a claim word (open/closed,
//    rose/fell, WordNet antonyms) whose sign, times the segment's negations, differs from the
//    claim's; or, with no scale word, the same words under a different count of negations.
//    "It is closed on Mondays" refutes "open on Mondays" and supports "does not open on Mondays".
// 2. Bound values: a number or name of the claim is missing from the segment that holds the
//    claim's other words (two or more), which has another value of the same kind instead
//    ("$6 for children" against "$12 for children"; "the capital of France is Lyon" against
//    "Paris is the capital of France"; "went public in 2004" against "in 1998").
// 3. Roles: a claim word found in an evidence segment has claim words on its left that the
//    evidence has only on its right, and the other way round ("Alice reports to Bob" against
//    "Bob reports to Alice"). A passive segment ("was acquired by") reads right to left.
// 4. Extensions: a universal word (always, anyone, every, ...) that the evidence never uses.
// 5. Substitutions: a plain word after a preposition that the evidence never states (not even by
//    a synonym), where a segment holding all the claim segment's other words has another word
//    after the same preposition ("12 euros for children" against "12 euros for adults").
// 6. Swapped names, by sentence rather than segment: two names of a claim sentence with the same
//    words between them (or fewer: the claim's frame, auxiliaries aside, within the evidence's
//    and ending on the same word), in the other order, in an evidence sentence ("Oslo is a software
//    company with its head office in Lumen Labs"). Words that read both ways ("married",
//    "against", "also known as") make no swap here or in check 3.
// 7. Swapped stretches: the claim's sentence is a stretch of an evidence sentence, word for word,
//    but for two spans (each with a content word) in each other's places, whatever function
//    words stand between ("Wonder Woman as Lynda Carter"); not when only "and", "or", a copula
//    or a word that reads both ways does ("The capital of France is Paris").
// Stateless apart from the shared WordNet: thread-safe.

#include <string>

#include "judges/offline/text_profile.h"

namespace tala::judges::offline {

struct StructureFinding {
  enum class Kind {
    kNothing,     // no structural evidence either way
    kConsistent,  // a negation or polarity word of the claim is matched by the evidence
    kRefuted,     // the evidence states otherwise; `reason` says where
  };
  Kind kind = Kind::kNothing;
  std::string reason;  // "polarity: context says 'it is closed on mondays'"
};

StructureFinding CheckStructure(const TextProfile& claim, const TextProfile& evidence,
                                const char* evidence_name);

}  // namespace tala::judges::offline
