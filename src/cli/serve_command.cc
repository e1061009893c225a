// tala serve --db FILE: score a sample of production traffic (include/tala/serve.h) behind HTTP:
// POST /v1/interactions, GET /v1/summary, GET /metrics, GET /healthz, and the run history
// (/v1/history/runs, /trend, /page, /prune) kept in the same database.

#include <httplib.h>
#include <simdjson.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "cli/commands.h"
#include "cli/http_guard.h"
#include "cli/serve_config.h"
#include "history/history_json.h"
#include "history/local_store.h"
#include "io/writers/json_text.h"
#include "serve/otlp.h"
#include "tala/align.h"
#include "tala/history.h"
#include "tala/serve.h"

namespace tala::cli {

namespace {

struct ServeFlags {
  ServeOptions options;
  std::string host = "127.0.0.1";
  int port = 8177;
  size_t max_body_bytes = 32u << 20;
  std::string token;
  std::string config;  // read by main before the flags; named here so that it parses
  std::vector<std::string> sample_tags;    // KEY=VALUE=SHARE
  std::vector<std::string> allowed_hosts;  // Host names besides the machine's own ('*': any)
  std::string judge_profile;               // tala align's thresholds
};

double Now();

// Alerts that changed state are logged; those with a webhook are POSTed, on the alert thread
// (never the scorer's), until one answers 2xx: each attempt is recorded, and a failed one is
// retried after the backoff Service::RecordAlertAttempt sets (the event stays undelivered in the
// database meanwhile, across restarts too).
void CheckAndDeliverAlerts(Service& service, double now) {
  auto changed = service.CheckAlerts(now);
  if (!changed) {
    std::fprintf(stderr, "tala serve: alerts: %s\n", changed.error().ToString().c_str());
    return;
  }
  for (const AlertEvent& e : *changed) {
    if (e.n == 0) {
      std::fprintf(stderr, "tala serve: alert %s: %s (no rows in the window)\n", e.event.c_str(),
                   e.rule.c_str());
      continue;
    }
    std::fprintf(stderr, "tala serve: alert %s: %s (mean %.4f over %lld rows)\n", e.event.c_str(),
                 e.rule.c_str(), e.mean, static_cast<long long>(e.n));
  }
  auto due = service.UndeliveredAlerts(now);
  if (!due) return;
  for (const AlertEvent& e : *due) {
    // scheme://host:port, then the path.
    size_t slash = e.webhook.find('/', e.webhook.find("://") + 3);
    std::string base = e.webhook.substr(0, slash);
    std::string path = slash == std::string::npos ? "/" : e.webhook.substr(slash);
    httplib::Client client(base);
    client.set_connection_timeout(2);
    client.set_read_timeout(5);
    auto res = client.Post(path, e.Payload(), "application/json");
    int status = res ? res->status : 0;
    std::string error = res ? (status / 100 == 2 ? "" : "HTTP " + std::to_string(status))
                            : httplib::to_string(res.error());
    if (!error.empty()) {
      std::fprintf(stderr,
                   "tala serve: webhook %s did not take the %s event (%s); retrying later\n",
                   base.c_str(), e.event.c_str(), error.c_str());
    }
    (void)service.RecordAlertAttempt(e.id, Now(), status, error);
  }
}

// Set by SIGTERM/SIGINT; the scoring thread sees it and stops the server (nothing but this
// flag is touched in the handler).
std::atomic<bool> g_stopping{false};
extern "C" void OnStopSignal(int) { g_stopping = true; }

double Now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void Error(httplib::Response& res, int code, const Status& s) {
  std::string body = "{\"error\":";
  io::AppendJsonString(body, s.ToString());
  if (s.where().line > 0) body += ",\"line\":" + std::to_string(s.where().line);
  if (!s.where().field.empty()) {
    body += ",\"field\":";
    io::AppendJsonString(body, s.where().field);
  }
  body += "}";
  res.status = code;
  res.set_content(body, "application/json");
}

// The values of query parameter `name` as sent, each split on the first '=' only and
// percent-decoded (so ?tag=route=faq means the tag route=faq).
std::vector<std::string> QueryParams(const httplib::Request& req, const std::string& name) {
  std::vector<std::string> out;
  size_t q = req.target.find('?');
  if (q == std::string::npos) return out;
  std::string query = req.target.substr(q + 1);
  size_t at = 0;
  while (at <= query.size()) {
    size_t amp = query.find('&', at);
    std::string item = query.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
    size_t eq = item.find('=');
    if (eq != std::string::npos && item.compare(0, eq, name) == 0 && eq == name.size()) {
      out.push_back(httplib::detail::decode_url(item.substr(eq + 1), true));
    }
    if (amp == std::string::npos) break;
    at = amp + 1;
  }
  return out;
}

std::string QueryParam(const httplib::Request& req, const std::string& name) {
  auto all = QueryParams(req, name);
  return all.empty() ? "" : all.front();
}

int HttpCodeFor(const Status& s) {
  switch (s.code()) {
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kDataError:
      return 400;
    default:
      return 500;
  }
}

// The body of POST /v1/history/prune: {"keep": N, "older_than_days": D}, each a whole number of
// runs or a number of days, -1 for no limit (R6: sscanf took trailing text, nan and -7).
Result<HistoryPrune> ParsePrune(const std::string& body) {
  const Status wrong = InvalidArgument(
      "the body: expected {\"keep\": N, \"older_than_days\": D}, each -1 (no limit) or more");
  simdjson::dom::parser parser;
  simdjson::dom::object object;
  if (parser.parse(body).get_object().get(object)) return wrong;
  HistoryPrune prune;
  int seen = 0;
  for (auto [key, value] : object) {
    if (key == "keep") {
      int64_t keep = 0;
      if (value.get_int64().get(keep) || keep < -1) return wrong;
      prune.keep = keep;
    } else if (key == "older_than_days") {
      double days = 0;
      if (value.get_double().get(days) || !std::isfinite(days) || (days < 0 && days != -1)) {
        return wrong;
      }
      prune.older_than_days = days;
    } else {
      return InvalidArgument("the body: unknown field \"" + std::string(key) + "\"");
    }
    ++seen;
  }
  if (seen != 2) return wrong;
  return prune;
}

// The run history kept in the serve's database (include/tala/history.h): tala history and tala
// ci's [history] reach it here; one request at a time, as a History is used from one thread.
void HistoryRoutes(httplib::Server& server, Service& service, const std::string& db,
                   size_t max_body_bytes) {
  struct Store {
    std::mutex mu;
    std::unique_ptr<history::LocalHistory> history;
    std::string db;
  };
  auto store = std::make_shared<Store>();
  store->db = db;
  auto open = [store]() -> Result<history::LocalHistory*> {
    if (!store->history) {
      TALA_ASSIGN_OR_RETURN(store->history, history::LocalHistory::OpenFile(store->db));
    }
    return store->history.get();
  };
  auto trend_options = [](const httplib::Request& req) -> Result<TrendOptions> {
    TrendOptions o;
    o.metric = QueryParam(req, "metric");
    std::string min_effect = QueryParam(req, "min_effect");
    if (!min_effect.empty()) {
      char* end = nullptr;
      o.min_effect = std::strtod(min_effect.c_str(), &end);
      if (end == min_effect.c_str() || *end != '\0' || !std::isfinite(o.min_effect) ||
          o.min_effect < 0) {
        return InvalidArgument("min_effect: expected a number >= 0");
      }
    }
    for (const std::string& tag : QueryParams(req, "tag")) {
      TALA_ASSIGN_OR_RETURN(auto kv, ParseHistoryTag(tag));
      o.tags.push_back(std::move(kv));
    }
    return o;
  };
  PostWithBody(
      server, "/v1/history/runs", max_body_bytes,
      [store, open](const httplib::Request&, const std::string& body, httplib::Response& res) {
        auto capture = history::ParseCaptureJson(body, "the request body");
        if (!capture) return Error(res, 400, capture.error());
        std::lock_guard<std::mutex> lock(store->mu);
        auto h = open();
        if (!h) return Error(res, 500, h.error());
        auto added = (*h)->AddCapture(std::move(*capture));
        if (!added) return Error(res, HttpCodeFor(added.error()), added.error());
        std::string answer =
            std::string("{\"added\":") + (added->added ? "true" : "false") + ",\"run\":";
        history::AppendRunJson(answer, added->run);
        res.status = added->added ? 201 : 200;
        res.set_content(answer + "}", "application/json");
      });
  server.Get("/v1/history/runs",
             [store, open, trend_options](const httplib::Request& req, httplib::Response& res) {
               auto o = trend_options(req);
               if (!o) return Error(res, 400, o.error());
               std::lock_guard<std::mutex> lock(store->mu);
               auto h = open();
               if (!h) return Error(res, 500, h.error());
               auto runs = (*h)->Runs(o->tags);
               if (!runs) return Error(res, HttpCodeFor(runs.error()), runs.error());
               res.set_content(RunsJson(*runs), "application/json");
             });
  server.Get("/v1/history/trend",
             [store, open, trend_options](const httplib::Request& req, httplib::Response& res) {
               auto o = trend_options(req);
               if (!o) return Error(res, 400, o.error());
               if (o->metric.empty()) return Error(res, 400, InvalidArgument("metric: name one"));
               std::lock_guard<std::mutex> lock(store->mu);
               auto h = open();
               if (!h) return Error(res, 500, h.error());
               auto trend = (*h)->TrendOf(*o);
               if (!trend) return Error(res, HttpCodeFor(trend.error()), trend.error());
               res.set_content(TrendJson(*trend), "application/json");
             });
  server.Get("/v1/history/page",
             [store, &service, trend_options](const httplib::Request& req, httplib::Response& res) {
               auto o = trend_options(req);
               if (!o) return Error(res, 400, o.error());
               std::lock_guard<std::mutex> lock(store->mu);
               auto page = service.HistoryPageHtml(*o);
               if (!page) return Error(res, HttpCodeFor(page.error()), page.error());
               res.set_content(*page, "text/html; charset=utf-8");
             });
  PostWithBody(
      server, "/v1/history/prune", max_body_bytes,
      [store, open](const httplib::Request&, const std::string& body, httplib::Response& res) {
        auto prune = ParsePrune(body);
        if (!prune) return Error(res, 400, prune.error());
        std::lock_guard<std::mutex> lock(store->mu);
        auto h = open();
        if (!h) return Error(res, 500, h.error());
        auto removed = (*h)->Prune(*prune);
        if (!removed) return Error(res, HttpCodeFor(removed.error()), removed.error());
        res.set_content("{\"removed\":" + std::to_string(*removed) + "}", "application/json");
      });
}

// The routes /metrics reports requests by; any other path counts as "other", so a scan of
// made-up paths cannot grow the series without bound.
std::string RouteOf(const std::string& path) {
  static const char* kRoutes[] = {"/",
                                  "/healthz",
                                  "/metrics",
                                  "/v1/interactions",
                                  "/v1/traces",
                                  "/v1/summary",
                                  "/v1/rows",
                                  "/v1/alerts",
                                  "/v1/gaps",
                                  "/v1/history/runs",
                                  "/v1/history/trend",
                                  "/v1/history/page",
                                  "/v1/history/prune"};
  for (const char* r : kRoutes) {
    if (path == r) return r;
  }
  return "other";
}

// When the request now being handled on this thread began (httplib routes and logs a request on
// the thread that read it).
thread_local std::chrono::steady_clock::time_point t_request_start;

void Routes(httplib::Server& server, Service& service, const ServeFlags& f, int port) {
  server.set_logger([&service](const httplib::Request& req, const httplib::Response& res) {
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_request_start).count();
    service.RecordHttp(RouteOf(req.path), res.status, seconds);
  });
  // Host, Origin and form checks first (cli/http_guard.h); then everything but the liveness
  // probe needs the bearer token when one is set.
  server.set_pre_routing_handler([&f, names = NamesOfServer(f.host, port, f.allowed_hosts)](
                                     const httplib::Request& req, httplib::Response& res) {
    t_request_start = std::chrono::steady_clock::now();
    if (RefuseForeignRequest(req, res, names)) {
      return httplib::Server::HandlerResponse::Handled;
    }
    if (f.token.empty() || req.path == "/healthz")
      return httplib::Server::HandlerResponse::Unhandled;
    if (req.get_header_value("Authorization") == "Bearer " + f.token) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    Error(res, 401, InvalidArgument("missing or wrong bearer token"));
    return httplib::Server::HandlerResponse::Handled;
  });
  // A handler that throws answers a plain 500: the exception's text stays in the log, never in
  // a reply header.
  server.set_exception_handler(
      [](const httplib::Request& req, httplib::Response& res, std::exception_ptr e) {
        try {
          if (e) std::rethrow_exception(e);
        } catch (const std::exception& ex) {
          std::fprintf(stderr, "tala serve: %s %s: %s\n", req.method.c_str(), req.path.c_str(),
                       ex.what());
        } catch (...) {
        }
        Error(res, 500, Internal("the request could not be handled; see the server log"));
      });
  server.Get("/", [&service](const httplib::Request&, httplib::Response& res) {
    auto page = service.DashboardHtml(Now());
    if (!page) return Error(res, 500, page.error());
    res.set_content(*page, "text/html; charset=utf-8");
  });
  // httplib answers an over-long body itself; the reply says why.
  server.set_error_handler([&f](const httplib::Request&, httplib::Response& res) {
    if (res.status == 413 && res.body.empty()) {
      Error(
          res, 413,
          InvalidArgument("the body is over --max-body-bytes (" + std::to_string(f.max_body_bytes) +
                          " bytes); send fewer rows a request"));
    }
  });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain");
  });
  auto ingest = [&service](const httplib::Request& req, const std::string& request_body,
                           httplib::Response& res, bool traces) {
    // OTLP's two encodings: protobuf is the Collector's and most SDKs' default; the answer goes
    // back in the request's encoding.
    const bool protobuf =
        traces && req.get_header_value("Content-Type").rfind("application/x-protobuf", 0) == 0;
    auto answer = traces ? service.IngestTraces(request_body, Now(), protobuf)
                         : service.Ingest(request_body, Now());
    if (!answer) {
      const Status& s = answer.error();
      if (s.code() == ErrorCode::kUnavailable) {
        res.set_header("Retry-After", "5");
        Error(res, 503, s);
      } else {
        Error(res,
              s.code() == ErrorCode::kInvalidArgument ? 413
              : s.code() == ErrorCode::kIoError       ? 500
                                                      : 400,
              s);
      }
      return;
    }
    std::string body = "{\"accepted\":" + std::to_string(answer->accepted) +
                       ",\"duplicates\":" + std::to_string(answer->duplicates) +
                       ",\"conflicts\":" + std::to_string(answer->conflicts) +
                       ",\"sampled\":" + std::to_string(answer->sampled) +
                       ",\"turns_held\":" + std::to_string(answer->turns_held) +
                       ",\"skipped\":" + std::to_string(answer->skipped) + ",\"ids\":[";
    for (size_t i = 0; i < answer->ids.size(); ++i) {
      if (i) body += ',';
      io::AppendJsonString(body, answer->ids[i]);
    }
    body += "]";
    if (answer->conflicts > 0) {
      std::string ids;
      for (const std::string& id : answer->conflict_ids) ids += (ids.empty() ? "" : ", ") + id;
      std::fprintf(stderr,
                   "tala serve: %lld rows reused an id already stored with other content (%s); "
                   "the first was kept: give each interaction an id of its own\n",
                   static_cast<long long>(answer->conflicts), ids.c_str());
    }
    if (protobuf) {
      res.status = 200;
      res.set_content(serve::OtlpProtobufAnswer(answer->skipped, answer->why_skipped),
                      "application/x-protobuf");
      return;
    }
    if (traces && answer->skipped > 0) {
      // OTLP's partial success: the exporter is told which spans were refused, and does not
      // retry them.
      body += ",\"partialSuccess\":{\"rejectedSpans\":" + std::to_string(answer->skipped) +
              ",\"errorMessage\":";
      io::AppendJsonString(body, answer->why_skipped);
      body += "}";
    }
    // OTLP exporters expect 200; the interactions API answers 202 (accepted, scored later).
    res.status = traces ? 200 : 202;
    res.set_content(body + "}", "application/json");
  };
  PostWithBody(server, "/v1/interactions", f.max_body_bytes,
               [ingest](const httplib::Request& req, const std::string& body,
                        httplib::Response& res) { ingest(req, body, res, false); });
  PostWithBody(server, "/v1/traces", f.max_body_bytes,
               [ingest](const httplib::Request& req, const std::string& body,
                        httplib::Response& res) { ingest(req, body, res, true); });
  // People's labels of stored rows, as tala review exports them: each window's summary then
  // shows each metric's mean corrected by them.
  PostWithBody(
      server, "/v1/labels", f.max_body_bytes,
      [&service](const httplib::Request&, const std::string& body, httplib::Response& res) {
        auto added = service.AddLabels(body, Now());
        if (!added) {
          return Error(res, added.error().code() == ErrorCode::kIoError ? 500 : 400, added.error());
        }
        res.status = 200;
        res.set_content("{\"stored\":" + std::to_string(added->stored) +
                            ",\"unknown_ids\":" + std::to_string(added->unknown_ids) + "}",
                        "application/json");
      });
  server.Get("/v1/summary", [&service](const httplib::Request& req, httplib::Response& res) {
    std::string window = req.has_param("window") ? req.get_param_value("window") : "7d";
    std::string tag = QueryParam(req, "tag");
    auto json = service.SummaryJson(window, tag, Now());
    if (!json) return Error(res, 400, json.error());
    res.set_content(*json, "application/json");
  });
  // Scored rows as results lines (JSON Lines): ?since=ISO|epoch&metric=M&max_score=S&limit=N.
  server.Get("/v1/rows", [&service](const httplib::Request& req, httplib::Response& res) {
    RowQuery q;
    std::string since = req.has_param("since") ? req.get_param_value("since") : "";
    if (!since.empty()) {
      char* end = nullptr;
      double seconds = std::strtod(since.c_str(), &end);
      auto iso = ParseTimestamp(since);
      if (end != nullptr && *end == '\0') {
        q.since = seconds;
      } else if (iso) {
        q.since = *iso;
      } else {
        return Error(res, 400, iso.error());
      }
    }
    q.metric = req.has_param("metric") ? req.get_param_value("metric") : "";
    try {
      if (req.has_param("max_score")) q.max_score = std::stod(req.get_param_value("max_score"));
      if (req.has_param("limit")) q.limit = std::stoll(req.get_param_value("limit"));
    } catch (...) {
      return Error(res, 400, InvalidArgument("max_score and limit take numbers"));
    }
    auto rows = service.Rows(q);
    if (!rows) return Error(res, 400, rows.error());
    std::string body;
    for (const StoredRow& r : *rows) body += r.result + "\n";
    res.set_content(body, "application/x-ndjson");
  });
  // What the documents lack: ?window=7d&limit=10000 (the newest rows of the window).
  server.Get("/v1/gaps", [&service](const httplib::Request& req, httplib::Response& res) {
    std::string window = req.has_param("window") ? req.get_param_value("window") : "7d";
    int64_t limit = 10000;
    if (req.has_param("limit")) {
      const std::string text = req.get_param_value("limit");
      char* end = nullptr;
      errno = 0;
      limit = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || end == nullptr || *end != '\0' || errno == ERANGE) {
        return Error(res, 400,
                     InvalidArgument("limit \"" + text + "\": expected a whole number of rows"));
      }
    }
    auto json = service.GapsJson(window, limit, Now());
    if (!json)
      return Error(res, json.error().code() == ErrorCode::kInvalidArgument ? 400 : 500,
                   json.error());
    res.set_content(*json, "application/json");
  });
  server.Get("/v1/alerts", [&service](const httplib::Request&, httplib::Response& res) {
    auto json = service.AlertsJson();
    if (!json) return Error(res, 500, json.error());
    res.set_content(*json, "application/json");
  });
  HistoryRoutes(server, service, f.options.db, f.max_body_bytes);
  server.Get("/metrics", [&service](const httplib::Request&, httplib::Response& res) {
    auto text = service.PrometheusText(Now());
    if (!text) return Error(res, 500, text.error());
    res.set_content(*text, "text/plain; version=0.0.4");
  });
}

