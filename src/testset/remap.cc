#include "testset/remap.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "io/readers/buffered_input.h"

namespace tala::testset {

namespace {

// Where a quote stands in its document (TestsetQuote's document, start and end).
struct Span {
  std::string document;
  int64_t start = -1, end = -1;
  bool known() const { return start >= 0; }
};

// A quote's place in the new chunking: one chunk, or the consecutive chunks it spans; and its
// span, when the chunks know their place in the document (Chunk::start).
struct Place {
  std::vector<size_t> chunks;
  Span span;
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

// Chunks read as one text (each chunk's text after the last, joined by a glue), whitespace
// collapsed: a quote cut by the new chunking is found whole in it, and the chunks its bytes came
// from are its place.
struct JoinedDocument {
  std::string text;           // collapsed
  std::vector<size_t> owner;  // each byte of `text`: its chunk's position in the list
  std::vector<size_t> at;     // and its byte in that chunk's text
};

JoinedDocument Join(const std::vector<size_t>& list, const std::vector<Chunk>& chunks,
                    std::string_view glue) {
  std::string joined;
  std::vector<size_t> owner, at;  // each byte of joined: its chunk's position in `list`, byte
  for (size_t k = 0; k < list.size(); ++k) {
    if (k > 0) {
      joined += glue;
      for (size_t g = 0; g < glue.size(); ++g) {
        owner.push_back(k - 1);
        at.push_back(chunks[list[k - 1]].text.size());
      }
    }
    const std::string& text = chunks[list[k]].text;
    joined += text;
    for (size_t b = 0; b < text.size(); ++b) {
      owner.push_back(k);
      at.push_back(b);
    }
  }
  std::vector<size_t> from;
  JoinedDocument out;
  out.text = Collapsed(joined, &from);
  out.owner.reserve(from.size());
  out.at.reserve(from.size());
  for (size_t i : from) {
    out.owner.push_back(owner[i]);
    out.at.push_back(at[i]);
  }
  return out;
}

// Finds quotes in a chunking: by their place in their document when both the golden set and
// the chunking know it (the same words may stand in two sections of a manual), else whole in one
// chunk, else across consecutive chunks of one document. Each document is joined once, when a
// quote first needs it.
class QuoteFinder {
 public:
  explicit QuoteFinder(const std::vector<Chunk>& chunks) : chunks_(chunks) {
    for (size_t c = 0; c < chunks.size(); ++c) {
      by_source_[chunks[c].source].push_back(c);
      if (chunks[c].start >= 0) by_document_[chunks[c].document].push_back(c);
    }
    for (auto& [document, list] : by_document_) {
      std::stable_sort(list.begin(), list.end(),
                       [&](size_t a, size_t b) { return chunks[a].start < chunks[b].start; });
    }
    length_.resize(chunks.size(), 0);
    for (size_t c = 0; c < chunks.size(); ++c) {
      if (chunks[c].start >= 0) length_[c] = CharactersIn(chunks[c].text);
    }
  }

  // Where `quote` stands: at `span` when the chunking knows that document; else `doc`'s chunks
  // first (metadata.doc names the row's first context's document; a quote may come from
  // another).
  std::optional<Place> Find(const std::string& quote, const std::string& doc, const Span& span) {
    if (span.known() && by_document_.count(span.document) > 0) {
      if (auto p = AtSpan(quote, span)) return p;
    }
    auto it = by_source_.find(doc);
    if (it != by_source_.end()) {
      for (size_t c : it->second) {
        if (auto p = InChunk(quote, c)) return p;
      }
    }
    for (size_t c = 0; c < chunks_.size(); ++c) {
      if (auto p = InChunk(quote, c)) return p;
    }
    // Across chunks, cut at a space (glue " ") or inside a word (glue "").
    const std::string wanted = Collapsed(quote);
    if (wanted.empty()) return std::nullopt;
    for (std::string_view glue : {std::string_view(" "), std::string_view("")}) {
      if (it != by_source_.end()) {
        if (auto p = First(wanted, Joined(by_source_, it->first, glue), it->second)) return p;
      }
      for (const auto& [source, list] : by_source_) {
        if (source == doc) continue;
        if (auto p = First(wanted, Joined(by_source_, source, glue), list)) return p;
      }
    }
    return std::nullopt;
  }

 private:
  // The quote at byte `at` of chunk `c`'s text, with its place in the document when known.
  Place InChunkAt(size_t c, size_t at, const std::string& quote) const {
    Place p{{c}, {}};
    std::tie(p.span.start, p.span.end) = QuoteSpan(chunks_[c], at, quote);
    if (p.span.known()) p.span.document = chunks_[c].document;
    return p;
  }

  std::optional<Place> InChunk(const std::string& quote, size_t c) const {
    const size_t at = chunks_[c].text.find(quote);
    if (at == std::string::npos) return std::nullopt;
    return InChunkAt(c, at, quote);
  }

  // The occurrence at byte `a` of a joined text, `length` bytes long, over `list`'s chunks.
  Place Across(const JoinedDocument& d, size_t a, size_t length,
               const std::vector<size_t>& list) const {
    const size_t first = list[d.owner[a]], last = list[d.owner[a + length - 1]];
    Place p{std::vector<size_t>(list.begin() + static_cast<long>(d.owner[a]),
                                list.begin() + static_cast<long>(d.owner[a + length - 1]) + 1),
            {}};
    const Chunk &f = chunks_[first], &l = chunks_[last];
    if (f.start >= 0 && l.start >= 0 && f.document == l.document) {
      p.span.document = f.document;
      p.span.start = f.start + CharactersIn(std::string_view(f.text).substr(0, d.at[a]));
      p.span.end =
          l.start + CharactersIn(std::string_view(l.text).substr(0, d.at[a + length - 1] + 1));
    }
    return p;
  }

