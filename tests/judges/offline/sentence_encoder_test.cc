// The sentence encoder against its model's own runtime: the same piece ids for every golden text
// (tests/data/encoder/golden.jsonl), the same vectors within 1e-5, whether texts come one at a
// time or in a batch. Needs the model `make deps` fetches; without it the test says so and skips.

#include "judges/offline/sentence_encoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

namespace tala::judges::offline {
namespace {

struct Golden {
  std::string text;
  std::vector<int32_t> ids;
  std::vector<float> vector;
};

std::vector<Golden> ReadGolden() {
  std::vector<Golden> out;
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/tests/data/encoder/golden.jsonl");
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    out.push_back({j["text"], j["ids"], j["vector"]});
  }
  return out;
}

// nullptr when the model is not there (the test skips); any other error fails the test.
std::unique_ptr<SentenceEncoder> LoadOrSkip() {
  auto encoder = SentenceEncoder::Load(SentenceEncoder::DefaultDir());
  if (!encoder) {
    EXPECT_EQ(encoder.error().code(), ErrorCode::kNotFound) << encoder.error().ToString();
    return nullptr;
  }
  return std::move(*encoder);
}

TEST(SentenceEncoderTest, PiecesAndVectorsMatchTheModelsOwnRuntime) {
  auto encoder = LoadOrSkip();
  if (!encoder) GTEST_SKIP() << "no sentence encoder in " << SentenceEncoder::DefaultDir();
  const std::vector<Golden> golden = ReadGolden();
  ASSERT_EQ(golden.size(), 47u);
  std::vector<std::vector<int32_t>> ids;
  for (const Golden& g : golden) {
    EXPECT_EQ(encoder->Tokenize(g.text), g.ids) << g.text;
    ids.push_back(encoder->Tokenize(g.text));
  }
  // All at once, and each alone: the batch changes nothing.
  std::vector<std::vector<float>> batch = encoder->EmbedPieces(ids);
  ASSERT_EQ(batch.size(), golden.size());
  for (size_t i = 0; i < golden.size(); ++i) {
    std::vector<std::vector<float>> alone = encoder->EmbedPieces({ids[i]});
    double worst = 0, worst_alone = 0;
    for (size_t k = 0; k < SentenceEncoder::kDimensions; ++k) {
      worst = std::max(worst, std::fabs(double(batch[i][k]) - golden[i].vector[k]));
      worst_alone = std::max(worst_alone, std::fabs(double(alone[0][k]) - golden[i].vector[k]));
    }
    EXPECT_LT(worst, 1e-5) << golden[i].text;
    EXPECT_LT(worst_alone, 1e-5) << golden[i].text;
    // With the AVX-512 kernel, not merely close: the same bits (the offline judge batches a
    // row's texts on that promise, and a shard must score its rows as the whole run does).
    if (SentenceEncoder::BatchesExactly()) {
      EXPECT_EQ(batch[i], alone[0]) << golden[i].text;
    }
  }
}

TEST(SentenceEncoderTest, ContradictionIsNotWhatItSees) {
  auto encoder = LoadOrSkip();
  if (!encoder) GTEST_SKIP() << "no sentence encoder in " << SentenceEncoder::DefaultDir();
  const std::vector<std::string> texts = {"The Eiffel Tower is located in Paris.",
                                          "The Eiffel Tower is located in Berlin.",
                                          "Who wrote Hamlet?", "Shakespeare wrote Hamlet."};
  auto v = encoder->Embed(texts);
  ASSERT_TRUE(v.has_value());
  auto cosine = [&](size_t a, size_t b) {
    double dot = 0;
    for (size_t k = 0; k < 512; ++k) dot += (*v)[a][k] * (*v)[b][k];
    return dot;
  };
  // Unit vectors; a place swapped stays close (why faithfulness stays lexical), and a question
  // is nearer its answer than an unrelated sentence.
  EXPECT_NEAR(cosine(0, 0), 1.0, 1e-5);
  EXPECT_GT(cosine(0, 1), 0.8);
  EXPECT_GT(cosine(2, 3), cosine(2, 0));
}

TEST(SentenceEncoderTest, AMissingModelSaysHowToFetchIt) {
  testing::TempDir dir;
  auto encoder = SentenceEncoder::Load(dir.path());
  ASSERT_FALSE(encoder.has_value());
  EXPECT_EQ(encoder.error().code(), ErrorCode::kNotFound);
  EXPECT_NE(encoder.error().message().find("make deps"), std::string::npos);
}

}  // namespace
}  // namespace tala::judges::offline
