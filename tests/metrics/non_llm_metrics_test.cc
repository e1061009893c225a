#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <random>

#include "metrics/bleu.h"
#include "metrics/chrf.h"
#include "metrics/levenshtein_avx512.h"
#include "metrics/registry.h"
#include "metrics/rouge.h"
#include "metrics/string_distance.h"

namespace tala::metrics {
namespace {

using Strings = std::vector<std::string>;

TEST(Tokenize13aTest, SplitsPunctuationButKeepsNumbers) {
  EXPECT_EQ(
      Tokenize13a("Hello, world! It costs $3.50 (approx.)"),
      (Strings{"Hello", ",", "world", "!", "It", "costs", "$", "3.50", "(", "approx", ".", ")"}));
  EXPECT_EQ(Tokenize13a("1,000 people in 2019-2020 &amp; more"),
            (Strings{"1,000", "people", "in", "2019", "-", "2020", "&", "more"}));
}

// 13a's normalisation, as sacreBLEU applies it: "<skipped>" dropped, a hyphen at a line break
// joins, line breaks are spaces, entities decoded in order (quot, amp, lt, gt) by one
// non-recursive pass each: "&amp;amp;" decodes once, "&amp;lt;" reaches "<" through "&lt;".
TEST(Tokenize13aTest, NormalisesLikeSacreBleu) {
  EXPECT_EQ(Tokenize13a("state-\nof-the-art<skipped> plan\nB"),
            (Strings{"stateof-the-art", "plan", "B"}));
  EXPECT_EQ(Tokenize13a("&amp;amp; &amp;lt; &quot;x&quot;"),
            (Strings{"&", "amp", ";", "<", "\"", "x", "\""}));
  // Python's str.split() white space ends a token; non-ASCII bytes are word bytes.
  EXPECT_EQ(Tokenize13a("a\tb\vc\fd\x1f"
                        "e café."),
            (Strings{"a", "b", "c", "d", "e", "café", "."}));
}

TEST(StringDistanceTest, LevenshteinOnCodePoints) {
  EXPECT_EQ(LevenshteinDistance(CodePoints("kitten"), CodePoints("sitting")), 3u);
  EXPECT_EQ(LevenshteinDistance(CodePoints("日本語"), CodePoints("日本")), 1u);
  EXPECT_EQ(LevenshteinDistance(CodePoints(""), CodePoints("abc")), 3u);
}

TEST(RougeTest, TokensAreLowerCasedAlphanumerics) {
  EXPECT_EQ(RougeTokens("The CAT's 2 hats!", false), (Strings{"the", "cat", "s", "2", "hats"}));
  EXPECT_EQ(RougeTokens("running", true), (Strings{"run"}));
}

size_t ReferenceLcs(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = a[i - 1] == b[j - 1] ? d[i - 1][j - 1] + 1 : std::max(d[i - 1][j], d[i][j - 1]);
    }
  }
  return d[a.size()][b.size()];
}

// The bit-parallel LCS must equal the table, on lengths that cross the 64-token word boundaries
// (the carry between words) and on both small and large alphabets.
TEST(RougeTest, BitParallelLcsMatchesTheTable) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const unsigned alphabet = trial % 2 ? 3 : 40;
    std::vector<uint64_t> a(rng() % 300), b(rng() % 300);
    for (auto& t : a) t = rng() % alphabet * 0x9E3779B97F4A7C15ull;
    for (auto& t : b) t = rng() % alphabet * 0x9E3779B97F4A7C15ull;
    ASSERT_EQ(LcsLength(a, b), ReferenceLcs(a, b)) << a.size() << " x " << b.size();
  }
}

// The scorer's token hashes (stems cached by hash) must agree with the string tokens: scoring the
// stemmed texts unstemmed gives the same numbers.
TEST(RougeTest, CachedStemsAgreeWithTheStringTokens) {
  std::mt19937 rng(5);
  const Strings words = {"running", "runner", "runs", "The",    "cats", "cat's", "published",
                         "publish", "2019",   "Ran",  "easily", "easy", "gunmen"};
  auto text = [&] {
    std::string s;
    for (size_t i = rng() % 30; i > 0; --i) s += words[rng() % words.size()] + " ";
    return s;
  };
  auto joined = [](const Strings& tokens) {
    std::string s;
    for (const std::string& t : tokens) s += t + " ";
    return s;
  };
  for (int trial = 0; trial < 200; ++trial) {
    std::string a = text(), b = text();
    for (RougeType type : {RougeType::kRouge1, RougeType::kRouge2, RougeType::kRougeL}) {
      RougeScore cached = Rouge(a, b, type, true);
      RougeScore plain =
          Rouge(joined(RougeTokens(a, true)), joined(RougeTokens(b, true)), type, false);
      EXPECT_DOUBLE_EQ(cached.fmeasure, plain.fmeasure) << a << " / " << b;
      EXPECT_DOUBLE_EQ(cached.recall, plain.recall);
    }
  }
}

