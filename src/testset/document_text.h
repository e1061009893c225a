#pragma once
// The text of documents that are not plain text: HTML's main text (libxml2's HTML parser, as
// forgiving as a browser) and PDF's text layer (poppler), made into the Markdown-like text the
// chunker splits (documents.h).

#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::testset {

// An HTML page's main text: <main> or <article> when the page has one, else <body>, without
// scripts, styles, navigation, headers, footers, asides and forms; headings kept as Markdown
// headings ("## Fares"), paragraphs and list items on lines of their own.
std::string HtmlMainText(const std::string& html);

// A PDF's text layer, a string per page (page 1 first). kDataError naming the file when it is
// not a PDF poppler can read, or is locked.
Result<std::vector<std::string>> PdfPages(const std::string& path);

}  // namespace tala::testset
