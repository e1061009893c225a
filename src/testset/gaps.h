#pragma once
// What the documents lack: intents that nothing answers. One reading for tala testset's report
// (every intent of the log, against --docs) and tala serve's /v1/gaps and dashboard (production
// questions, against the documents or the passages retrieved for them): an intent is a gap when
// the reference drafted for it from its three best chunks, by its words, is "no".

#include <string>
#include <vector>

#include "tala/sample.h"
#include "tala/status.h"
#include "tala/testset.h"
#include "testset/documents.h"
#include "testset/reference_draft.h"

namespace tala::testset {

// A logged "question" longer than this is a pasted document, a stack trace or a blob, not a
// question users ask again: it is left out (R1: one 5 MB word took the grouping's memory to
// 23.6 GB).
inline constexpr size_t kMaxQuestionBytes = 2000;

// The question a row asks: its user_input, or a conversation's last user turn ("" if none).
std::string QuestionOf(const Sample& sample);

// Whether no chunk answers an intent of these terms: the draft from its best three chunks by
// BM25 is "no" (so too for terms no chunk holds). An intent of filler alone, or of no terms
// ("hi", "thanks!", "help?"), asks nothing a document could answer: never a gap.
Result<bool> NothingAnswers(const std::vector<Chunk>& chunks, const ChunkIndex& index,
                            const std::vector<std::string>& terms);

// The question that stands for `members` (indices into `rows`): the wording asked most, the
// first asked on a tie; with `failing`, among the failing rows when any failed.
size_t TypicalQuestion(const std::vector<size_t>& members, const std::vector<LoggedQuestion>& rows,
                       bool failing);

}  // namespace tala::testset
