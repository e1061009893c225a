// tala testset at scale: a log of QUESTIONS questions over PAGES document pages (made up, seeded:
// pages of sentences mixing common words with each page's own names; intents made from their
// sentences, asked in proportion to 1/rank, with intent_log.h's typos, casing, word order and
// filler), then BuildTestset with the offline judge picking SIZE items. Prints the time to read,
// group, pick and draft, and the peak memory.
//   build/bench/bench_testset [QUESTIONS=100000] [PAGES=2000] [SIZE=100]
// And how the two thresholds were chosen: on the development half of the HaluEval intent log
// (tests/data/testset/README.md) and reported on the other half:
//   build/bench/bench_testset halves
// And how the meaning join's cosine was chosen (the same halves, a share of the phrasings
// reworded):
//   build/bench/bench_testset meaning
// And how the chunk ranking's weight on meaning was chosen, and the encoder's cosine for pairs:
//   build/bench/bench_testset chunks
//   build/bench/bench_testset pairs < bench/data/meaning_pairs.txt
// And a log with no names, most questions asked once or twice:
//   build/bench/bench_testset nameless [QUESTIONS=40000]
// And the intents a log's questions (one a line on standard input) fall into: the index of each
// question's intent, a line each, by words at SIMILARITY and then by meaning at COSINE (0: by
// words alone); bench/intent_sources.py measures them on public intent data:
//   build/bench/bench_testset group [SIMILARITY=0.3] [COSINE=0.7] [CONTRAST=1] < questions.txt

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench_util.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "judges/offline/sentence_encoder.h"
#include "judges/offline/wordnet.h"
#include "tala/testset.h"
#include "testset/group_tally.h"
#include "testset/intent_log.h"
#include "testset/meaning_merge.h"
#include "testset/question_groups.h"
#include "testset/reference_draft.h"
#include "testset/reword.h"

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

// The sentence encoder the meaning modes read with; null (having said why) when not installed.
std::unique_ptr<tala::judges::offline::SentenceEncoder> Encoder() {
  auto encoder = tala::judges::offline::SentenceEncoder::Shared();
  if (!encoder) {
    std::fprintf(stderr, "bench_testset: %s\n", encoder.error().ToString().c_str());
    return nullptr;
  }
  return std::move(*encoder);
}

// "N groups for 40 intents, M holding two or more, K intents split".
std::string Tally(const tala::testset::Grouping& g, const std::vector<size_t>& truth) {
  const tala::testing::GroupTally t = tala::testing::TallyGroups(g, truth);
  return std::to_string(t.groups) + " groups for 40 intents, " + std::to_string(t.mixed) +
         " holding two or more, " + std::to_string(t.split) + " intents split";
}

