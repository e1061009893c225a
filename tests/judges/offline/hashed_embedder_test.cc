#include "judges/offline/hashed_embedder.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/verdict_validation.h"

namespace tala::judges::offline {
namespace {

TEST(HashedEmbedderTest, UnitLengthDeterministicAndSimilarityOrdered) {
  HashedEmbedder e;
  std::vector<std::string> texts = {"The head office is in Delhi.", "Its head office is in Delhi",
                                    "Penguins live in Antarctica.", "A recipe for soup"};
  auto a = e.Embed(texts);
  auto b = e.Embed(texts);
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(*a, *b);
  double norm = 0;
  for (double x : (*a)[0]) norm += x * x;
  EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-9);
  EXPECT_EQ((*a)[0].size(), HashedEmbedder::kDimensions);
  EXPECT_GT(*Cosine((*a)[0], (*a)[1]), *Cosine((*a)[0], (*a)[2]) + 0.3);
}

}  // namespace
}  // namespace tala::judges::offline
