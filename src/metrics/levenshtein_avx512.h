#pragma once
// The multi-block bit-parallel Levenshtein (Myers/Hyyrö) with AVX-512: one 64-bit lane per
// 64-symbol block of the pattern, up to 8 blocks (512 symbols). In the scalar form the blocks of
// one text column depend on each other (block k needs the horizontal carry of block k-1), so the
// lanes run skewed: at step t, lane k works on text column t - 2k and takes the carry lane k-1
// produced for that column two steps earlier. All blocks then advance in one vector step.
// One step still waits on the one before it, so two chains run at once: the first half of the
// text forward against the pattern, the second half backward against the reversed pattern, and
// the two final columns are joined (Hirschberg's split). A pair of n-symbol strings costs about
// n/2 + 2(blocks - 1) double steps instead of n · blocks scalar block updates. Selected at run
// time: HasAvx512Levenshtein() says whether this CPU can run it (it needs AVX-512 F, VL, BW, VBMI
// and VBMI2); elsewhere the scalar kernel runs.

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace tala::metrics {

// Row tables start on a cache line: a 64-byte row that straddles two lines costs two loads, which
// makes the kernel a quarter slower (measured), and malloc only promises 16 bytes.
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new (n * sizeof(T), std::align_val_t{64}));
  }
  void deallocate(T* p, size_t) { ::operator delete (p, std::align_val_t{64}); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
using AlignedWords = std::vector<uint64_t, CacheLineAllocator<uint64_t>>;

bool HasAvx512Levenshtein();

// The edit distance between a text of n symbols and a pattern of m, 65 <= m <= 512 and m <= n.
// Only call these when HasAvx512Levenshtein(). Bytes:
size_t LevenshteinAvx512(const uint8_t* text, size_t n, const uint8_t* pattern, size_t m);
// Symbols renamed to ids (code points, see RenameCodePoints), with the pattern's match masks
// laid out by the caller: 8 words a row (word k: block k), row r at rows[8 r], rows starting on
// a cache line, and row zero_row all zero (read for columns outside the text). Every id is below
// zero_row.
size_t LevenshteinAvx512(const uint64_t* rows, const uint32_t* pattern, const uint32_t* text,
                         size_t n, size_t m, uint32_t zero_row);

}  // namespace tala::metrics
