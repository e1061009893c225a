#include "judges/llm/prompts.h"

#include <cstdio>
#include <cstdlib>

namespace tala::judges::llm {

namespace {
Prompt Parse(const PromptFile& file) {
  std::string_view text = file.text;
  constexpr std::string_view kVersion = "version: ";
  size_t rule = text.find("\n---\n");
  if (text.substr(0, kVersion.size()) != kVersion || rule == std::string_view::npos) {
    std::fprintf(stderr, "tala: prompt %s.txt lacks its \"version: N\" and \"---\" header\n",
                 file.name);
    std::abort();
  }
  Prompt p;
  p.name = file.name;
  p.version = std::string(text.substr(kVersion.size(), rule - kVersion.size()));
  p.system = std::string(text.substr(rule + 5));
  while (!p.system.empty() && p.system.back() == '\n') p.system.pop_back();
  return p;
}
}  // namespace

const std::vector<Prompt>& Prompts() {
  static const std::vector<Prompt> kPrompts = [] {
    std::vector<Prompt> out;
    for (const PromptFile& f : PromptFiles()) out.push_back(Parse(f));
    return out;
  }();
  return kPrompts;
}

const Prompt& GetPrompt(std::string_view name) {
  for (const Prompt& p : Prompts()) {
    if (p.name == name) return p;
  }
  std::fprintf(stderr, "tala: no prompt named %.*s\n", static_cast<int>(name.size()), name.data());
  std::abort();
}

}  // namespace tala::judges::llm
