#include "targets/golden_rows.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "fs/output_paths.h"
#include "targets/request_template.h"

namespace tala::targets {

using nlohmann::ordered_json;

std::string IdText(const ordered_json& id) {
  return id.is_string() ? id.get<std::string>() : id.dump();
}

Result<std::vector<GoldenRow>> ReadObjectRows(
    const std::string& path, const std::string& what,
    const std::function<Status(const ordered_json& row, int64_t line)>& check) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError("cannot read " + path);
  std::vector<GoldenRow> rows;
  std::map<std::string, int64_t> seen;
  std::string text;
  int64_t line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto error = [&](const std::string& field, const std::string& message) {
      return DataError({path, line, 0, field}, message);
    };
    ordered_json row = ordered_json::parse(text, nullptr, false);
    if (row.is_discarded()) return error("", "not valid JSON");
    if (!row.is_object()) return error("", "expected a JSON object (one " + what + " a line)");
    TALA_RETURN_IF_ERROR(check(row, line));
    GoldenRow g{std::to_string(line), std::move(row), line};
    if (auto id = g.row.find("id"); id != g.row.end()) {
      if (!id->is_string() && !id->is_number_integer()) {
        return error("id", "expected a string or an integer");
      }
      g.id = IdText(*id);
    } else {
      g.row["id"] = line;
    }
    if (auto [it, fresh] = seen.emplace(g.id, line); !fresh) {
      return error("id",
                   "duplicate id " + g.id + " (also on line " + std::to_string(it->second) + ")");
    }
    rows.push_back(std::move(g));
  }
  if (rows.empty()) return DataError({path, 0, 0, ""}, "the file has no " + what + "s");
  return rows;
}

Result<std::vector<GoldenRow>> ReadGolden(const std::string& path) {
  return ReadObjectRows(path, "golden row", [&](const ordered_json& row, int64_t line) -> Status {
    auto error = [&](const std::string& field, const std::string& what) {
      return DataError({path, line, 0, field}, what);
    };
    auto question = row.find("user_input");
    if (question == row.end()) return error("user_input", "missing: the question to ask");
    if (!question->is_string() && !question->is_array()) {
      return error("user_input", "expected a string or a list of messages");
    }
    if (auto given = row.find(kGivenContexts); given != row.end()) {
      bool texts = given->is_array();
      for (size_t i = 0; texts && i < given->size(); ++i) texts = (*given)[i].is_string();
      if (!texts)
        return error(kGivenContexts, "expected a list of strings (the passages to answer from)");
    }
    return OkStatus();
  });
}

Result<std::set<std::string>> KeepAnsweredRows(const std::string& path,
                                               const std::vector<GoldenRow>& golden) {
  std::set<std::string> wanted, kept;
  for (const GoldenRow& g : golden) wanted.insert(g.id);
  TALA_RETURN_IF_ERROR(fs::CheckRenamedIntoPlace({"--out", path}));
  std::ifstream in(path, std::ios::binary);
  if (!in) return kept;  // nothing to resume from
  std::string keep, text;
  while (std::getline(in, text)) {
    ordered_json row = ordered_json::parse(text, nullptr, false);
    if (!row.is_object() || !row.contains("id") || !row.contains("response") ||
        row.contains("target_error")) {
      continue;
    }
    std::string id = IdText(row["id"]);
    if (!wanted.count(id) || !kept.insert(id).second) continue;
    keep += text + "\n";
  }
  in.close();
  // Written beside and renamed, so a crash now leaves the old file or the new one, never half.
  std::string tmp = path + ".resume-tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << keep;
    out.close();
    if (!out) return IoError("cannot write " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return IoError("cannot replace " + path + ": " + ec.message());
  return kept;
}

}  // namespace tala::targets
