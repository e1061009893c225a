#include "engine/kept_rows.h"

#include <algorithm>
#include <cstring>

#include "analysis/diagnosis.h"

namespace tala {

namespace {

// The binary form: this line, a byte-order mark, the counts, then each array whole.
constexpr std::string_view kMagic = "tala kept rows 1\n";
constexpr uint32_t kByteOrder = 0x01020304;

template <typename T>
void Put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

template <typename T>
void PutAll(std::string& out, const std::vector<T>& values) {
  if (values.empty()) return;  // data() may be null
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

void PutText(std::string& out, const std::string& text) {
  Put(out, static_cast<uint32_t>(text.size()));
  out += text;
}

// Reads the binary form front to back; any read past its end leaves it failed.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  template <typename T>
  bool Get(T& value) {
    if (rest_.size() < sizeof(T)) return false;
    std::memcpy(&value, rest_.data(), sizeof(T));
    rest_.remove_prefix(sizeof(T));
    return true;
  }
  template <typename T>
  bool GetAll(std::vector<T>& values, uint64_t count) {
    if (count > rest_.size() / sizeof(T)) return false;
    values.resize(count);
    if (count > 0) std::memcpy(values.data(), rest_.data(), count * sizeof(T));
    rest_.remove_prefix(count * sizeof(T));
    return true;
  }
  bool GetText(std::string& text) {
    uint32_t size = 0;
    if (!Get(size) || size > rest_.size()) return false;
    text.assign(rest_.data(), size);
    rest_.remove_prefix(size);
    return true;
  }
  bool Skip(std::string_view expected) {
    if (!rest_.starts_with(expected)) return false;
    rest_.remove_prefix(expected.size());
    return true;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

}  // namespace

std::vector<std::string> MetricKeys(const std::vector<MetricSummary>& metrics) {
  std::vector<std::string> keys;
  keys.reserve(metrics.size());
  for (const MetricSummary& m : metrics) keys.push_back(m.key);
  return keys;
}

bool BlamesAStage(int diagnosis) {
  const auto& all = analysis::AllDiagnoses();
  return diagnosis >= 0 && static_cast<size_t>(diagnosis) < all.size() &&
         !analysis::DecidingMetric(all[diagnosis]).empty();
}

KeptRows::KeptRows(std::vector<std::string> keys) : keys_(std::move(keys)) {}

void KeptRows::Add(const std::vector<Score>& scores, int diagnosis, bool failed, Text text) {
  for (const Score& s : scores) {
    values_.push_back(s.cell == Cell::kScored ? s.value : 0);
    cells_.push_back(s.cell);
  }
  diagnosis_.push_back(static_cast<int8_t>(diagnosis));
  failed_.push_back(failed ? 1 : 0);
  if (failed || BlamesAStage(diagnosis)) {
    text_.push_back(static_cast<uint32_t>(texts_.size()));
    texts_.push_back(std::move(text));
  } else {
    text_.push_back(kNoText);
  }
}

void KeptRows::Add(const io::ResultRow& row) {
  std::vector<Score> scores;
  scores.reserve(keys_.size());
  for (const std::string& key : keys_) {
    auto it = row.scores.find(key);
    if (it != row.scores.end() && it->second) {
      scores.push_back({Cell::kScored, *it->second});
    } else {
      scores.push_back({std::find(row.failed.begin(), row.failed.end(), key) != row.failed.end()
                            ? Cell::kFailed
                            : Cell::kUndefined,
                        0});
    }
  }
  int diagnosis = -1;
  const auto& all = analysis::AllDiagnoses();
  for (size_t d = 0; d < all.size(); ++d) {
    if (analysis::DiagnosisName(all[d]) == row.diagnosis) diagnosis = static_cast<int>(d);
  }
  Add(scores, diagnosis, row.has_failures(),
      {row.id, row.question, row.diagnosis_reason, row.failure_reason});
}

std::string KeptRows::Encode() const {
  std::string out(kMagic);
  Put(out, kByteOrder);
  Put(out, static_cast<uint32_t>(keys_.size()));
  Put(out, static_cast<uint64_t>(size()));
  Put(out, static_cast<uint64_t>(texts_.size()));
  PutAll(out, values_);
  PutAll(out, cells_);
  PutAll(out, diagnosis_);
  PutAll(out, failed_);
  PutAll(out, text_);
  for (const Text& t : texts_) {
    PutText(out, t.id);
    PutText(out, t.question);
    PutText(out, t.diagnosis_reason);
    PutText(out, t.failure_reason);
  }
  return out;
}

Result<KeptRows> KeptRows::Decode(std::string_view bytes, std::vector<std::string> keys,
                                  const std::string& path) {
  auto bad = [&](const std::string& why) {
    return DataError({path, 0, 0, ""}, why + "; delete it and tala merge reads the rows instead");
  };
  Reader in(bytes);
  if (!in.Skip(kMagic)) return bad("not kept rows of this tala version");
  uint32_t order = 0, metrics = 0;
  uint64_t rows = 0, texts = 0;
  if (!in.Get(order) || order != kByteOrder) return bad("written with another byte order");
  if (!in.Get(metrics) || !in.Get(rows) || !in.Get(texts)) return bad("cut short");
  if (metrics != keys.size()) return bad("kept for other metrics");
  KeptRows out(std::move(keys));
  if (rows > bytes.size() || texts > rows) return bad("its counts do not fit its size");
  if (!in.GetAll(out.values_, rows * metrics) || !in.GetAll(out.cells_, rows * metrics) ||
      !in.GetAll(out.diagnosis_, rows) || !in.GetAll(out.failed_, rows) ||
      !in.GetAll(out.text_, rows)) {
    return bad("cut short");
  }
  out.texts_.resize(texts);
  for (Text& t : out.texts_) {
    if (!in.GetText(t.id) || !in.GetText(t.question) || !in.GetText(t.diagnosis_reason) ||
        !in.GetText(t.failure_reason)) {
      return bad("cut short");
    }
  }
  if (!in.done()) return bad("longer than its counts");
  const auto diagnoses = static_cast<int>(analysis::AllDiagnoses().size());
  for (Cell c : out.cells_) {
    if (c != Cell::kScored && c != Cell::kFailed && c != Cell::kUndefined) {
      return bad("holds an unknown cell");
    }
  }
  for (int8_t d : out.diagnosis_) {
    if (d < -1 || d >= diagnoses) return bad("holds an unknown diagnosis");
  }
  for (uint32_t t : out.text_) {
    if (t != kNoText && t >= texts) return bad("points past its texts");
  }
  return out;
}

}  // namespace tala
