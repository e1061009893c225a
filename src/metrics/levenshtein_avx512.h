#pragma once
// The multi-block bit-parallel Levenshtein (Myers/Hyyrö) with AVX-512: one 64-bit lane per
// 64-symbol block of the pattern, up to 8 blocks (512 symbols). In the scalar form the blocks of
// one text column depend on each other (block k needs the horizontal carry of block k-1), so the
// lanes run skewed: at step t, lane k works on text column t - 2k and takes the carry lane k-1
// produced for that column two steps earlier. All blocks then advance in one vector step: a pair
// of n-symbol strings costs n + 2(blocks - 1) vector steps instead of n · blocks scalar block
// updates. Selected at run time: HasAvx512Levenshtein() says whether this CPU can run it (it
// needs AVX-512 F, VL, BW and VBMI2); elsewhere the scalar kernel runs.

#include <cstddef>
#include <cstdint>

namespace tala::metrics {

bool HasAvx512Levenshtein();

// The edit distance between a text of n symbols and a pattern of m, 65 <= m <= 512 and m <= n.
// Only call these when HasAvx512Levenshtein(). Bytes:
size_t LevenshteinAvx512(const uint8_t* text, size_t n, const uint8_t* pattern, size_t m);
// Symbols renamed to ids (code points, see RenameCodePoints), with the pattern's match masks
// laid out by the caller: 8 words a row (word k: block k), row r at rows[8 r], and row zero_row
// all zero (read for columns outside the text).
size_t LevenshteinAvx512(const uint64_t* rows, const uint32_t* text, size_t n, size_t m,
                         uint32_t zero_row);

}  // namespace tala::metrics
