#pragma once
// Sets of words (or shingles) kept as sorted, unique vectors, and how alike two of them are.
// Pure; thread-safe.

#include <string>
#include <vector>

namespace tala::text {

// Exact Jaccard similarity of two sets given as sorted, unique vectors: the words both hold over
// the words either holds; 1 for two empty sets.
double Jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b);

// The words both sets hold, given as sorted, unique vectors.
size_t CommonCount(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace tala::text
