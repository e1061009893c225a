#include "metrics/levenshtein_avx512.h"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <utility>
#include <vector>

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which -W(maybe-)uninitialized
// reports inside the header when they are inlined here; the values are fully written.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#define TALA_HAVE_AVX512_KERNEL 1
#endif

namespace tala::metrics {

#ifdef TALA_HAVE_AVX512_KERNEL

bool HasAvx512Levenshtein() {
  static const bool kHas =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi") &&
      __builtin_cpu_supports("avx512vbmi2");
  return kHas;
}

// Everything below is compiled for AVX-512 (lambdas included, which a target attribute would
// not reach); it runs only after HasAvx512Levenshtein() said yes.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512vbmi,avx512vbmi2")

namespace {

// Ternary-logic truth tables, operands (a, b, c) = (0xF0, 0xCC, 0xAA).
constexpr int kAOrBAndNotC = (0xF0 | 0xCC) & ~0xAA & 0xFF;    // (a | b) & ~c
constexpr int kBAndAXorBOrC = 0xCC & ((0xF0 ^ 0xCC) | 0xAA);  // b & ((a ^ b) | c)
constexpr int kAOrNotBAndC = 0xF0 | (~0xCC & 0xAA & 0xFF);    // a | (~b & c)

// Lanes are skewed by two columns: lane k works on column t - 2k at step t, so the carry it needs
// from lane k - 1 was produced two steps earlier. A lane shift costs several cycles of latency on
// current cores; this way it runs beside the next step instead of lengthening the chain from one
// step to the next, which is then only the block update itself. Steps alternate between two carry
// slots: the even steps read and write one, the odd steps the other.
constexpr size_t kSkew = 2;

struct Carry {
  __m512i not_hp, hn;  // ~horizontal +1 and horizontal -1 deltas of the step two before
};

struct State {
  __m512i pv, mv;  // vertical +1 / -1 deltas
  Carry even, odd;
};

// One skewed step: e holds, in lane k, block k's match mask for the column that lane works on.
// kMasked: only the lanes in `live` update their state (the first and last steps, where some
// lanes have no column yet or any more). Myers' block update, with Hyyrö's carries, rearranged so
// that the path from pv to the next pv is five operations (and, add, ternary, shift, ternary):
//   Xh | pv = sum | eq | pv, so ~Ph = ~mv & (sum | eq | pv), and Mh = pv & ((sum ^ pv) | eq),
// where eq is the match mask with the incoming -1 carry and sum = (eq & pv) + pv. ~Ph is kept
// instead of Ph, so the shift takes the inverted carry and pv' = Mh' | (~Xv & ~Ph').
template <bool kMasked>
inline void Step(State& s, Carry& carry, __m512i e, __mmask8 live) {
  // Carries from the lane below, for the column it did two steps ago; lane 0 gets the top row's
  // (+1, 0), that is a clear top bit in both.
  const __m512i not_hp_in = _mm512_alignr_epi64(carry.not_hp, _mm512_setzero_si512(), 7);
  const __m512i hn_in = _mm512_alignr_epi64(carry.hn, _mm512_setzero_si512(), 7);
  const __m512i eq = _mm512_or_si512(e, _mm512_srli_epi64(hn_in, 63));
  const __m512i xv = _mm512_or_si512(e, s.mv);
  const __m512i eq_or_pv = _mm512_or_si512(eq, s.pv);
  const __m512i sum = _mm512_add_epi64(_mm512_and_si512(eq, s.pv), s.pv);
  // The first operand of a ternary operation is overwritten: give it one that dies there, so
  // the compiler needs no copy.
  const __m512i not_ph = _mm512_ternarylogic_epi64(eq_or_pv, sum, s.mv, kAOrBAndNotC);
  const __m512i mh = _mm512_ternarylogic_epi64(sum, s.pv, eq, kBAndAXorBOrC);
  const __m512i not_ph_shifted = _mm512_shldi_epi64(not_ph, not_hp_in, 1);  // ~((ph << 1) | c)
  const __m512i mh_shifted = _mm512_shldi_epi64(mh, hn_in, 1);              // (mh << 1) | c
  const __m512i pv = _mm512_ternarylogic_epi64(mh_shifted, xv, not_ph_shifted, kAOrNotBAndC);
  if constexpr (kMasked) {
    s.pv = _mm512_mask_mov_epi64(s.pv, live, pv);
    s.mv = _mm512_mask_andnot_epi64(s.mv, live, not_ph_shifted, xv);
  } else {
    s.pv = pv;
    s.mv = _mm512_andnot_si512(not_ph_shifted, xv);
  }
  carry.not_hp = not_ph;
  carry.hn = mh;
}

// Lane k's mask at step t is word k of the row of column t - 2k: a vector blended from kBlocks
// row loads (the row table is small and stays in L1), with no gather. kSafe: some of those
// columns may lie outside the text (the first and last steps); they read the zero row. Column j
// is text[kStride * j]: a backward chain starts at the text's last symbol and walks down.
template <size_t kBlocks, bool kSafe, ptrdiff_t kStride, typename Symbol>
inline __m512i Masks(const uint64_t* rows, const Symbol* text, size_t n, uint32_t zero_row,
                     size_t t) {
  auto row = [&](size_t k) {
    const size_t j = t - kSkew * k;  // wraps around below 0: one comparison checks both ends
    if constexpr (!kSafe)
      return _mm512_load_si512(rows + 8 * size_t{text[kStride * static_cast<ptrdiff_t>(j)]});
    // No branch: the read is clamped into the text, the zero row picked by a conditional move.
    const size_t inside = size_t{text[kStride * static_cast<ptrdiff_t>(std::min(j, n - 1))]};
    const size_t r = j < n ? inside : zero_row;
    return _mm512_load_si512(rows + 8 * r);
  };
  __m512i e = row(0);
#pragma GCC unroll 8
  for (size_t k = 1; k < kBlocks; ++k)
    e = _mm512_mask_blend_epi64(static_cast<__mmask8>(1u << k), e, row(k));
  return e;
}

// The lanes that have a column at step t, for a chain over n columns: 0 <= t - 2k < n.
template <size_t kBlocks>
inline __mmask8 Live(size_t n, size_t t) {
  static_assert(kSkew == 2, "the lane offsets below are 2k");
  const __m512i columns = _mm512_sub_epi64(_mm512_set1_epi64(static_cast<long long>(t)),
                                           _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14));
  return _mm512_mask_cmplt_epu64_mask(static_cast<__mmask8>((1u << kBlocks) - 1), columns,
                                      _mm512_set1_epi64(static_cast<long long>(n)));
}

// One chain: a skewed kernel run over n columns of its text, in its direction.
template <ptrdiff_t kStride, typename Symbol>
struct Chain {
  const uint64_t* rows;
  const Symbol* text;  // column 0
  size_t n;
  State s;
};

// Steps t and t + 1 (t even) of a chain, the lanes outside its columns left as they are.
template <size_t kBlocks, ptrdiff_t kStride, typename Symbol>
__attribute__((always_inline)) inline void EdgeSteps(Chain<kStride, Symbol>& c, uint32_t zero_row,
                                                     size_t t) {
  Step<true>(c.s, c.s.even, Masks<kBlocks, true, kStride>(c.rows, c.text, c.n, zero_row, t),
             Live<kBlocks>(c.n, t));
  Step<true>(c.s, c.s.odd, Masks<kBlocks, true, kStride>(c.rows, c.text, c.n, zero_row, t + 1),
             Live<kBlocks>(c.n, t + 1));
}

// Bit i of x moves to bit 511 - i: bytes reversed across the vector, then the bits of each byte
// by a table of reversed nibbles.
inline __m512i ReverseBits(__m512i x) {
  alignas(64) static constexpr uint8_t kDown[64] = {
      63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42,
      41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20,
      19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,  8,  7,  6,  5,  4,  3,  2,  1,  0};
  const __m512i nibbles =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15));
  const __m512i low = _mm512_set1_epi8(0x0F);
  x = _mm512_permutexvar_epi8(_mm512_load_si512(kDown), x);
  const __m512i lo = _mm512_shuffle_epi8(nibbles, _mm512_and_si512(x, low));
  const __m512i hi = _mm512_shuffle_epi8(nibbles, _mm512_and_si512(_mm512_srli_epi16(x, 4), low));
  return _mm512_or_si512(_mm512_slli_epi16(lo, 4), hi);  // lo < 16: the shift stays in its byte
}

