#include "testset/realism.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "analysis/judge_agreement.h"
#include "core/text/stopwords.h"
#include "core/text/tokenize.h"
#include "testset/pick.h"

namespace tala::testset {

namespace {

// Logistic regression by gradient descent with a small L2 penalty, features standardised on the
// training rows.
struct Logistic {
  std::vector<double> mean, scale, w;
  double b = 0;

  void Fit(const std::vector<std::vector<double>>& x, const std::vector<int>& y) {
    const size_t d = x.front().size(), n = x.size();
    mean.assign(d, 0);
    scale.assign(d, 0);
    for (const auto& row : x) {
      for (size_t j = 0; j < d; ++j) mean[j] += row[j] / static_cast<double>(n);
    }
    for (const auto& row : x) {
      for (size_t j = 0; j < d; ++j) scale[j] += (row[j] - mean[j]) * (row[j] - mean[j]);
    }
    for (double& s : scale) s = std::sqrt(s / static_cast<double>(n)) + 1e-9;
    w.assign(d, 0);
    b = 0;
    for (int step = 0; step < 300; ++step) {
      std::vector<double> gw(d, 0);
      double gb = 0;
      for (size_t i = 0; i < n; ++i) {
        const double err = Predict(x[i]) - y[i];
        for (size_t j = 0; j < d; ++j) gw[j] += err * (x[i][j] - mean[j]) / scale[j];
        gb += err;
      }
      for (size_t j = 0; j < d; ++j) w[j] -= 0.5 * (gw[j] / static_cast<double>(n) + 0.01 * w[j]);
      b -= 0.5 * gb / static_cast<double>(n);
    }
  }
  double Predict(const std::vector<double>& row) const {
    double z = b;
    for (size_t j = 0; j < w.size(); ++j) z += w[j] * (row[j] - mean[j]) / scale[j];
    return 1 / (1 + std::exp(-z));
  }
};

}  // namespace

std::vector<std::vector<double>> StyleFeatures(const std::vector<std::string>& questions) {
  std::vector<std::vector<text::Token>> tokens;
  std::unordered_map<std::string, int> count;
  for (const std::string& q : questions) {
    tokens.push_back(text::Tokenize(q));
    for (const text::Token& t : tokens.back()) ++count[t.text];
  }
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < questions.size(); ++i) {
    const std::string& q = questions[i];
    const auto& ts = tokens[i];
    const double words = static_cast<double>(std::max<size_t>(1, ts.size()));
    double stop = 0, rare = 0, digits = 0, capitalised = 0, letters = 0, upper = 0, punct = 0;
    for (const text::Token& t : ts) {
      stop += text::IsStopWord(t.text) ? 1 : 0;
      rare += count[t.text] == 1 ? 1 : 0;
      digits += t.number ? 1 : 0;
      capitalised += t.capitalised ? 1 : 0;
    }
    for (char c : q) {
      const unsigned char u = static_cast<unsigned char>(c);
      letters += std::isalpha(u) ? 1 : 0;
      upper += std::isupper(u) ? 1 : 0;
      punct += std::ispunct(u) ? 1 : 0;
    }
    size_t end = q.find_last_not_of(" \t\r\n");
    const bool question_mark = end != std::string::npos && q[end] == '?';
    size_t start = q.find_first_not_of(" \t\r\n");
    const bool lower_start =
        start != std::string::npos && std::islower(static_cast<unsigned char>(q[start]));
    out.push_back({std::log1p(words), std::log1p(static_cast<double>(q.size())),
                   question_mark ? 1.0 : 0.0, lower_start ? 1.0 : 0.0, stop / words, rare / words,
                   digits / words, capitalised / words, upper / std::max(1.0, letters),
                   punct / std::max(1.0, static_cast<double>(q.size())),
                   static_cast<double>(std::count(q.begin(), q.end(), '?') > 1)});
  }
  return out;
}

std::optional<double> RealismAuroc(const std::vector<std::string>& set,
                                   const std::vector<std::string>& human, uint64_t seed) {
  if (set.size() < 5 || human.size() < 5) return std::nullopt;
  std::vector<std::string> all = set;
  all.insert(all.end(), human.begin(), human.end());
  const std::vector<std::vector<double>> x = StyleFeatures(all);
  std::vector<int> y(all.size(), 0);
  std::fill(y.begin(), y.begin() + static_cast<long>(set.size()), 1);
  // Seeded folds, each side spread evenly over them.
  std::vector<size_t> order(all.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (y[a] != y[b]) return y[a] > y[b];
    const double ua = SeededUniform(seed, std::to_string(a) + '\x1f' + all[a]);
    const double ub = SeededUniform(seed, std::to_string(b) + '\x1f' + all[b]);
    return ua != ub ? ua < ub : a < b;
  });
  constexpr int kFolds = 5;
  std::vector<int> fold(all.size());
  for (size_t k = 0; k < order.size(); ++k) fold[order[k]] = static_cast<int>(k % kFolds);
  std::vector<analysis::LabelledScore> scored;
  for (int f = 0; f < kFolds; ++f) {
    std::vector<std::vector<double>> train_x;
    std::vector<int> train_y;
    for (size_t i = 0; i < all.size(); ++i) {
      if (fold[i] != f) {
        train_x.push_back(x[i]);
        train_y.push_back(y[i]);
      }
    }
    Logistic model;
    model.Fit(train_x, train_y);
    for (size_t i = 0; i < all.size(); ++i) {
      if (fold[i] == f) scored.push_back({y[i] == 1, model.Predict(x[i]), ""});
    }
  }
  return analysis::Auroc(scored);
}

}  // namespace tala::testset
