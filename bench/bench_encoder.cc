// The offline sentence encoder's speed on one core: HaluEval's answers (a few words), questions
// (a sentence) and passages (a paragraph), with the peak memory. Needs the model `make deps`
// fetches. The weight products are our own AVX-512 kernel where the CPU has it
// (TALA_ENCODER_BLAS=1: OpenBLAS, as on other CPUs); docs/performance.md has both.
//
//   build/bench/bench_encoder [TEXTS]   (TEXTS: how many of each kind; default 2000)

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "bench_util.h"
#include "judges/offline/sentence_encoder.h"

using tala::judges::offline::SentenceEncoder;

int main(int argc, char** argv) {
  const size_t want = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2000;
  // The load, as every run that embeds pays it once (issue 52: at most 0.1 CPU-s).
  const double load0 = tala::bench::CpuSeconds();
  auto loaded = SentenceEncoder::Load(SentenceEncoder::DefaultDir());
  if (!loaded) {
    std::fprintf(stderr, "bench_encoder: %s\n", loaded.error().ToString().c_str());
    return 2;
  }
  std::printf("load: %.3f CPU-s (user and system)\n", tala::bench::CpuSeconds() - load0);
  SentenceEncoder& encoder = **loaded;
  std::vector<std::string> answers, questions, passages;
  std::ifstream in(std::string(TALA_SOURCE_DIR) + "/../shared/data/halueval-qa-dev.jsonl");
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (seen.insert(j["response"].get<std::string>()).second) answers.push_back(j["response"]);
    if (seen.insert(j["user_input"].get<std::string>()).second)
      questions.push_back(j["user_input"]);
    for (const auto& c : j["retrieved_contexts"]) {
      if (seen.insert(c.get<std::string>()).second) passages.push_back(c.get<std::string>());
    }
  }
  if (answers.empty()) {
    std::fprintf(stderr, "bench_encoder: ../shared/data/halueval-qa-dev.jsonl not found\n");
    return 2;
  }
  // Repeat to the size asked for; each repetition is embedded afresh (nothing is cached here).
  auto take = [&](const std::vector<std::string>& from) {
    std::vector<std::string> out;
    for (size_t i = 0; out.size() < want; ++i) out.push_back(from[i % from.size()]);
    return out;
  };
  for (const auto& [kind, texts] : {std::pair{"answers", take(answers)},
                                    {"questions", take(questions)},
                                    {"passages", take(passages)}}) {
    size_t pieces = 0;
    for (const std::string& t : texts) pieces += std::min(encoder.Tokenize(t).size(), size_t{128});
    const double cpu0 = tala::bench::CpuSeconds();
    auto start = std::chrono::steady_clock::now();
    auto vectors = encoder.Embed(texts);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = tala::bench::CpuSeconds() - cpu0;
    if (!vectors) return 1;
    // The same texts one product each, as a judge that caches by text embeds what it has not
    // seen.
    const double alone0 = tala::bench::CpuSeconds();
    for (const std::string& t : texts) encoder.EmbedPieces({encoder.Tokenize(t)});
    const double alone = tala::bench::CpuSeconds() - alone0;
    std::printf(
        "%-9s %zu texts, %.1f pieces each: %.0f texts/s per core in batches of 1,024 pieces "
        "(%.2f s CPU, %.2f s wall), %.0f texts/s one at a time\n",
        kind, texts.size(), static_cast<double>(pieces) / texts.size(), texts.size() / cpu, cpu,
        wall, texts.size() / alone);
  }
  std::printf("products: %s\n",
              SentenceEncoder::BatchesExactly()
                  ? "own AVX-512 kernel (a text's vector is the same in any batch)"
                  : "OpenBLAS");
  std::printf("peak RSS %.1f MiB\n", tala::bench::PeakRssMiB());
  return 0;
}
