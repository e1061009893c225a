#include "tala/power.h"

#include <fmt/format.h>

#include <cmath>

#include "analysis/power.h"

namespace tala {

namespace {
Status CheckUnit(const std::optional<double>& v, const char* name) {
  if (v && !(*v >= 0 && *v <= 1)) {
    return InvalidArgument(fmt::format("{} must lie in [0, 1], got {:g}", name, *v));
  }
  return OkStatus();
}
}  // namespace

Result<PowerAnswer> Power(const PowerQuery& q) {
  for (auto [v, name] :
       {std::pair{q.p, "p"}, {q.p1, "p1"}, {q.p2, "p2"}, {q.discordant, "discordant"}}) {
    TALA_RETURN_IF_ERROR(CheckUnit(v, name));
  }
  if (!(q.alpha >= 1e-6 && q.alpha <= 0.5)) {
    return InvalidArgument(fmt::format("alpha must lie in [1e-06, 0.5], got {:g}", q.alpha));
  }
  if (!(q.power >= 0.5 && q.power <= 0.9999)) {
    return InvalidArgument(fmt::format("power must lie in [0.5, 0.9999], got {:g}", q.power));
  }
  if (q.n && *q.n <= 0) return InvalidArgument(fmt::format("n must be positive, got {}", *q.n));
  PowerAnswer a;
  if (q.p && q.n) {
    a.kind = "margin";
    a.margin = analysis::MarginOfError(*q.p, static_cast<double>(*q.n), 1 - q.alpha);
    a.low = *q.p - a.margin;
    a.high = *q.p + a.margin;
    a.text = fmt::format(
        "a score of {:.3f} on {} rows is known to ±{:.3f} ({:.0f}% interval: "
        "{:.3f} to {:.3f})",
        *q.p, *q.n, a.margin, 100 * (1 - q.alpha), a.low, a.high);
    return a;
  }
  if (!q.p1 || !q.p2) {
    return InvalidArgument(
        "give p and n (margin of error) or p1 and p2 (rows needed); see tala power --help");
  }
  if (*q.p1 == *q.p2) return InvalidArgument("p1 and p2 must differ");
  if (!q.paired) {
    a.kind = "independent";
    a.rows = static_cast<long>(
        std::ceil(analysis::RowsForTwoProportions(*q.p1, *q.p2, q.alpha, q.power)));
    a.text = fmt::format(
        "independent samples: {} rows per system to tell {:.3f} from {:.3f} at alpha {:.2f} "
        "with power {:.2f}",
        a.rows, *q.p1, *q.p2, q.alpha, q.power);
    return a;
  }
  if (!q.discordant) {
    return InvalidArgument(
        "paired needs discordant (the expected share of rows on which the two systems "
        "disagree)");
  }
  auto rows = analysis::RowsForPairedProportions(*q.p1, *q.p2, *q.discordant, q.alpha, q.power);
  if (!rows) {
    return InvalidArgument(fmt::format(
        "a difference of {:.3f} needs at least that share of discordant rows; discordant {:.3f} "
        "is too small",
        std::abs(*q.p2 - *q.p1), *q.discordant));
  }
  a.kind = "paired";
  a.rows = static_cast<long>(std::ceil(*rows));
  a.text = fmt::format(
      "paired (the same rows scored by both systems, {:.0f}% discordant): {} rows to tell {:.3f} "
      "from {:.3f} at alpha {:.2f} with power {:.2f}",
      100 * *q.discordant, a.rows, *q.p1, *q.p2, q.alpha, q.power);
  return a;
}

}  // namespace tala
