#pragma once
// `--help` that reads in an 80-100 column terminal: every description and option text wrapped
// at 100 columns (CLI11 prints each on one line, up to 762 characters; F35).

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <string>

namespace tala::cli {

// `text` broken at spaces into lines of at most `width` characters.
std::string WrapText(const std::string& text, size_t width);

// `text` wrapped to end by column 100, its later lines indented by `indent` columns, as its first
// is by what the caller prints before it ("  misses:    ...", a subcommand's name).
std::string WrapHanging(const std::string& text, size_t indent);

// Puts the named options of `cmd` under `group` in --help (each name as the option was declared,
// "--out" for "--out,-o"). Throws CLI::OptionNotFound for a name `cmd` lacks: a test catches it.
void GroupOptions(CLI::App* cmd, const std::string& group,
                  std::initializer_list<const char*> names);

class WrappingFormatter : public CLI::Formatter {
 public:
  WrappingFormatter();
  std::string make_description(const CLI::App* app) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_footer(const CLI::App* app) const override;
};

}  // namespace tala::cli
