#include "io/writers/results_jsonl_writer.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "io/writers/json_text.h"
#include "io/writers/row_detail.h"

namespace tala::io {

std::string FormatResultLine(const RowResult& row) {
  std::string out = "{\"id\":";
  if (row.sample.id_is_number) {
    out += row.sample.id;
  } else {
    AppendJsonString(out, row.sample.id);
  }
  out += ",\"scores\":{";
  for (size_t i = 0; i < row.scores.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, row.scores[i].key);
    out += ':';
    const auto& v = row.scores[i].value.value;
    if (v && std::isfinite(*v)) {
      AppendJsonNumber(out, *v);
    } else {
      out += "null";
    }
  }
  out += "},\"reasons\":{";
  bool first = true;
  for (const RowScore& s : row.scores) {
    std::string reason = s.value.reason;
    if (s.value.value && !std::isfinite(*s.value.value)) reason = "non-finite value: " + reason;
    if (reason.empty()) continue;
    if (!first) out += ',';
    first = false;
    AppendJsonString(out, s.key);
    out += ':';
    AppendJsonString(out, reason);
  }
  out += '}';
  if (!row.diagnosis.empty()) {
    out += ",\"diagnosis\":";
    AppendJsonString(out, row.diagnosis);
  }
  if (!row.status.ok()) {
    out += ",\"error\":";
    AppendJsonString(out, row.status.ToString());
  }
  // Which nulls are judge failures, not undefined by the data: a merge or a resumed run counts
  // them as the run that scored them did.
  first = true;
  for (const RowScore& s : row.scores) {
    if (!s.failed) continue;
    out += first ? ",\"failed\":[" : ",";
    first = false;
    AppendJsonString(out, s.key);
  }
  if (!first) out += ']';
  if (row.verdicts != nullptr) AppendRowDetail(out, row.sample, *row.verdicts);
  out += ",\"metadata\":{";
  for (size_t i = 0; i < row.sample.metadata.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, row.sample.metadata[i].first);
    out += ':';
    out += row.sample.metadata[i].second;
  }
  out += "}}";
  return out;
}

Result<ResultsJsonlWriter> ResultsJsonlWriter::Open(const std::string& path, Mode mode) {
  if (path == "-") return ResultsJsonlWriter(stdout, false, path);
  std::FILE* f = std::fopen(path.c_str(), mode == Mode::kAppend ? "ab" : "wb");
  if (f == nullptr) return IoError("cannot write " + path + ": " + std::strerror(errno));
  return ResultsJsonlWriter(f, true, path);
}

ResultsJsonlWriter::ResultsJsonlWriter(std::FILE* f, bool owned, std::string path)
    : file_(f), owned_(owned), path_(std::move(path)) {}

ResultsJsonlWriter::ResultsJsonlWriter(ResultsJsonlWriter&& o) noexcept
    : file_(o.file_), owned_(o.owned_), path_(std::move(o.path_)) {
  o.file_ = nullptr;
  o.owned_ = false;
}

ResultsJsonlWriter::~ResultsJsonlWriter() {
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

Status ResultsJsonlWriter::Write(const RowResult& row) { return WriteLine(FormatResultLine(row)); }

Status ResultsJsonlWriter::WriteLine(const std::string& json) {
  line_ = json;
  line_.push_back('\n');
  if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size() ||
      std::fflush(file_) != 0) {
    return IoError("writing " + path_ + ": " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace tala::io
