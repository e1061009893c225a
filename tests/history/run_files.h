#pragma once
// Test helper: results files of a golden set scored run after run, as a seeded judge would.

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include "support/temp_dir.h"

namespace tala::testing {

// One run of a 120-row golden set, as a seeded judge scores it: each row has a quality of its
// own, the judge adds noise (sd 0.05) seeded by the run, and `drop` lowers every row's
// faithfulness. context_recall only has noise.
inline std::string RunFile(const TempDir& dir, int run, double drop,
                           const std::string& digest = "d1", const std::string& judge = "offline") {
  char created[32];
  std::snprintf(created, sizeof created, "2026-11-%02dT%02d:00:00Z", 1 + run / 24, run % 24);
  // The manifest tala eval writes, with what the history compares runs on.
  std::string text = std::string("{\"tala_manifest\":{\"tala_version\":\"test\",\"created\":\"") +
                     created + "\",\"dataset\":\"golden.jsonl\",\"dataset_sha256\":\"" + digest +
                     "\",\"judge\":\"" + judge +
                     "\",\"embeddings\":\"\",\"prompts\":{},\"metrics\":{\"context_recall\":\"1\","
                     "\"faithfulness\":\"1\"},\"settings\":{}}}\n";
  std::mt19937_64 quality(7), noise(1000 + run);
  std::uniform_real_distribution<double> q(0.30, 0.85);
  std::normal_distribution<double> n(0, 0.05);
  for (int i = 0; i < 120; ++i) {
    double base = q(quality), recall = q(quality);
    double f = std::clamp(base - drop + n(noise), 0.0, 1.0);
    double r = std::clamp(recall + n(noise), 0.0, 1.0);
    // The question digest tala eval writes: another golden set has other questions.
    text += "{\"id\":\"q" + std::to_string(i) +
            "\",\"scores\":{\"faithfulness\":" + std::to_string(f) +
            ",\"context_recall\":" + std::to_string(r) +
            "},\"digests\":{\"inputs\":\"x\",\"question\":\"" + digest + "-" + std::to_string(i) +
            "\"}}\n";
  }
  return dir.Write("run" + std::to_string(run) + "-" + digest + judge + ".jsonl", text);
}

}  // namespace tala::testing
