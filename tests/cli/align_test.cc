// End-to-end: tala align (issue 55 item 1): a threshold fitted to people's labels by
// cross-validation, written as a judge profile only when held-out folds show a gain; tala eval
// --judge-profile diagnoses with it and records it; tala compare tells runs made with different
// profiles apart.

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "cli/child_process.h"
#include "cli/run_tala.h"
#include "support/temp_dir.h"

namespace tala {
namespace {

using tala::testing::RunTala;
using tala::testing::TempDir;

// 120 rows whose faithfulness spreads over [0, 1]; people call a row right when its score is at
// least 0.9 (this project's line is stricter than tala's default 0.7), but for a few slips.
struct Labelled {
  std::string results, labels, shuffled;
};

Labelled Write(TempDir& dir) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0, 1);
  std::string results, labels = "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1}}\n";
  std::vector<int> verdicts;
  for (int i = 0; i < 120; ++i) {
    const double score = u(rng);
    const bool right = (score >= 0.9) != (u(rng) < 0.03);
    results += "{\"id\":\"r" + std::to_string(i) +
               "\",\"scores\":{\"faithfulness\":" + std::to_string(score) + "}}\n";
    verdicts.push_back(right ? 1 : 0);
  }
  std::string shuffled = labels;
  std::vector<int> mixed = verdicts;
  std::shuffle(mixed.begin(), mixed.end(), rng);
  for (int i = 0; i < 120; ++i) {
    labels += "{\"id\":\"r" + std::to_string(i) +
              "\",\"faithfulness\":" + std::to_string(verdicts[i]) + "}\n";
    shuffled += "{\"id\":\"r" + std::to_string(i) +
                "\",\"faithfulness\":" + std::to_string(mixed[i]) + "}\n";
  }
  return {dir.Write("results.jsonl", results), dir.Write("labels.jsonl", labels),
          dir.Write("shuffled.jsonl", shuffled)};
}

