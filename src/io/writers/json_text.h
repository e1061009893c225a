#pragma once
// Writing JSON text by hand for the hot output paths: string escaping and shortest round-trip
// numbers. Never writes NaN or infinity (callers write null with a reason instead).

#include <string>
#include <string_view>

namespace tala::io {

void AppendJsonString(std::string& out, std::string_view s);
// Shortest text that reads back as the same double. REQUIRES: std::isfinite(v).
void AppendJsonNumber(std::string& out, double v);

}  // namespace tala::io
