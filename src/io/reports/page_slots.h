#pragma once
// The self-contained pages (the dashboard, the history page) are templates with @SLOT@ markers
// filled when served. Fill them from the last slot to the first, so that text put in never holds
// a slot still to be filled.

#include <string>
#include <string_view>

namespace tala::io {

// Replaces the first `slot` in `page` with `value` (nothing when the page has no such slot).
inline void FillSlot(std::string& page, std::string_view slot, const std::string& value) {
  size_t at = page.find(slot);
  if (at != std::string::npos) page.replace(at, slot.size(), value);
}

}  // namespace tala::io
