#include "metrics/metric_base.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace tala::metrics {

MetricBase::MetricBase(const MetricInfo& info, MetricOptions options)
    : info_(info), options_(std::move(options)), key_(info.name) {
  if (options_.empty()) return;
  key_ += "(";
  bool first = true;
  for (const auto& [k, v] : options_) {
    key_ += (first ? "" : ",") + k + "=" + v;
    first = false;
  }
  key_ += ")";
}

QuestionMetric::QuestionMetric(const MetricInfo& info, MetricOptions options,
                               JudgeQuestion question, std::string key)
    : MetricBase(info, std::move(options)), question_(std::move(question)) {
  if (!key.empty()) set_key(std::move(key));
}

Result<std::string> RequiredOption(const std::string& metric, const MetricOptions& options,
                                   const char* name) {
  auto it = options.find(name);
  if (it == options.end() || it->second.find_first_not_of(" \t") == std::string::npos) {
    return InvalidArgument("metric " + metric + " needs the option " + name + "=...");
  }
  return it->second;
}

std::string KeyOf(const std::string& metric, const MetricOptions& options,
                  std::initializer_list<const char*> identity) {
  std::string key = metric, inner;
  for (const auto& [k, v] : options) {
    bool keep = false;
    for (const char* id : identity) keep = keep || k == id;
    if (keep) inner += (inner.empty() ? "" : ",") + k + "=" + v;
  }
  return inner.empty() ? key : key + "(" + inner + ")";
}

std::string Short(double v) {
  char buf[48];
  char* end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 4).ptr;
  std::string s(buf, end);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Status CheckOptionNames(const std::string& metric, const MetricOptions& options,
                        std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : options) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      return InvalidArgument("metric " + metric + " has no option \"" + k + "\"" +
                             (list.empty() ? " (it takes none)" : "; options: " + list));
    }
  }
  return OkStatus();
}

Result<double> NumberOption(const std::string& metric, const MetricOptions& options,
                            const char* name, double fallback, double lo, double hi) {
  auto it = options.find(name);
  if (it == options.end()) return fallback;
  double v = 0;
  const std::string& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi) {
    return InvalidArgument("metric " + metric + ": option " + name + "=" + s +
                           " must be a number in [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
  }
  return v;
}

std::string Ratio(size_t part, size_t whole, const char* what) {
  char buf[128];
  char* p = std::to_chars(buf, buf + 20, part).ptr;
  std::memcpy(p, " of ", 4);
  p = std::to_chars(p + 4, p + 24, whole).ptr;
  *p++ = ' ';
  size_t n = std::min(std::strlen(what), sizeof buf - (p - buf));
  std::memcpy(p, what, n);
  return std::string(buf, p + n);
}

std::string Fixed4(const char* label, double v) {
  char buf[96];
  size_t n = std::min(std::strlen(label), size_t{60});
  std::memcpy(buf, label, n);
  buf[n++] = ' ';
  char* end = std::to_chars(buf + n, buf + sizeof buf, v, std::chars_format::fixed, 4).ptr;
  return std::string(buf, end);
}

double AveragePrecision(const std::vector<bool>& relevant) {
  double sum = 0;
  size_t hits = 0;
  for (size_t rank = 1; rank <= relevant.size(); ++rank) {
    if (!relevant[rank - 1]) continue;
    ++hits;
    sum += static_cast<double>(hits) / static_cast<double>(rank);
  }
  return hits == 0 ? 0.0 : sum / static_cast<double>(hits);
}

}  // namespace tala::metrics
