// tala-mock-judge: the mock judge server as a program, for benchmarks and end-to-end tests.
// Prints its base URL on the first line of stdout, then serves until SIGINT or SIGTERM.

#include <sys/resource.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "support/mock_judge_server.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

void Usage() {
  std::fprintf(stderr,
               "usage: tala-mock-judge [--latency-ms N] [--threads N] [--fault-rate R] "
               "[--seed N] [--stall-ms N] [--always "
               "429|500|stall|drop|malformed-body|cut-off|wrong-arity|prose|401]\n"
               "An OpenAI/Anthropic-compatible judge server on 127.0.0.1 that answers tala's "
               "prompts deterministically; prints its base URL, serves until killed.\n");
}
}  // namespace

int main(int argc, char** argv) {
  tala::testing::MockJudgeOptions options;
  options.threads = 128;
  std::string always;  // a fault every request gets ("401", "500", ...)
  for (int i = 1; i < argc; ++i) {
    auto value = [&](const char* flag) -> const char* {
      if (std::strcmp(argv[i], flag) != 0 || i + 1 >= argc) return nullptr;
      return argv[++i];
    };
    if (const char* v = value("--latency-ms")) {
      options.latency_ms = std::atoi(v);
    } else if (const char* v = value("--threads")) {
      options.threads = std::atoi(v);
    } else if (const char* v = value("--fault-rate")) {
      options.fault_rate = std::atof(v);
    } else if (const char* v = value("--seed")) {
      options.seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("--stall-ms")) {
      options.stall_ms = std::atoi(v);
    } else if (const char* v = value("--always")) {
      always = v;
    } else {
      Usage();
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  tala::testing::MockJudgeServer server(options);
  if (!server.Start()) {
    std::fprintf(stderr, "tala-mock-judge: cannot bind 127.0.0.1\n");
    return 1;
  }
  if (!always.empty()) {
    bool known = false;
    for (auto f : {tala::testing::Fault::kRateLimited, tala::testing::Fault::kServerError,
                   tala::testing::Fault::kStall, tala::testing::Fault::kDrop,
                   tala::testing::Fault::kMalformedBody, tala::testing::Fault::kCutOff,
                   tala::testing::Fault::kWrongArity, tala::testing::Fault::kProse,
                   tala::testing::Fault::kUnauthorized}) {
      if (always == tala::testing::FaultName(f)) {
        server.SetStandingFault(f);
        known = true;
      }
    }
    if (!known) {
      std::fprintf(stderr, "tala-mock-judge: unknown fault \"%s\"\n", always.c_str());
      return 2;
    }
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::printf("%s\n", server.base_url().c_str());
  std::fflush(stdout);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto s = server.stats();
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  double cpu =
      u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
  std::fprintf(stderr,
               "tala-mock-judge: %lld requests, %lld prompt tokens, %lld completion tokens, "
               "%.1f us CPU per request\n",
               static_cast<long long>(s.requests), static_cast<long long>(s.prompt_tokens),
               static_cast<long long>(s.completion_tokens),
               s.requests > 0 ? 1e6 * cpu / static_cast<double>(s.requests) : 0.0);
  server.Stop();
  return 0;
}
