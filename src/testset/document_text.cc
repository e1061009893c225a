#include "testset/document_text.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <cstring>
#include <memory>

namespace tala::testset {

namespace {

bool Named(const xmlNode* n, const char* name) {
  return n->type == XML_ELEMENT_NODE && n->name != nullptr &&
         std::strcmp(reinterpret_cast<const char*>(n->name), name) == 0;
}

// Boilerplate a page repeats around its content.
bool Skipped(const xmlNode* n) {
  for (const char* name : {"script", "style", "noscript", "nav", "header", "footer", "aside",
                           "form", "template", "svg", "iframe", "button", "select"}) {
    if (Named(n, name)) return true;
  }
  return false;
}

const xmlNode* FindFirst(const xmlNode* n, const char* name) {
  for (; n != nullptr; n = n->next) {
    if (Named(n, name)) return n;
    if (const xmlNode* found = FindFirst(n->children, name)) return found;
  }
  return nullptr;
}

void Collapse(std::string& out, const char* text) {
  for (const char* c = text; *c; ++c) {
    const bool space = *c == ' ' || *c == '\t' || *c == '\n' || *c == '\r';
    if (space) {
      if (!out.empty() && out.back() != ' ' && out.back() != '\n') out += ' ';
    } else {
      out += *c;
    }
  }
}

void EndLine(std::string& out, int blank_lines) {
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.empty()) return;
  int have = 0;
  for (size_t i = out.size(); i > 0 && out[i - 1] == '\n'; --i) ++have;
  for (int i = have; i < blank_lines + 1; ++i) out += '\n';
}

void Walk(const xmlNode* n, std::string& out) {
  for (; n != nullptr; n = n->next) {
    if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) {
      if (n->content != nullptr) Collapse(out, reinterpret_cast<const char*>(n->content));
      continue;
    }
    if (n->type != XML_ELEMENT_NODE || Skipped(n)) continue;
    const char* name = reinterpret_cast<const char*>(n->name);
    if (name[0] == 'h' && name[1] >= '1' && name[1] <= '6' && name[2] == '\0') {
      EndLine(out, 1);
      out += std::string(static_cast<size_t>(name[1] - '0'), '#') + ' ';
      Walk(n->children, out);
      EndLine(out, 1);
      continue;
    }
    const bool block = Named(n, "p") || Named(n, "div") || Named(n, "section") ||
                       Named(n, "article") || Named(n, "main") || Named(n, "ul") ||
                       Named(n, "ol") || Named(n, "table") || Named(n, "blockquote") ||
                       Named(n, "pre") || Named(n, "dl");
    const bool line =
        Named(n, "li") || Named(n, "tr") || Named(n, "br") || Named(n, "dt") || Named(n, "dd");
    if (block) EndLine(out, 1);
    if (line) EndLine(out, 0);
    if (Named(n, "li")) out += "- ";
    Walk(n->children, out);
    if (Named(n, "td") || Named(n, "th")) out += ' ';
    if (block) EndLine(out, 1);
    if (line) EndLine(out, 0);
  }
}

}  // namespace

std::string HtmlMainText(const std::string& html) {
  std::unique_ptr<xmlDoc, void (*)(xmlDoc*)> doc(
      htmlReadMemory(html.data(), static_cast<int>(html.size()), nullptr, "utf-8",
                     HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                         HTML_PARSE_NONET | HTML_PARSE_NOBLANKS),
      xmlFreeDoc);
  if (!doc) return "";
  const xmlNode* root = xmlDocGetRootElement(doc.get());
  const xmlNode* main = FindFirst(root, "main");
  if (main == nullptr) main = FindFirst(root, "article");
  if (main == nullptr) main = FindFirst(root, "body");
  std::string out;
  Walk(main != nullptr ? main->children : root, out);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out.empty() ? out : out + "\n";
}

Result<std::vector<std::string>> PdfPages(const std::string& path) {
  // poppler writes its complaints about a damaged file to stderr; the error returned says it.
  static const bool quiet = [] {
    poppler::set_debug_error_function([](const std::string&, void*) {}, nullptr);
    return true;
  }();
  (void)quiet;
  std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
  if (!doc) return DataError({path, 0, 0, ""}, "not a PDF that can be read");
  if (doc->is_locked()) return DataError({path, 0, 0, ""}, "the PDF is locked by a password");
  std::vector<std::string> pages;
  for (int i = 0; i < doc->pages(); ++i) {
    std::unique_ptr<poppler::page> page(doc->create_page(i));
    if (!page) {
      pages.emplace_back();
      continue;
    }
    poppler::byte_array utf8 = page->text().to_utf8();
    pages.emplace_back(utf8.begin(), utf8.end());
  }
  return pages;
}

}  // namespace tala::testset
