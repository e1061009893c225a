// tala review RESULTS --out queue.html: rows for people to label, in one self-contained page.

#include <httplib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "cli/commands.h"
#include "cli/http_guard.h"
#include "fs/atomic_file.h"
#include "fs/file_lock.h"
#include "fs/output_paths.h"
#include "io/readers/labels_reader.h"
#include "io/readers/results_reader.h"
#include "tala/review.h"
#include "tala/review_page.h"
#include "tala/testset.h"

namespace tala::cli {

namespace {

// The largest save the page posts: the labels or decisions of every row, a few hundred bytes each.
constexpr size_t kMaxSaveBytes = 32u << 20;

struct ReviewFlags {
  ReviewOptions options;
  std::string out = "review.html";
  bool serve = false;
  std::string host = "127.0.0.1";
  int port = 8178;
  std::string labels = "labels.jsonl";
  std::string testset;              // a candidates file: review a golden set's candidates instead
  std::vector<std::string> assign;  // reviewers: a page each (--assign ana,ben)
  double overlap = 0.2;             // the share of the rows every reviewer labels
};

// "tala review: 8 of 20 rows with faithfulness picked (random, seed 3)": what was picked.
std::string Picked(const ReviewQueue& q) {
  return "tala review: " + std::to_string(q.rows_json.size()) + " of " +
         std::to_string(q.population) + " rows with " + q.metric + " picked (" + q.pick +
         ", seed " + std::to_string(q.seed) + ")";
}

// What the pick says of itself (--target-width: the labels a width needs), a line each.
void PrintNotes(const ReviewQueue& q) {
  for (const std::string& note : q.notes) std::fprintf(stderr, "tala review: %s\n", note.c_str());
}

// review.html -> review-ana.html: the page of one reviewer.
std::string PageFor(const std::string& out, const std::string& labeller) {
  const size_t slash = out.find_last_of('/');
  const size_t dot = out.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return has_ext ? out.substr(0, dot) + "-" + labeller + out.substr(dot) : out + "-" + labeller;
}

// The candidates file's lines (each checked to be a JSON object with an id by accept later).
Result<std::vector<std::string>> CandidateLines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("--testset " + path + ": cannot read it");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  return lines;
}

// The labels a save leaves: the file's rows, each replaced by the incoming row with its id, then
// the incoming rows that are new; the incoming selection line (the page's pick) heads them. So a
// second labeller, another browser or a restarted page adds to the file and never wipes it.
Result<std::string> MergeLabels(const std::string& existing_path, const std::string& body) {
  using json = nlohmann::json;
  auto lines_of = [](const std::string& text, const std::string& where, std::vector<json>& rows,
                     json& header) -> Status {
    size_t at = 0, line_no = 0;
    while (at < text.size()) {
      size_t nl = text.find('\n', at);
      std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? text.size() : nl + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      json v = json::parse(line, nullptr, false);
      if (v.is_discarded() || !v.is_object()) {
        return DataError({where, static_cast<int64_t>(line_no), 0, ""}, "not a JSON object");
      }
      if (v.contains("tala_labels")) {
        header = std::move(v);
      } else {
        rows.push_back(std::move(v));
      }
    }
    return OkStatus();
  };
  std::vector<json> old_rows, new_rows;
  json old_header, new_header;
  std::ifstream in(existing_path, std::ios::binary);
  if (in) {
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TALA_RETURN_IF_ERROR(lines_of(text, existing_path, old_rows, old_header));
  }
  TALA_RETURN_IF_ERROR(lines_of(body, "request", new_rows, new_header));
  if (new_rows.empty()) {
    return InvalidArgument("the save holds no labelled row; nothing was changed");
  }
  std::map<std::string, size_t> at;
  auto key = [](const json& row) { return row.contains("id") ? row["id"].dump() : std::string(); };
  for (size_t i = 0; i < old_rows.size(); ++i) at[key(old_rows[i])] = i;
  for (json& row : new_rows) {
    auto it = at.find(key(row));
    if (it != at.end()) {
      old_rows[it->second] = std::move(row);
    } else {
      at[key(row)] = old_rows.size();
      old_rows.push_back(std::move(row));
    }
  }
  std::string out;
  const json& header = new_header.is_null() ? old_header : new_header;
  if (!header.is_null()) out += header.dump() + "\n";
  for (const json& row : old_rows) out += row.dump() + "\n";
  return out;
}

// A token only the served page knows: every save must carry it, so no other page or local
// process can write labels in the people's name.
std::string PageToken() {
  std::random_device rd;
  std::string token;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) token += kHex[rd() % 16];
  return token;
}

