#include "testset/remap.h"

#include <algorithm>
#include <map>
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
// last, joined by a glue), whitespace collapsed: a quote cut by the new chunking is found whole
// in it, and the chunks its bytes came from are its place.
struct JoinedDocument {
  std::string text;           // collapsed
  std::vector<size_t> owner;  // each byte of `text`: its chunk's position in the document
};

JoinedDocument Join(const std::vector<size_t>& list, const std::vector<Chunk>& chunks,
                    std::string_view glue) {
  std::string joined;
  std::vector<size_t> owner;  // each byte of joined: its chunk's position in `list`
  for (size_t k = 0; k < list.size(); ++k) {
    if (k > 0) {
      joined += glue;
      owner.insert(owner.end(), glue.size(), k - 1);
    }
    joined += chunks[list[k]].text;
    owner.insert(owner.end(), chunks[list[k]].text.size(), k);
  }
  std::vector<size_t> from;
  JoinedDocument out;
  out.text = Collapsed(joined, &from);
  out.owner.reserve(from.size());
  for (size_t at : from) out.owner.push_back(owner[at]);
  return out;
}

// Finds quotes in a chunking: whole in one chunk, else across consecutive chunks of one
// document. Each document is joined once, when a quote first needs it.
class QuoteFinder {
 public:
  explicit QuoteFinder(const std::vector<Chunk>& chunks) : chunks_(chunks) {
    for (size_t c = 0; c < chunks.size(); ++c) by_source_[chunks[c].source].push_back(c);
  }

  // Where `quote` stands, `doc`'s chunks first (metadata.doc names the row's first context's
  // document; a quote may come from another).
  std::optional<Place> Find(const std::string& quote, const std::string& doc) {
    auto it = by_source_.find(doc);
    if (it != by_source_.end()) {
      for (size_t c : it->second) {
        if (chunks_[c].text.find(quote) != std::string::npos) return Place{{c}};
      }
    }
    for (size_t c = 0; c < chunks_.size(); ++c) {
      if (chunks_[c].text.find(quote) != std::string::npos) return Place{{c}};
    }
    // Across chunks, cut at a space (glue " ") or inside a word (glue "").
    const std::string wanted = Collapsed(quote);
    if (wanted.empty()) return std::nullopt;
    for (std::string_view glue : {std::string_view(" "), std::string_view("")}) {
      if (it != by_source_.end()) {
        if (auto p = Spanning(wanted, it->first, glue)) return p;
      }
      for (const auto& [source, list] : by_source_) {
        if (source == doc) continue;
        if (auto p = Spanning(wanted, source, glue)) return p;
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<Place> Spanning(const std::string& wanted, const std::string& source,
                                std::string_view glue) {
    auto key = std::make_pair(source, std::string(glue));
    auto joined = joined_.find(key);
    if (joined == joined_.end()) {
      joined = joined_.emplace(key, Join(by_source_.at(source), chunks_, glue)).first;
    }
    const JoinedDocument& d = joined->second;
    const size_t at = d.text.find(wanted);
    if (at == std::string::npos) return std::nullopt;
    // The chunks from the first byte's to the last byte's, in file order.
    const std::vector<size_t>& list = by_source_.at(source);
    return Place{
        std::vector<size_t>(list.begin() + static_cast<long>(d.owner[at]),
                            list.begin() + static_cast<long>(d.owner[at + wanted.size() - 1]) + 1)};
  }

  const std::vector<Chunk>& chunks_;
  std::unordered_map<std::string, std::vector<size_t>> by_source_;
  std::map<std::pair<std::string, std::string>, JoinedDocument> joined_;
};

}  // namespace

Result<Remapped> RemapGolden(const std::string& golden_path, const std::vector<Chunk>& chunks) {
  QuoteFinder finder(chunks);
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
    std::vector<size_t> placed;  // the chunks of the row's evidence, one per id, in quote order
    std::vector<std::string> ids;
    std::vector<std::string> lost;
    bool straddles = false;
    for (nlohmann::ordered_json& q : m["quotes"]) {
      if (!q.is_object() || !q.contains("text") || !q["text"].is_string()) {
        return DataError({golden_path, n, 0, "metadata.quotes"},
                         "each quote is an object with a \"text\"");
      }
      const std::string text = q["text"].get<std::string>();
      std::optional<Place> place = finder.Find(text, doc);
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
          placed.push_back(c);
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
    for (size_t c : placed) contexts.push_back(chunks[c].text);
    row["reference_contexts"] = contexts;
    ++out.remapped;
    out.straddling += straddles ? 1 : 0;
    out.golden_jsonl += row.dump() + "\n";
  }
  return out;
}

}  // namespace tala::testset
