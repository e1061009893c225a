// tala review RESULTS --out queue.html: rows for people to label, in one self-contained page.

#include <httplib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "io/readers/labels_reader.h"
#include "tala/review.h"

namespace tala::cli {

namespace {
struct ReviewFlags {
  ReviewOptions options;
  std::string out = "review.html";
  bool serve = false;
  std::string host = "127.0.0.1";
  int port = 8178;
  std::string labels = "labels.jsonl";
};

// --serve: the page from 127.0.0.1, and every change the page POSTs to /labels checked as
// `tala calibrate` would read it and written to the labels file (beside, then renamed: a crash
// leaves the old file or the new one).
int Serve(const ReviewFlags& f, const ReviewQueue& queue) {
  httplib::Server server;
  const std::string page = RenderReviewPage(queue, /*served=*/true);
  server.Get("/", [&page](const httplib::Request&, httplib::Response& res) {
    res.set_content(page, "text/html; charset=utf-8");
  });
  server.Post("/labels", [&f](const httplib::Request& req, httplib::Response& res) {
    std::string tmp = f.labels + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << req.body;
      out.close();
      if (!out) {
        res.status = 500;
        res.set_content("cannot write " + tmp, "text/plain");
        return;
      }
    }
    auto labels = io::ReadLabels(tmp);
    if (!labels) {
      std::filesystem::remove(tmp);
      res.status = 400;
      res.set_content(labels.error().message() + " (field " + labels.error().where().field + ")",
                      "text/plain");
      return;
    }
    std::error_code ec;
    std::filesystem::rename(tmp, f.labels, ec);
    if (ec) {
      res.status = 500;
      res.set_content("cannot write " + f.labels, "text/plain");
      return;
    }
    res.set_content(std::to_string(labels->rows.size()) + " rows saved", "text/plain");
  });
  int port = f.port == 0 ? server.bind_to_any_port(f.host) : f.port;
  if (f.port != 0 && !server.bind_to_port(f.host, f.port)) port = -1;
  if (port <= 0) {
    std::fprintf(stderr, "tala review: cannot listen on %s:%d\n", f.host.c_str(), f.port);
    return 2;
  }
  std::fprintf(stderr,
               "tala review: label at http://%s:%d/ (every change is saved to %s); Ctrl-C to "
               "stop\n",
               f.host.c_str(), port, f.labels.c_str());
  std::fflush(stderr);
  return server.listen_after_bind() ? 0 : 2;
}

int RunReview(const ReviewFlags& f) {
  auto queue = PickForReview(f.options);
  if (!queue) {
    const Status& s = queue.error();
    PrintError("tala review", s);
    return ExitCodeFor(s);
  }
  if (f.serve) return Serve(f, *queue);
  std::ofstream out(f.out, std::ios::binary | std::ios::trunc);
  out << RenderReviewPage(*queue);
  out.close();
  if (!out) {
    std::fprintf(stderr, "tala review: cannot write %s\n", f.out.c_str());
    return 2;
  }
  std::fprintf(stderr,
               "tala review: %zu of %lld rows with %s picked (%s, seed %llu) into %s; open it in a "
               "browser, label with the keyboard, export labels.jsonl, then run tala estimate or "
               "tala calibrate --labels\n",
               queue->rows_json.size(), static_cast<long long>(queue->population),
               queue->metric.c_str(), queue->pick.c_str(),
               static_cast<unsigned long long>(queue->seed), f.out.c_str());
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
      "picked (tala estimate needs a random or stratified pick).");
  ReviewOptions& o = f->options;
  cmd->add_option("RESULTS", o.results, "results file written by tala eval")->required();
  cmd->add_option("--out,-o", f->out, "the page to write")->capture_default_str();
  cmd->add_option("--n", o.n, "rows to pick")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--pick", o.pick,
                  "random (uniform), stratified (uniform within score bins, every range shown), "
                  "low (worst first) or uncertain (nearest --threshold first)")
      ->capture_default_str();
  cmd->add_option("--metric", o.metric, "the metric people label")->capture_default_str();
  cmd->add_option("--seed", o.seed, "seed of the random picks (recorded in the labels)")
      ->capture_default_str();
  cmd->add_option("--threshold", o.threshold, "the decision threshold --pick uncertain is near")
      ->capture_default_str();
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
