// The LLM runtime against the mock judge program (a separate process, so CPU time is tala's
// alone): N samples (default 1,000) with k = 5 chunks and the four core metrics, 64 requests in
// flight, 50 ms of server latency. Prints wall time against the ideal (requests / in-flight x
// latency), model calls and prompt tokens per sample per prompt and per metric, tala's CPU time
// per call and peak RSS; then the same rows in per-chunk mode (Ragas' call structure: one
// chunk-rating call per chunk), and with --layout combined, row-first and auto. Usage:
// bench_runtime [ROWS] [LATENCY_MS] [IN_FLIGHT].

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "bench_util.h"
#include "cli/child_process.h"
#include "engine/llm_setup.h"
#include "judges/task_plan.h"
#include "metrics/registry.h"

namespace {

tala::Sample MakeSample(int i) {
  std::string n = std::to_string(i);
  tala::Sample s;
  s.id = "s" + n;
  s.user_input = "What did the survey of lake " + n + " find about its water quality in 2019?";
  s.response = "The 2019 survey of lake " + n +
               " found the water clear to a depth of 6 metres. "
               "Nitrate levels were below the national limit. Two invasive species were recorded.";
  s.reference = "The 2019 survey found lake " + n +
                " clear to 6 metres with nitrate below the "
                "limit, and it recorded two invasive species.";
  std::vector<std::string> ctx;
  ctx.push_back("Lake " + n +
                " was surveyed in 2019; divers found the water clear to a depth "
                "of 6 metres across the northern basin and slightly less in the south.");
  ctx.push_back("Nitrate concentrations in lake " + n +
                " stayed below the national limit "
                "throughout the sampling season, according to the 2019 report.");
  ctx.push_back(
      "The survey team recorded two invasive species, a mussel and a water weed, "
      "near the boat launch of lake " +
      n + ".");
  ctx.push_back(
      "Fishing permits for the region are sold at the visitor centre and online; "
      "the season opens in April and closes at the end of October.");
  ctx.push_back(
      "A new cycle path around the lake was opened by the mayor in 2021 after two "
      "years of construction work and public consultation.");
  s.retrieved_contexts = ctx;
  return s;
}

struct Result {
  double wall = 0, cpu = 0;
  double mean_in_flight = 0;  // time-weighted, from the runner's progress ticks
  tala::runtime::Accounting accounting;
};

Result Run(const std::string& url, int rows, int in_flight, tala::judges::llm::Batching batching,
           const std::vector<std::unique_ptr<tala::Metric>>& metrics,
           tala::judges::llm::Layout layout = tala::judges::llm::Layout::kSeparate) {
  tala::runtime::JudgeBackends b;
  b.chat = {"openai", "mock-model", url, ""};
  b.embeddings = b.chat;
  b.embeddings->model = "mock-embed";
  tala::runtime::RuntimeOptions o;
  o.max_in_flight = in_flight;
  o.calls.batching = batching;
  o.calls.layout = layout;
  auto runner = tala::runtime::JudgeRunner::Create(b, o, nullptr, tala::runtime::SystemClock());
  if (!runner) {
    std::fprintf(stderr, "%s\n", runner.error().ToString().c_str());
    std::exit(1);
  }
  int next = 0, done = 0;
  double cpu0 = tala::bench::CpuSeconds(), t0 = tala::bench::NowSeconds();
  double last_tick = t0, weighted = 0;
  int last_in_flight = 0;
  auto tick = [&](const tala::runtime::RunnerProgress& p) {
    double now = tala::bench::NowSeconds();
    weighted += last_in_flight * (now - last_tick);
    last_tick = now;
    last_in_flight = p.in_flight;
  };
  tala::Status s = (*runner)->Run(
      [&]() -> std::unique_ptr<tala::Sample> {
        return next < rows ? std::make_unique<tala::Sample>(MakeSample(next++)) : nullptr;
      },
      [&](const tala::Sample& sample) { return tala::judges::PlanTasks(sample, metrics); },
      [&](std::unique_ptr<tala::Sample>, tala::Result<tala::Verdicts> v) {
        done += v.has_value() ? 1 : 0;
        return tala::OkStatus();
      },
      nullptr, tick);
  double wall = tala::bench::NowSeconds() - t0;
  Result r{wall, tala::bench::CpuSeconds() - cpu0, weighted / wall, (*runner)->accounting()};
  if (!s.ok() || done != rows) {
    std::fprintf(stderr, "run failed: %s (%d of %d rows)\n", s.ToString().c_str(), done, rows);
    std::exit(1);
  }
  return r;
}

void Print(const char* title, const Result& r, int rows, int in_flight, int latency_ms,
           const std::vector<std::unique_ptr<tala::Metric>>& metrics) {
  const auto& t = r.accounting.total;
  double ideal = static_cast<double>(t.requests) / in_flight * latency_ms / 1000.0;
  std::printf("\n%s\n", title);
  std::printf("  wall %.2f s, ideal %.2f s (requests %lld / %d in flight x %d ms): %.1f%% over\n",
              r.wall, ideal, static_cast<long long>(t.requests), in_flight, latency_ms,
              100.0 * (r.wall / ideal - 1.0));
  double latency = r.accounting.request_seconds / static_cast<double>(t.requests);
  double achievable = static_cast<double>(t.requests) / in_flight * latency;
  std::printf(
      "  the mock's observed latency %.1f ms (its %d ms sleep plus its own work): at that "
      "latency the ideal is %.2f s, wall is %.1f%% over it\n",
      1e3 * latency, latency_ms, achievable, 100.0 * (r.wall / achievable - 1.0));
  std::printf("  requests in flight, time-weighted mean: %.1f of %d\n", r.mean_in_flight,
              in_flight);
  std::printf("  tala CPU %.1f us per call (%.2f s for %lld requests)\n",
              1e6 * r.cpu / static_cast<double>(t.requests), r.cpu,
              static_cast<long long>(t.requests));
  std::printf("  %-22s %10s %14s %14s\n", "per sample", "calls", "prompt tok", "compl. tok");
  for (const auto& [prompt, c] : r.accounting.by_prompt) {
    std::printf("  %-22s %10.2f %14.1f %14.1f\n", prompt.c_str(), double(c.calls) / rows,
                double(c.prompt_tokens) / rows, double(c.completion_tokens) / rows);
  }
  std::printf("  %-22s %10.2f %14.1f %14.1f\n", "total", double(t.calls) / rows,
              double(t.prompt_tokens) / rows, double(t.completion_tokens) / rows);
  tala::LlmSetup setup;
  tala::RunAccounting a = tala::ToRunAccounting(r.accounting, setup, metrics);
  std::printf("  per metric (shared calls split):\n");
  for (const auto& [metric, c] : a.by_metric) {
    std::printf("    %-20s %8.2f calls %10.1f prompt tok\n", metric.c_str(), double(c.calls) / rows,
                double(c.prompt_tokens) / rows);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int rows = argc > 1 ? std::atoi(argv[1]) : 1000;
  int latency = argc > 2 ? std::atoi(argv[2]) : 50;
  int in_flight = argc > 3 ? std::atoi(argv[3]) : 64;
  std::string mock = std::string(TALA_BINARY_DIR) + "/tala-mock-judge";
  tala::testing::ChildProcess server({mock, "--latency-ms", std::to_string(latency), "--threads",
                                      std::to_string(in_flight * 2 + 16)});
  std::string url = server.FirstLine();
  if (url.empty()) {
    std::fprintf(stderr, "cannot start %s\n", mock.c_str());
    return 1;
  }
  auto metrics = tala::metrics::CreateMetrics(*tala::metrics::ParseMetricSpecs(
      "faithfulness,response_relevancy,context_precision,context_recall"));
  std::printf(
      "LLM runtime: %d samples, k = 5, four core metrics, mock judge at %d ms, %d in flight\n",
      rows, latency, in_flight);
  std::printf("Ragas for the same sample: 2 + 3 + 5 + 1 = 11 LLM calls and 2 embedding calls\n");
  // A short warm-up, so connections and the mock's threads exist before the timed runs.
  Run(url, in_flight * 2, in_flight, tala::judges::llm::Batching::kBatched, *metrics);
  Result batched = Run(url, rows, in_flight, tala::judges::llm::Batching::kBatched, *metrics);
  Print("batched, --layout separate", batched, rows, in_flight, latency, *metrics);
  Result per_chunk = Run(url, rows, in_flight, tala::judges::llm::Batching::kPerChunk, *metrics);
  Print("per-chunk (--batching per-chunk, Ragas' structure for context precision)", per_chunk, rows,
        in_flight, latency, *metrics);
  Result combined = Run(url, rows, in_flight, tala::judges::llm::Batching::kBatched, *metrics,
                        tala::judges::llm::Layout::kCombined);
  Print("combined (--layout combined: the claims and chunk ratings in one call)", combined, rows,
        in_flight, latency, *metrics);
  Result row_first = Run(url, rows, in_flight, tala::judges::llm::Batching::kBatched, *metrics,
                         tala::judges::llm::Layout::kRowFirst);
  Print("row-first (--layout row-first: each call starts with the row's data)", row_first, rows,
        in_flight, latency, *metrics);
  Result chosen = Run(url, rows, in_flight, tala::judges::llm::Batching::kBatched, *metrics,
                      tala::judges::llm::Layout::kAuto);
  Print("auto (the default: per row, the layout estimated to bill least)", chosen, rows, in_flight,
        latency, *metrics);
  std::printf("\nprompt tokens per sample, batched / per-chunk: %.2f; combined / batched: %.2f\n",
              double(batched.accounting.total.prompt_tokens) /
                  double(per_chunk.accounting.total.prompt_tokens),
              double(combined.accounting.total.prompt_tokens) /
                  double(batched.accounting.total.prompt_tokens));
  std::printf("peak RSS %.1f MiB\n", tala::bench::PeakRssMiB());
  return 0;
}
