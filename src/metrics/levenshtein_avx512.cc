#include "metrics/levenshtein_avx512.h"

#include <bit>
#include <cstdlib>
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
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vbmi2");
  return kHas;
}

// Everything below is compiled for AVX-512 (lambdas included, which a target attribute would
// not reach); it runs only after HasAvx512Levenshtein() said yes.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512vbmi2")

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
// columns may lie outside the text (the first and last steps); they read the zero row.
template <size_t kBlocks, bool kSafe, typename Symbol>
inline __m512i Masks(const uint64_t* rows, const Symbol* text, size_t n, uint32_t zero_row,
                     size_t t) {
  auto row = [&](size_t k) {
    const size_t j = t - kSkew * k;  // wraps around below 0: one comparison checks both ends
    const size_t r = !kSafe || j < n ? size_t{text[j]} : zero_row;
    return _mm512_loadu_si512(rows + 8 * r);
  };
  __m512i e = row(0);
#pragma GCC unroll 8
  for (size_t k = 1; k < kBlocks; ++k)
    e = _mm512_mask_blend_epi64(static_cast<__mmask8>(1u << k), e, row(k));
  return e;
}

// The skewed kernel over n text columns; returns D[m][n]. The last column's vertical deltas sum
// to D[m][n] - D[0][n], and D[0][n] = n.
template <size_t kBlocks, typename Symbol>
size_t Skewed(const uint64_t* rows, const Symbol* text, size_t n, size_t m, uint32_t zero_row) {
  const __m512i zero = _mm512_setzero_si512();
  State s{_mm512_set1_epi64(-1), zero, {zero, zero}, {zero, zero}};
  // Lane k is live at step t while 0 <= t - 2k < n.
  auto live = [n](size_t t) {
    unsigned mask = 0;
    for (size_t k = 0; k < kBlocks; ++k) mask |= (t - kSkew * k < n ? 1u : 0u) << k;
    return static_cast<__mmask8>(mask);
  };
  auto edge_step = [&](size_t t) {
    Step<true>(s, t % 2 ? s.odd : s.even, Masks<kBlocks, true>(rows, text, n, zero_row, t),
               live(t));
  };
  const size_t lag = kSkew * (kBlocks - 1);  // the last lane's delay; even
  size_t t = 0;
  for (; t < lag; ++t) edge_step(t);
  for (; t + 1 < n; t += 2) {  // every lane below kBlocks live; t is even
    Step<false>(s, s.even, Masks<kBlocks, false>(rows, text, n, zero_row, t), 0xFF);
    Step<false>(s, s.odd, Masks<kBlocks, false>(rows, text, n, zero_row, t + 1), 0xFF);
  }
  for (; t < n + lag; ++t) edge_step(t);
  alignas(64) uint64_t pv[8], mv[8];
  _mm512_store_si512(pv, s.pv);
  _mm512_store_si512(mv, s.mv);
  const uint64_t top = m % 64 == 0 ? ~0ull : (1ull << (m % 64)) - 1;
  ptrdiff_t distance = static_cast<ptrdiff_t>(n);
  for (size_t k = 0; k < kBlocks; ++k) {
    const uint64_t keep = k + 1 == kBlocks ? top : ~0ull;
    distance += std::popcount(pv[k] & keep) - std::popcount(mv[k] & keep);
  }
  return static_cast<size_t>(distance);
}

template <typename Symbol>
size_t Dispatch(const uint64_t* rows, const Symbol* text, size_t n, size_t m, uint32_t zero_row) {
  switch ((m + 63) / 64) {  // a fixed block count unrolls the blend
    case 2:
      return Skewed<2>(rows, text, n, m, zero_row);
    case 3:
      return Skewed<3>(rows, text, n, m, zero_row);
    case 4:
      return Skewed<4>(rows, text, n, m, zero_row);
    case 5:
      return Skewed<5>(rows, text, n, m, zero_row);
    case 6:
      return Skewed<6>(rows, text, n, m, zero_row);
    case 7:
      return Skewed<7>(rows, text, n, m, zero_row);
    default:
      return Skewed<8>(rows, text, n, m, zero_row);
  }
}

// Per thread: one row table for bytes (256 symbols and the zero row), all zero between calls.
uint64_t* ByteRows() {
  thread_local std::vector<uint64_t> rows(257 * 8, 0);
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
  // above row m; that is harmless, as bits only carry upwards and the count stops at row m.
  const size_t blocks = (m + 63) / 64;
  __m512i chunk[8];
  for (size_t k = 0; k < blocks; ++k) {
    const size_t left = m - 64 * k;
    const __mmask64 valid = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    chunk[k] = _mm512_maskz_loadu_epi8(valid, pattern + 64 * k);
  }
  uint64_t* rows = ByteRows();
  for (size_t i = 0; i < distinct; ++i) {
    const __m512i symbol = _mm512_set1_epi8(static_cast<char>(symbols[i]));
    uint64_t* row = rows + 8 * size_t{symbols[i]};
    for (size_t k = 0; k < blocks; ++k)
      row[k] = _cvtmask64_u64(_mm512_cmpeq_epi8_mask(chunk[k], symbol));
  }
  const size_t distance = Dispatch(rows, text, n, m, 256);
  for (size_t i = 0; i < distinct; ++i)
    _mm512_storeu_si512(rows + 8 * size_t{symbols[i]}, _mm512_setzero_si512());
  return distance;
}

size_t LevenshteinAvx512(const uint64_t* rows, const uint32_t* text, size_t n, size_t m,
                         uint32_t zero_row) {
  return Dispatch(rows, text, n, m, zero_row);
}

#pragma GCC pop_options

#else

bool HasAvx512Levenshtein() { return false; }
// Never reached: callers check HasAvx512Levenshtein() first.
size_t LevenshteinAvx512(const uint8_t*, size_t, const uint8_t*, size_t) { std::abort(); }
size_t LevenshteinAvx512(const uint64_t*, const uint32_t*, size_t, size_t, uint32_t) {
  std::abort();
}

#endif

}  // namespace tala::metrics