  std::optional<Place> First(const std::string& wanted, const JoinedDocument& d,
                             const std::vector<size_t>& list) const {
    const size_t at = d.text.find(wanted);
    if (at == std::string::npos) return std::nullopt;
    return Across(d, at, wanted.size(), list);
  }

  // Every occurrence of the quote in the span's document (whole in a chunk, or across its
  // chunks in the document's order); the one that starts where the span does, else the nearest.
  std::optional<Place> AtSpan(const std::string& quote, const Span& span) {
    const std::vector<size_t>& list = by_document_.at(span.document);
    // Where the document is as it was, the chunk that holds the span's start holds the quote
    // there: found without reading the rest (a short quote may stand a thousand times).
    for (size_t c : list) {
      const Chunk& chunk = chunks_[c];
      if (chunk.start > span.start) break;
      if (span.start >= chunk.start + length_[c]) continue;
      for (size_t at = chunk.text.find(quote); at != std::string::npos;
           at = chunk.text.find(quote, at + 1)) {
        Place p = InChunkAt(c, at, quote);
        if (p.span.start == span.start) return p;
        if (p.span.start > span.start) break;
      }
    }
    std::optional<Place> best;
    auto consider = [&](Place p) {
      const int64_t off = std::llabs(p.span.start - span.start);
      if (!best || off < std::llabs(best->span.start - span.start) ||
          (p.span.start == best->span.start && p.chunks.size() < best->chunks.size())) {
        best = std::move(p);
      }
    };
    for (size_t c : list) {
      for (size_t at = chunks_[c].text.find(quote); at != std::string::npos;
           at = chunks_[c].text.find(quote, at + 1)) {
        consider(InChunkAt(c, at, quote));
      }
    }
    const std::string wanted = Collapsed(quote);
    if (!wanted.empty()) {
      for (std::string_view glue : {std::string_view(" "), std::string_view("")}) {
        const JoinedDocument& d = Joined(by_document_, span.document, glue);
        for (size_t at = d.text.find(wanted); at != std::string::npos;
             at = d.text.find(wanted, at + 1)) {
          consider(Across(d, at, wanted.size(), list));
        }
      }
    }
    return best;
  }

  using Lists = std::unordered_map<std::string, std::vector<size_t>>;

  const JoinedDocument& Joined(const Lists& lists, const std::string& key, std::string_view glue) {
    auto id = std::make_tuple(&lists == &by_document_, key, std::string(glue));
    auto joined = joined_.find(id);
    if (joined == joined_.end()) {
      joined = joined_.emplace(id, Join(lists.at(key), chunks_, glue)).first;
    }
    return joined->second;
  }

  const std::vector<Chunk>& chunks_;
  Lists by_source_;              // each source's chunks in file order
  Lists by_document_;            // each document's chunks that know their place, in its order
  std::vector<int64_t> length_;  // each chunk's characters, when it knows its place
  std::map<std::tuple<bool, std::string, std::string>, JoinedDocument> joined_;
};

// A quote's span as the golden set gives it (all three fields, or none); an error naming the
// field otherwise.
Result<Span> SpanOf(const nlohmann::ordered_json& q, const std::string& path, int64_t line,
                    size_t i) {
  Span span;
  if (!q.contains("start") && !q.contains("end") && !q.contains("document")) return span;
  const std::string field = "metadata.quotes[" + std::to_string(i) + "]";
  auto whole = [&](const char* key) -> Result<int64_t> {
    const auto it = q.find(key);
    if (it == q.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
      return DataError({path, line, 0, field + "." + key},
                       "a quote's place is \"document\", \"start\" and \"end\": characters "
                       "from the document's start, 0 or more");
    }
    return it->get<int64_t>();
  };
  TALA_ASSIGN_OR_RETURN(span.start, whole("start"));
  TALA_ASSIGN_OR_RETURN(span.end, whole("end"));
  const auto doc = q.find("document");
  if (doc == q.end() || !doc->is_string()) {
    return DataError({path, line, 0, field + ".document"},
                     "the document the quote's \"start\" and \"end\" count in, a text");
  }
  if (span.end < span.start) {
    return DataError({path, line, 0, field + ".end"}, "before \"start\"");
  }
  span.document = doc->get<std::string>();
  return span;
}

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
    for (size_t i = 0; i < m["quotes"].size(); ++i) {
      nlohmann::ordered_json& q = m["quotes"][i];
      if (!q.is_object() || !q.contains("text") || !q["text"].is_string()) {
        return DataError({golden_path, n, 0, "metadata.quotes"},
                         "each quote is an object with a \"text\"");
      }
      const std::string text = q["text"].get<std::string>();
      TALA_ASSIGN_OR_RETURN(Span span, SpanOf(q, golden_path, n, i));
      std::optional<Place> place = finder.Find(text, doc, span);
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
      // Its place as the new chunking says it; one that does not say keeps the old (the same
      // document's).
      if (place->span.known()) {
        q["document"] = place->span.document;
        q["start"] = place->span.start;
        q["end"] = place->span.end;
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
