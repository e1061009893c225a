#include "cli/help_format.h"

#include <cctype>

namespace tala::cli {

namespace {
constexpr size_t kWidth = 100;
constexpr size_t kColumn = 30;  // where option and subcommand descriptions start
}  // namespace

std::string WrapText(const std::string& text, size_t width) {
  std::string out, line;
  size_t at = 0;
  auto flush = [&] {
    if (!out.empty()) out += '\n';
    out += line;
    line.clear();
  };
  while (at < text.size()) {
    if (text[at] == '\n') {  // a line break the text asks for stays
      flush();
      ++at;
      continue;
    }
    size_t end = text.find_first_of(" \n", at);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) flush();
    if (!line.empty()) line += ' ';
    line += word;
    at = end < text.size() && text[end] == ' ' ? end + 1 : end;
  }
  if (!line.empty()) flush();
  return out;
}

std::string WrapHanging(const std::string& text, size_t indent) {
  std::string out;
  for (char c : WrapText(text, kWidth - indent)) {
    out += c;
    if (c == '\n') out.append(indent, ' ');
  }
  return out;
}

WrappingFormatter::WrappingFormatter() { column_width(kColumn); }

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  std::string desc = app->get_description();
  if (desc.empty()) return "";
  return WrapText(desc, kWidth) + "\n";
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  // The first sentence is the summary; `tala COMMAND --help` has the whole text.
  std::string desc = sub->get_description();
  // A sentence ends at ". " before a capital ("e.g. --metric" does not end one).
  for (size_t stop = desc.find(". "); stop != std::string::npos; stop = desc.find(". ", stop + 1)) {
    if (stop + 2 < desc.size() && std::isupper(static_cast<unsigned char>(desc[stop + 2]))) {
      desc = desc.substr(0, stop + 1);
      break;
    }
  }
  std::string out = "  " + sub->get_display_name();
  out += out.size() < kColumn ? std::string(kColumn - out.size(), ' ')
                              : "\n" + std::string(kColumn, ' ');
  return out + WrapHanging(desc, kColumn) + "\n";
}

std::string WrappingFormatter::make_option_desc(const CLI::Option* opt) const {
  return WrapText(CLI::Formatter::make_option_desc(opt), kWidth - kColumn);
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  std::string footer = app->get_footer();
  return footer.empty() ? "" : "\n" + footer + "\n";
}

void GroupOptions(CLI::App* cmd, const std::string& group,
                  std::initializer_list<const char*> names) {
  for (const char* name : names) cmd->get_option(name)->group(group);
}

}  // namespace tala::cli
