#pragma once
// A list of strings written as text, as pandas' CSV export writes list columns (Python's repr,
// ['chunk a', "chunk b"]) or as json.dumps writes them: read as that list by the CSV reader and
// by every field that takes an array of strings (a DataFrame read from such a CSV).

#include <optional>
#include <string>
#include <string_view>

namespace tala::io {

// A Python list of string literals as a JSON array, or nullopt when the text is anything else.
// Python's escapes (backslash, quotes, n, t, r, xNN, uNNNN) are understood.
std::optional<std::string> PythonStringList(std::string_view text);

// A JSON array of strings or a Python list of string literals, as a JSON array; nullopt for any
// other text (a list holding numbers, prose that opens with "[").
std::optional<std::string> ListWrittenAsText(std::string_view text);

}  // namespace tala::io
