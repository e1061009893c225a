#pragma once
// data_compare: two query results, given as CSV text in `response` (the result of the generated
// query) and `reference` (the result of the reference query), compared cell by cell. No judge.
//
// Options: mode=rows|columns (default rows), metric=precision|recall|f1 (default f1).
// Each text is CSV (RFC 4180: commas, double quotes with "" inside, LF or CRLF; blank lines
// skipped); the first line names the columns (compared case-insensitively, as datacompy
// lowercases them). Rows pair up by position (datacompy's on_index=True on pandas' default
// index). Two cells are equal when both are empty, or both read as numbers of the same value
// ("1" and "1.0"), or their texts are identical.
//   rows:    a row matches when every common column is equal in it (no row matches when the
//            two have no column in common);
//            recall = matching rows / reference rows, precision = matching rows / response rows.
//   columns: a common column matches when it is equal in every paired row;
//            recall = matching columns / reference columns, precision = / response columns.
//   f1 = 2PR / (P + R).
// Undefined (Ragas: NaN) when a text is not CSV or has no header. A denominator of 0 (a table
// with no rows, or no columns) makes that side 0, and f1 is 0 when P + R = 0, as Ragas' current
// DataCompyScore scores them: a result that matches nothing counts as 0 in the mean. Example:
// reference "id,name\n1,Ann\n2,Bo", response "id,name\n1,Ann\n2,Bob": rows P = R = F1 = 0.5;
// columns: id matches, name does not → P = R = 0.5. Not among the default metrics (any two texts
// would parse as one-column CSV): ask for it. Source: the Ragas DataCompyScore metric.

#include "metrics/metric_base.h"

namespace tala::metrics {
const MetricInfo& DataCompareInfo();
Result<std::unique_ptr<Metric>> MakeDataCompare(const MetricOptions& options);
}  // namespace tala::metrics
