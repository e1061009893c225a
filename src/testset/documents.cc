#include "testset/documents.h"

#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/text/tokenize.h"
#include "core/text/word_sets.h"
#include "io/readers/buffered_input.h"
#include "testset/document_text.h"
#include "testset/minhash.h"

namespace tala::testset {

namespace {

namespace fsys = std::filesystem;

bool IsHeading(std::string_view line) {
  size_t hashes = 0;
  while (hashes < line.size() && line[hashes] == '#') ++hashes;
  return hashes >= 1 && hashes <= 6 && hashes < line.size() && line[hashes] == ' ';
}

// Where a cut near `limit` falls: after the last sentence end (". ", "? ", "! ", a newline)
// at or before it, else at the limit's next space.
size_t CutAt(std::string_view text, size_t limit) {
  size_t best = std::string_view::npos;
  for (size_t i = limit / 2; i + 1 < text.size() && i < limit; ++i) {
    if (text[i] == '\n' ||
        ((text[i] == '.' || text[i] == '?' || text[i] == '!') && text[i + 1] == ' ')) {
      best = i + 1;
    }
  }
  if (best != std::string_view::npos) return best;
  size_t space = text.find(' ', limit);
  return space == std::string_view::npos ? text.size() : space + 1;
}

std::string Trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(a, b - a + 1));
}

// Adds `piece` (at byte `offset` of the document) as chunks of at most about `limit` bytes,
// and their offsets.
void AddPiece(std::string_view piece, size_t offset, const std::string& source, size_t limit,
              std::vector<Chunk>& out, std::vector<size_t>& offsets) {
  while (!piece.empty()) {
    size_t cut = piece.size() <= limit ? piece.size() : CutAt(piece, limit);
    std::string_view head = piece.substr(0, cut);
    size_t lead = head.find_first_not_of(" \t\r\n");
    if (lead != std::string_view::npos) {
      out.push_back({source + "#" + std::to_string(offset + lead), Trim(head), source});
      offsets.push_back(offset + lead);
    }
    piece.remove_prefix(cut);
    offset += cut;
  }
}

Status BadChunk(const std::string& path, int64_t line, const std::string& field,
                const std::string& why) {
  return DataError({path, line, 0, field}, why);
}

// The longest line of a chunks file (a chunk is a passage, not a book).
constexpr size_t kMaxChunkLineBytes = 64u << 20;