// --serve: the page from 127.0.0.1, and every change the page POSTs to /labels merged by id into
// the labels file (checked as `tala calibrate` reads it, written to a scratch file of its own and
// renamed: a crash leaves the old file or the new one).
int Serve(const ReviewFlags& f, const ReviewQueue& queue,
          const std::vector<std::string>* candidates = nullptr) {
  // One labeller process per labels file, and a path that can be written before anyone labels.
  auto lock = fs::FileLock::Acquire(f.labels);
  if (!lock) {
    PrintError("tala review", lock.error());
    return 2;
  }
  // Labels are checked against the metric's values in the results (a 7 for a 0-1 metric), or,
  // for a testset, as tala testset accept reads them.
  Result<io::ResultsFile> results = io::ResultsFile{};
  if (candidates == nullptr) results = io::ReadResults(f.options.results);
  if (!results) {
    PrintError("tala review", results.error());
    return 2;
  }
  httplib::Server server;
  PrepareServer(server, kMaxSaveBytes);
  const std::string token = PageToken();
  const std::string page = candidates != nullptr
                               ? RenderTestsetReviewPage(*candidates, f.testset, true, token)
                               : RenderReviewPage(queue, /*served=*/true, token);
  std::mutex save_mu;  // saves are read-merge-write: one at a time
  int port = f.port == 0 ? server.bind_to_any_port(f.host) : f.port;
  if (f.port != 0 && !server.bind_to_port(f.host, f.port)) port = -1;
  if (port <= 0) {
    std::fprintf(stderr, "tala review: cannot listen on %s:%d\n", f.host.c_str(), f.port);
    return 2;
  }
  server.set_pre_routing_handler([names = NamesOfServer(f.host, port, {})](
                                     const httplib::Request& req, httplib::Response& res) {
    return RefuseForeignRequest(req, res, names) ? httplib::Server::HandlerResponse::Handled
                                                 : httplib::Server::HandlerResponse::Unhandled;
  });
  server.Get("/", [&page](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "text/html; charset=utf-8");
  });
  PostWithBody(
      server, "/labels", kMaxSaveBytes,
      [&f, &token, &save_mu, &queue, &results, candidates](
          const httplib::Request& req, const std::string& body, httplib::Response& res) {
        if (req.get_header_value("X-Tala-Token") != token) {
          res.status = 403;
          res.set_content("this page's token is missing or wrong; reload the page tala served",
                          "text/plain");
          return;
        }
        std::lock_guard<std::mutex> one_at_a_time(save_mu);
        auto merged = MergeLabels(f.labels, body);
        if (!merged) {
          res.status = 400;
          res.set_content(merged.error().ToString(), "text/plain");
          return;
        }
        auto file = fs::AtomicFile::Create(f.labels);
        Status written = file ? file->Write(*merged) : file.error();
        if (written.ok()) written = file->Flush();
        if (!written.ok()) {
          res.status = 500;
          res.set_content(written.ToString(), "text/plain");
          return;
        }
        // An error names the labels file, never the scratch copy it was checked in (R8).
        auto named = [&](std::string text) {
          if (file->scratch_path().empty()) return text;
          for (size_t at; (at = text.find(file->scratch_path())) != std::string::npos;) {
            text.replace(at, file->scratch_path().size(), f.labels);
          }
          return text;
        };
        if (candidates != nullptr) {
          auto checked = AcceptTestset(f.testset, file->scratch_path());
          if (!checked) {
            res.status = 400;
            res.set_content(named(checked.error().ToString()), "text/plain");
            return;
          }
          if (Status s = file->Commit(); !s.ok()) {
            res.status = 500;
            res.set_content(s.ToString(), "text/plain");
            return;
          }
          const int64_t saved = checked->accepted + checked->edited + checked->unanswerable +
                                checked->rejected + checked->needs_expert;
          res.set_content(std::to_string(saved) + " decisions saved", "text/plain");
          return;
        }
        auto labels = io::ReadLabels(file->scratch_path());
        if (labels) {
          if (Status range = io::CheckLabelRange(*labels, queue.metric, *results, "request");
              !range.ok()) {
            labels = range;
          }
        }
        if (!labels) {
          res.status = 400;
          res.set_content(
              named(labels.error().message()) + " (field " + labels.error().where().field + ")",
              "text/plain");
          return;
        }
        if (Status s = file->Commit(); !s.ok()) {
          res.status = 500;
          res.set_content(s.ToString(), "text/plain");
          return;
        }
        res.set_content(std::to_string(labels->rows.size()) + " rows saved", "text/plain");
      });
  // The address on stdout's first line (as tala serve prints its own), for scripts and tests.
  std::printf("http://%s:%d/\n", f.host.c_str(), port);
  std::fflush(stdout);
  std::fprintf(stderr,
               "tala review: label at http://%s:%d/ (every change is saved to %s); Ctrl-C to "
               "stop\n",
               f.host.c_str(), port, f.labels.c_str());
  std::fflush(stderr);
  return server.listen_after_bind() ? 0 : 2;
}

