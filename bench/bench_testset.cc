// tala testset at scale: a log of QUESTIONS questions over PAGES document pages (made up, seeded:
// pages of sentences mixing common words with each page's own names; intents made from their
// sentences, asked in proportion to 1/rank, with intent_log.h's typos, casing, word order and
// filler), then BuildTestset with the offline judge picking SIZE items. Prints the time to read,
// group, pick and draft, and the peak memory.
//   build/bench/bench_testset [QUESTIONS=100000] [PAGES=2000] [SIZE=100]
// And how the two thresholds were chosen: on the development half of the HaluEval intent log
// (tests/data/testset/README.md) and reported on the other half:
//   build/bench/bench_testset halves

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "tala/testset.h"
#include "testset/intent_log.h"
#include "testset/question_groups.h"

namespace {

const char* kCommon[] = {
    "the",     "service", "opens",    "at",       "station", "each",     "morning",  "with",
    "tickets", "sold",    "near",     "platform", "where",   "trains",   "leave",    "for",
    "city",    "centre",  "every",    "hour",     "during",  "weekdays", "and",      "on",
    "holiday", "routes",  "museum",   "offers",   "guided",  "tours",    "about",    "history",
    "of",      "river",   "bridge",   "built",    "in",      "year",     "by",       "company",
    "founded", "its",     "director", "named",    "after",   "famous",   "writer",   "who",
    "lived",   "there",   "until",    "death",    "a",       "library",  "holds",    "records",
    "from",    "old",     "harbour",  "market",   "square",  "hosts",    "festival", "summer"};

std::string MadeUpWord(std::mt19937_64& rng) {
  static const char* kSyllables[] = {"ka", "lo",  "ren", "sa", "vi", "tor", "mi",  "dal", "the",
                                     "nu", "bri", "gon", "el", "za", "qua", "rin", "pe",  "mor"};
  std::string w;
  const int n = 2 + static_cast<int>(rng() % 3);
  for (int i = 0; i < n; ++i) w += kSyllables[rng() % 18];
  w[0] = static_cast<char>(w[0] - 'a' + 'A');
  return w;
}

// For each half: the groups found at each similarity threshold (and how many hold two intents,
// how many intents are split), and the coverage of answerable and unanswerable items.
int Halves() {
  for (auto [first, last] : {std::pair<size_t, size_t>{0, 40}, {40, 80}}) {
    tala::testing::TempDir dir;
    tala::testing::IntentLog log = tala::testing::MakeIntentLog(dir, first, last, 20231204);
    std::vector<std::string> questions;
    std::vector<size_t> truth;
    std::ifstream in(log.logs);
    simdjson::dom::parser parser;
    for (std::string line; std::getline(in, line);) {
      questions.emplace_back(std::string_view(parser.parse(line)["user_input"]));
      truth.push_back(log.intent_of.at(questions.back()));
    }
    const char* half = first == 0 ? "development" : "reported";
    for (double threshold : {0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6}) {
      tala::testset::Grouping g = tala::testset::GroupQuestions(questions, threshold);
      int mixed = 0;
      std::map<size_t, std::set<size_t>> groups_of;
      for (size_t c = 0; c < g.intents.size(); ++c) {
        std::set<size_t> held;
        for (size_t p : g.intents[c].phrasings) {
          for (size_t q : g.phrasings[p].questions) {
            held.insert(truth[q]);
            groups_of[truth[q]].insert(c);
          }
        }
        mixed += held.size() > 1 ? 1 : 0;
      }
      int split = 0;
      for (const auto& [intent, groups] : groups_of) split += groups.size() > 1 ? 1 : 0;
      std::printf(
          "%s half (intents %zu-%zu), similarity %.2f: %zu groups for 40 intents, %d "
          "holding two or more, %d intents split\n",
          half, first, last - 1, threshold, g.intents.size(), mixed, split);
    }
    tala::TestsetOptions o;
    o.logs = log.logs;
    o.docs = log.docs;
    o.size = 40;
    auto set = tala::BuildTestset(o);
    if (!set) return 1;
    double unanswerable_max = 0, answerable_min = 1;
    for (const tala::TestsetItem& item : set->items) {
      const auto& li = log.intents[log.intent_of.at(item.user_input)];
      if (li.answerable) {
        answerable_min = std::min(answerable_min, item.coverage);
      } else {
        unanswerable_max = std::max(unanswerable_max, item.coverage);
      }
    }
    std::printf(
        "%s half: coverage of the unanswerable items at most %.2f, of the answerable "
        "ones at least %.2f\n",
        half, unanswerable_max, answerable_min);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "halves") return Halves();
  const long questions = argc > 1 ? std::atol(argv[1]) : 100000;
  const long pages = argc > 2 ? std::atol(argv[2]) : 2000;
  const long size = argc > 3 ? std::atol(argv[3]) : 100;
  const std::string dir = "/tmp/bench_testset-" + std::to_string(getpid());
  std::filesystem::create_directories(dir + "/docs");
  std::mt19937_64 rng(20231205);
  // Pages: four sections of three sentences, each sentence with two of the page's own names.
  std::vector<std::string> sentences;  // what intents ask about
  for (long p = 0; p < pages; ++p) {
    std::vector<std::string> names;
    for (int k = 0; k < 8; ++k) names.push_back(MadeUpWord(rng));
    std::string page = "# Page " + std::to_string(p) + "\n\n";
    for (int s = 0; s < 4; ++s) {
      page += "## " + names[s] + "\n\n";
      for (int t = 0; t < 3; ++t) {
        std::string sentence;
        const int words = 10 + static_cast<int>(rng() % 7);
        for (int w = 0; w < words; ++w) {
          sentence += (w ? " " : "") +
                      std::string(w == 2 || w == 7 ? names[rng() % 8] : kCommon[rng() % 64]);
        }
        sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
        page += sentence + ". ";
        sentences.push_back(sentence);
      }
      page += "\n\n";
    }
    std::ofstream(dir + "/docs/page-" + std::to_string(p) + ".md") << page;
  }
  // Intents: a sentence's first eight words as a question; asked in proportion to 1/rank.
  const long intents = std::min<long>(static_cast<long>(sentences.size()), questions / 20);
  std::vector<std::string> asks;
  std::vector<double> cumulative;
  double total = 0;
  for (long i = 0; i < intents; ++i) {
    const std::string& s = sentences[rng() % sentences.size()];
    size_t cut = 0;
    for (int w = 0; w < 8 && cut != std::string::npos; ++w) cut = s.find(' ', cut + 1);
    asks.push_back("What about " + s.substr(0, cut) + "?");
    total += 1.0 / static_cast<double>(i + 1);
    cumulative.push_back(total);
  }
  {
    std::ofstream log(dir + "/logs.jsonl");
    std::uniform_real_distribution<double> u(0, total);
    for (long q = 0; q < questions; ++q) {
      const long i =
          std::lower_bound(cumulative.begin(), cumulative.end(), u(rng)) - cumulative.begin();
      std::string text = tala::testing::Phrase(asks[static_cast<size_t>(i)], rng), escaped;
      for (char c : text) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
      }
      log << "{\"id\":\"q" << q << "\",\"user_input\":\"" << escaped << "\"}\n";
    }
  }
  tala::TestsetOptions o;
  o.logs = dir + "/logs.jsonl";
  o.docs = dir + "/docs";
  o.size = size;
  const double wall = tala::bench::NowSeconds(), cpu = tala::bench::CpuSeconds();
  auto set = tala::BuildTestset(o);
  const double took = tala::bench::NowSeconds() - wall;
  const double cpu_took = tala::bench::CpuSeconds() - cpu;
  std::filesystem::remove_all(dir);
  if (!set) {
    std::fprintf(stderr, "bench_testset: %s\n", set.error().ToString().c_str());
    return 1;
  }
  const auto& r = set->report;
  std::printf("log: %ld questions over %ld intents made from %ld pages\n", questions, intents,
              pages);
  std::printf("found: %lld phrasings, %lld intents; %lld chunks\n",
              static_cast<long long>(r.phrasings), static_cast<long long>(r.intents),
              static_cast<long long>(r.chunks));
  std::printf(
      "picked %lld items (%lld answerable yes, %lld partly, %lld no), %.1f%% of the "
      "traffic\n",
      static_cast<long long>(r.items), static_cast<long long>(r.answerable_yes),
      static_cast<long long>(r.answerable_partly), static_cast<long long>(r.answerable_no),
      100 * r.traffic_covered);
  std::printf(
      "read, group, pick and draft: %.2f s wall, %.2f s CPU (target under 60 s); peak "
      "RSS %.1f MiB\n",
      took, cpu_took, tala::bench::PeakRssMiB());
  return 0;
}