TEST(CutoffTest, KExpandsEveryCutoffMetricOnce) {
  auto specs = ExpandCutoffs(*ParseMetricSpecs("precision,mrr,ndcg@2"), {1, 3});
  auto metrics = CreateMetrics(specs);
  ASSERT_TRUE(metrics.has_value());
  std::vector<std::string> keys;
  for (const auto& m : *metrics) keys.push_back(m->key());
  EXPECT_EQ(keys, (Strings{"precision@1", "precision@3", "mrr", "ndcg@2"}));
}

TEST(CutoffTest, BadKIsRejected) {
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("precision@0")).has_value());
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("recall@x")).has_value());
  EXPECT_FALSE(CreateMetrics(*ParseMetricSpecs("mrr:k=3")).has_value());
}

// Property: every non-LLM metric lies in [0, 1] on random inputs.
TEST(NonLlmPropertyTest, EveryScoreLiesInTheUnitInterval) {
  std::mt19937 rng(7);
  const Strings words = {"the",  "cat",  "sat",   "on",  "mat", "Paris",
                         "café", "日本", "1,000", "3.5", ",",   "."};
  auto text = [&](size_t max_words) {
    std::string s;
    size_t n = rng() % (max_words + 1);
    for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + words[rng() % words.size()];
    return s;
  };
  auto metrics = CreateMetrics(ExpandCutoffs(
      *ParseMetricSpecs("hit_rate,precision,recall,mrr,average_precision,ndcg,r_precision,"
                        "non_llm_context_precision_with_reference,non_llm_context_recall,bleu,"
                        "rouge,rouge:type=rouge1,rouge:type=rouge2,chrf,chrf:word_order=2,"
                        "exact_match,string_presence,non_llm_string_similarity,"
                        "non_llm_string_similarity:distance=hamming,"
                        "non_llm_string_similarity:distance=jaro,"
                        "non_llm_string_similarity:distance=jaro_winkler"),
      {1, 2, 5}));
  ASSERT_TRUE(metrics.has_value());
  for (int trial = 0; trial < 300; ++trial) {
    Sample s;
    s.response = text(12);
    s.reference = trial % 5 == 0 ? *s.response : text(12);
    s.retrieved_contexts = Strings{text(6), text(6)};
    s.reference_contexts = Strings{text(6)};
    Strings ids, ref;
    for (int i = rng() % 6; i > 0; --i) ids.push_back("c" + std::to_string(rng() % 5));
    for (int i = rng() % 4; i > 0; --i) ref.push_back("c" + std::to_string(rng() % 5));
    s.retrieved_context_ids = ids;
    s.reference_context_ids = ref;
    for (const auto& m : *metrics) {
      MetricValue v = m->Score(s, Verdicts{});
      if (!v.value) continue;
      EXPECT_GE(*v.value, 0.0) << m->key();
      EXPECT_LE(*v.value, 1.0 + 1e-12)
          << m->key() << " on '" << *s.response << "' / '" << *s.reference << "'";
    }
  }
}

}  // namespace
}  // namespace tala::metrics

namespace tala::metrics {
namespace {

size_t ReferenceLevenshtein(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
    }
  }
  return d[a.size()][b.size()];
}

// Jaro by its definition, as rapidfuzz computes it: for each symbol of a, the first unmatched
// equal symbol of b in the window; transpositions are half the out-of-order matches, rounded
// down (rapidfuzz's integer division; the textbook keeps the half).
double ReferenceJaro(const std::vector<char32_t>& a, const std::vector<char32_t>& b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  const size_t window = std::max<size_t>(std::max(a.size(), b.size()) / 2, 1) - 1;
  std::vector<bool> a_match(a.size()), b_match(b.size());
  size_t matches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    size_t lo = i > window ? i - window : 0, hi = std::min(b.size(), i + window + 1);
    for (size_t j = lo; j < hi; ++j) {
      if (b_match[j] || a[i] != b[j]) continue;
      a_match[i] = b_match[j] = true;
      ++matches;
      break;
    }
  }
  if (matches == 0) return 0.0;
  size_t transpositions = 0, j = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a_match[i]) continue;
    while (!b_match[j]) ++j;
    transpositions += a[i] != b[j] ? 1 : 0;
    ++j;
  }
  double m = static_cast<double>(matches);
  return (m / a.size() + m / b.size() + (m - static_cast<double>(transpositions / 2)) / m) / 3.0;
}

