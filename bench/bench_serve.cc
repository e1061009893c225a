// tala serve under load: ROWS rows POSTed to /v1/interactions in requests of BATCH rows from
// one client, with the service scoring a SAMPLE share in the background (offline judge, the
// default reference-free metrics). Prints ingest throughput, request latency percentiles, and
// the service's resident memory as the rows go in (it should stay flat: rows live in SQLite,
// not in memory).
//
// With SCRAPE=1 a second client scrapes /metrics every second throughout (as Prometheus would)
// and its latency is printed for the first and the last tenth of the rows: it should be flat,
// and ingest within 10% of a run with SCRAPE=0. Tag "route" is broken down (--tag-key).
//
// Usage: bench_serve [ROWS=1000000] [BATCH=1000] [SAMPLE=0.01] [SCRAPE=1]

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"

namespace {

long RssKiB(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

std::string Batch(long first, long n) {
  std::string body;
  for (long i = first; i < first + n; ++i) {
    std::string id = std::to_string(i);
    body += "{\"id\":\"p" + id + "\",\"user_input\":\"When does ferry " + id +
            " sail?\",\"response\":\"Ferry " + id +
            " sails every 20 minutes from Pier 3.\",\"retrieved_contexts\":[\"Ferry " + id +
            " sails every 20 minutes from Pier 3 between 6:00 and 23:00.\"],"
            "\"tags\":{\"route\":\"" +
            (i % 2 ? "faq" : "chat") + "\"}}\n";
  }
  return body;
}

}  // namespace

int main(int argc, char** argv) {
  long rows = argc > 1 ? std::atol(argv[1]) : 1000000;
  long batch = argc > 2 ? std::atol(argv[2]) : 1000;
  std::string sample = argc > 3 ? argv[3] : "0.01";
  const bool scrape = argc > 4 ? std::atoi(argv[4]) != 0 : true;
  std::string dir =
      std::filesystem::temp_directory_path() / ("tala-bench-serve-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string db = dir + "/serve.sqlite";
  int fds[2];
  if (pipe(fds) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    std::freopen("/dev/null", "w", stderr);
    std::string tala = std::string(TALA_BINARY_DIR) + "/tala";
    execl(tala.c_str(), tala.c_str(), "serve", "--db", db.c_str(), "--port", "0", "--sample",
          sample.c_str(), "--max-rows-per-request", std::to_string(batch).c_str(), "--tag-key",
          "route", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  FILE* out = fdopen(fds[0], "r");
  char url[128] = {0};
  if (std::fgets(url, sizeof url, out) == nullptr) return 1;
  url[std::strcspn(url, "\n")] = 0;
  httplib::Client client(url);
  client.set_read_timeout(60);
  std::vector<double> latencies;
  std::printf("rows %ld, %ld per request, sample %s: service RSS as rows go in\n", rows, batch,
              sample.c_str());
  // The scraper: (rows in when it began, seconds it took), one a second.
  std::atomic<long> rows_in{0};
  std::atomic<bool> done{false};
  std::mutex scrapes_mu;
  std::vector<std::pair<long, double>> scrapes;
  std::thread scraper([&] {
    if (!scrape) return;
    httplib::Client prometheus(url);
    prometheus.set_read_timeout(10);
    while (!done) {
      double t = tala::bench::NowSeconds();
      long at = rows_in;
      auto res = prometheus.Get("/metrics");
      double took = tala::bench::NowSeconds() - t;
      if (res && res->status == 200) {
        std::lock_guard<std::mutex> lock(scrapes_mu);
        scrapes.emplace_back(at, took);
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(std::max(0.0, 1.0 - took)));
    }
  });
  double start = tala::bench::NowSeconds();
  long next_report = 0;
  for (long first = 0; first < rows; first += batch) {
    std::string body = Batch(first, std::min(batch, rows - first));
    double t = tala::bench::NowSeconds();
    auto res = client.Post("/v1/interactions", body, "application/x-ndjson");
    latencies.push_back(tala::bench::NowSeconds() - t);
    rows_in = first + batch;
    if (!res || res->status != 202) {
      done = true;
      scraper.join();
      std::fprintf(stderr, "request at row %ld failed: %d %s\n", first, res ? res->status : -1,
                   res ? res->body.c_str() : "no reply");
      kill(pid, SIGTERM);
      return 1;
    }
    if (first >= next_report) {
      std::printf("  %8ld rows: RSS %.1f MiB\n", first, RssKiB(pid) / 1024.0);
      next_report += rows / 10;
    }
  }
  double took = tala::bench::NowSeconds() - start;
  done = true;
  scraper.join();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) { return latencies[static_cast<size_t>(p * (latencies.size() - 1))]; };
  std::printf("  %8ld rows: RSS %.1f MiB\n", rows, RssKiB(pid) / 1024.0);
  std::printf(
      "ingest: %.0f rows/s (%.1f s); request latency p50 %.1f ms, p99 %.1f ms, max %.1f "
      "ms (%zu requests of %ld rows)\n",
      rows / took, took, pct(0.5) * 1e3, pct(0.99) * 1e3, latencies.back() * 1e3, latencies.size(),
      batch);
  if (scrape && !scrapes.empty()) {
    auto p99 = [](std::vector<double> v) {
      if (v.empty()) return 0.0;
      std::sort(v.begin(), v.end());
      return v[static_cast<size_t>(0.99 * (v.size() - 1))];
    };
    std::vector<double> all, early, late;
    for (const auto& [at, t] : scrapes) {
      all.push_back(t);
      if (at <= rows / 10) early.push_back(t);
      if (at >= rows - rows / 10) late.push_back(t);
    }
    std::printf(
        "scrapes of /metrics during ingest: %zu; p99 %.1f ms (max %.1f ms); p99 over the first "
        "tenth of the rows %.1f ms, over the last tenth %.1f ms\n",
        all.size(), p99(all) * 1e3, *std::max_element(all.begin(), all.end()) * 1e3,
        p99(early) * 1e3, p99(late) * 1e3);
  }
  auto scraped = client.Get("/metrics");
  if (scraped) {
    double t = tala::bench::NowSeconds();
    for (int i = 0; i < 20; ++i) client.Get("/metrics");
    std::printf("scrape at %ld rows, idle: %.2f ms (mean of 20), %zu bytes\n", rows,
                (tala::bench::NowSeconds() - t) / 20 * 1e3, scraped->body.size());
  }
  {
    // The dashboard: served from the aggregates (its charts), one indexed query (the worst rows
    // of the last day) and the gaps of the newest 2,000 rows (grouped on the first load, then
    // kept for a minute).
    for (const char* load : {"first", "again"}) {
      double t = tala::bench::NowSeconds();
      auto page = client.Get("/");
      if (page && page->status == 200) {
        std::printf("dashboard at %ld rows (%s): %.1f ms, %zu bytes\n", rows, load,
                    (tala::bench::NowSeconds() - t) * 1e3, page->body.size());
      }
    }
    // What the documents lack over /v1/gaps' default rows.
    double t = tala::bench::NowSeconds();
    auto gaps = client.Get("/v1/gaps?window=7d&limit=10000");
    if (gaps && gaps->status == 200) {
      std::printf("gaps of the newest 10,000 rows: %.1f ms: %.160s\n",
                  (tala::bench::NowSeconds() - t) * 1e3, gaps->body.c_str());
    }
  }
  auto summary = client.Get("/v1/summary?window=1d");
  if (summary) std::printf("summary: %.300s\n", summary->body.c_str());
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::printf("database: %.1f MiB (%.0f bytes a row)\n", std::filesystem::file_size(db) / 1048576.0,
              static_cast<double>(std::filesystem::file_size(db)) / static_cast<double>(rows));
  std::filesystem::remove_all(dir);
  return 0;
}