int RunTestsetReview(const ReviewFlags& f) {
  std::vector<fs::NamedPath> outputs = {{"--out", f.serve ? "" : f.out}};
  if (f.serve) outputs.push_back({"--labels-out", f.labels});
  if (Status s = fs::CheckOutputsDistinct({{"--testset", f.testset}}, outputs); !s.ok()) {
    PrintError("tala review", s);
    return 2;
  }
  auto lines = CandidateLines(f.testset);
  if (!lines) {
    PrintError("tala review", lines.error());
    return ExitCodeFor(lines.error());
  }
  if (f.serve) return Serve(f, ReviewQueue{}, &*lines);
  if (Status s = fs::WriteFileAtomically(f.out, RenderTestsetReviewPage(*lines, f.testset));
      !s.ok()) {
    PrintError("tala review", s);
    return 2;
  }
  std::fprintf(stderr,
               "tala review: %zu candidates of %s into %s; open it in a browser, decide with the "
               "keyboard, export labels.jsonl, then run tala testset accept %s --labels "
               "labels.jsonl -o golden.jsonl\n",
               lines->size(), f.testset.c_str(), f.out.c_str(), f.testset.c_str());
  return 0;
}

int RunReview(const ReviewFlags& f) {
  if (!f.testset.empty()) {
    if (!f.options.results.empty()) {
      PrintError("tala review", InvalidArgument("give RESULTS or --testset CANDIDATES, not both"));
      return 2;
    }
    return RunTestsetReview(f);
  }
  if (f.options.results.empty()) {
    PrintError("tala review",
               InvalidArgument("give RESULTS (a results file) or --testset CANDIDATES"));
    return 2;
  }
  std::vector<fs::NamedPath> outputs = {{"--out", f.serve ? "" : f.out}};
  if (f.serve) outputs.push_back({"--labels-out", f.labels});
  if (Status s = fs::CheckOutputsDistinct({{"RESULTS", f.options.results}}, outputs); !s.ok()) {
    PrintError("tala review", s);
    return 2;
  }
  auto queue = PickForReview(f.options);
  if (!queue) {
    const Status& s = queue.error();
    PrintError("tala review", s);
    return ExitCodeFor(s);
  }
  if (!f.assign.empty()) {
    if (f.serve) {
      PrintError("tala review", InvalidArgument("--assign writes a page per reviewer; serve each "
                                                "reviewer's own pick instead of --serve"));
      return 2;
    }
    for (const std::string& name : f.assign) {
      if (name.find_first_of("/\\") != std::string::npos) {
        PrintError("tala review", InvalidArgument("--assign: \"" + name +
                                                  "\" names a path; give reviewers' names"));
        return 2;
      }
    }
    auto pages = AssignReviewers(*queue, f.assign, f.overlap, f.options.seed);
    if (!pages) {
      PrintError("tala review", pages.error());
      return 2;
    }
    const auto shared = static_cast<long long>(
        std::llround(f.overlap * static_cast<double>(queue->rows_json.size())));
    for (const ReviewQueue& page : *pages) {
      const std::string path = PageFor(f.out, page.labeller);
      if (Status s = fs::WriteFileAtomically(path, RenderReviewPage(page)); !s.ok()) {
        PrintError("tala review", s);
        return 2;
      }
      std::fprintf(stderr, "tala review: %s: %zu rows into %s\n", page.labeller.c_str(),
                   page.rows_json.size(), path.c_str());
    }
    std::fprintf(stderr,
                 "%s, %lld of them for every reviewer; each exports labels.jsonl: join the files "
                 "(cat) and run tala calibrate --labels to see how often the reviewers agree\n",
                 Picked(*queue).c_str(), shared);
    PrintNotes(*queue);
    return 0;
  }
  if (f.serve) {
    PrintNotes(*queue);
    return Serve(f, *queue);
  }
  if (Status s = fs::WriteFileAtomically(f.out, RenderReviewPage(*queue)); !s.ok()) {
    PrintError("tala review", s);
    return 2;
  }
  std::fprintf(stderr,
               "%s into %s; open it in a browser, label with the keyboard, export labels.jsonl, "
               "then run tala estimate or tala calibrate --labels\n",
               Picked(*queue).c_str(), f.out.c_str());
  PrintNotes(*queue);
  return 0;
}
}  // namespace