// Random pairs that start equal and are then mutated, so scores span the whole range; lengths
// cross the 64-symbol block boundaries; the alphabet mixes ASCII and wider code points.
std::vector<std::pair<std::vector<char32_t>, std::vector<char32_t>>> RandomPairs(unsigned seed,
                                                                                 int count) {
  std::mt19937 rng(seed);
  const std::u32string alphabet = U"abcdeé日 ";
  std::vector<std::pair<std::vector<char32_t>, std::vector<char32_t>>> pairs;
  for (int trial = 0; trial < count; ++trial) {
    std::vector<char32_t> a(rng() % 200), b;
    for (auto& c : a) c = alphabet[rng() % alphabet.size()];
    b = a;
    for (int edits = rng() % 40; edits > 0; --edits) {
      size_t at = b.empty() ? 0 : rng() % b.size();
      switch (rng() % 3) {
        case 0:
          b.insert(b.begin() + at, alphabet[rng() % alphabet.size()]);
          break;
        case 1:
          if (!b.empty()) b.erase(b.begin() + at);
          break;
        default:
          if (!b.empty()) b[at] = alphabet[rng() % alphabet.size()];
      }
    }
    if (trial % 4 == 0) b.resize(rng() % 150, U'x');
    pairs.emplace_back(std::move(a), std::move(b));
  }
  return pairs;
}

std::string Utf8(const std::vector<char32_t>& cps) {
  std::string out;
  for (char32_t c : cps) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

// The bit-parallel Jaro must equal the textbook one, across block boundaries, and the UTF-8 entry
// point (bytes for ASCII, code points otherwise) must agree with the code-point one.
TEST(StringDistanceTest, BitParallelJaroMatchesTheTextbookJaro) {
  int i = 0;
  for (const auto& [a, b] : RandomPairs(13, 400)) {
    ASSERT_DOUBLE_EQ(JaroSimilarity(a, b), ReferenceJaro(a, b)) << "trial " << i;
    ASSERT_DOUBLE_EQ(JaroSimilarity(b, a), ReferenceJaro(b, a)) << "trial " << i;
    for (Distance d :
         {Distance::kLevenshtein, Distance::kHamming, Distance::kJaro, Distance::kJaroWinkler}) {
      ASSERT_DOUBLE_EQ(StringSimilarity(Utf8(a), Utf8(b), d), StringSimilarity(a, b, d))
          << "trial " << i;
    }
    ++i;
  }
}

// ASCII-only pairs take the byte path; it must agree with the textbook algorithms too.
TEST(StringDistanceTest, AsciiPathMatchesTheTextbookAlgorithms) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 300; ++trial) {
    std::string a, b;
    for (size_t n = rng() % 300; n > 0; --n) a += "abc d"[rng() % 5];
    b = a;
    for (int edits = rng() % 60; edits > 0 && !b.empty(); --edits)
      b[rng() % b.size()] = "xyz a"[rng() % 5];
    if (trial % 3 == 0) b = b.substr(rng() % (b.size() + 1));
    auto ca = CodePoints(a), cb = CodePoints(b);
    double longest =
        std::max<double>({1.0, static_cast<double>(ca.size()), static_cast<double>(cb.size())});
    ASSERT_DOUBLE_EQ(StringSimilarity(a, b, Distance::kLevenshtein),
                     ca.empty() && cb.empty() ? 1.0 : 1.0 - ReferenceLevenshtein(ca, cb) / longest)
        << "trial " << trial;
    ASSERT_DOUBLE_EQ(StringSimilarity(a, b, Distance::kJaro), ReferenceJaro(ca, cb))
        << "trial " << trial;
  }
}

// The bit-parallel distance must equal the textbook dynamic programme, across block boundaries.
TEST(StringDistanceTest, BitParallelLevenshteinMatchesTheDynamicProgramme) {
  int trial = 0;
  for (const auto& [a, b] : RandomPairs(11, 400)) {
    ASSERT_EQ(LevenshteinDistance(a, b), ReferenceLevenshtein(a, b)) << "trial " << trial;
    ++trial;
  }
}

