#pragma once
// The documents a golden set's references come from, as chunks. A folder is read recursively
// (in path order): `.txt` (paragraphs), `.md` (sections split on headings, the heading kept in
// its section), `.html` (its main text, headings kept: document_text.h), `.pdf` (its text layer,
// page by page: ids "manual.pdf#p3"); a JSON Lines file holds the application's own chunks,
// {"id", "text", "source"}. Long sections are cut at sentence ends near kChunkChars. Each chunk's
// id is its file's path under the folder and its byte offset ("guide/ferry.md#1204"), stable while
// the file is. Near-empty chunks (fewer than 5 words) and near-duplicates (MinHash over word
// 3-grams, Jaccard 0.9 or more: boilerplate repeated across pages) are dropped, with no model
// call, and counted. A chunk knows where its text starts in its document, in characters, so a
// golden set's quotes can say where in the document they stand (issue 53 item 5).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tala/status.h"

namespace tala::testset {

inline constexpr size_t kChunkChars = 1200;

struct Chunk {
  std::string id, text, source;  // source: the file (or the JSON Lines row's "source")
  // Where `text` starts in `document`, in characters (Unicode code points): a file tala read
  // (.txt and .md as they are, .html its main text, a PDF's page: "manual.pdf#p3"), or a chunks
  // file's row with "start" (its `source` the document). -1 and empty when not known.
  int64_t start = -1;
  std::string document;
};

// The characters (Unicode code points) of UTF-8 `text`.
int64_t CharactersIn(std::string_view text);

// Where a quote found at byte `at` of `chunk`'s text stands in the chunk's document: its first
// character and the one after its last; {-1, -1} when the chunk does not know its place.
std::pair<int64_t, int64_t> QuoteSpan(const Chunk& chunk, size_t at, std::string_view quote);

struct Documents {
  std::vector<Chunk> chunks;
  std::vector<std::string> sources;  // every document read, in order (kept chunks or not)
  int64_t dropped_empty = 0, dropped_duplicate = 0;
};

// How ReadDocuments reads: the flag its errors name the path by, and whether every chunk is kept
// (an index read as it is: tala testset remap, where a short chunk may hold the end of a quote).
struct DocumentsReading {
  std::string flag = "--docs";
  bool every_chunk = false;
  size_t chunk_chars = kChunkChars;  // a folder's sections are cut near this many bytes
};

// kNotFound when `path` does not exist; kDataError naming file, line and field for a bad JSON
// Lines chunk; kInvalidArgument when a folder holds no .txt or .md file. Near-empty (under five
// words) and near-duplicate chunks are dropped, unless `how.every_chunk`.
Result<Documents> ReadDocuments(const std::string& path, const DocumentsReading& how = {});

// The chunks of one document's text (exposed for tests): Markdown when `markdown`.
std::vector<Chunk> ChunkDocument(const std::string& text, const std::string& source, bool markdown,
                                 size_t chunk_chars = kChunkChars);

}  // namespace tala::testset
