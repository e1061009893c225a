// tala-mock-judge: the mock judge server as a program, for benchmarks and end-to-end tests.
// Prints its base URL on the first line of stdout, then serves until SIGINT or SIGTERM.
// `tala-mock-judge --help` lists the flags (docs/getting-started.md: "The mock judge").

#include <sys/resource.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "support/mock_judge_server.h"

namespace {
volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

void Usage(FILE* out) {
  std::fprintf(
      out,
      "usage: tala-mock-judge [--host ADDR] [--port N] [--latency-ms N] [--threads N]\n"
      "                       [--fault-rate R] [--seed N] [--stall-ms N] [--always FAULT]\n"
      "                       [--system-fingerprint FP] [--arrival-log FILE]\n"
      "                       [--max-choices N] [--cached-share R] [--cache-write-share R]\n"
      "                       [--position-bias first|none] [--prefix-cache MIN_TOKENS]\n"
      "\n"
      "An OpenAI/Anthropic-compatible judge server that answers tala's prompts\n"
      "deterministically (claims by sentence, support by word overlap). It prints its base URL\n"
      "(http://HOST:PORT/v1) on the first line of stdout and serves until SIGINT or SIGTERM,\n"
      "then prints its request and token counts on stderr.\n"
      "\n"
      "  --host ADDR       address to listen on (default 127.0.0.1)\n"
      "  --port N          port to listen on (default: a free port, shown in the URL)\n"
      "  --latency-ms N    delay added to every reply (default 0)\n"
      "  --threads N       requests served at once (default 128)\n"
      "  --fault-rate R    share of requests given a fault, 0..1 (default 0)\n"
      "  --seed N          seed of the fault draw (default 1)\n"
      "  --stall-ms N      how long a 'stall' fault waits (default 1500)\n"
      "  --always FAULT    every request gets FAULT: 429, 500, stall, drop, malformed-body,\n"
      "                    cut-off, wrong-arity, prose, 401, zero-vectors (embeddings\n"
      "                    of zeros), huge-usage (usage.prompt_tokens 2^40) or misquote\n"
      "                    (a golden set's quotes reworded, not verbatim)\n"
      "  --system-fingerprint FP  reported in every OpenAI reply beside the model, as\n"
      "                    OpenAI does (default fp_mock; change it to mimic a new backend)\n"
      "  --arrival-log FILE  append each request's arrival time (microseconds since the\n"
      "                    epoch) to FILE, a line each, to measure the rate it was sent at\n"
      "  --max-choices N   the most answers a request asking for several (OpenAI's n)\n"
      "  --position-bias first  pairwise criteria (tala compare --pairwise) always answered A\n"
      "                    gets (default 8; 1 acts like a server without n)\n"
      "  --cached-share R  report this share of each chat prompt as read from the provider's\n"
      "                    prompt cache (OpenAI's prompt_tokens_details.cached_tokens,\n"
      "                    Anthropic's cache_read_input_tokens; default 0)\n"
      "  --cache-write-share R  Anthropic replies: this share as written to the cache\n"
      "                    (cache_creation_input_tokens; default 0)\n"
      "  --prefix-cache MIN_TOKENS  a prompt cache that works as the providers' do, in place\n"
      "                    of fixed shares: OpenAI replies count as cached the longest start of\n"
      "                    the prompt (schema, then messages) an earlier request had, in\n"
      "                    128-token steps; Anthropic replies read and write the starts that end\n"
      "                    at blocks marked cache_control; nothing under MIN_TOKENS (OpenAI:\n"
      "                    1024; Anthropic: 1024 or 2048 by model) is cached\n");
}

// A whole non-negative integer within [lo, hi], or nullopt.
std::optional<long long> Integer(const char* text, long long lo, long long hi) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  tala::testing::MockJudgeOptions options;
  options.threads = 128;
  std::string always;  // a fault every request gets ("401", "500", ...)
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      Usage(stdout);
      return 0;
    }
    if (flag.rfind("--", 0) != 0 || i + 1 >= argc) {
      std::fprintf(stderr, "tala-mock-judge: %s: %s\n\n", flag.c_str(),
                   flag.rfind("--", 0) == 0 ? "needs a value" : "not an option");
      Usage(stderr);
      return 2;
    }
    const char* v = argv[++i];
    auto bad = [&](const char* what) {
      std::fprintf(stderr, "tala-mock-judge: %s: expected %s, got \"%s\"\n", flag.c_str(), what, v);
      return 2;
    };
    if (flag == "--host") {
      options.host = v;
    } else if (flag == "--port") {
      auto n = Integer(v, 1, 65535);
      if (!n) return bad("a port number 1..65535");
      options.port = static_cast<int>(*n);
    } else if (flag == "--latency-ms" || flag == "--stall-ms" || flag == "--threads") {
      auto n = Integer(v, flag == "--threads" ? 1 : 0, 3600000);
      if (!n) return bad(flag == "--threads" ? "a whole number >= 1" : "a whole number >= 0");
      int& field = flag == "--latency-ms" ? options.latency_ms
                   : flag == "--stall-ms" ? options.stall_ms
                                          : options.threads;
      field = static_cast<int>(*n);
    } else if (flag == "--cached-share" || flag == "--cache-write-share") {
      char* end = nullptr;
      double r = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(r >= 0 && r <= 1)) return bad("a share 0..1");
      (flag == "--cached-share" ? options.cached_share : options.cache_write_share) = r;
    } else if (flag == "--fault-rate") {
      char* end = nullptr;
      double r = std::strtod(v, &end);
      if (end == v || *end != '\0' || !(r >= 0 && r <= 1)) return bad("a share 0..1");
      options.fault_rate = r;
    } else if (flag == "--seed") {
      auto n = Integer(v, 0, std::numeric_limits<long long>::max());
      if (!n) return bad("a whole number >= 0");
      options.seed = static_cast<uint64_t>(*n);
    } else if (flag == "--always") {
      always = v;
    } else if (flag == "--system-fingerprint") {
      options.system_fingerprint = v;
    } else if (flag == "--arrival-log") {
      options.arrival_log = v;
    } else if (flag == "--position-bias") {
      if (std::string(v) != "first" && std::string(v) != "none") return bad("first or none");
      options.pairwise_prefer_first = std::string(v) == "first";
    } else if (flag == "--prefix-cache") {
      auto n = Integer(v, 1, 1000000);
      if (!n) return bad("a whole number of tokens >= 1");
      options.prefix_cache = true;
      options.cache_min_tokens = *n;
    } else if (flag == "--max-choices") {
      auto n = Integer(v, 1, 128);
      if (!n) return bad("a whole number 1..128");
      options.max_choices = static_cast<int>(*n);
    } else {
      std::fprintf(stderr, "tala-mock-judge: unknown option %s\n\n", flag.c_str());
      Usage(stderr);
      return 2;
    }
  }
  tala::testing::MockJudgeServer server(options);
  if (!server.Start()) {
    std::fprintf(stderr,
                 "tala-mock-judge: cannot listen on %s port %s (in use, or not an address "
                 "of this machine)\n",
                 options.host.c_str(),
                 options.port > 0 ? std::to_string(options.port).c_str() : "(any)");
    return 1;
  }
  if (!always.empty()) {
    bool known = false;
    for (auto f : {tala::testing::Fault::kRateLimited, tala::testing::Fault::kServerError,
                   tala::testing::Fault::kStall, tala::testing::Fault::kDrop,
                   tala::testing::Fault::kMalformedBody, tala::testing::Fault::kCutOff,
                   tala::testing::Fault::kWrongArity, tala::testing::Fault::kProse,
                   tala::testing::Fault::kUnauthorized, tala::testing::Fault::kZeroVectors,
                   tala::testing::Fault::kHugeUsage, tala::testing::Fault::kMisquote}) {
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
               "tala-mock-judge: %lld requests, %lld prompt tokens (%lld read from the prompt "
               "cache, %lld written to it), %lld completion tokens, %.1f us CPU per request\n",
               static_cast<long long>(s.requests), static_cast<long long>(s.prompt_tokens),
               static_cast<long long>(s.cached_tokens),
               static_cast<long long>(s.cache_write_tokens),
               static_cast<long long>(s.completion_tokens),
               s.requests > 0 ? 1e6 * cpu / static_cast<double>(s.requests) : 0.0);
  server.Stop();
  return 0;
}
