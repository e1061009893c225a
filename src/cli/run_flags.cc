#include "cli/run_flags.h"

#include "cli/help_format.h"

namespace tala::cli {

Status RunFlags::Finish() {
  if (options.target.target.empty()) {
    return InvalidArgument(
        "give --target (http://HOST/PATH, 'exec:COMMAND' or "
        "'exec-once:COMMAND') or target = \"...\" in tala.toml's [target]");
  }
  for (const std::string& h : headers) options.target.headers.push_back(h);
  if (options.golden.empty() == options.simulate.empty()) {
    return InvalidArgument(
        options.golden.empty()
            ? "give GOLDEN (golden questions) or --simulate SCENARIOS (a simulated user)"
            : "give GOLDEN or --simulate SCENARIOS, not both: a simulated run has no golden rows");
  }
  return OkStatus();
}

void AddTargetFlags(CLI::App& cmd, RunFlags& f) {
  RunOptions& o = f.options;
  cmd.add_option("--user-judge", o.user_judge,
                 "with --simulate: who plays the user: offline (tala's reading, no model; the "
                 "default) or openai:MODEL / anthropic:MODEL (one call after each answer; server "
                 "from --user-base-url, else OPENAI_BASE_URL / ANTHROPIC_BASE_URL; replies "
                 "cached in --user-cache)")
      ->capture_default_str();
  cmd.add_option("--user-base-url", o.user_llm.base_url,
                 "with --user-judge openai:MODEL or anthropic:MODEL: the server");
  cmd.add_option("--user-cache", o.user_llm.cache,
                 "with an LLM --user-judge: its reply cache (SQLite file, or off); the same "
                 "scenarios and answers then give the same conversations")
      ->capture_default_str();
  cmd.add_option("--simulate", o.simulate,
                 "instead of GOLDEN: scenarios (JSON Lines: goal, opening, facts, success, "
                 "max_turns) that tala's offline user plays against the target, turn by turn, "
                 "until the goal is met, max_turns, or it gives up; each conversation is one "
                 "row, scored turn by turn by tala eval (docs/ci.md, Simulated users)");
  cmd.add_option("--target,-t", o.target.target,
                 "the system under test: http://HOST/PATH, 'exec:COMMAND ARGS' or "
                 "'exec-once:COMMAND ARGS'")
      ->envname("TALA_TARGET");
  cmd.add_option("--header", f.headers,
                 "an HTTP header \"Name: value\" (repeatable; ${VAR} takes an environment "
                 "variable)");
  cmd.add_option("--body", o.target.body,
                 "the request's JSON template: strings may hold {{user_input}}, {{id}}, "
                 "{{reference}}, {{metadata.NAME}}");
  cmd.add_option("--response-path", o.target.response,
                 "where the reply holds the answer (JSON pointer /a/b or dotted a.b; default "
                 "answer, else response)");
  cmd.add_option("--contexts-path", o.target.contexts,
                 "where the reply holds the retrieved contexts, strings or objects with a "
                 "text field (default contexts, else retrieved_contexts)");
  cmd.add_option("--context-ids-path", o.target.context_ids,
                 "where the reply holds the contexts' ids (default: the objects' id field, "
                 "else context_ids)");
  cmd.add_option("--max-in-flight", o.max_in_flight, "calls at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd.add_option("--timeout-ms", o.timeout_ms, "per call")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600000));
  cmd.add_option("--max-retries", o.max_retries,
                 "retries per row on timeouts, 429, 5xx and crashed processes (never on 4xx)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  cmd.add_option("--requests-per-minute", o.requests_per_minute, "0: no limit")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--max-restarts", o.max_restarts,
                 "exec: restarts of a crashed process before the run stops")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd.add_option_function<int>(
         "--max-reply-mib",
         [&o](const int& mib) { o.target.max_reply_bytes = static_cast<size_t>(mib) << 20; },
         "a reply over this many MiB fails its row (default 64), never the process")
      ->check(CLI::Range(1, 4096));
  cmd.add_flag("--resume", o.resume,
               "keep the rows of --out the target answered and call only for the others");
  cmd.add_option("--target-cache", o.cache,
                 "cache replies in this SQLite file, keyed on target and request (off by "
                 "default: a pipeline under test should be called)")
      ->capture_default_str();
  cmd.add_flag("--quiet,-q", f.quiet,
               "no progress line (tala ci: and only the summary's verdict and metric lines)");
  cmd.add_option("--config", f.config,
                 "settings file with [target] (and [ci]) tables; default $TALA_CONFIG, else "
                 "./tala.toml when present");
  GroupOptions(&cmd, "The target",
               {"--target", "--header", "--body", "--response-path", "--contexts-path",
                "--context-ids-path"});
  GroupOptions(&cmd, "Calling it",
               {"--max-in-flight", "--timeout-ms", "--max-retries", "--requests-per-minute",
                "--max-restarts", "--max-reply-mib", "--target-cache", "--resume"});
}

}  // namespace tala::cli
