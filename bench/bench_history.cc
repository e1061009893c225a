// bench_history [ROWS] [RUNS]: what `tala history` costs as users run it, each command a process.
//   1. `tala history add` of one ROWS-row results file (default 100,000; six metrics, reasons,
//      inputs and digests as tala eval writes them): target under 5 s.
//   2. `tala history show --metric faithfulness` over RUNS stored runs (default 1,000): target
//      under 200 ms; then `tala history report` over the same store.
// Each line: wall seconds and the process's peak RSS.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "tala/history.h"

namespace {

const std::string kTala = std::string(TALA_BINARY_DIR) + "/tala";

struct Timed {
  double seconds = 0;
  double rss_mib = 0;
  int status = -1;
};

Timed RunQuiet(std::vector<std::string> argv) {
  Timed t;
  double start = tala::bench::NowSeconds();
  pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  t.seconds = tala::bench::NowSeconds() - start;
  t.rss_mib = usage.ru_maxrss / 1024.0;
  t.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return t;
}

void WriteRun(const std::string& path, int rows, int run, double drop) {
  std::ofstream out(path);
  char created[32];
  std::snprintf(created, sizeof created, "2026-%02d-%02dT%02d:%02d:00Z", 1 + run / 600,
                1 + (run / 24) % 25, run % 24, run % 60);
  out << "{\"tala_manifest\":{\"tala_version\":\"bench\",\"created\":\"" << created
      << "\",\"dataset\":\"golden.jsonl\",\"dataset_sha256\":\"d\",\"judge\":\"offline\","
         "\"embeddings\":\"\",\"prompts\":{},\"metrics\":{\"faithfulness\":\"1\"},"
         "\"settings\":{}}}\n";
  const char* keys[] = {"faithfulness",   "response_relevancy",         "context_precision",
                        "context_recall", "id_based_context_precision", "id_based_context_recall"};
  std::mt19937_64 rng(run);
  std::uniform_real_distribution<double> u(0, 1);
  for (int i = 0; i < rows; ++i) {
    out << "{\"id\":\"q" << i << "\",\"scores\":{";
    for (int k = 0; k < 6; ++k) out << (k ? "," : "") << "\"" << keys[k] << "\":" << u(rng) - drop;
    out << "},\"reasons\":{\"faithfulness\":\"3 of 4 claims supported\",\"context_recall\":\"1 of "
           "1 reference claims in context\"},\"diagnosis\":\"healthy\",\"inputs\":{\"user_input\":"
           "\"How much does a single ride cost on the night bus in winter?\",\"response\":\"A "
           "single ride costs 2.40 euros; night buses cost the same.\"},\"digests\":{\"inputs\":\""
        << i << "\",\"question\":\"q" << i << "\"}}\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rows = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 1000;
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("tala-bench-history-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string big = (dir / "big.jsonl").string();
  WriteRun(big, rows, 0, 0);
  std::printf("bench_history: %d-row results file of %.1f MiB; %d runs of 200 rows\n", rows,
              fs::file_size(big) / 1048576.0, runs);
  Timed add = RunQuiet({kTala, "history", "add", big, "--store", (dir / "one.sqlite").string()});
  std::printf(
      "  tala history add, %d rows:         %7.3f s  peak RSS %6.1f MiB  (target < 5 s)%s\n", rows,
      add.seconds, add.rss_mib, add.status ? "  FAILED" : "");

  // The many-run store is filled through the engine (the same Add each command makes).
  const std::string store = (dir / "many.sqlite").string();
  {
    auto h = tala::History::Open(store);
    if (!h) return std::fprintf(stderr, "%s\n", h.error().ToString().c_str()), 1;
    const std::string file = (dir / "run.jsonl").string();
    double start = tala::bench::NowSeconds();
    for (int r = 0; r < runs; ++r) {
      WriteRun(file, 200, r + 1, r >= runs * 2 / 3 ? 0.1 : 0);
      auto added = (*h)->Add({.results = file, .label = "run " + std::to_string(r + 1)});
      if (!added) return std::fprintf(stderr, "%s\n", added.error().ToString().c_str()), 1;
    }
    std::printf("  %d adds through the engine:       %7.3f s (%.1f ms each)\n", runs,
                tala::bench::NowSeconds() - start,
                (tala::bench::NowSeconds() - start) * 1000 / runs);
  }
  Timed show = RunQuiet({kTala, "history", "show", "--metric", "faithfulness", "--store", store});
  Timed again = RunQuiet({kTala, "history", "show", "--metric", "faithfulness", "--store", store});
  std::printf(
      "  tala history show, %d runs:        %7.3f s  peak RSS %6.1f MiB  (target < 0.2 s)%s\n",
      runs, again.seconds, again.rss_mib, again.status || show.status ? "  FAILED" : "");
  Timed page =
      RunQuiet({kTala, "history", "report", "-o", (dir / "h.html").string(), "--store", store});
  std::printf("  tala history report, %d runs:      %7.3f s  peak RSS %6.1f MiB  page %.1f MiB%s\n",
              runs, page.seconds, page.rss_mib,
              fs::exists(dir / "h.html") ? fs::file_size(dir / "h.html") / 1048576.0 : 0.0,
              page.status ? "  FAILED" : "");
  std::printf("  store: %.1f MiB for %d runs (%.0f bytes a row)\n",
              fs::file_size(store) / 1048576.0, runs,
              static_cast<double>(fs::file_size(store)) / (runs * 200.0));
  fs::remove_all(dir);
  return 0;
}
