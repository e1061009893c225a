#pragma once
// The CI verdict a report opens with (tala ci's report.html and summary.md): each gate, passed or
// failed, with what it measured. Plain data.

#include <string>
#include <vector>

namespace tala::io {

struct GateLine {
  bool pass = true;
  std::string detail;
};

// "FAILED: 1 of 2 gates" or "PASSED: all 2 gates"; "" when there are none.
inline std::string GateHeadline(const std::vector<GateLine>& gates) {
  if (gates.empty()) return "";
  size_t failed = 0;
  for (const GateLine& g : gates) failed += g.pass ? 0 : 1;
  return failed ? "FAILED: " + std::to_string(failed) + " of " + std::to_string(gates.size()) +
                      " gates"
                : "PASSED: all " + std::to_string(gates.size()) + " gates";
}

}  // namespace tala::io
