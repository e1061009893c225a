#pragma once
// Building a golden set (`tala testset`): real questions from the application's log first,
// grouped into intents and picked, seeded, in proportion to traffic; each with a reference
// drafted from the documents and quoted verbatim; then a person's review, and only the
// accepted items become golden.jsonl, a dataset tala eval, run and ci read as it is.
//
// The offline judge drafts extractively and writes no question of its own (documents that no
// logged question touches are listed as uncovered). An LLM judge (openai:MODEL, anthropic:MODEL)
// drafts each reference with verbatim quotes, checked character for character, and writes
// questions, single- and multi-hop, for the documents no logged question touches; its calls go
// through the judge runtime (cache, retries, rate limits, cost, --dry-run estimates).

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tala/evaluate.h"
#include "tala/status.h"

namespace tala {

// A logged question, and whether its row failed: a score below 0.5 (above, for a metric where
// lower is better), a diagnosis other than healthy, or a thumbs-down ("feedback": "down").
struct LoggedQuestion {
  std::string id, question;
  bool failed = false;
  // A turn of a logged conversation: the questions its user asked before it, in order (empty
  // for a question asked on its own).
  std::vector<std::string> earlier;
};

struct TestsetOptions {
  // The logged interactions: a dataset (JSON Lines, JSON, CSV) or a results file (its scores and
  // diagnoses tell which rows failed); may be empty.
  std::string logs;
  // Questions already read (a tala serve database's rows, read by the command); used when
  // `logs` is empty.
  std::vector<LoggedQuestion> logged;
  // Up to this share of the items comes first from intents with failing rows.
  double failed_share = 0.3;
  // Every intent that carries at least this share of the logged questions is picked first, the
  // largest first (the top needs are always in); absent: half an item's share, 1 / (2 x size).
  std::optional<double> always_share;
  std::string docs;     // a folder of .txt / .md, or a JSON Lines file of chunks; may be empty
  std::string heldout;  // a dataset of questions the set must not repeat (by intent); optional
  int64_t size = 50;
  uint64_t seed = 1;
  std::string judge = "offline";  // offline | openai:MODEL | anthropic:MODEL
  // An LLM judge's server, key, cache, limits, prices; its sampling seed is `seed`.
  LlmOptions llm;
  // With an LLM judge and a log: up to this share of the items is written for documents no
  // logged question touches (without a log, every item is).
  double synthetic_share = 0.2;
  bool dry_run = false;  // estimate an LLM judge's calls, tokens and cost; call and write nothing
  const std::atomic<bool>* stop = nullptr;        // set (by a signal handler) to stop cleanly
  std::function<void(const Progress&)> progress;  // the LLM judge's items as they finish
};

// An intent the documents do not answer (its draft reference is "no"), with its traffic.
struct TestsetGap {
  std::string question;   // its typical question, verbatim
  int64_t questions = 0;  // the logged questions it holds
};

// A question asked in production and the passages its retriever returned (tala serve's rows).
struct AskedQuestion {
  std::string question;
  std::vector<std::string> contexts;
};

// What the documents lack among questions asked (tala serve's /v1/gaps and dashboard).
struct GapReport {
  // What the intents were read against: "documents" (tala serve --docs) or "retrieved
  // passages" (each intent's own rows' contexts: a gap there is a document the corpus lacks or
  // one the retriever never finds; --docs tells the two apart).
  std::string against;
  int64_t questions = 0, intents = 0;
  bool by_meaning = false;       // rewordings joined by the sentence encoder (else by words alone)
  std::vector<TestsetGap> gaps;  // most asked first
  int64_t gap_questions = 0;
};

// Reads gaps as tala testset's report does: the questions grouped into intents (words, then
// meaning when the sentence encoder is installed), and every intent whose reference drafted
// from its best three chunks is "no", most asked first. Questions that are blank or over 2,000
// bytes are left out, as tala testset leaves them. Thread-safe for Read once opened.
class GapReader {
 public:
  // `docs`: a folder of documents or a JSON Lines file of chunks (as tala testset --docs), read
  // once; empty: each intent is read against the passages retrieved for its questions. The
  // documents reader's errors (path, line, field); kInvalidArgument when they hold no text.
  static Result<GapReader> Open(const std::string& docs);
  GapReader(GapReader&&) noexcept;
  GapReader& operator=(GapReader&&) noexcept;
  ~GapReader();
  bool with_documents() const;
  Result<GapReport> Read(const std::vector<AskedQuestion>& asked) const;

