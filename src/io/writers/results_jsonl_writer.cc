#include "io/writers/results_jsonl_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "fs/file_lock.h"
#include "io/writers/json_text.h"
#include "io/writers/row_detail.h"

namespace tala::io {

namespace {

void AppendScores(std::string& out, const std::vector<RowScore>& scores) {
  out += "\"scores\":{";
  for (size_t i = 0; i < scores.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, scores[i].key);
    out += ':';
    const auto& v = scores[i].value.value;
    if (v && std::isfinite(*v)) {
      AppendJsonNumber(out, *v);
    } else {
      out += "null";
    }
  }
  out += "},\"reasons\":{";
  bool first = true;
  for (const RowScore& s : scores) {
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
}

// ,"first_failing_turn":N,"turns":[{"turn","message","question","response","scores",
// "reasons","diagnosis"}...]
void AppendTurns(std::string& out, const RowResult& row) {
  if (row.first_failing_turn > 0) {
    out += ",\"first_failing_turn\":" + std::to_string(row.first_failing_turn);
  }
  out += ",\"turns\":[";
  for (size_t i = 0; i < row.turns->size(); ++i) {
    const TurnResult& t = (*row.turns)[i];
    if (i > 0) out += ',';
    out += "{\"turn\":" + std::to_string(t.turn) + ",\"message\":" + std::to_string(t.message) +
           ",\"question\":";
    AppendJsonString(out, t.question);
    out += ",\"response\":";
    AppendJsonString(out, t.response);
    out += ',';
    AppendScores(out, t.scores);
    if (!t.diagnosis.empty()) {
      out += ",\"diagnosis\":";
      AppendJsonString(out, t.diagnosis);
    }
    out += '}';
  }
  out += ']';
}

}  // namespace

std::string FormatResultLine(const RowResult& row) {
  std::string out = "{\"id\":";
  if (row.sample.id_is_number) {
    out += row.sample.id;
  } else {
    AppendJsonString(out, row.sample.id);
  }
  out += ',';
  AppendScores(out, row.scores);
  if (!row.diagnosis.empty()) {
    out += ",\"diagnosis\":";
    AppendJsonString(out, row.diagnosis);
  }
  if (row.turns != nullptr) AppendTurns(out, row);
  if (!row.status.ok()) {
    out += ",\"error\":";
    AppendJsonString(out, row.status.ToString());
  }
  // Which nulls are judge failures, not undefined by the data: a merge or a resumed run counts
  // them as the run that scored them did.
  bool first = true;
  for (const RowScore& s : row.scores) {
    if (!s.failed) continue;
    out += first ? ",\"failed\":[" : ",";
    first = false;
    AppendJsonString(out, s.key);
  }
  if (!first) out += ']';
  if (row.verdicts != nullptr) AppendRowDetail(out, row.sample, *row.verdicts);
  // What --resume checks a kept row against, and what compare pairs id-less rows by.
  out += ",\"digests\":{\"inputs\":\"" + InputDigest(row.sample) + "\",\"question\":\"" +
         QuestionDigest(row.sample) + "\"}";
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

Result<ResultsJsonlWriter> ResultsJsonlWriter::Open(const std::string& path, Mode mode,
                                                    int64_t keep_bytes, bool needs_newline) {
  if (path == "-") return ResultsJsonlWriter(STDOUT_FILENO, false, path, 0);
  // Opened without truncating: the lock is taken first, so a second writer never empties the
  // file the first one is writing.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return IoError("cannot write " + path + ": " + std::strerror(errno));
  if (Status s = fs::LockExclusive(fd, path); !s.ok()) {
    ::close(fd);
    return s;
  }
  struct stat st;
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  int64_t size = regular ? static_cast<int64_t>(st.st_size) : 0;
  if (mode == Mode::kTruncate) size = 0;
  if (mode == Mode::kAppend && keep_bytes >= 0 && keep_bytes < size) size = keep_bytes;
  // A device or a pipe (-o /dev/null) is written as it is; only a file is cut and positioned.
  if (regular && (::ftruncate(fd, size) != 0 || ::lseek(fd, size, SEEK_SET) < 0)) {
    Status s = IoError("cannot write " + path + ": " + std::strerror(errno));
    ::close(fd);
    return s;
  }
  ResultsJsonlWriter writer(fd, true, path, size);
  writer.regular_ = regular;
  if (mode == Mode::kAppend && needs_newline && size > 0) TALA_RETURN_IF_ERROR(writer.Raw("\n"));
  return writer;
}

ResultsJsonlWriter::ResultsJsonlWriter(int fd, bool owned, std::string path, int64_t size)
    : fd_(fd), owned_(owned), path_(std::move(path)), size_(size) {}

ResultsJsonlWriter::ResultsJsonlWriter(ResultsJsonlWriter&& o) noexcept
    : fd_(o.fd_),
      owned_(o.owned_),
      regular_(o.regular_),
      path_(std::move(o.path_)),
      size_(o.size_) {
  o.fd_ = -1;
  o.owned_ = false;
}

ResultsJsonlWriter::~ResultsJsonlWriter() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

Status ResultsJsonlWriter::Write(const RowResult& row) { return WriteLine(FormatResultLine(row)); }

Status ResultsJsonlWriter::WriteLine(const std::string& json) {
  line_ = json;
  line_.push_back('\n');
  return Raw(line_);
}

Status ResultsJsonlWriter::Raw(std::string_view text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      // Never leave half a row: cut the file back to its last whole line (stdout cannot be).
      if (regular_ && done > 0) {
        if (::ftruncate(fd_, size_) == 0) ::lseek(fd_, size_, SEEK_SET);
      }
      return IoError("writing " + path_ + ": " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  size_ += static_cast<int64_t>(text.size());
  return OkStatus();
}

}  // namespace tala::io