int RunServe(ServeFlags& f) {
  for (const std::string& item : f.sample_tags) {
    size_t last = item.rfind('=');
    double share = -1;
    try {
      if (last != std::string::npos) share = std::stod(item.substr(last + 1));
    } catch (...) {
    }
    if (last == std::string::npos || item.find('=') == last || share < 0 || share > 1) {
      PrintError("tala serve", InvalidArgument("--sample-tag " + item +
                                               ": expected KEY=VALUE=SHARE, such as "
                                               "route=checkout=0.5"));
      return 2;
    }
    f.options.sample_by_tag.emplace_back(item.substr(0, last), share);
  }
  if (!f.judge_profile.empty()) {
    auto digest = ApplyJudgeProfile(f.judge_profile, f.options.diagnosis_thresholds,
                                    &f.options.llm.labelled_examples, &f.options.offline_blend);
    if (!digest) {
      PrintError("tala serve", digest.error());
      return 2;
    }
  }
  if (f.token.empty()) {
    if (const char* env = std::getenv("TALA_SERVE_TOKEN")) f.token = env;
  }
  if (!IsLoopback(f.host) && f.token.empty()) {
    PrintError("tala serve", InvalidArgument("binding " + f.host +
                                             " needs --token (or TALA_SERVE_TOKEN): every "
                                             "request but /healthz must then carry it"));
    return 2;
  }
  g_stopping = false;
  f.options.stop = &g_stopping;
  auto service = Service::Open(f.options);
  if (!service) {
    PrintError("tala serve", service.error());
    return ExitCodeFor(service.error());
  }
  for (const std::string& w : (*service)->warnings()) {
    std::fprintf(stderr, "tala serve: warning: %s\n", w.c_str());
  }
  httplib::Server server;
  PrepareServer(server, f.max_body_bytes);
  int port = f.port == 0 ? server.bind_to_any_port(f.host) : f.port;
  if (f.port != 0 && !server.bind_to_port(f.host, f.port)) port = -1;
  if (port <= 0) {
    std::fprintf(stderr, "tala serve: cannot listen on %s:%d\n", f.host.c_str(), f.port);
    return 2;
  }
  Routes(server, **service, f, port);
  // SIGTERM stops the listener at once (a watcher, since only a flag is set in the handler),
  // whatever the scorer is waiting on; the scorer's judge calls are cancelled by the same flag.
  // The stop is repeated until the listener has returned: one asked for before the listener has
  // started has no effect, and a SIGTERM just after the address is printed left the server
  // listening for ever (seen under the sanitizers, ServeRound4Test).
  std::atomic<bool> served{false};
  std::thread watcher([&server, &served] {
    while (!served) {
      if (g_stopping) server.stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  // Scoring runs beside the server; rows left pending by a crash are scored first.
  // Alerts on a thread of their own, every half second as rows age out of the windows: a webhook
  // that hangs or fails never slows scoring.
  std::thread alerter([&service] {
    while (!g_stopping) {
      CheckAndDeliverAlerts(**service, Now());
      for (int i = 0; i < 25 && !g_stopping; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  });
  // Buffered OTLP traces become rows once whole (--trace-linger), on a thread of their own so
  // that a long scoring pass never holds them back.
  std::thread tracer([&service] {
    while (!g_stopping) {
      auto closed = (*service)->FlushTraces(Now());
      if (!closed) {
        std::fprintf(stderr, "tala serve: traces: %s\n", closed.error().ToString().c_str());
      }
      // Conversations gone quiet become rows (after the traces, whose turns they may take).
      auto conversations = (*service)->FlushSessions(Now());
      if (!conversations) {
        std::fprintf(stderr, "tala serve: conversations: %s\n",
                     conversations.error().ToString().c_str());
      }
      if ((!closed || *closed == 0) && (!conversations || *conversations == 0)) {
        for (int i = 0; i < 10 && !g_stopping; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
      }
    }
  });
  std::thread scorer([&service] {
    double pruned = 0;
    std::string last_error;
    double last_logged = 0;
    while (!g_stopping) {
      auto n = (*service)->ScorePending(64);
      if (!n && n.error().code() != ErrorCode::kCancelled) {
        // A lasting fault (a full disk) is logged when it changes, or once a minute.
        std::string text = n.error().ToString();
        if (text != last_error || Now() - last_logged >= 60) {
          std::fprintf(stderr, "tala serve: scoring: %s\n", text.c_str());
          last_error = text;
          last_logged = Now();
        }
      } else if (n) {
        last_error.clear();
      }
      double now = Now();
      // Retention, a batch at a time between scoring passes, so ingest waits at most for one.
      if (now - pruned >= 10) {
        auto removed = (*service)->Prune(now);
        if (!removed) {
          std::fprintf(stderr, "tala serve: retention: %s\n", removed.error().ToString().c_str());
        }
        if (!removed || *removed == 0) pruned = now;
      }
      if (!n || *n == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto old_term = std::signal(SIGTERM, OnStopSignal);
  auto old_int = std::signal(SIGINT, OnStopSignal);
  std::printf("http://%s:%d\n", f.host.c_str(), port);
  std::fflush(stdout);
  std::fprintf(stderr,
               "tala serve: listening on http://%s:%d (%s, sample %.4g, %lld rows waiting)\n",
               f.host.c_str(), port, f.options.db.c_str(), f.options.sample,
               static_cast<long long>((*service)->pending()));
  bool ok = server.listen_after_bind();
  served = true;
  // SIGTERM: no new requests; rows scored are stored, the rest (judge calls in flight are
  // cancelled) wait in the database for the next start.
  g_stopping = true;
  watcher.join();
  scorer.join();
  alerter.join();
  tracer.join();
  std::signal(SIGTERM, old_term);
  std::signal(SIGINT, old_int);
  std::fprintf(stderr, "tala serve: stopped; %lld rows wait to be scored at the next start\n",
               static_cast<long long>((*service)->pending()));
  return ok ? 0 : 2;
}

}  // namespace

void AddServeCommand(CLI::App& app, int* exit_code, const ServeSettings& defaults) {
  auto f = std::make_shared<ServeFlags>();
  f->options = defaults.options;
  f->host = defaults.host;
  f->port = defaults.port;
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "Score a sample of production traffic: POST interactions (the dataset's JSON, one object "
      "or JSON Lines, with optional timestamp and tags) to /v1/interactions; each row is "
      "committed to the database before the 202 reply, a deterministic share is scored in the "
      "background, and GET /v1/summary?window=7d&tag=KEY=VALUE gives each metric's window "
      "mean, 95% interval and count; GET /metrics the same for Prometheus; GET /v1/alerts the "
      "alert rules of tala.toml's [[serve.alerts]] (fired once, cleared with hysteresis, "
      "POSTed to their webhook); GET /v1/gaps?window=7d the questions no document answers, "
      "grouped into intents, most asked first (also on the dashboard); GET /healthz. SIGTERM stops "
      "cleanly; rows not yet scored are "
      "scored after a restart. [serve] in tala.toml sets any flag.");
  cmd->add_option("--db", f->options.db, "SQLite database (created if missing)")
      ->capture_default_str();
  cmd->add_option("--port", f->port, "port (0: any free port, printed on stdout)")
      ->capture_default_str();
  cmd->add_option("--host", f->host, "address to bind; anything but loopback needs --token")
      ->capture_default_str();
  cmd->add_option("--token", f->token,
                  "bearer token every request but /healthz must carry (default: "
                  "$TALA_SERVE_TOKEN)");
  cmd->add_option("--allowed-hosts", f->allowed_hosts,
                  "Host names a request may use besides loopback, the bound address and (bound "
                  "beyond loopback) the machine's name and addresses: a service name or a proxy's "
                  "('*': any)")
      ->delimiter(',');
  cmd->add_option("--docs", f->options.docs,
                  "the documents the application answers from (a folder of .txt/.md/.html/.pdf, "
                  "or a JSON Lines file of chunks, as tala testset --docs): /v1/gaps and the "
                  "dashboard read production questions against them (default: against the "
                  "passages retrieved for each question, which cannot tell a missing document "
                  "from one the retriever never finds)");
  cmd->add_option("--judge-profile", f->judge_profile,
                  "a judge profile from tala align: diagnose rows with the thresholds fitted to "
                  "your people's labels");
  cmd->add_option("--metrics,-m", f->options.metrics, "metrics to score (reference-free ones)")
      ->capture_default_str();
  cmd->add_option("--judge,-j", f->options.judge,
                  "judge: offline, replay, openai:MODEL or anthropic:MODEL")
      ->capture_default_str();
  const char* g = "LLM judge";
  cmd->add_option("--base-url", f->options.llm.base_url,
                  "judge server URL (default: OPENAI_BASE_URL, else the provider's API)")
      ->envname("TALA_BASE_URL")
      ->group(g);
  cmd->add_option("--cache", f->options.llm.cache, "judge cache (SQLite file), or off")
      ->capture_default_str()
      ->group(g);
  cmd->add_option("--max-in-flight", f->options.llm.max_in_flight, "HTTP requests at once")
      ->capture_default_str()
      ->group(g);
  cmd->add_option("--rpm", f->options.llm.requests_per_minute,
                  "judge requests per minute (0: none): rows beyond it wait")
      ->capture_default_str()
      ->group(g);
  cmd->add_option("--max-cost-per-day", f->options.max_cost_per_day,
                  "USD of judge calls over the last 24 hours (0: none): past it, sampled rows "
                  "are skipped and counted (rows_skipped)")
      ->capture_default_str()
      ->group(g);
  cmd->add_option("--price-input", f->options.llm.price_input,
                  "USD per million prompt tokens (overrides the built-in price table)")
      ->group(g);
  cmd->add_option("--price-cached-input", f->options.llm.price_cached_input,
                  "USD per million prompt tokens the provider's prompt cache served")
      ->group(g);
  cmd->add_option("--price-cache-write", f->options.llm.price_cache_write,
                  "USD per million prompt tokens written to the provider's cache (Anthropic)")
      ->group(g);
  cmd->add_option("--price-output", f->options.llm.price_output,
                  "USD per million completion tokens")
      ->group(g);
  cmd->add_option("--sample", f->options.sample,
                  "share of rows scored, chosen by a hash of the id (the same row is always in "
                  "or out)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--sample-tag", f->sample_tags,
                  "a share for rows with a tag, KEY=VALUE=SHARE (repeatable), e.g. "
                  "route=checkout=0.5; the first that matches a row wins");
  cmd->add_option("--max-body-bytes", f->max_body_bytes,
                  "larger request bodies get 413, counted once unpacked (gzip, br)")
      ->capture_default_str();
  cmd->add_option("--max-rows-per-request", f->options.max_rows_per_request,
                  "more rows in one request get 413")
      ->capture_default_str();
  cmd->add_option("--max-pending", f->options.max_pending,
                  "sampled rows waiting to be scored; past it the oldest are skipped and counted "
                  "(ingest never refuses rows for a backlog)")
      ->capture_default_str();
  cmd->add_option("--trace-linger", f->options.trace_linger,
                  "OTLP: seconds a trace waits, after its root span has ended, for more of its "
                  "spans before it becomes a row (SDKs export a trace's spans in several "
                  "requests)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--trace-timeout", f->options.trace_timeout,
                  "OTLP: seconds after its last span that a trace whose root span never came "
                  "becomes a row anyway")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-open-traces", f->options.max_open_traces,
                  "OTLP: traces that may wait at once; spans of more are refused and told in "
                  "partialSuccess")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--session-quiet", f->options.session_quiet,
                  "conversations: seconds without a new turn after which a conversation's turns "
                  "(rows with a conversation_id; traces with session.id or "
                  "gen_ai.conversation.id) become one conversation row and are scored")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--retain-days", f->options.retain_days,
                  "delete rows (and their scores) stamped more than D days ago, in the "
                  "background; the windows' aggregates are kept (0: keep every row)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-db-bytes", f->options.max_db_bytes,
                  "past this many bytes of live pages, delete the oldest rows (0: no limit)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--tag-key", f->options.tag_keys,
                  "a tag to break /metrics and the windows down by, such as route (repeatable; "
                  "[serve] tag_keys)");
  cmd->add_option("--max-tag-values", f->options.max_tag_values,
                  "values kept per --tag-key; rows with more are counted as capped")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--config", f->config,
                  "config file with [serve] and [[serve.alerts]] (default: $TALA_CONFIG, else "
                  "./tala.toml when present)");
  cmd->callback([f, exit_code] { *exit_code = RunServe(*f); });
}

}  // namespace tala::cli