// x shifted down by s bits (0 <= s < 512) as one 512-bit number, zeros coming in at the top.
inline __m512i ShiftDown(__m512i x, unsigned s) {
  const unsigned words = s / 64;
  const __m512i index = _mm512_add_epi64(_mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7),
                                         _mm512_set1_epi64(static_cast<long long>(words)));
  const __mmask8 keep = static_cast<__mmask8>(0xFFu >> words);  // index < 8
  const __m512i lo = _mm512_maskz_permutexvar_epi64(keep, index, x);
  const __m512i hi = _mm512_maskz_permutexvar_epi64(
      static_cast<__mmask8>(keep >> 1), _mm512_add_epi64(index, _mm512_set1_epi64(1)), x);
  return _mm512_shrdv_epi64(lo, hi, _mm512_set1_epi64(s % 64));
}

// A row of the reversed pattern's masks: bit i of a forward row moves to bit m - 1 - i.
inline __m512i ReversedRow(__m512i row, size_t m) {
  return ShiftDown(ReverseBits(row), static_cast<unsigned>(512 - m));
}

// The reversed pattern's rows for the pattern's distinct symbols, from their forward rows.
template <typename Symbol>
void FillReversedRows(const uint64_t* forward, const Symbol* symbols, size_t count, size_t m,
                      uint64_t* backward) {
  for (size_t i = 0; i < count; ++i) {
    const size_t r = size_t{symbols[i]};
    _mm512_store_si512(backward + 8 * r, ReversedRow(_mm512_load_si512(forward + 8 * r), m));
  }
}

