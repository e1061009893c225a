#include "metrics/data_compare.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <optional>

namespace tala::metrics {

namespace {

struct Table {
  std::vector<std::string> columns;            // lower-cased names
  std::vector<std::vector<std::string>> rows;  // each padded or cut to the header's width
};

// RFC 4180 records; nullopt for an unterminated quote.
std::optional<std::vector<std::vector<std::string>>> Records(std::string_view text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, field_started = false;
  auto end_record = [&] {
    if (field_started || !record.empty()) {
      record.push_back(std::move(field));
      out.push_back(std::move(record));
    }
    record.clear();
    field.clear();
    field_started = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = field_started = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      field_started = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) return std::nullopt;
  end_record();
  return out;
}

std::optional<Table> ParseTable(std::string_view text) {
  auto records = Records(text);
  if (!records || records->empty()) return std::nullopt;
  Table t;
  for (std::string name : records->front()) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    t.columns.push_back(std::move(name));
  }
  for (size_t r = 1; r < records->size(); ++r) {
    (*records)[r].resize(t.columns.size());
    t.rows.push_back(std::move((*records)[r]));
  }
  return t;
}

std::optional<double> Number(const std::string& s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  if (b == std::string::npos) return std::nullopt;
  double v = 0;
  const char* first = s.data() + b + (s[b] == '+' ? 1 : 0);
  auto [end, ec] = std::from_chars(first, s.data() + e + 1, v);
  if (ec != std::errc() || end != s.data() + e + 1) return std::nullopt;
  return v;
}

bool Equal(const std::string& a, const std::string& b) {
  if (a == b) return true;
  auto x = Number(a), y = Number(b);
  return x && y && *x == *y;
}

class DataCompare : public MetricBase {
 public:
  DataCompare(MetricOptions options, bool by_rows, std::string metric)
      : MetricBase(DataCompareInfo(), std::move(options)),
        by_rows_(by_rows),
        metric_(std::move(metric)) {}

  MetricValue Score(const Sample& s, const Verdicts&) const override {
    auto reference = ParseTable(*s.reference);
    auto response = ParseTable(*s.response);
    if (!reference) return MetricValue::Undefined("the reference is not CSV with a header");
    if (!response) return MetricValue::Undefined("the response is not CSV with a header");
    // Common columns: (reference index, response index).
    std::vector<std::pair<size_t, size_t>> common;
    for (size_t i = 0; i < reference->columns.size(); ++i) {
      auto it =
          std::find(response->columns.begin(), response->columns.end(), reference->columns[i]);
      if (it != response->columns.end()) common.emplace_back(i, it - response->columns.begin());
    }
    const size_t paired = std::min(reference->rows.size(), response->rows.size());
    size_t matched = 0, ref_total, resp_total;
    const char* what;
    if (by_rows_) {
      // Without a column in common no row can be said to match.
      for (size_t r = 0; r < paired && !common.empty(); ++r) {
        bool all = true;
        for (auto [i, j] : common) all = all && Equal(reference->rows[r][i], response->rows[r][j]);
        matched += all ? 1 : 0;
      }
      ref_total = reference->rows.size();
      resp_total = response->rows.size();
      what = "rows";
    } else {
      for (auto [i, j] : common) {
        bool all = true;
        for (size_t r = 0; r < paired; ++r) {
          all = all && Equal(reference->rows[r][i], response->rows[r][j]);
        }
        matched += all ? 1 : 0;
      }
      ref_total = reference->columns.size();
      resp_total = response->columns.size();
      what = "columns";
    }
    char why[128];
    std::snprintf(why, sizeof why, "%zu matching %s; %zu in the reference, %zu in the response",
                  matched, what, ref_total, resp_total);
    // A side with nothing to count, and an F1 with P + R = 0, score 0 (Ragas' current
    // DataCompyScore): a result that matches nothing must pull the mean down, not drop out of it.
    double p = resp_total ? static_cast<double>(matched) / resp_total : 0;
    double r = ref_total ? static_cast<double>(matched) / ref_total : 0;
    if (metric_ == "precision") return MetricValue::Number(p, why);
    if (metric_ == "recall") return MetricValue::Number(r, why);
    if (p + r == 0) return MetricValue::Number(0.0, why);
    return MetricValue::Number(2 * p * r / (p + r), why);
  }

 private:
  bool by_rows_;
  std::string metric_;
};

}  // namespace

const MetricInfo& DataCompareInfo() {
  static const MetricInfo kInfo{
      .name = "data_compare",
      .aliases = {"data_compare_score"},
      .required_fields = Field::kResponse | Field::kReference,
      .summary =
          "two query results as CSV (response vs reference) compared cell by cell: "
          "precision, recall or F1 of matching rows (mode=rows) or columns "
          "(mode=columns)",
      .by_default = false,
      .version = "2",  // 2: nothing to compare and no match score 0 (Ragas), not undefined
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeDataCompare(const MetricOptions& options) {
  const std::string& name = DataCompareInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, options, {"mode", "metric"}));
  std::string mode = options.count("mode") ? options.at("mode") : "rows";
  std::string metric = options.count("metric") ? options.at("metric") : "f1";
  if (mode != "rows" && mode != "columns") {
    return InvalidArgument("metric " + name + ": mode must be rows or columns, not " + mode);
  }
  if (metric != "precision" && metric != "recall" && metric != "f1") {
    return InvalidArgument("metric " + name + ": metric must be precision, recall or f1, not " +
                           metric);
  }
  return std::unique_ptr<Metric>(new DataCompare(options, mode == "rows", metric));
}

}  // namespace tala::metrics