TEST(AlignTest, AFittedThresholdGainsOnHeldOutFoldsAndShuffledLabelsGainNothing) {
  TempDir dir;
  const Labelled l = Write(dir);
  const std::string profile = dir.path() + "/profile.json";
  auto r = RunTala("align " + l.results + " --labels " + l.labels + " -o " + profile + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the fitted threshold agrees with people more"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threshold 0.9"), std::string::npos) << r.out;
  ASSERT_TRUE(std::filesystem::exists(profile));
  // The same labels shuffled: nothing to learn, and nothing written.
  const std::string none = dir.path() + "/none.json";
  r = RunTala("align " + l.results + " --labels " + l.shuffled + " -o " + none + " 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("no gain on held-out folds"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(none));
  r = RunTala("align " + l.results + " --labels " + l.shuffled + " --force -o " + none + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // Too few labels is said, not guessed.
  r = RunTala("align " + l.results + " --labels " +
              dir.Write("few.jsonl", "{\"id\":\"r1\",\"faithfulness\":1}\n") + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("nothing to align"), std::string::npos) << r.out;
}

TEST(AlignTest, EvalDiagnosesWithTheProfileAndCompareTellsProfilesApart) {
  TempDir dir;
  const Labelled l = Write(dir);
  const std::string profile = dir.path() + "/profile.json";
  ASSERT_EQ(RunTala("align " + l.results + " --labels " + l.labels + " -o " + profile).exit_code,
            0);
  const std::string data = dir.Write(
      "d.jsonl",
      "{\"id\":\"a\",\"user_input\":\"Where does the ferry leave?\",\"response\":\"The ferry "
      "leaves from Pier 3 at noon.\",\"retrieved_contexts\":[\"The ferry leaves from Pier 3.\"]}\n"
      "{\"id\":\"b\",\"user_input\":\"Where does the ferry leave?\",\"response\":\"The ferry "
      "leaves from Pier 3.\",\"retrieved_contexts\":[\"The ferry leaves from Pier 3.\"]}\n");
  const std::string plain = dir.path() + "/plain.jsonl", fitted = dir.path() + "/fitted.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " -m faithfulness -q -o " + plain).exit_code, 0);
  auto r = RunTala("eval " + data + " -m faithfulness -q --judge-profile " + profile + " -o " +
                   fitted + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::ifstream in(fitted);
  const std::string manifest((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_NE(manifest.find("\"judge_profile\":\""), std::string::npos) << manifest;
  auto compared = RunTala("compare " + plain + " " + fitted + " 2>&1");
  EXPECT_EQ(compared.exit_code, 2) << compared.out;
  EXPECT_NE(compared.out.find("judge profile none vs"), std::string::npos) << compared.out;
  compared = RunTala("compare " + plain + " " + fitted + " --allow-version-mismatch 2>&1");
  EXPECT_EQ(compared.exit_code, 0) << compared.out;
  // A file that is not a profile is named.
  r = RunTala("eval " + data + " -m faithfulness --judge-profile " + data + " -o " + dir.path() +
              "/x.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not a judge profile"), std::string::npos) << r.out;
}

// --examples keeps labelled rows in the profile, half right and half wrong; an LLM judge given
// the profile sends the nearest of them with each call of a labelled metric, which the dry run
// counts; a profile's examples of a metric tala does not know, or a bad verdict, are named.
TEST(AlignTest, ExamplesKeptInTheProfileReachAnLlmJudgesRequests) {
  TempDir dir;
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0, 1);
  std::string results, labels = "{\"tala_labels\":{\"pick\":\"random\",\"seed\":1}}\n";
  for (int i = 0; i < 60; ++i) {
    const double score = u(rng);
    const std::string n = std::to_string(i);
    results += "{\"id\":\"r" + n + "\",\"scores\":{\"faithfulness\":" + std::to_string(score) +
               "},\"inputs\":{\"user_input\":\"When did bakery " + n +
               " open?\",\"response\":\"Bakery " + n + " opened in 19" + std::to_string(10 + i) +
               ".\"}}\n";
    labels += "{\"id\":\"r" + n + "\",\"faithfulness\":" + (score >= 0.9 ? "1" : "0") + "}\n";
  }
  const std::string r = dir.Write("results.jsonl", results), l = dir.Write("labels.jsonl", labels);
  const std::string profile = dir.path() + "/profile.json";
  auto aligned =
      RunTala("align " + r + " --labels " + l + " --examples 6 --force -o " + profile + " 2>&1");
  ASSERT_EQ(aligned.exit_code, 0) << aligned.out;
  std::ifstream in(profile);
  const nlohmann::json p = nlohmann::json::parse(in);
  ASSERT_EQ(p["examples"].size(), 6u) << p.dump();
  int right = 0;
  for (const auto& e : p["examples"]) right += e["verdict"] == "right" ? 1 : 0;
  EXPECT_EQ(right, 3);
  EXPECT_EQ(p["examples"][0]["metric"], "faithfulness");

  std::string url;
  auto mock = testing::StartMockJudge({}, &url);
  const std::string data = dir.Write(
      "d.jsonl",
      "{\"id\":\"a\",\"user_input\":\"When did bakery 7 open?\",\"response\":\"Bakery 7 opened "
      "in 1917.\",\"retrieved_contexts\":[\"Bakery 7 opened in 1917.\"]}\n");
  const std::string judge = " --judge openai:mock-model --base-url " + url +
                            " --cache off -m "
                            "faithfulness -o " +
                            dir.path() + "/out.jsonl --overwrite";
  auto tokens = [](const std::string& out) {
    size_t at = out.find("response_claims@");
    std::istringstream line(out.substr(at, out.find('\n', at) - at));
    std::string name;
    long long calls = 0, hits = 0, prompt = 0;
    double per_row = 0;
    line >> name >> calls >> hits >> per_row >> prompt;
    return prompt;
  };
  auto plain = RunTala("eval " + data + judge + " --dry-run 2>&1");
  auto shown = RunTala("eval " + data + judge + " --judge-profile " + profile + " --dry-run 2>&1");
  ASSERT_EQ(shown.exit_code, 0) << shown.out;
  EXPECT_GT(tokens(shown.out), tokens(plain.out) + 100) << plain.out << shown.out;
  auto run = RunTala("eval " + data + judge + " --judge-profile " + profile + " 2>&1");
  ASSERT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("faithfulness"), std::string::npos);

  std::string bad = p.dump();
  bad.replace(bad.find("\"faithfulness\",\"question\""), 14, "\"no_such_metric\"");
  const std::string bad_profile = dir.Write("bad.json", bad);
  auto refused = RunTala("eval " + data + judge + " --judge-profile " + bad_profile + " 2>&1");
  EXPECT_EQ(refused.exit_code, 2) << refused.out;
  EXPECT_NE(refused.out.find("no_such_metric"), std::string::npos) << refused.out;
  std::string verdict = p.dump();
  verdict.replace(verdict.find("\"wrong\""), 7, "\"maybe\"");
  auto unread = RunTala("eval " + data + judge + " --judge-profile " +
                        dir.Write("verdict.json", verdict) + " 2>&1");
  EXPECT_EQ(unread.exit_code, 2) << unread.out;
  EXPECT_NE(unread.out.find(".verdict"), std::string::npos) << unread.out;
}

// A project whose people call an answer right when it answers, even when it goes on about
// something else, and wrong when it only talks about something else. The offline judge's
// built-in blend reads an answer padded with asides as off the question, so no threshold tells
// the padded answers from the asides; refitting the blend's weights does.
struct PaddedProject {
  std::string data, results, labels, shuffled;
};

PaddedProject WritePaddedProject(TempDir& dir) {
  const char* things[] = {"bakery", "library", "museum", "bridge",  "harbour",
                          "school", "theatre", "market", "station", "chapel"};
  const char* towns[] = {"Aldham", "Brisley", "Corfe",   "Dunmore",   "Elston", "Fenwick",
                         "Garth",  "Holt",    "Ixworth", "Jevington", "Kelso",  "Lydd"};
  const char* asides[] = {"The weather in spring is usually mild and wet.",
                          "Many visitors arrive by train on weekends.",
                          "The local football team plays in blue shirts.",
                          "A famous poet once wrote about the hills nearby.",
                          "Cheese from the valley is sold at fairs.",
                          "The river floods every few winters."};
  std::string data, labels, shuffled;
  std::vector<int> verdicts;
  for (int i = 0; i < 120; ++i) {
    const std::string place = std::string("the ") + things[i % 10] + " in " + towns[i % 12];
    const std::string answer =
        "The " + place.substr(4) + " opened in " + std::to_string(1850 + (i * 7) % 150) + ".";
    std::string response;
    if (i % 3 == 0) response = answer;
    if (i % 3 == 1) response = answer + " " + asides[i % 6] + " " + asides[(i + 2) % 6];
    if (i % 3 == 2) response = asides[i % 6];
    data += nlohmann::json{{"id", "r" + std::to_string(i)},
                           {"user_input", "When did " + place + " open?"},
                           {"response", response}}
                .dump() +
            "\n";
    verdicts.push_back(i % 3 == 2 ? 0 : 1);
  }
  std::vector<int> mixed = verdicts;
  std::mt19937_64 rng(3);
  std::shuffle(mixed.begin(), mixed.end(), rng);
  for (int i = 0; i < 120; ++i) {
    labels += "{\"id\":\"r" + std::to_string(i) +
              "\",\"response_relevancy\":" + std::to_string(verdicts[i]) + "}\n";
    shuffled += "{\"id\":\"r" + std::to_string(i) +
                "\",\"response_relevancy\":" + std::to_string(mixed[i]) + "}\n";
  }
  PaddedProject p{dir.Write("data.jsonl", data), dir.path() + "/results.jsonl",
                  dir.Write("labels.jsonl", labels), dir.Write("shuffled.jsonl", shuffled)};
  return p;
}

std::map<std::string, double> ScoresIn(const std::string& path) {
  std::map<std::string, double> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    if (row.contains("scores")) out[row["id"]] = row["scores"]["response_relevancy"];
  }
  return out;
}

