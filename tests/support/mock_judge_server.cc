#include "support/mock_judge_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "core/hash.h"
#include "support/mock_questions.h"
#include "support/mock_text.h"

namespace tala::testing {

namespace {

using nlohmann::json;

// --- Reading tala's prompts -------------------------------------------------------------------

struct Request {
  std::vector<std::string> fields;  // "supported_by", "correct"
  int questions = 0;
  std::string question, answer, reference;
  std::vector<std::pair<int, std::string>> chunks;  // number, text
};

std::string StringAt(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// tala's user message is one JSON object (see judges/llm/row_calls.cc); anything else is read as
// an empty request, as a confused model would.
Request ParseRequest(const std::string& user) {
  Request r;
  json j = json::parse(user, nullptr, false);
  if (!j.is_object()) return r;
  for (const json& f : j.value("fields", json::array())) {
    if (f.is_string()) r.fields.push_back(f.get<std::string>());
  }
  if (auto it = j.find("questions_wanted"); it != j.end() && it->is_number_integer()) {
    r.questions = it->get<int>();
  }
  r.question = StringAt(j, "question");
  r.answer = StringAt(j, "answer");
  r.reference = StringAt(j, "reference");
  for (const json& c : j.value("contexts", json::array())) {
    if (!c.is_object()) continue;
    r.chunks.emplace_back(c.value("n", 0), StringAt(c, "text"));
  }
  return r;
}

bool Wants(const Request& r, const char* field) {
  for (const std::string& f : r.fields) {
    if (f == field) return true;
  }
  return false;
}

json ResponseClaims(const Request& r) {
  json claims = json::array();
  for (const std::string& s : Sentences(r.answer)) {
    json c = {{"claim", s}, {"reason", ""}};
    if (Wants(r, "supported_by")) {
      json by = json::array();
      for (const auto& [n, text] : r.chunks) {
        if (Coverage(s, text) >= 0.5) by.push_back(n);
      }
      c["supported_by"] = by;
    }
    if (Wants(r, "correct")) c["correct"] = Coverage(s, r.reference) >= 0.5;
    claims.push_back(c);
  }
  return {{"claims", claims}};
}

json ReferenceClaims(const Request& r) {
  std::string context;
  for (const auto& [n, text] : r.chunks) context += text + " ";
  json claims = json::array();
  for (const std::string& s : Sentences(r.reference)) {
    json c = {{"claim", s}, {"reason", ""}};
    if (Wants(r, "attributed")) c["attributed"] = Coverage(s, context) >= 0.5;
    if (Wants(r, "in_response")) c["in_response"] = Coverage(s, r.answer) >= 0.5;
    claims.push_back(c);
  }
  return {{"claims", claims}};
}

json RateChunks(const Request& r) {
  json chunks = json::array();
  for (const auto& [n, text] : r.chunks) {
    json c = {{"chunk", n}};
    if (Wants(r, "for_reference")) c["for_reference"] = Coverage(r.reference, text) >= 0.3;
    if (Wants(r, "for_response")) c["for_response"] = Coverage(r.answer, text) >= 0.3;
    chunks.push_back(c);
  }
  return {{"chunks", chunks}};
}

json Questions(const Request& r) {
  json qs = json::array();
  std::vector<std::string> words;
  std::istringstream in(r.answer);
  for (std::string w; in >> w && words.size() < 8;) words.push_back(w);
  std::string gist;
  for (const auto& w : words) gist += (gist.empty() ? "" : " ") + w;
  for (int i = 0; i < r.questions; ++i) {
    static const char* kForms[] = {"What is known about ", "Which facts say ",
                                   "What does it mean that "};
    qs.push_back(std::string(kForms[i % 3]) + gist + "?");
  }
  bool evasive = r.answer.find("don't know") != std::string::npos ||
                 r.answer.find("not sure") != std::string::npos;
  return {{"questions", qs}, {"noncommittal", evasive}};
}

json Entities(const Request& r) {
  auto caps = [](const std::string& text) {
    json out = json::array();
    std::set<std::string> seen;
    std::istringstream in(text);
    for (std::string w; in >> w;) {
      while (!w.empty() && std::ispunct(static_cast<unsigned char>(w.back()))) w.pop_back();
      if (w.empty()) continue;
      if ((std::isupper(static_cast<unsigned char>(w[0])) ||
           std::isdigit(static_cast<unsigned char>(w[0]))) &&
          seen.insert(w).second) {
        out.push_back(w);
      }
    }
    return out;
  };
  std::string context;
  for (const auto& [n, text] : r.chunks) context += text + " ";
  return {{"reference_entities", caps(r.reference)}, {"context_entities", caps(context)}};
}

// The combined layout's request (row_verdicts): "fields" is an object naming each part to write
// and its verdicts. Each part is answered as its separate call would be.
std::optional<json> RowVerdicts(const std::string& user) {
  json j = json::parse(user, nullptr, false);
  if (!j.is_object() || !j.contains("fields") || !j["fields"].is_object()) return std::nullopt;
  Request r = ParseRequest(user);
  json reply = json::object();
  auto with_fields = [&](const char* part) {
    Request asked = r;
    asked.fields.clear();
    for (const json& f : j["fields"].value(part, json::array())) {
      if (f.is_string()) asked.fields.push_back(f.get<std::string>());
    }
    return asked;
  };
  if (j["fields"].contains("answer_claims")) {
    reply["answer_claims"] = ResponseClaims(with_fields("answer_claims"))["claims"];
  }
  if (j["fields"].contains("reference_claims")) {
    reply["reference_claims"] = ReferenceClaims(with_fields("reference_claims"))["claims"];
  }
  if (j["fields"].contains("chunks")) reply["chunks"] = RateChunks(with_fields("chunks"))["chunks"];
  return reply;
}

std::string TaskOf(const Request& r) {
  if (r.questions > 0) return "generate_questions";
  if (Wants(r, "supported_by") || Wants(r, "correct")) return "response_claims";
  if (Wants(r, "attributed") || Wants(r, "in_response")) return "reference_claims";
  if (Wants(r, "for_reference") || Wants(r, "for_response")) return "rate_chunks";
  return "extract_entities";
}

std::vector<double> Embed(const std::string& text) {
  std::vector<double> v(64, 0.0);
  for (const std::string& w : Words(text)) v[std::hash<std::string>{}(w) % 64] += 1.0;
  v[63] += 0.5;  // never all zeros
  return v;
}

int64_t Tokens(size_t chars) { return static_cast<int64_t>((chars + 3) / 4); }

}  // namespace

// The row-first layout's request: the row's data as a JSON object, then the task's instructions
// ending in a line that is the task's settings as a JSON object. Read as the one object the
// separate layout sends; nullopt when the parts are not of that shape.
std::optional<std::string> RowFirstRequest(const std::vector<std::string>& parts) {
  if (parts.size() < 2) return std::nullopt;
  nlohmann::json row = nlohmann::json::parse(parts.front(), nullptr, false);
  const std::string& task = parts.back();
  const size_t line = task.rfind('\n');
  nlohmann::json settings = nlohmann::json::parse(
      line == std::string::npos ? task : task.substr(line + 1), nullptr, false);
  if (!row.is_object() || !settings.is_object()) return std::nullopt;
  for (auto& [key, value] : settings.items()) row[key] = value;
  return row.dump();
}

// cpp-httplib (as Debian builds it) listens with a backlog of 5: a client that opens 64
// connections at once then loses SYNs and waits a second for each retransmit, which measures
// the kernel, not the judge. Listening again on the same socket raises the backlog (Linux).
void WidenListenBacklog(int port) {
  for (int fd = 3; fd < 1024; ++fd) {
    sockaddr_in addr{};
    socklen_t len = sizeof addr;
    int listening = 0;
    socklen_t optlen = sizeof listening;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        addr.sin_family != AF_INET || ntohs(addr.sin_port) != port) {
      continue;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) == 0 && listening) {
      listen(fd, 4096);
    }
  }
}

