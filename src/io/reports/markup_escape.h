#pragma once
// Escaping text for HTML and XML reports (&, <, >, "), dropping the control characters XML 1.0
// forbids even when escaped. Pure; thread-safe.

#include <string>

namespace tala::io {

std::string EscapeMarkup(const std::string& text);

}  // namespace tala::io
