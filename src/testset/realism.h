#pragma once
// How well a set's questions pass for human ones: a classifier is trained to tell the set's
// questions from held-out human questions by their style alone (length, casing, punctuation,
// stop words, rare words such as typos, digits), with 5-fold cross-validation, and its AUROC on
// the folds it did not see is the figure: 0.5 means the two cannot be told apart; near 1, the
// set reads unlike what people write. Pure; deterministic for a seed.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tala::testset {

// The style features of each question (the rarity of a word is judged over all of them).
std::vector<std::vector<double>> StyleFeatures(const std::vector<std::string>& questions);

// nullopt when either side has fewer than 5 questions.
std::optional<double> RealismAuroc(const std::vector<std::string>& set,
                                   const std::vector<std::string>& human, uint64_t seed);

}  // namespace tala::testset