void AddReviewCommand(CLI::App& app, int* exit_code) {
  auto f = std::make_shared<ReviewFlags>();
  CLI::App* cmd = app.add_subcommand(
      "review",
      "Pick rows of a results file for people to label and write one self-contained HTML page "
      "to label them in: the question, the answer split into the judge's claims with verdicts "
      "and evidence, the ranked chunks; keyboard-driven (y/n per row, s/u per claim, 1-5 for "
      "rubrics, a note), kept in the browser, exported as labels.jsonl with how the rows were "
      "picked (tala estimate needs a random or stratified pick). With --testset, the page "
      "reviews the candidates tala testset wrote instead.");
  ReviewOptions& o = f->options;
  cmd->add_option("RESULTS", o.results, "results file written by tala eval");
  cmd->add_option("--testset", f->testset,
                  "review a golden set's candidates (the file tala testset wrote) instead: "
                  "accept, edit, unanswerable, reject or needs-expert each, exported for tala "
                  "testset accept");
  cmd->add_option("--out,-o", f->out, "the page to write")->capture_default_str();
  cmd->add_option("--assign", f->assign,
                  "reviewers (ana,ben,...): a page each (review-ana.html, ...), the picked rows "
                  "split between them with --overlap of them for everyone, each page with its "
                  "reviewer's name filled in")
      ->delimiter(',');
  cmd->add_option("--overlap", f->overlap,
                  "with --assign: the share of the picked rows every reviewer labels (their "
                  "agreement, in tala calibrate --labels, is read from these)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--n", o.n, "rows to pick")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--pick", o.pick,
                  "random (uniform), stratified (uniform within score bins, every range shown), "
                  "low (worst first), uncertain (nearest --threshold first) or active (rows "
                  "stratified by the judge's value, each stratum given a known number of labels, "
                  "more where the judge is least sure: tala estimate reads the judge's error "
                  "stratum by stratum and needs fewer labels for the same interval)")
      ->capture_default_str();
  cmd->add_option("--metric", o.metric, "the metric people label")->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the random picks (recorded in the labels)")
      ->capture_default_str();
  cmd->add_option("--threshold", o.threshold, "the decision threshold --pick uncertain is near")
      ->capture_default_str();
  cmd->add_option("--target-width", o.target_width,
                  "say how many labels (random and active picks) tala estimate needs for an "
                  "interval this wide")
      ->check(CLI::Range(0.0, 2.0));
  cmd->add_flag("--serve", f->serve,
                "serve the page from 127.0.0.1 instead of writing it, and save every change to "
                "--labels-out directly");
  cmd->add_option("--port", f->port, "with --serve: the port (0: any free one)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--labels-out", f->labels, "with --serve: the labels file written")
      ->capture_default_str();
  cmd->callback([f, exit_code] { *exit_code = RunReview(*f); });
}

}  // namespace tala::cli
