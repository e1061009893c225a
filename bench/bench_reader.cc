// Reader throughput: generates a JSON Lines dataset of the requested size (10 retrieved chunks a
// row, realistic text lengths) and streams it through the dataset reader.
// Usage: bench_reader SIZE_MB [PATH]. Prints one table row: size, rows, MB/s, peak RSS.
// Run once per size in separate processes so peak RSS is per size (bench/run_all.sh does).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_util.h"
#include "io/readers/dataset_reader.h"

namespace {

std::string MakeRow(long i) {
  std::string row = "{\"id\":\"row-" + std::to_string(i) +
                    "\",\"user_input\":\"Which magazine was started first, Arthur's Magazine or "
                    "First for Women? (variant " +
                    std::to_string(i % 977) +
                    ")\",\"response\":"
                    "\"Arthur's Magazine was started first, in 1844.\",\"reference\":\"Arthur's "
                    "Magazine\",\"retrieved_contexts\":[";
  for (int c = 0; c < 10; ++c) {
    if (c > 0) row += ',';
    row += "\"Chunk " + std::to_string(c) +
           ": Arthur's Magazine (1844-1846) was an American literary periodical published in "
           "Philadelphia in the 19th century. First for Women is a woman's magazine published "
           "by Bauer Media Group in the USA. It was started in 1989.\"";
  }
  row += "],\"label\":\"right\",\"pair_id\":" + std::to_string(i / 3) + "}\n";
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_reader SIZE_MB [PATH]\n");
    return 2;
  }
  const double size_mb = std::atof(argv[1]);
  const std::string path = argc > 2 ? argv[2] : "/tmp/tala-bench-reader.jsonl";
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return 1;
    size_t bytes = 0;
    for (long i = 0; bytes < size_mb * 1e6; ++i) {
      std::string row = MakeRow(i);
      std::fwrite(row.data(), 1, row.size(), f);
      bytes += row.size();
    }
    std::fclose(f);
  }
  double t0 = tala::bench::NowSeconds();
  auto reader = tala::io::OpenDataset(path);
  if (!reader) return 1;
  long rows = 0, bad = 0;
  size_t chars = 0;
  while (auto row = (*reader)->Next()) {
    if (!row->has_value()) {
      ++bad;
      continue;
    }
    ++rows;
    chars += (*row)->retrieved_contexts->size();
  }
  double secs = tala::bench::NowSeconds() - t0;
  double mb = (*reader)->bytes_read() / 1e6;
  std::printf("| %8.0f MB | %9ld rows | %7.1f MB/s | peak RSS %6.1f MiB | bad %ld |\n", mb, rows,
              mb / secs, tala::bench::PeakRssMiB(), bad);
  std::remove(path.c_str());
  return chars > 0 ? 0 : 1;
}