Result<std::vector<Chunk>> ReadChunkLines(const std::string& path) {
  // Read line by line, each bounded: a file that never ends (/dev/zero) is an error, not a hang.
  TALA_ASSIGN_OR_RETURN(io::BufferedInput in, io::BufferedInput::Open(path));
  std::vector<Chunk> out;
  simdjson::dom::parser parser;
  std::string_view line;
  int64_t line_no = 0;
  for (;;) {
    const auto status = in.NextLine(&line, kMaxChunkLineBytes);
    if (status == io::BufferedInput::LineStatus::kEnd) break;
    line_no = in.line_number();
    if (status == io::BufferedInput::LineStatus::kError) {
      return IoError("reading " + path + ": " + in.error());
    }
    if (status == io::BufferedInput::LineStatus::kTooLong) {
      return BadChunk(path, line_no, "",
                      "line longer than " + std::to_string(kMaxChunkLineBytes >> 20) + " MiB");
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    simdjson::dom::element row;
    if (parser.parse(line.data(), line.size()).get(row) || !row.is_object()) {
      return BadChunk(path, line_no, "",
                      "not a JSON object; expected {\"id\", \"text\", \"source\"}");
    }
    Chunk c;
    std::string_view v;
    if (row["text"].get_string().get(v)) {
      return BadChunk(path, line_no, "text", "missing or not a string");
    }
    c.text = std::string(v);
    if (!row["id"].get_string().get(v)) {
      c.id = std::string(v);
    } else {
      int64_t n = 0;
      if (row["id"].get_int64().get(n)) return BadChunk(path, line_no, "id", "missing");
      c.id = std::to_string(n);
    }
    c.source = !row["source"].get_string().get(v) ? std::string(v) : c.id;
    // An optional "start": where the text starts in its source document, in characters (as
    // LangChain's add_start_index gives it), so quotes from it carry their place.
    if (simdjson::dom::element start; !row["start"].get(start) && !start.is_null()) {
      int64_t n = 0;
      if (start.get_int64().get(n) || n < 0) {
        return BadChunk(path, line_no, "start",
                        "not a whole number of characters from the document's start (0 or more)");
      }
      c.start = n;
      c.document = c.source;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

int64_t CharactersIn(std::string_view text) {
  int64_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::pair<int64_t, int64_t> QuoteSpan(const Chunk& chunk, size_t at, std::string_view quote) {
  if (chunk.start < 0) return {-1, -1};
  const int64_t start = chunk.start + CharactersIn(std::string_view(chunk.text).substr(0, at));
  return {start, start + CharactersIn(quote)};
}

std::vector<Chunk> ChunkDocument(const std::string& text, const std::string& source, bool markdown,
                                 size_t chunk_chars) {
  std::vector<Chunk> out;
  // Sections (Markdown: from a heading to the next) or paragraphs (text: blank-line separated,
  // merged while they fit), each then cut to size.
  std::vector<std::pair<size_t, size_t>> pieces;  // [begin, end)
  size_t begin = 0, at = 0;
  bool blank_before = false;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    std::string_view line(text.data() + at, end - at);
    const bool blank = line.find_first_not_of(" \t\r\n") == std::string_view::npos;
    if (markdown ? IsHeading(line) && at > begin
                 : !blank && blank_before && at - begin >= chunk_chars / 2) {
      pieces.emplace_back(begin, at);
      begin = at;
    }
    blank_before = blank;
    at = end;
  }
  if (begin < text.size()) pieces.emplace_back(begin, text.size());
  std::vector<size_t> offsets;  // each chunk's byte offset in `text`
  for (const auto& [b, e] : pieces) {
    AddPiece(std::string_view(text).substr(b, e - b), b, source, chunk_chars, out, offsets);
  }
  // Byte offsets to characters, counted once along the text (the chunks come in its order).
  size_t counted = 0;
  int64_t characters = 0;
  for (size_t k = 0; k < out.size(); ++k) {
    characters += CharactersIn(std::string_view(text).substr(counted, offsets[k] - counted));
    counted = offsets[k];
    out[k].start = characters;
    out[k].document = source;
  }
  return out;
}

Result<Documents> ReadDocuments(const std::string& path, const DocumentsReading& how) {
  std::error_code ec;
  if (!fsys::exists(path, ec)) return NotFound(how.flag + " " + path + ": no such file or folder");
  Documents docs;
  std::vector<Chunk> all;
  if (fsys::is_directory(path, ec)) {
    std::vector<fsys::path> files;
    for (auto it = fsys::recursive_directory_iterator(path, ec);
         !ec && it != fsys::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      const std::string ext = it->path().extension().string();
      if (ext == ".txt" || ext == ".md" || ext == ".markdown" || ext == ".html" || ext == ".htm" ||
          ext == ".pdf") {
        files.push_back(it->path());
      }
    }
    if (ec) return IoError(how.flag + " " + path + ": " + ec.message());
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      return InvalidArgument(how.flag + " " + path +
                             ": no .txt, .md, .html or .pdf file in it (or give a JSON Lines "
                             "file of chunks, {\"id\", \"text\", \"source\"})");
    }
    for (const fsys::path& file : files) {
      const std::string source = fsys::relative(file, path, ec).generic_string();
      const std::string ext = file.extension().string();
      docs.sources.push_back(source);
      if (ext == ".pdf") {
        // Page by page: a chunk's id says its page ("manual.pdf#p3", "manual.pdf#p3.1204").
        TALA_ASSIGN_OR_RETURN(std::vector<std::string> pages, PdfPages(file.string()));
        for (size_t p = 0; p < pages.size(); ++p) {
          const std::string page = source + "#p" + std::to_string(p + 1);
          for (Chunk& c : ChunkDocument(pages[p], page, false, how.chunk_chars)) {
            const std::string offset = c.id.substr(c.id.rfind('#') + 1);
            c.id = offset == "0" ? page : page + "." + offset;
            c.source = source;
            all.push_back(std::move(c));
          }
        }
        continue;
      }
      std::ifstream in(file, std::ios::binary);
      if (!in) return IoError("cannot read " + file.string());
      std::stringstream text;
      text << in.rdbuf();
      const bool html = ext == ".html" || ext == ".htm";
      // HTML's offsets are in its main text (the page's own bytes hold markup).
      for (Chunk& c : ChunkDocument(html ? HtmlMainText(text.str()) : text.str(), source,
                                    ext != ".txt", how.chunk_chars)) {
        all.push_back(std::move(c));
      }
    }
  } else {
    TALA_ASSIGN_OR_RETURN(all, ReadChunkLines(path));
    for (const Chunk& c : all) {
      if (std::find(docs.sources.begin(), docs.sources.end(), c.source) == docs.sources.end()) {
        docs.sources.push_back(c.source);
      }
    }
  }
  if (how.every_chunk) {
    docs.chunks = std::move(all);
    return docs;
  }
  // Near-empty and near-duplicate chunks go; the first of a set of duplicates stays.
  LshIndex lsh;
  std::vector<std::vector<std::string>> kept_shingles;
  for (Chunk& c : all) {
    std::vector<std::string> words;
    for (text::Token& t : text::Tokenize(c.text)) words.push_back(std::move(t.text));
    if (words.size() < 5) {
      ++docs.dropped_empty;
      continue;
    }
    std::vector<std::string> shingles = WordShingles(words, 3);
    bool duplicate = false;
    for (size_t other : lsh.Add(kept_shingles.size(), MinHashOf(shingles))) {
      if (other < kept_shingles.size() && text::Jaccard(shingles, kept_shingles[other]) >= 0.9) {
        duplicate = true;
        break;
      }
    }
    kept_shingles.push_back(std::move(shingles));  // indexed either way: ids stay positions
    if (duplicate) {
      ++docs.dropped_duplicate;
      continue;
    }
    docs.chunks.push_back(std::move(c));
  }
  return docs;
}

}  // namespace tala::testset
