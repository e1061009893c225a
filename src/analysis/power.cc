#include "analysis/power.h"

#include <cmath>

namespace tala::analysis {

double NormalQuantile(double p) {
  // Coefficients of Acklam's algorithm (public domain, 2003).
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  if (p < low) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) return -NormalQuantile(1 - p);
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double MarginOfError(double p, double n, double confidence) {
  return NormalQuantile(1 - (1 - confidence) / 2) * std::sqrt(p * (1 - p) / n);
}

double RowsForTwoProportions(double p1, double p2, double alpha, double power) {
  double za = NormalQuantile(1 - alpha / 2), zb = NormalQuantile(power);
  double pbar = (p1 + p2) / 2, delta = p2 - p1;
  double term =
      za * std::sqrt(2 * pbar * (1 - pbar)) + zb * std::sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return term * term / (delta * delta);
}

std::optional<double> RowsForPairedProportions(double p1, double p2, double discordant,
                                               double alpha, double power) {
  double delta = p2 - p1;
  if (std::abs(delta) > discordant || discordant <= 0) return std::nullopt;
  double za = NormalQuantile(1 - alpha / 2), zb = NormalQuantile(power);
  double term = za * std::sqrt(discordant) + zb * std::sqrt(discordant - delta * delta);
  return term * term / (delta * delta);
}

}  // namespace tala::analysis
