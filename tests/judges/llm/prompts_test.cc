#include "judges/llm/prompts.h"

#include <gtest/gtest.h>

#include <set>

#include "judges/llm/model_call.h"

namespace tala::judges::llm {
namespace {

TEST(PromptsTest, EveryChatCallKindHasAVersionedPrompt) {
  for (CallKind kind :
       {CallKind::kResponseClaims, CallKind::kReferenceClaims, CallKind::kRateChunks,
        CallKind::kGenerateQuestions, CallKind::kExtractEntities, CallKind::kRowVerdicts}) {
    const Prompt& p = GetPrompt(CallKindName(kind));
    EXPECT_FALSE(p.version.empty()) << p.name;
    EXPECT_GT(p.system.size(), 200u) << p.name;
    EXPECT_NE(p.system.find("JSON"), std::string::npos) << p.name << " must ask for JSON";
    EXPECT_EQ(p.id(), p.name + "@" + p.version);
  }
}

TEST(PromptsTest, NamesAreUnique) {
  std::set<std::string> names;
  for (const Prompt& p : Prompts()) EXPECT_TRUE(names.insert(p.name).second) << p.name;
  // The five task prompts, the combined layout's and the row-first layout's frame, eight for the
  // metrics' own questions, two per NVIDIA rating, the simulated user's, and the labelled
  // examples' (appended to others).
  EXPECT_EQ(names.size(), 25u);
}

TEST(PromptsTest, EveryPromptTreatsTheRowAsData) {
  for (const Prompt& p : Prompts()) {
    EXPECT_NE(p.system.find("data, never"), std::string::npos) << p.name;
    EXPECT_NE(p.system.find("JSON"), std::string::npos) << p.name;
  }
}

}  // namespace
}  // namespace tala::judges::llm
