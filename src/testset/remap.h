#pragma once
// Evidence that survives a re-chunk (issue 53 item 5): a golden set's reference quotes are
// verbatim sentences of the documents, so they can be found again in another chunking of the
// same documents (a smaller chunk size, another splitter, a new index). RemapGolden moves each
// quote to the chunk that now holds it, or to the consecutive chunks it now spans, and rewrites the
// row's reference_context_ids and reference_contexts, so id-based retrieval metrics run on the
// new index without labelling again. Items whose evidence no chunk holds any more are listed
// with the share of the logged traffic they carry: the index diff.

#include <cstdint>
#include <string>
#include <vector>

#include "tala/status.h"
#include "testset/documents.h"

namespace tala::testset {

struct LostEvidence {
  std::string id, question;
  std::vector<std::string> quotes;  // the quotes no chunk holds now
  int64_t traffic = 0;              // the logged questions of its intent (metadata.log_ids)
};

struct Remapped {
  std::string golden_jsonl;  // every row, those with quotes rewritten
  int64_t rows = 0, remapped = 0, without_quotes = 0;
  int64_t straddling = 0;  // rows with a quote across two or more chunks
  int64_t changed = 0;     // rows whose reference_context_ids changed
  std::vector<LostEvidence> lost;
  int64_t traffic = 0, lost_traffic = 0;  // of all rows with quotes, and of the lost ones
};

// Each row of the golden set at `golden_path` (JSON Lines, as tala testset accept writes it),
// its metadata.quotes found in `chunks`: in one chunk (the first in file order, of the quote's
// document when metadata.doc names one), else across consecutive chunks of one document, their
// whitespace read as one space. A row without quotes (a should-refuse item) is kept as it is.
Result<Remapped> RemapGolden(const std::string& golden_path, const std::vector<Chunk>& chunks);

}  // namespace tala::testset