// Both Levenshtein kernels (the scalar bit-parallel one and the skewed AVX-512 one, where this
// CPU has it) must equal the dynamic programme, on bytes and on code points, for patterns of one
// to eleven 64-symbol blocks: 65..512 take the AVX-512 kernel, longer ones fall back to scalar.
// NUL bytes are in the alphabet because the kernel pads its last block with zeros.
TEST(StringDistanceTest, LevenshteinKernelsMatchTheDynamicProgramme) {
  if (!HasAvx512Levenshtein())
    std::cout << "note: no AVX-512 here; kAvx512 runs the scalar kernel\n";
  std::mt19937 rng(23);
  const std::string bytes("ab c\0d", 6);
  const std::u32string wide = U"ab é日\0x";
  const size_t lengths[] = {0, 1, 63, 64, 65, 127, 128, 129, 300, 511, 512, 513, 700};
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = lengths[rng() % std::size(lengths)];
    std::vector<char32_t> a(n);
    const bool use_bytes = trial % 2 == 0;
    for (auto& c : a)
      c = use_bytes ? static_cast<unsigned char>(bytes[rng() % bytes.size()])
                    : wide[rng() % wide.size()];
    std::vector<char32_t> b = a;
    for (int edits = rng() % 120; edits > 0 && !b.empty(); --edits) {
      const size_t at = rng() % b.size();
      const char32_t c = use_bytes ? static_cast<unsigned char>(bytes[rng() % bytes.size()])
                                   : wide[rng() % wide.size()];
      switch (rng() % 3) {
        case 0:
          b.insert(b.begin() + at, c);
          break;
        case 1:
          b.erase(b.begin() + at);
          break;
        default:
          b[at] = c;
      }
    }
    if (trial % 5 == 0) b.resize(rng() % 600, use_bytes ? U'c' : U'日');
    const size_t expected = ReferenceLevenshtein(a, b);
    for (LevenshteinKernel kernel : {LevenshteinKernel::kScalar, LevenshteinKernel::kAvx512}) {
      ASSERT_EQ(LevenshteinDistance(a, b, kernel), expected)
          << "trial " << trial << ", kernel " << static_cast<int>(kernel);
      ASSERT_EQ(LevenshteinDistance(b, a, kernel), expected) << "trial " << trial;
      ASSERT_EQ(LevenshteinDistance(Utf8(a), Utf8(b), kernel), expected) << "trial " << trial;
    }
    ASSERT_DOUBLE_EQ(JaroSimilarity(a, b), ReferenceJaro(a, b)) << "trial " << trial;
  }
}

// The AVX-512 kernel runs the first half of the text forward and the second half backward, then
// joins the two at the middle column, at whichever pattern row the best alignment crosses it.
// Here the pattern sits inside x + y filler symbols it does not contain, so the distance is
// exactly x + y (the length difference, a lower bound) and the alignment crosses the middle at
// row middle - x: as x grows, every row from m (pattern left of the middle) down to 0 (right of
// it) is the crossing.
TEST(StringDistanceTest, LevenshteinJoinsItsHalvesAtEveryRow) {
  std::mt19937 rng(5);
  for (const bool use_bytes : {true, false}) {
    const std::u32string letters = use_bytes ? U"acd" : U"aé日";
    const char32_t filler = use_bytes ? U'b' : U'ß';
    for (size_t m : {65, 100, 128, 129, 200, 300, 511, 512}) {
      std::vector<char32_t> pattern(m);
      for (auto& c : pattern) c = letters[rng() % letters.size()];
      const size_t y = rng() % 40;
      for (size_t x = 0; x <= m + y + 8; x += 1 + rng() % 9) {
        std::vector<char32_t> text(x, filler);
        text.insert(text.end(), pattern.begin(), pattern.end());
        text.insert(text.end(), y, filler);
        for (LevenshteinKernel kernel : {LevenshteinKernel::kScalar, LevenshteinKernel::kAvx512}) {
          ASSERT_EQ(LevenshteinDistance(text, pattern, kernel), x + y)
              << "m " << m << ", x " << x << ", y " << y << ", bytes " << use_bytes;
          ASSERT_EQ(LevenshteinDistance(Utf8(pattern), Utf8(text), kernel), x + y)
              << "m " << m << ", x " << x << ", y " << y << ", bytes " << use_bytes;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tala::metrics
