#pragma once
// Escaping text for HTML and XML reports (&, <, >, "), dropping the control characters XML 1.0
// forbids even when escaped. Pure; thread-safe.

#include <string>

namespace tala::io {

std::string EscapeMarkup(const std::string& text);

// JSON text made safe inside a <script> element: '<' only occurs inside JSON strings, where
// \u003c is the same character, so nothing in it can close the element or open a comment.
std::string ScriptJson(const std::string& json);

}  // namespace tala::io