const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kNone:
      return "none";
    case Fault::kRateLimited:
      return "429";
    case Fault::kServerError:
      return "500";
    case Fault::kStall:
      return "stall";
    case Fault::kDrop:
      return "drop";
    case Fault::kMalformedBody:
      return "malformed-body";
    case Fault::kCutOff:
      return "cut-off";
    case Fault::kWrongArity:
      return "wrong-arity";
    case Fault::kProse:
      return "prose";
    case Fault::kUnauthorized:
      return "401";
    case Fault::kZeroVectors:
      return "zero-vectors";
    case Fault::kHugeUsage:
      return "huge-usage";
    case Fault::kMisquote:
      return "misquote";
  }
  return "?";
}

std::string MockAnswer(const std::string& system, const std::string& user, bool prefer_first) {
  if (auto q = MockQuestionAnswer(system, user, prefer_first)) return q->reply.dump();
  if (auto combined = RowVerdicts(user)) return combined->dump();
  Request r = ParseRequest(user);
  std::string task = TaskOf(r);
  json reply = task == "generate_questions" ? Questions(r)
               : task == "response_claims"  ? ResponseClaims(r)
               : task == "reference_claims" ? ReferenceClaims(r)
               : task == "rate_chunks"      ? RateChunks(r)
                                            : Entities(r);
  return reply.dump();
}

