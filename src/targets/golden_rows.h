#pragma once
// The golden file of `tala run`: JSON Lines, one question a row (user_input, optional id,
// reference, reference_context_ids and any other fields, carried over verbatim). Every row is
// checked before the target is called. Pure apart from reading the file.

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::targets {

// A row's id as text: a string as it is, a number as written ("7").
std::string IdText(const nlohmann::ordered_json& id);

struct GoldenRow {
  std::string id;              // as text; a row without one gets its line number
  nlohmann::ordered_json row;  // the row's fields in their order, "id" always present
  int64_t line = 0;
};

// kDataError naming file, line and field: not JSON, not an object, no user_input (a string or a
// list of messages), a duplicate id. kIoError when the file cannot be read.
Result<std::vector<GoldenRow>> ReadGolden(const std::string& path);

// The rows of a JSON Lines file of `what`s ("golden row", "scenario"), each a JSON object with
// an optional id (a string or an integer; a row without one gets its line number; ids unique),
// handed to `check` (which returns the row's error, naming its field) before it is kept.
// kDataError naming file, line and field; kIoError when the file cannot be read; an empty file
// is an error.
Result<std::vector<GoldenRow>> ReadObjectRows(
    const std::string& path, const std::string& what,
    const std::function<Status(const nlohmann::ordered_json& row, int64_t line)>& check);

// Ids of the rows of an earlier `tala run` output (`path`) that the target answered, for
// --resume. Rewrites `path` to hold just those rows (a row cut short by a crash, a row that
// failed, or a row no longer in `golden` is dropped, to be called again).
Result<std::set<std::string>> KeepAnsweredRows(const std::string& path,
                                               const std::vector<GoldenRow>& golden);

}  // namespace tala::targets