  struct Impl;

 private:
  explicit GapReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};
// {"against", "questions", "intents", "by_meaning", "gap_questions", "gap_share", "gaps":
// [{"question", "questions", "share"}]}: shares of `questions`, the report's fields as they are.
std::string GapReportJson(const GapReport& report);

// A reference quote: its chunk, its text, and where it stands in its document (issue 53 item
// 5): characters [start, end) of `document` as tala reads it (Chunk::start), so `tala testset
// remap` finds this occurrence and not an earlier one of the same words. -1 when the chunk's
// place in its document is not known (an application's chunks file without "start").
struct TestsetQuote {
  std::string context_id, text;
  std::string document;
  int64_t start = -1, end = -1;
};

// One distinct phrasing of an item's intent: its most common wording, how many logged questions
// use it, and their log ids (those among the item's `log_ids`), so a reviewer's "not this
// intent" can take them out (`moved_out` in the labels).
struct TestsetPhrasing {
  std::string text;
  int64_t asked = 0;
  std::vector<std::string> log_ids;
};

struct TestsetItem {
  std::string id, user_input, reference;
  std::vector<std::string> reference_contexts, reference_context_ids;
  // metadata
  std::string source = "log";  // log | synthetic
  std::vector<std::string> log_ids;
  // The intent's distinct phrasings, as asked most (each its most common wording) with how many
  // logged questions use it: the ten most asked; `more_phrasings` counts the rest (issue 53:
  // the reviewer sees what the intent holds).
  std::vector<TestsetPhrasing> phrasings;
  int64_t more_phrasings = 0;
  int64_t cluster = 0;  // the intent's rank by traffic, 1 = the most asked
  int64_t failed = 0;   // the intent's logged rows that failed
  std::string doc;      // the document of the first reference context
  std::vector<TestsetQuote> quotes;
  std::string answerable;  // yes | partly | no | unknown (no documents)
  std::string style;       // plain | typo | vague | multi-part
  std::string persona;     // synthetic items: who the question was written as
  // Set when the reviewer must look twice: a quote of the judge's draft was not found in its
  // passage even after a redraft (and was removed), or the judge drafted nothing (the offline
  // draft is shown).
  std::string flag;
  int64_t hops = 0;        // reference contexts
  int64_t difficulty = 0;  // the verbatim question's rank for its first context (0: not top 10)
  bool self_contained = true;
  std::string not_self_contained;  // why, when not
  // A conversation item (issue 54 item 6): the question leans on what its session asked
  // before, kept here in order (metadata.earlier_turns); testset accept writes the golden row's
  // user_input as those messages and then the question, which tala run plays turn by turn.
  std::vector<std::string> earlier_turns;
  // The share of the reference's claims its contexts support (tala's faithfulness, offline);
  // 1 for an extractive draft; nullopt without a reference.
  std::optional<double> grounded;
  double coverage = 0;  // the share of the question's weight the contexts hold
  uint64_t seed = 0;
  std::string prompt_version;
};

// An LLM judge's calls for a set: as made, or estimated (--dry-run).
struct TestsetCalls {
  bool used = false, estimated = false;
  std::string judge;                  // "openai:gpt-4o-mini"
  int64_t calls = 0, cache_hits = 0;  // logical calls the model answered; answered by the cache
  int64_t requests = 0, repairs = 0;  // HTTP requests (retries, repairs included); redrafts
  int64_t retries = 0, failed = 0;    // transport retries; calls given up on
  int64_t prompt_tokens = 0, completion_tokens = 0;
  std::optional<double> cost_usd;  // when the model's price is known or given
  // (calls + repairs + cache hits) per item kept in the set: what each item cost to write.
  double per_kept_item = 0;
  std::map<std::string, int64_t> by_prompt;  // "testset_question" -> calls (cache hits included)
};

struct TestsetReport {
  int64_t questions = 0, questions_skipped = 0, phrasings = 0, intents = 0;
  // Intents the words kept apart and their meaning joined (the sentence encoder): included in
  // `intents` already. Absent when the encoder is not installed.
  std::optional<int64_t> intents_joined_by_meaning;
  int64_t failed_questions = 0, failed_intents = 0, items_from_failures = 0;
  int64_t items = 0, log_items = 0, synthetic_items = 0;
  int64_t answerable_yes = 0, answerable_partly = 0, answerable_no = 0, answerable_unknown = 0;
  double traffic_covered = 0;  // share of logged questions whose intent was picked
  // What the documents lack: every intent whose draft reference is "no", most asked first, and
  // the logged questions they hold (the report's first section; tala serve's /v1/gaps).
  std::vector<TestsetGap> gaps;
  int64_t gap_questions = 0;
  // Intents picked first for their share of the traffic (TestsetOptions::always_share).
  int64_t intents_always = 0;
  double always_share = 0;
  double intents_covered = 0;  // share of intents picked
  int64_t documents = 0, chunks = 0, chunks_dropped_empty = 0, chunks_dropped_duplicate = 0;
  std::vector<std::string> uncovered_documents;
  double documents_covered = 0;
  int64_t heldout_questions = 0, heldout_removed = 0;
  // Diversity: each item's distance (1 - rarity-weighted term similarity) to its nearest
  // other item, mean and minimum.
  double diversity_mean = 0, diversity_min = 0;
  // Stability: the share of this seed's intents that the next seed picks too.
  double stability = 0;
  // Realism against --heldout: the AUROC of a classifier telling the items' questions from the
  // held-out ones by style (0.5: indistinguishable); absent without 5 of each.
  std::optional<double> realism;
  std::vector<int64_t> difficulty;  // items by retrieval rank: [not in top 10, 1, 2, ..., 10]
  // Question shapes (plain, typo, vague, multi-part): how many of the logged questions and of
  // the items have each, so a set whose shapes drift from the log's shows it.
  std::map<std::string, int64_t> log_styles, item_styles;
  // The spread of the items: by persona (synthetic items), and by hops (contexts drawn on).
  std::map<std::string, int64_t> item_personas;
  std::map<int64_t, int64_t> item_hops;
  // Synthetic items: asked for, dropped (no checked question after a rewrite; the first few
  // reasons kept), left out as near-duplicates of another item or a held-out question;
  // multi-hop items kept; items flagged for the reviewer.
  int64_t synthetic_planned = 0, synthetic_dropped = 0, synthetic_duplicates = 0;
  int64_t multi_hop_items = 0, flagged_items = 0;
  std::vector<std::string> dropped_reasons;
  TestsetCalls llm;
  std::vector<std::string> notes;
};

struct Testset {
  std::vector<TestsetItem> items;
  TestsetReport report;
};

// The questions of results-format lines (a results file's rows, or a tala serve database's):
// their inputs' user_input, failed as LoggedQuestion says; a conversation gives each question
// its user asked (LoggedQuestion::earlier). `rows`, when given, holds each line's row as it was
// received (a tala serve database keeps it), read for the questions instead of the line's
// inputs. kDataError naming `where` and the line.
Result<std::vector<LoggedQuestion>> QuestionsOfResultLines(
    const std::vector<std::string>& lines, const std::string& where,
    const std::vector<std::string>* rows = nullptr);

// kInvalidArgument for options that cannot work (neither input, a size below 1, an unknown
// judge, a hosted judge without its key); the readers' errors (file, line, field) for bad
// inputs; the judge runtime's fatal errors (401, an unreachable server) and kCancelled when
// options.stop is set. With dry_run and an LLM judge: no items, report.llm the estimate.
Result<Testset> BuildTestset(const TestsetOptions& options);

// A candidates.jsonl line (no newline): id, user_input, reference, reference_contexts,
// reference_context_ids and metadata.
std::string TestsetItemJson(const TestsetItem& item);
std::string TestsetReportJson(const TestsetReport& report);
// The report for a person (several lines).
std::string TestsetReportText(const TestsetReport& report);
// The report as one self-contained page (no script, nothing fetched), the candidates listed.
std::string TestsetReportHtml(const Testset& set);

struct AcceptedTestset {
  std::string golden_jsonl;
  int64_t accepted = 0, edited = 0, unanswerable = 0, rejected = 0, needs_expert = 0;
  int64_t unlabelled = 0;
};

// Reviewed candidates into golden rows. `labels` is JSON Lines of {"id", "decision": accept |
// edit | unanswerable | reject | needs-expert, "user_input"?, "reference"?, "reason"?}; edits
// replace the candidate's question or reference. Accepted and edited items are golden;
// unanswerable ones too, as "should refuse" items (metadata.answerable "no", the reference the
// label's if it gives one). Rejected, needs-expert and unlabelled items are left out.
// kDataError naming file, line and field for a bad line, an unknown id or decision.
Result<AcceptedTestset> AcceptTestset(const std::string& candidates_path,
                                      const std::string& labels_path);

}  // namespace tala