struct MockJudgeServer::Impl {
  MockJudgeOptions options;
  httplib::Server server;
  std::thread thread;
  mutable std::mutex mu;
  MockJudgeStats stats;                   // guarded by mu
  std::map<int64_t, Fault> script;        // guarded by mu
  Fault standing = Fault::kNone;          // guarded by mu
  std::mt19937_64 rng;                    // guarded by mu
  size_t next_kind = 0;                   // guarded by mu
  std::vector<RecordedRequest> requests;  // guarded by mu
  std::set<uint64_t> prompt_starts;       // guarded by mu: what the prompt cache holds

  explicit Impl(MockJudgeOptions o) : options(std::move(o)), rng(options.seed) {}

  Fault Decide(const std::string& task) {
    std::lock_guard<std::mutex> lock(mu);
    if (!options.arrival_log.empty()) LogArrival();
    int64_t n = ++stats.requests;
    ++stats.by_task[task];
    Fault f = standing;
    if (auto it = script.find(n); it != script.end()) {
      f = it->second;
    } else if (f == Fault::kNone && options.fault_rate > 0 && !options.fault_kinds.empty() &&
               std::uniform_real_distribution<double>(0, 1)(rng) < options.fault_rate) {
      f = options.fault_kinds[next_kind++ % options.fault_kinds.size()];
    }
    if (f != Fault::kNone) ++stats.faults[FaultName(f)];
    return f;
  }

  // REQUIRES: mu held.
  void LogArrival() {
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    if (std::FILE* f = std::fopen(options.arrival_log.c_str(), "a")) {
      std::fprintf(f, "%lld\n", static_cast<long long>(us));
      std::fclose(f);
    }
  }

  // `cache_read` and `cache_write`: of `prompt`, what the reply says the prompt cache served or
  // took.
  void CountTokens(int64_t prompt, int64_t completion, bool embedding, int64_t cache_read = 0,
                   int64_t cache_write = 0) {
    std::lock_guard<std::mutex> lock(mu);
    stats.prompt_tokens += prompt;
    stats.completion_tokens += completion;
    stats.cached_tokens += cache_read;
    stats.cache_write_tokens += cache_write;
    ++(embedding ? stats.embedding_requests : stats.chat_requests);
  }

