// Offline judge speed on HaluEval-sized rows: reads a dataset (default the shared HaluEval dev
// file), then scores it repeatedly in memory, first with faithfulness alone, then with every
// default metric (the sentence encoder's response relevancy included, when `make deps` fetched
// it; the embedder is printed). Prints rows/s (CPU time of the scoring alone, after the one-time
// WordNet load and one untimed pass, whose own rate is printed beside) and peak RSS (WordNet
// tables included). Usage: bench_offline [DATA] [MIN_ROWS].

#include <cstdio>
#include <cstdlib>

#include "bench_util.h"
#include "engine/row_scorer.h"
#include "io/readers/dataset_reader.h"
#include "judges/offline/offline_judge.h"
#include "judges/offline/wordnet.h"
#include "metrics/registry.h"

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : "../shared/data/halueval-qa-dev.jsonl";
  long min_rows = argc > 2 ? std::atol(argv[2]) : 50000;
  auto reader = tala::io::OpenDataset(path);
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().ToString().c_str());
    return 2;
  }
  std::vector<tala::Sample> rows;
  while (auto r = (*reader)->Next()) {
    if (r->has_value()) rows.push_back(std::move(**r));
  }
  if (rows.empty()) return 2;
  double t0 = tala::bench::NowSeconds();
  const auto& wordnet = tala::judges::offline::WordNet::Get();
  double load = tala::bench::NowSeconds() - t0;
  std::printf("| WordNet load | %.2f s | %zu synsets kept | RSS after load %.1f MiB |\n", load,
              wordnet.synset_count(), tala::bench::PeakRssMiB());
  std::printf("| embedder | %s |\n", tala::judges::offline::EmbedderName().c_str());
  for (const char* list : {"faithfulness", ""}) {
    // "all": every metric the rows allow that needs no options, as `tala eval --metrics all`.
    auto specs = tala::metrics::ExpandGroups(*tala::metrics::ParseMetricSpecs(*list ? list : "all"),
                                             rows[0].fields());
    if (!specs) {
      std::fprintf(stderr, "%s\n", specs.error().ToString().c_str());
      return 2;
    }
    auto metrics = tala::metrics::CreateMetrics(*specs);
    if (!metrics) {
      std::fprintf(stderr, "%s\n", metrics.error().ToString().c_str());
      return 2;
    }
    // One untimed pass first, reported on its own: the first rows touch the linked WordNet
    // table's pages and the language classifier's fingerprints, a start-up cost paid once per
    // process, not per row.
    double first_pass = 0;
    {
      tala::judges::offline::OfflineJudge judge;
      tala::RowScorer scorer(*metrics, &judge, judge.name());
      const double w0 = tala::bench::CpuSeconds();
      for (const tala::Sample& s : rows) scorer.Score(s);
      first_pass = tala::bench::CpuSeconds() - w0;
    }
    long done = 0;
    double sum = 0;
    double c0 = tala::bench::CpuSeconds();
    while (done < min_rows) {
      // A new judge each pass: its sentence encoder caches vectors by text, and a pass over
      // texts it has seen would measure the cache, not the encoder.
      tala::judges::offline::OfflineJudge judge;
      tala::RowScorer scorer(*metrics, &judge, judge.name());
      for (const tala::Sample& s : rows) {
        auto r = scorer.Score(s);
        sum += r.scores[0].value.value.value_or(0);
        ++done;
      }
    }
    double cpu = tala::bench::CpuSeconds() - c0;
    std::printf(
        "| %-13s | %zu metrics | %ld rows | %8.0f rows/s (one core) | first pass %.0f rows/s | "
        "peak RSS %.1f MiB | checksum %.2f |\n",
        *list ? list : "all defaults", metrics->size(), done, done / cpu,
        static_cast<double>(rows.size()) / first_pass, tala::bench::PeakRssMiB(), sum);
  }
  return 0;
}