TEST(AlignTest, TheOfflineJudgesBlendIsRefittedWhereHeldOutFoldsShowItAgreesMore) {
  TempDir dir;
  const PaddedProject p = WritePaddedProject(dir);
  ASSERT_EQ(RunTala("eval " + p.data + " -m response_relevancy -q -o " + p.results).exit_code, 0);
  if (dir.Read("results.jsonl").find("\"embeddings\":\"use-lite") == std::string::npos) {
    GTEST_SKIP() << "no sentence encoder: the blends need it";
  }
  const std::string profile = dir.path() + "/profile.json";
  auto r = RunTala("align " + p.results + " --labels " + p.labels + " -o " + profile + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("the refitted blend agrees with people more"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the profile keeps the refitted weights"), std::string::npos) << r.out;
  std::ifstream in(profile);
  const nlohmann::json written = nlohmann::json::parse(in);
  const nlohmann::json& blend = written["metrics"]["response_relevancy"]["blend"];
  ASSERT_EQ(blend["weights"].size(), blend["features"].size() + 1) << written.dump();
  const double threshold = written["metrics"]["response_relevancy"]["threshold"];

  // Scored with the profile, the padded answers pass and the asides fail.
  const std::string fitted = dir.path() + "/fitted.jsonl";
  r = RunTala("eval " + p.data + " -m response_relevancy -q --judge-profile " + profile + " -o " +
              fitted + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto before = ScoresIn(p.results), after = ScoresIn(fitted);
  int right = 0;
  for (int i = 0; i < 120; ++i) {
    const double s = after.at("r" + std::to_string(i));
    right += (s >= threshold) == (i % 3 != 2) ? 1 : 0;
  }
  EXPECT_GE(right, 114) << "of 120";
  EXPECT_LT(before.at("r1"), 0.2);
  EXPECT_GT(after.at("r1"), threshold);

  // tala serve given the profile scores live rows as tala eval does.
  {
    testing::ChildProcess served({std::string(TALA_BINARY_DIR) + "/tala", "serve", "--db",
                                  dir.path() + "/serve.sqlite", "--port", "0", "--metrics",
                                  "response_relevancy", "--judge-profile", profile});
    httplib::Client client(served.FirstLine());
    std::string rows;
    std::ifstream lines(p.data);
    for (std::string line; rows.size() < 2000 && std::getline(lines, line);) rows += line + "\n";
    auto posted = client.Post("/v1/interactions", rows, "application/x-ndjson");
    ASSERT_TRUE(posted);
    ASSERT_EQ(posted->status, 202) << posted->body;
    std::map<std::string, double> live;
    for (int i = 0; i < 600 && live.size() < 3; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      auto got = client.Get("/v1/rows?since=0&metric=response_relevancy");
      live.clear();
      std::istringstream body(got ? got->body : "");
      for (std::string line; std::getline(body, line);) {
        const nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
        if (row.is_object() && row.contains("scores")) {
          live[row["id"]] = row["scores"]["response_relevancy"];
        }
      }
    }
    ASSERT_GE(live.size(), 3u);
    for (const auto& [id, score] : live) EXPECT_NEAR(score, after.at(id), 1e-9) << id;
    EXPECT_EQ(served.Stop(SIGTERM), 0);
  }

  // The results scored with the profile are not the built-in reading: said, not refitted.
  r = RunTala("align " + fitted + " --labels " + p.labels + " --force -o " + dir.path() +
              "/again.json 2>&1");
  EXPECT_NE(r.out.find("score otherwise in the results than the built-in weights"),
            std::string::npos)
      << r.out;
  // Another file than the one scored is refused as the data.
  r = RunTala("align " + p.results + " --labels " + p.labels + " --data " + p.labels +
              " --force -o " + dir.path() + "/other.json 2>&1");
  EXPECT_NE(r.out.find("is not the dataset the results were scored from"), std::string::npos)
      << r.out;
  // Shuffled labels: nothing to learn, the built-in weights stay.
  r = RunTala("align " + p.results + " --labels " + p.shuffled + " --force -o " + dir.path() +
              "/shuffled.json 2>&1");
  EXPECT_NE(r.out.find("the built-in weights stay"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("the profile keeps"), std::string::npos) << r.out;

  // A profile whose blend reads other features, or too few weights, is refused by name.
  std::string renamed = written.dump();
  renamed.replace(renamed.find("\"lexical\""), 9, "\"lexicon\"");
  r = RunTala("eval " + p.data + " -m response_relevancy -q --judge-profile " +
              dir.Write("renamed.json", renamed) + " -o " + dir.path() + "/x.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("metrics.response_relevancy.blend.features"), std::string::npos) << r.out;
  nlohmann::json short_weights = written;
  short_weights["metrics"]["response_relevancy"]["blend"]["weights"].erase(0);
  r = RunTala("eval " + p.data + " -m response_relevancy -q --judge-profile " +
              dir.Write("short.json", short_weights.dump()) + " -o " + dir.path() +
              "/y.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("the bias, then one per feature"), std::string::npos) << r.out;
  nlohmann::json huge = written;
  huge["metrics"]["response_relevancy"]["blend"]["weights"][1] = 1e300;
  r = RunTala("eval " + p.data + " -m response_relevancy -q --judge-profile " +
              dir.Write("huge.json", huge.dump()) + " -o " + dir.path() + "/z.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("blend.weights"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tala