  // Applies a transport-level fault; true when the response is complete.
  bool Transport(Fault f, httplib::Response& res) {
    switch (f) {
      case Fault::kRateLimited:
        res.status = 429;
        res.set_header("Retry-After", "1");
        res.set_header("retry-after-ms", std::to_string(options.retry_after_ms));
        res.set_content(R"({"error":{"message":"mock: rate limit reached","type":"requests"}})",
                        "application/json");
        return true;
      case Fault::kServerError:
        res.status = 500;
        res.set_content(R"({"error":{"message":"mock: internal error"}})", "application/json");
        return true;
      case Fault::kUnauthorized:
        res.status = 401;
        res.set_content(R"({"error":{"message":"mock: invalid api key"}})", "application/json");
        return true;
      case Fault::kMalformedBody:
        res.set_content(R"({"id":"x","choices":[{"message":{"content":"{\"cl)", "application/json");
        return true;
      case Fault::kDrop: {
        // Promise a long body, send a few bytes, then give up: the client sees the connection
        // close mid-reply.
        res.set_content_provider(4096, "application/json",
                                 [](size_t offset, size_t, httplib::DataSink& sink) {
                                   if (offset > 0) return false;
                                   sink.write("{\"choices\":", 11);
                                   return true;
                                 });
        return true;
      }
      default:
        return false;
    }
  }

  std::string ApplyContentFault(Fault f, const std::string& task, std::string content,
                                std::string* finish) {
    if (f == Fault::kCutOff) {
      *finish = "length";
      return content.substr(0, content.size() / 2);
    }
    if (f == Fault::kProse) return "I believe the answer is mostly right, with some caveats.";
    if (f == Fault::kMisquote && (task == "testset_question" || task == "testset_reference")) {
      // What a model does when it "quotes" from memory: the gist, not the characters.
      json j = json::parse(content);
      for (json& q : j["quotes"]) q["text"] = "In short: " + q["text"].get<std::string>();
      return j.dump();
    }
    if (f == Fault::kWrongArity) {
      json j = json::parse(content);
      if (task == "rate_chunks" && !j["chunks"].empty()) {
        j["chunks"].erase(j["chunks"].size() - 1);
      } else if (task == "generate_questions" && !j["questions"].empty()) {
        j["questions"].erase(j["questions"].size() - 1);
      } else if (task == "summary_answers" && !j["answers"].empty()) {
        j["answers"].erase(j["answers"].size() - 1);
      } else if (task == "criteria" && !j["results"].empty()) {
        j["results"].erase(j["results"].size() - 1);
      } else {
        return "Here are my verdicts: yes, yes, no.";
      }
      return j.dump();
    }
    return content;
  }

  // What the provider's prompt cache would serve and write for a prompt whose text, as the
  // cache reads it, is `text` (breakpoints: where Anthropic's marked blocks end).
  std::pair<int64_t, int64_t> PrefixCache(const std::string& text,
                                          const std::vector<size_t>& breakpoints, bool anthropic) {
    std::lock_guard<std::mutex> lock(mu);
    const int64_t minimum = options.cache_min_tokens;
    // The text's starts that may be cached, each known by a hash of its text and length.
    std::vector<size_t> ends;
    if (anthropic) {
      ends = breakpoints;
    } else {
      for (size_t end = 512; end <= text.size(); end += 512) ends.push_back(end);  // 128 tokens
    }
    std::vector<uint64_t> keys;
    for (size_t end : ends) keys.push_back(Fnv1a64(std::string_view(text).substr(0, end)) ^ end);
    int64_t read = 0, longest = 0;
    for (size_t i = 0; i < ends.size(); ++i) {
      const int64_t tokens = Tokens(ends[i]);
      if (tokens < minimum) continue;
      longest = tokens;
      if (prompt_starts.count(keys[i]))
        read = tokens;
      else if (!anthropic)
        break;  // OpenAI: the start must match from the first token on
    }
    for (size_t i = 0; i < ends.size(); ++i) {
      if (Tokens(ends[i]) >= minimum) prompt_starts.insert(keys[i]);
    }
    // Anthropic writes what its marks cover beyond what it read; OpenAI's writes are free.
    const int64_t written = anthropic && longest > read ? longest - read : 0;
    return {read, written};
  }

  void Chat(const httplib::Request& req, httplib::Response& res, bool anthropic) {
    json body = json::parse(req.body, nullptr, false);
    std::string system, user, cache_key;
    size_t prompt_chars = 0;
    // The prompt as a provider's cache reads it: in order, with the ends of marked blocks.
    std::string cached_text;
    std::vector<size_t> breakpoints;
    auto text_of = [&](const json& content, bool count) {
      // A string, or Anthropic's list of text blocks (some marked cache_control).
      std::string out;
      if (content.is_string()) {
        out = content.get<std::string>();
        cached_text += out;
      } else if (content.is_array()) {
        for (const json& block : content) {
          if (!block.is_object() || !block.contains("text") || !block["text"].is_string()) continue;
          out += block["text"].get<std::string>();
          cached_text += block["text"].get<std::string>();
          if (block.contains("cache_control")) breakpoints.push_back(cached_text.size());
        }
      }
      if (count) prompt_chars += out.size();
      return out;
    };
    if (body.is_object()) {
      // OpenAI reads (and bills) a structured output schema as the start of the prompt.
      if (!anthropic && body.contains("response_format")) {
        cached_text += body["response_format"].dump();
        prompt_chars += cached_text.size();
      }
      if (body.contains("system")) system = text_of(body["system"], true);
      // The request's user texts before any answer (a repair comes after one): each message,
      // or each block of an Anthropic message.
      std::vector<std::string> parts;
      bool answered = false;
      for (const auto& m : body.value("messages", json::array())) {
        if (!m.is_object()) continue;
        std::string role = m.value("role", "");
        const json content = m.contains("content") ? m["content"] : json();
        std::string text = text_of(content, true);
        if (role == "system") system = text;
        if (role == "assistant") answered = true;
        if (role != "user" || answered) continue;
        if (content.is_array()) {
          for (const json& block : content) {
            if (block.is_object() && block.contains("text") && block["text"].is_string()) {
              parts.push_back(block["text"].get<std::string>());
            }
          }
        } else {
          parts.push_back(text);
        }
      }
      user = parts.empty() ? "" : RowFirstRequest(parts).value_or(parts.front());
      if (body.contains("prompt_cache_key") && body["prompt_cache_key"].is_string()) {
        cache_key = body["prompt_cache_key"].get<std::string>();
      }
    }
    if (options.record_requests) {
      std::lock_guard<std::mutex> lock(mu);
      requests.push_back({system, user, cache_key});
    }
    auto question = MockQuestionAnswer(system, user, options.pairwise_prefer_first);
    std::string task = question                        ? question->task
                       : RowVerdicts(user).has_value() ? "row_verdicts"
                                                       : TaskOf(ParseRequest(user));
    Fault f = Decide(task);
    if (options.latency_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.latency_ms));
    if (f == Fault::kStall)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.stall_ms));
    if (!body.is_object()) {
      res.status = 400;
      res.set_content(R"({"error":{"message":"mock: the request body is not JSON"}})",
                      "application/json");
      return;
    }
    if (Transport(f, res)) return;
    std::string finish = "stop";
    std::string content = ApplyContentFault(
        f, task, MockAnswer(system, user, options.pairwise_prefer_first), &finish);
    int64_t prompt = Tokens(prompt_chars), completion = Tokens(content.size());
    // The provider cache's share of the prompt, as each provider reports it.
    int64_t read = static_cast<int64_t>(static_cast<double>(prompt) * options.cached_share);
    int64_t written =
        anthropic ? std::min(prompt - read, static_cast<int64_t>(static_cast<double>(prompt) *
                                                                 options.cache_write_share))
                  : 0;
    if (options.prefix_cache) {
      std::tie(read, written) = PrefixCache(cached_text, breakpoints, anthropic);
      read = std::min(read, prompt);
      written = std::min(written, prompt - read);
    }
    CountTokens(prompt, completion, false, read, written);
    if (f == Fault::kHugeUsage) prompt = int64_t{1} << 40;
    json reply;
    if (anthropic) {
      reply = {{"id", "msg_mock"},
               {"type", "message"},
               {"role", "assistant"},
               {"content", json::array({{{"type", "text"}, {"text", content}}})},
               {"stop_reason", finish == "length" ? "max_tokens" : "end_turn"},
               {"usage",
                {{"input_tokens", prompt - read - written},
                 {"cache_read_input_tokens", read},
                 {"cache_creation_input_tokens", written},
                 {"output_tokens", completion}}}};
    } else {
      reply = {{"id", "chatcmpl-mock"},
               {"object", "chat.completion"},
               // A dated version of the requested name, as OpenAI reports the model it ran.
               {"model", body.is_object() && body.contains("model") && body["model"].is_string()
                             ? body["model"].get<std::string>() + "-2026-01-01"
                             : "mock"},
               {"system_fingerprint", options.system_fingerprint},
               {"choices", Choices(body, content, finish)},
               {"usage",
                {{"prompt_tokens", prompt},
                 {"completion_tokens", completion},
                 {"total_tokens", prompt + completion},
                 {"prompt_tokens_details", {{"cached_tokens", read}}}}}};
    }
    res.set_content(reply.dump(), "application/json");
  }

  // As many choices as the request's `n` asks (up to max_choices), each the same answer; with
  // "logprobs", each token's log-probability and, for numbers, their neighbours' (a model that
  // hesitates between 6, 7 and 8).
  json Choices(const json& body, const std::string& content, const std::string& finish) const {
    int n = 1;
    if (body.is_object() && body.contains("n") && body["n"].is_number_integer()) {
      n = std::max(1, std::min(body["n"].get<int>(), options.max_choices));
    }
    bool logprobs = body.is_object() && body.value("logprobs", false);
    json choices = json::array();
    for (int i = 0; i < n; ++i) {
      json c = {{"index", i},
                {"message", {{"role", "assistant"}, {"content", content}}},
                {"finish_reason", finish}};
      if (logprobs) c["logprobs"] = {{"content", TokenLogprobs(content)}};
      choices.push_back(std::move(c));
    }
    return choices;
  }

  static json TokenLogprobs(const std::string& content) {
    json tokens = json::array();
    for (size_t i = 0; i < content.size();) {
      size_t j = i + 1;
      auto digit = [&](size_t k) { return std::isdigit(static_cast<unsigned char>(content[k])); };
      auto alpha = [&](size_t k) { return std::isalpha(static_cast<unsigned char>(content[k])); };
      if (digit(i)) {
        while (j < content.size() && digit(j)) ++j;
      } else if (alpha(i)) {
        while (j < content.size() && alpha(j)) ++j;
      }
      std::string token = content.substr(i, j - i);
      json top = json::array({{{"token", token}, {"logprob", digit(i) ? std::log(0.6) : 0.0}}});
      if (digit(i) && token.size() < 3) {
        int v = std::stoi(token);
        top.push_back({{"token", std::to_string(v + 1)}, {"logprob", std::log(0.3)}});
        top.push_back({{"token", std::to_string(v - 1)}, {"logprob", std::log(0.1)}});
      }
      tokens.push_back({{"token", token}, {"logprob", top[0]["logprob"]}, {"top_logprobs", top}});
      i = j;
    }
    return tokens;
  }

  void Embeddings(const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    Fault f = Decide("embeddings");
    if (!body.is_object()) {
      res.status = 400;
      res.set_content(R"({"error":{"message":"mock: the request body is not a JSON object"}})",
                      "application/json");
      return;
    }
    if (options.latency_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.latency_ms));
    if (f == Fault::kStall)
      std::this_thread::sleep_for(std::chrono::milliseconds(options.stall_ms));
    if (Transport(f, res)) return;
    json data = json::array();
    size_t chars = 0;
    int index = 0;
    for (const auto& input : body.value("input", json::array())) {
      std::string text = input.is_string() ? input.get<std::string>() : "";
      chars += text.size();
      json vector = Embed(text);
      if (f == Fault::kZeroVectors) {
        for (auto& x : vector) x = 0.0;
      }
      data.push_back({{"object", "embedding"}, {"index", index++}, {"embedding", vector}});
    }
    if (f == Fault::kWrongArity && !data.empty()) data.erase(data.size() - 1);
    CountTokens(Tokens(chars), 0, true);
    res.set_content(
        json{{"object", "list"},
             {"data", data},
             {"usage", {{"prompt_tokens", Tokens(chars)}, {"total_tokens", Tokens(chars)}}}}
            .dump(),
        "application/json");
  }
};