// Zeroes the rows of `symbols` again, which keeps a table all zero between calls.
template <typename Symbol>
void ClearRows(const Symbol* symbols, size_t count, uint64_t* rows) {
  for (size_t i = 0; i < count; ++i)
    _mm512_store_si512(rows + 8 * size_t{symbols[i]}, _mm512_setzero_si512());
}

// Bits 0..m-1 set.
inline __m512i LowBits(size_t m) {
  alignas(64) uint64_t words[8];
  for (size_t k = 0; k < 8; ++k)
    words[k] = 64 * (k + 1) <= m ? ~0ull : 64 * k >= m ? 0 : (1ull << (m % 64)) - 1;
  return _mm512_load_si512(words);
}

// Joins the two halves at column h = n / 2. The forward chain leaves the vertical deltas of
// column h, f_s = D[s+1][h] - D[s][h]. The backward chain ran on both strings reversed; with its
// bits reversed into pattern order it gives b'_s = E[s] - E[s+1], where E[i] is the distance
// between pattern[i..m) and text[h..n). Every alignment passes column h at some row i, so
//   D[m][n] = min over i of D[i][h] + E[i],  D[i][h] = h + sum_{s<i} f_s,
//   E[i] = (n - h) + T - sum_{s<i} b'_s,     T = E[0] - (n - h), the backward chain's total,
// that is n + T + the least prefix sum of f_s - b'_s (the empty one included). The prefix sums
// are taken 32 rows at a time in 16-bit lanes; they stay within +-1024.
template <size_t kBlocks>
size_t JoinHalves(const State& forward, const State& backward, size_t n, size_t m) {
  const __m512i rows = LowBits(m);
  const __m512i bp = _mm512_and_si512(backward.pv, rows), bm = _mm512_and_si512(backward.mv, rows);
  alignas(64) uint32_t fp[16], fm[16], rp[16], rm[16];
  _mm512_store_si512(fp, _mm512_and_si512(forward.pv, rows));
  _mm512_store_si512(fm, _mm512_and_si512(forward.mv, rows));
  _mm512_store_si512(rp, ReversedRow(bp, m));
  _mm512_store_si512(rm, ReversedRow(bm, m));
  alignas(64) uint64_t plus[8], minus[8];
  _mm512_store_si512(plus, bp);
  _mm512_store_si512(minus, bm);
  long long total = 0;  // T
  for (size_t k = 0; k < kBlocks; ++k) total += std::popcount(plus[k]) - std::popcount(minus[k]);
  alignas(64) static constexpr uint16_t kLane[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                     11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                                     22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
  const __m512i lane = _mm512_load_si512(kLane);
  __m512i sum = _mm512_setzero_si512();  // every lane: the sum before this group
  __m512i best = sum;                    // i = 0
  for (size_t g = 0; g < (m + 31) / 32; ++g) {
    // movm gives -1 for a set bit: f - b' = (fm + rp) - (fp + rm) in those terms.
    __m512i d =
        _mm512_sub_epi16(_mm512_add_epi16(_mm512_movm_epi16(fm[g]), _mm512_movm_epi16(rp[g])),
                         _mm512_add_epi16(_mm512_movm_epi16(fp[g]), _mm512_movm_epi16(rm[g])));
#pragma GCC unroll 5
    for (unsigned shift = 1; shift < 32; shift *= 2) {
      const __m512i by = _mm512_set1_epi16(static_cast<short>(shift));
      const __mmask32 from = _mm512_cmpge_epu16_mask(lane, by);
      d = _mm512_add_epi16(d, _mm512_maskz_permutexvar_epi16(from, _mm512_sub_epi16(lane, by), d));
    }
    // Lane l: the sum over the rows up to 32 g + l, the candidate for i = 32 g + l + 1.
    d = _mm512_add_epi16(d, sum);
    best = _mm512_min_epi16(best, d);
    sum = _mm512_permutexvar_epi16(_mm512_set1_epi16(31), d);
  }
  const __m512i wide = _mm512_min_epi32(_mm512_cvtepi16_epi32(_mm512_castsi512_si256(best)),
                                        _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(best, 1)));
  return static_cast<size_t>(static_cast<long long>(n) + total + _mm512_reduce_min_epi32(wide));
}

