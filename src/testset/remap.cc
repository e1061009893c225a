#include "testset/remap.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "io/readers/buffered_input.h"

namespace tala::testset {

namespace {

// A quote's place in the new chunking: one chunk, or the consecutive chunks it spans.
struct Place {
  std::vector<size_t> chunks;
};

// `text` with each run of whitespace as one space, and where each byte of the result came
// from in `text`.
std::string Collapsed(std::string_view text, std::vector<size_t>* from = nullptr) {
  std::string out;
  bool space = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      if (from != nullptr) from->push_back(i);
      space = false;
    }
    out += c;
    if (from != nullptr) from->push_back(i);
  }
  return out;
}

// The chunks of one document in file order, read as one text (each chunk's text after the
// last, joined by `glue`), whitespace collapsed: a quote cut by the new chunking is found whole
// in it, and the chunks its bytes came from are its place.
std::optional<Place> Spanning(const std::string& quote, const std::vector<size_t>& list,
                              const std::vector<Chunk>& chunks, std::string_view glue) {
  std::string joined;
  std::vector<size_t> owner;  // the chunk (index into list) of each byte of joined
  for (size_t k = 0; k < list.size(); ++k) {
    if (k > 0) {
      joined += glue;
      owner.insert(owner.end(), glue.size(), k - 1);
    }
    joined += chunks[list[k]].text;
    owner.insert(owner.end(), chunks[list[k]].text.size(), k);
  }
  std::vector<size_t> from;
  const std::string text = Collapsed(joined, &from);
  const std::string wanted = Collapsed(quote);
  if (wanted.empty()) return std::nullopt;
  const size_t at = text.find(wanted);
  if (at == std::string::npos) return std::nullopt;
  Place place;
  for (size_t k = owner[from[at]]; k <= owner[from[at + wanted.size() - 1]]; ++k) {
    place.chunks.push_back(list[k]);
  }
  return place;
}

// Where `quote` stands in `chunks`, `doc`'s chunks first: whole in one chunk, else across
// consecutive chunks of one document (cut at a space, or inside a word).
std::optional<Place> Find(const std::string& quote, const std::string& doc,
                          const std::vector<Chunk>& chunks,
                          const std::unordered_map<std::string, std::vector<size_t>>& by_source) {
  auto whole_in = [&](const std::vector<size_t>& among) -> std::optional<Place> {
    for (size_t c : among) {
      if (chunks[c].text.find(quote) != std::string::npos) return Place{{c}};
    }
    return std::nullopt;
  };
  auto it = by_source.find(doc);
  if (it != by_source.end()) {
    if (auto p = whole_in(it->second)) return p;
  }
  std::vector<size_t> all(chunks.size());
  for (size_t c = 0; c < chunks.size(); ++c) all[c] = c;
  if (auto p = whole_in(all)) return p;
  // Across chunks: the row's document first (metadata.doc names its first context's; a quote
  // may come from another), then every document.
  for (std::string_view glue : {std::string_view(" "), std::string_view("")}) {
    if (it != by_source.end()) {
      if (auto p = Spanning(quote, it->second, chunks, glue)) return p;
    }
    for (const auto& [source, list] : by_source) {
      if (source == doc) continue;
      if (auto p = Spanning(quote, list, chunks, glue)) return p;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<Remapped> RemapGolden(const std::string& golden_path, const std::vector<Chunk>& chunks) {
  std::unordered_map<std::string, std::vector<size_t>> by_source;
  for (size_t c = 0; c < chunks.size(); ++c) by_source[chunks[c].source].push_back(c);
  TALA_ASSIGN_OR_RETURN(io::BufferedInput in, io::BufferedInput::Open(golden_path));
  Remapped out;
  // A golden row is a question and its quotes: 64 MiB is far past any.
  constexpr size_t kMaxLine = size_t{64} << 20;
  while (true) {
    std::string_view view;
    const io::BufferedInput::LineStatus status = in.NextLine(&view, kMaxLine);
    if (status == io::BufferedInput::LineStatus::kEnd) break;
    const int64_t n = in.line_number();
    if (status == io::BufferedInput::LineStatus::kError) {
      return DataError({golden_path, n, 0, ""}, in.error());
    }
    if (status == io::BufferedInput::LineStatus::kTooLong) {
      return DataError({golden_path, n, 0, ""}, "a line longer than 64 MiB");
    }
    const std::string line(view);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::ordered_json row = nlohmann::ordered_json::parse(line, nullptr, false);
    if (!row.is_object()) return DataError({golden_path, n, 0, ""}, "not a JSON object");
    ++out.rows;
    const auto meta = row.find("metadata");
    const bool has_quotes = meta != row.end() && meta->is_object() && meta->contains("quotes") &&
                            (*meta)["quotes"].is_array() && !(*meta)["quotes"].empty();
    if (!has_quotes) {
      ++out.without_quotes;
      out.golden_jsonl += line + "\n";
      continue;
    }
    nlohmann::ordered_json& m = row["metadata"];
    const std::string doc = m.value("doc", "");
    const int64_t traffic = m.contains("log_ids") && m["log_ids"].is_array()
                                ? static_cast<int64_t>(m["log_ids"].size())
                                : 1;
    out.traffic += traffic;
    std::vector<std::string> ids;
    std::vector<std::string> lost;
    bool straddles = false;
    for (nlohmann::ordered_json& q : m["quotes"]) {
      if (!q.is_object() || !q.contains("text") || !q["text"].is_string()) {
        return DataError({golden_path, n, 0, "metadata.quotes"},
                         "each quote is an object with a \"text\"");
      }
      const std::string text = q["text"].get<std::string>();
      std::optional<Place> place = Find(text, doc, chunks, by_source);
      if (!place) {
        lost.push_back(text);
        continue;
      }
      straddles = straddles || place->chunks.size() > 1;
      q["context_id"] = chunks[place->chunks.front()].id;
      if (place->chunks.size() > 1) {
        q["context_ids"] = nlohmann::ordered_json::array();
        for (size_t c : place->chunks) q["context_ids"].push_back(chunks[c].id);
      } else {
        q.erase("context_ids");
      }
      for (size_t c : place->chunks) {
        if (std::find(ids.begin(), ids.end(), chunks[c].id) == ids.end()) {
          ids.push_back(chunks[c].id);
        }
      }
    }
    if (!lost.empty()) {
      out.lost.push_back({row.value("id", ""), row.value("user_input", ""), lost, traffic});
      out.lost_traffic += traffic;
      out.golden_jsonl += line + "\n";  // kept as it was: its evidence is for a person to find
      continue;
    }
    std::vector<std::string> before;
    if (row.contains("reference_context_ids") && row["reference_context_ids"].is_array()) {
      for (const auto& id : row["reference_context_ids"]) {
        if (id.is_string()) before.push_back(id.get<std::string>());
      }
    }
    out.changed += before != ids ? 1 : 0;
    row["reference_context_ids"] = ids;
    nlohmann::ordered_json contexts = nlohmann::ordered_json::array();
    for (const std::string& id : ids) {
      for (const Chunk& c : chunks) {
        if (c.id == id) {
          contexts.push_back(c.text);
          break;
        }
      }
    }
    row["reference_contexts"] = contexts;
    ++out.remapped;
    out.straddling += straddles ? 1 : 0;
    out.golden_jsonl += row.dump() + "\n";
  }
  return out;
}

}  // namespace tala::testset