MockJudgeServer::MockJudgeServer(MockJudgeOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

MockJudgeServer::~MockJudgeServer() { Stop(); }

bool MockJudgeServer::Start() {
  Impl* impl = impl_.get();
  int threads = impl->options.threads;
  impl->server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  impl->server.set_keep_alive_max_count(100000);
  impl->server.set_tcp_nodelay(true);  // else delayed ACKs add ~40 ms to every reply
  impl->server.Post(
      "/v1/chat/completions",
      [impl](const httplib::Request& q, httplib::Response& r) { impl->Chat(q, r, false); });
  impl->server.Post("/v1/messages", [impl](const httplib::Request& q, httplib::Response& r) {
    impl->Chat(q, r, true);
  });
  impl->server.Post("/v1/embeddings", [impl](const httplib::Request& q, httplib::Response& r) {
    impl->Embeddings(q, r);
  });
  const std::string& host = impl->options.host;
  // Replies in one go on kept-alive connections, as tala's own servers do (no Nagle delay).
  impl->server.set_tcp_nodelay(true);
  if (impl->options.port > 0) {
    if (!impl->server.bind_to_port(host.c_str(), impl->options.port)) return false;
    port_ = impl->options.port;
  } else {
    port_ = impl->server.bind_to_any_port(host.c_str());
  }
  if (port_ <= 0) return false;
  WidenListenBacklog(port_);
  impl->thread = std::thread([impl] { impl->server.listen_after_bind(); });
  while (!impl->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return true;
}

void MockJudgeServer::Stop() {
  if (!impl_->thread.joinable()) return;
  impl_->server.stop();
  impl_->thread.join();
}

std::string MockJudgeServer::base_url() const {
  const std::string& host = impl_->options.host;
  // An IPv6 literal needs brackets in a URL.
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return "http://" + shown + ":" + std::to_string(port_) + "/v1";
}

void MockJudgeServer::ScriptFault(int64_t request, Fault fault) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->script[request] = fault;
}

void MockJudgeServer::SetStandingFault(Fault fault) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->standing = fault;
}

std::vector<RecordedRequest> MockJudgeServer::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->requests;
}

MockJudgeStats MockJudgeServer::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

}  // namespace tala::testing