// Two skewed chains at once, independent of each other, so the core overlaps their step-to-step
// latency: a forward one over text[0..h) against the pattern, and a backward one over text[h..n)
// from the right against the reversed pattern (Hirschberg's split); JoinHalves combines them.
// Returns D[m][n]; requires n >= 2.
template <size_t kBlocks, typename Symbol>
size_t TwoWay(const uint64_t* forward_rows, const uint64_t* backward_rows, const Symbol* text,
              size_t n, size_t m, uint32_t zero_row) {
  const __m512i zero = _mm512_setzero_si512();
  const State start{_mm512_set1_epi64(-1), zero, {zero, zero}, {zero, zero}};
  Chain<1, Symbol> f{forward_rows, text, n / 2, start};
  Chain<-1, Symbol> b{backward_rows, text + n - 1, n - n / 2, start};  // f.n <= b.n
  const size_t lag = kSkew * (kBlocks - 1);  // the last lane's delay; even
  size_t t = 0;
  for (; t < lag; t += 2) {
    EdgeSteps<kBlocks>(f, zero_row, t);
    EdgeSteps<kBlocks>(b, zero_row, t);
  }
  for (; t + 1 < f.n; t += 2) {  // every lane below kBlocks live in both chains; t is even
    Step<false>(f.s, f.s.even, Masks<kBlocks, false, 1>(f.rows, f.text, f.n, zero_row, t), 0xFF);
    Step<false>(b.s, b.s.even, Masks<kBlocks, false, -1>(b.rows, b.text, b.n, zero_row, t), 0xFF);
    Step<false>(f.s, f.s.odd, Masks<kBlocks, false, 1>(f.rows, f.text, f.n, zero_row, t + 1), 0xFF);
    Step<false>(b.s, b.s.odd, Masks<kBlocks, false, -1>(b.rows, b.text, b.n, zero_row, t + 1),
                0xFF);
  }
  // To the end of the longer chain; steps past a chain's end leave its vertical deltas alone.
  for (; t < b.n + lag; t += 2) {
    EdgeSteps<kBlocks>(f, zero_row, t);
    EdgeSteps<kBlocks>(b, zero_row, t);
  }
  return JoinHalves<kBlocks>(f.s, b.s, n, m);
}

// The kernel for the pattern's block count (2 to 8), fixed at compile time so the blend unrolls.
template <typename Symbol, size_t... kIndex>
size_t DispatchBlocks(std::index_sequence<kIndex...>, const uint64_t* forward_rows,
                      const uint64_t* backward_rows, const Symbol* text, size_t n, size_t m,
                      uint32_t zero_row) {
  using Kernel =
      size_t (*)(const uint64_t*, const uint64_t*, const Symbol*, size_t, size_t, uint32_t);
  static constexpr Kernel kKernels[] = {&TwoWay<kIndex + 2, Symbol>...};
  return kKernels[(m + 63) / 64 - 2](forward_rows, backward_rows, text, n, m, zero_row);
}

template <typename Symbol>
size_t Dispatch(const uint64_t* forward_rows, const uint64_t* backward_rows, const Symbol* text,
                size_t n, size_t m, uint32_t zero_row) {
  return DispatchBlocks(std::make_index_sequence<7>(), forward_rows, backward_rows, text, n, m,
                        zero_row);
}