// For each half: the groups found at each similarity threshold (and how many hold two intents,
// how many intents are split), and the coverage of answerable and unanswerable items.
int Halves() {
  for (auto [first, last] : {std::pair<size_t, size_t>{0, 40}, {40, 80}}) {
    tala::testing::TempDir dir;
    tala::testing::IntentLog log = tala::testing::MakeIntentLog(dir, first, last, 20231204);
    const auto [questions, truth] = tala::testing::ReadLoggedQuestions(log);
    const char* half = first == 0 ? "development" : "reported";
    for (double threshold : {0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5}) {
      tala::testset::Grouping g = tala::testset::GroupQuestions(questions, threshold);
      std::printf("%s half (intents %zu-%zu), similarity %.2f: %s\n", half, first, last - 1,
                  threshold, Tally(g, truth).c_str());
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

// How the meaning join was chosen: the HaluEval intent log with a share of its phrasings
// reworded (intent_log.h's Reword: WordNet synonyms for every plain word, names kept), grouped
// by words, then joined by meaning at each cosine threshold; development half, then the other.
int Meaning() {
  auto encoder = Encoder();
  if (!encoder) return 1;
  for (auto [first, last] : {std::pair<size_t, size_t>{0, 40}, {40, 80}}) {
    tala::testing::TempDir dir;
    tala::testing::IntentLog log = tala::testing::MakeRewordedLog(dir, first, last);
    const auto [questions, truth] = tala::testing::ReadLoggedQuestions(log);
    const char* half = first == 0 ? "development" : "reported";
    if (first == 0) {
      std::mt19937_64 rng(1);
      for (size_t i = 0; i < 3; ++i) {
        std::printf("reworded: %s\n       as: %s\n", log.intents[i].question.c_str(),
                    tala::testing::Reword(log.intents[i].question, rng).c_str());
      }
    }
    const tala::testset::Grouping words = tala::testset::GroupQuestions(questions);
    std::printf("%s half, %.0f%% of the phrasings reworded, by words alone: %s\n", half,
                100 * tala::testing::kRewordedShare, Tally(words, truth).c_str());
    for (double cosine : {0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9}) {
      tala::testset::Grouping g = words;
      auto join = tala::testset::JoinByMeaning(g, questions, *encoder, cosine);
      if (!join) return 1;
      std::printf("%s half, then by meaning at cosine %.2f: %s (%lld intents embedded)\n", half,
                  cosine, Tally(g, truth).c_str(), static_cast<long long>(join->embedded));
    }
  }
  return 0;
}

// How the chunk ranking's weight on meaning was chosen: every HaluEval intent's knowledge is a
// chunk (80), each half's questions, as asked and reworded, look for theirs; the share found
// first and in the top 3 at each weight, development half then the other.
int Chunks() {
  auto encoder = Encoder();
  if (!encoder) return 1;
  const std::vector<tala::testing::LoggedIntent> intents = tala::testing::ReadIntents();
  std::vector<tala::testset::Chunk> chunks;
  for (const auto& i : intents) chunks.push_back({i.intent, i.knowledge, i.intent});
  const tala::testset::ChunkIndex index(chunks);
  tala::testset::ChunkVectors vectors(chunks, *encoder);
  for (auto [first, last] : {std::pair<size_t, size_t>{0, 40}, {40, 80}}) {
    const char* half = first == 0 ? "development" : "reported";
    std::mt19937_64 rng(7);
    for (bool reworded : {false, true}) {
      std::vector<std::string> asked;
      std::vector<size_t> gold;
      for (size_t i = first; i < last; ++i) {
        std::string q = reworded ? tala::testing::Reword(intents[i].question, rng) : "";
        asked.push_back(q.empty() ? intents[i].question : q);
        gold.push_back(i);
      }
      auto qv = encoder->Embed(asked);
      if (!qv) return 1;
      for (double weight : {0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0}) {
        int top1 = 0, top3 = 0;
        for (size_t k = 0; k < asked.size(); ++k) {
          auto ranked = tala::testset::RankChunks(index, tala::testset::TermsOf(asked[k]), 3,
                                                  &(*qv)[k], vectors, weight);
          if (!ranked) return 1;
          for (size_t r = 0; r < ranked->size(); ++r) {
            if ((*ranked)[r].first != gold[k]) continue;
            top1 += r == 0 ? 1 : 0;
            ++top3;
          }
        }
        std::printf(
            "%s half, questions %s, meaning weight %.1f: gold chunk first for %d of %zu, "
            "in the top 3 for %d\n",
            half, reworded ? "reworded" : "as asked", weight, top1, asked.size(), top3);
      }
    }
  }
  return 0;
}

// The encoder's cosine for each pair of lines read from stdin (1 and 2, 3 and 4, ...): how the
// figures the meaning join's comment and docs/testset.md quote were read, from
// bench/data/meaning_pairs.txt.
int Pairs() {
  auto encoder = Encoder();
  if (!encoder) return 1;
  std::vector<std::string> lines;
  for (std::string line; std::getline(std::cin, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  auto vectors = encoder->Embed(lines);
  if (!vectors) return 1;
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    const auto& a = (*vectors)[i];
    const auto& b = (*vectors)[i + 1];
    std::printf("%.3f  %s | %s\n", std::inner_product(a.begin(), a.end(), b.begin(), 0.0),
                lines[i].c_str(), lines[i + 1].c_str());
  }
  return 0;
}

// A log with no names at all, most of its questions asked once or twice: "how do i A the B
// with a C?" from three lower-case words of the HaluEval questions, QUESTIONS questions. The
// meaning join meets each intent's partners through its rarest word, never pair by pair: this
// log is the one that would make a pairwise join quadratic.
int Nameless(long questions) {
  std::set<std::string> vocabulary;
  const auto& wordnet = tala::judges::offline::WordNet::Get();
  for (const auto& intent : tala::testing::ReadIntents()) {
    for (const tala::text::Token& t : tala::text::Tokenize(intent.question)) {
      if (t.text.size() >= 5 && !t.capitalised && !t.number && wordnet.Knows(t.text) &&
          !tala::text::IsStopWord(t.text)) {
        vocabulary.insert(t.text);
      }
    }
  }
  const std::vector<std::string> words(vocabulary.begin(), vocabulary.end());
  std::mt19937_64 rng(20231206);
  std::vector<std::string> log;
  while (static_cast<long>(log.size()) < questions) {
    const std::string q = "how do i " + words[rng() % words.size()] + " the " +
                          words[rng() % words.size()] + " with a " + words[rng() % words.size()] +
                          "?";
    for (int k = 0; k <= static_cast<int>(log.size() % 3); ++k) log.push_back(q);
  }
  const std::string dir = "/tmp/bench_testset-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/logs.jsonl");
    for (size_t i = 0; i < log.size(); ++i) {
      out << "{\"id\":\"q" << i << "\",\"user_input\":\"" << log[i] << "\"}\n";
    }
  }
  tala::TestsetOptions o;
  o.logs = dir + "/logs.jsonl";
  o.size = 100;
  const double wall = tala::bench::NowSeconds();
  auto set = tala::BuildTestset(o);
  const double took = tala::bench::NowSeconds() - wall;
  std::filesystem::remove_all(dir);
  if (!set) {
    std::fprintf(stderr, "bench_testset: %s\n", set.error().ToString().c_str());
    return 1;
  }
  std::printf(
      "nameless log: %zu questions, %lld intents (%lld joined by meaning): %.2f s wall; "
      "peak RSS %.1f MiB\n",
      log.size(), static_cast<long long>(set->report.intents),
      static_cast<long long>(set->report.intents_joined_by_meaning.value_or(0)), took,
      tala::bench::PeakRssMiB());
  return 0;
}

}  // namespace

int Group(double similarity, double cosine, bool contrast) {
  std::vector<std::string> questions;
  for (std::string line; std::getline(std::cin, line);) questions.push_back(line);
  tala::testset::Grouping g = tala::testset::GroupQuestions(questions, similarity, contrast);
  if (cosine > 0) {
    auto encoder = Encoder();
    if (!encoder) return 1;
    auto join = tala::testset::JoinByMeaning(g, questions, *encoder, cosine);
    if (!join) return 1;
  }
  std::vector<size_t> intent_of(questions.size());
  for (size_t i = 0; i < g.intents.size(); ++i) {
    for (size_t p : g.intents[i].phrasings) {
      for (size_t q : g.phrasings[p].questions) intent_of[q] = i;
    }
  }
  std::string out;
  for (size_t i : intent_of) out += std::to_string(i) + '\n';
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "group") {
    return Group(argc > 2 ? std::atof(argv[2]) : tala::testset::kIntentSimilarity,
                 argc > 3 ? std::atof(argv[3]) : tala::testset::kMeaningSimilarity,
                 argc > 4 ? std::atoi(argv[4]) != 0 : true);
  }
  if (argc > 1 && std::string(argv[1]) == "nameless") {
    return Nameless(argc > 2 ? std::atol(argv[2]) : 40000);
  }
  if (argc > 1 && std::string(argv[1]) == "chunks") return Chunks();
  if (argc > 1 && std::string(argv[1]) == "halves") return Halves();
  if (argc > 1 && std::string(argv[1]) == "meaning") return Meaning();
  if (argc > 1 && std::string(argv[1]) == "pairs") return Pairs();
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
