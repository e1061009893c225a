#include "cli/help_examples.h"

#include <sstream>
#include <string>

namespace tala::cli {

namespace {

// Two commands a reader can copy, for each subcommand that does not write its own footer.
struct Examples {
  const char* command;  // "cache stats" for a nested one
  const char* first;
  const char* second;
};

constexpr Examples kExamples[] = {
    {"validate", "tala validate data.jsonl", "tala validate logs.csv --format csv --max-errors 50"},
    {"calibrate", "tala calibrate results.jsonl --labels labels.jsonl --metric faithfulness",
     "tala calibrate results.jsonl --human metadata.label --positive right "
     "--judge scores.faithfulness"},
    {"estimate", "tala estimate results.jsonl --labels labels.jsonl --metric faithfulness",
     "tala estimate results.jsonl --labels labels.jsonl --metric context_recall --json"},
    {"review", "tala review results.jsonl --n 50 --pick stratified --out review.html",
     "tala review results.jsonl --serve --labels-out labels.jsonl"},
    {"power", "tala power --p 0.8 --n 200", "tala power --p1 0.80 --p2 0.85"},
    {"metrics", "tala metrics", "tala metrics --json"},
    {"judges", "tala judges", "tala eval data.jsonl --judge openai:gpt-4o-mini"},
    {"merge", "tala merge part-*.jsonl -o results.jsonl",
     "tala merge part-0.jsonl.shard.json part-1.jsonl.shard.json -o results.jsonl --json"},
    {"run", "tala run golden.jsonl --target http://127.0.0.1:8765/ask --out dataset.jsonl",
     "tala run golden.jsonl --target 'exec:python3 app.py jsonl' --out dataset.jsonl --resume"},
    {"ci", "tala ci golden.jsonl --target 'exec:python3 app.py jsonl' --min faithfulness=0.7",
     "tala ci golden.jsonl -t http://127.0.0.1:8765/ask --baseline b.jsonl "
     "--max-drop faithfulness=0.05"},
    {"diagnose",
     "tala diagnose golden.jsonl --target 'exec:python3 app.py jsonl' --docs chunks.jsonl",
     "tala diagnose golden.jsonl -t http://127.0.0.1:8765/ask --sample 50 --json"},
    {"serve", "tala serve --db tala.sqlite --sample 0.05",
     "tala serve --db tala.sqlite --metrics faithfulness,response_relevancy --port 8177"},
    {"export", "tala export tala.sqlite --metric faithfulness --max-score 0.5 -o low.jsonl",
     "tala export tala.sqlite --since 2026-12-01T00:00:00Z --limit 200 -o golden.jsonl"},
    {"testset",
     "tala testset --logs logs.jsonl --docs docs/ --size 50 --seed 7 -o candidates.jsonl",
     "tala testset --logs logs.jsonl --docs chunks.jsonl --heldout human.jsonl --json"},
    {"testset accept", "tala testset accept candidates.jsonl --labels labels.jsonl -o golden.jsonl",
     "tala testset accept candidates.jsonl --labels review.jsonl -o golden/v2.jsonl"},
    {"history", "tala history", "tala history --store http://127.0.0.1:8177 --tag branch=main"},
    {"history add", "tala history add tala-ci/results.jsonl --label nightly --tag branch=main",
     "tala history add results.jsonl --store http://127.0.0.1:8177 --report report.html"},
    {"history show", "tala history show --metric faithfulness",
     "tala history show --metric context_recall --tag branch=main --min-effect 0.03"},
    {"history report", "tala history report -o history.html",
     "tala history report -o history.html --store http://127.0.0.1:8177"},
    {"history prune", "tala history prune --keep 200", "tala history prune --older-than 90d"},
    {"cache", "tala cache stats", "tala cache clear --cache .tala/cache.sqlite"},
    {"cache stats", "tala cache stats", "tala cache stats --cache .tala/cache.sqlite"},
    {"cache clear", "tala cache clear", "tala cache clear --cache .tala/cache.sqlite"},
    {"cache merge", "tala cache merge worker-1.sqlite worker-2.sqlite",
     "tala cache merge shards/*.sqlite --cache .tala/cache.sqlite"},
};

CLI::App* Find(CLI::App& app, const std::string& path) {
  CLI::App* at = &app;
  std::istringstream words(path);
  for (std::string word; words >> word;) at = at->get_subcommand(word);
  return at;
}

}  // namespace

void AddExamples(CLI::App& app) {
  for (const Examples& e : kExamples) {
    CLI::App* cmd = Find(app, e.command);
    // A footer of the command's own (eval's notes) stays; the one inherited from tala is not.
    if (!cmd->get_footer().empty() && cmd->get_footer() != app.get_footer()) continue;
    cmd->footer(std::string("Examples:\n  ") + e.first + "\n  " + e.second);
  }
}

}  // namespace tala::cli