// Per thread, all zero between calls: for bytes, the forward and backward row tables (256
// symbols and the zero row each); for ids, the backward table, grown to the alphabet.
uint64_t* ByteRows(size_t direction) {
  thread_local AlignedWords rows(2 * 257 * 8, 0);
  return rows.data() + direction * 257 * 8;
}
uint64_t* IdBackwardRows(size_t alphabet) {
  thread_local AlignedWords rows;
  if (rows.size() < (alphabet + 1) * 8) rows.resize((alphabet + 1) * 8, 0);
  return rows.data();
}

}  // namespace

size_t LevenshteinAvx512(const uint8_t* text, size_t n, const uint8_t* pattern, size_t m) {
  // The pattern's distinct bytes, from a presence table scanned 64 bytes at a time.
  alignas(64) uint8_t seen[256] = {};
#pragma GCC unroll 8
  for (size_t i = 0; i < m; ++i) seen[pattern[i]] = 1;
  uint8_t symbols[256];
  size_t distinct = 0;
  for (size_t part = 0; part < 4; ++part) {
    const __m512i flags = _mm512_load_si512(seen + 64 * part);
    for (uint64_t bits = _mm512_test_epi8_mask(flags, flags); bits != 0; bits &= bits - 1)
      symbols[distinct++] = static_cast<uint8_t>(64 * part + std::countr_zero(bits));
  }
  // A symbol's row is one byte comparison per 64-symbol block of the pattern, instead of a
  // read-modify-write per pattern position. The zero padding of the last block matches symbol 0
  // above row m; that is harmless: bits only carry upwards, the join reads the rows below m, and
  // reversing the rows drops them.
  const size_t blocks = (m + 63) / 64;
  __m512i chunk[8];
  for (size_t k = 0; k < blocks; ++k) {
    const size_t left = m - 64 * k;
    const __mmask64 valid = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    chunk[k] = _mm512_maskz_loadu_epi8(valid, pattern + 64 * k);
  }
  uint64_t* forward = ByteRows(0);
  uint64_t* backward = ByteRows(1);
  for (size_t i = 0; i < distinct; ++i) {
    const __m512i symbol = _mm512_set1_epi8(static_cast<char>(symbols[i]));
    uint64_t* row = forward + 8 * size_t{symbols[i]};
    for (size_t k = 0; k < blocks; ++k)
      row[k] = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(chunk[k], symbol));
  }
  // A second pass, so that a row is not read back whole right after its 8-byte pieces were
  // written. (Putting each row together in a register instead measured a little slower.)
  FillReversedRows(forward, symbols, distinct, m, backward);
  const size_t distance = Dispatch(forward, backward, text, n, m, 256);
  ClearRows(symbols, distinct, forward);
  ClearRows(symbols, distinct, backward);
  return distance;
}

size_t LevenshteinAvx512(const uint64_t* rows, const uint32_t* pattern, const uint32_t* text,
                         size_t n, size_t m, uint32_t zero_row) {
  // The pattern's distinct ids, with no branch: a presence flag per id, cleared afterwards.
  thread_local std::vector<uint8_t> seen;
  thread_local std::vector<uint32_t> symbols;
  if (seen.size() < zero_row) seen.resize(zero_row, 0);
  if (symbols.size() < m) symbols.resize(m);
  size_t distinct = 0;
  for (size_t i = 0; i < m; ++i) {
    symbols[distinct] = pattern[i];
    distinct += seen[pattern[i]] ^ 1;
    seen[pattern[i]] = 1;
  }
  uint64_t* backward = IdBackwardRows(zero_row);
  FillReversedRows(rows, symbols.data(), distinct, m, backward);
  const size_t distance = Dispatch(rows, backward, text, n, m, zero_row);
  ClearRows(symbols.data(), distinct, backward);
  for (size_t i = 0; i < distinct; ++i) seen[symbols[i]] = 0;
  return distance;
}

#pragma GCC pop_options

#else

bool HasAvx512Levenshtein() { return false; }
// Never reached: callers check HasAvx512Levenshtein() first.
size_t LevenshteinAvx512(const uint8_t*, size_t, const uint8_t*, size_t) { std::abort(); }
size_t LevenshteinAvx512(const uint64_t*, const uint32_t*, const uint32_t*, size_t, size_t,
                         uint32_t) {
  std::abort();
}

#endif

}  // namespace tala::metrics
