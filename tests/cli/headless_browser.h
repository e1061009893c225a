#pragma once
// Test helper: a page opened in headless Chromium (`make test-deps` installs it), its DOM after
// the page's scripts ran; the pages' #selftest writes its outcome into the DOM.

#include <cstdio>
#include <string>

namespace tala::testing {

inline constexpr const char* kChromium = "/usr/bin/chromium";
inline constexpr const char* kChromiumFlags =
    " --headless --no-sandbox --disable-gpu --disable-background-networking --disable-extensions"
    " --no-first-run --disable-dev-shm-usage --hide-scrollbars --virtual-time-budget=10000";

// `url` such as "file:///tmp/x/report.html#selftest"; `flags` such as " --window-size=1400,900".
inline std::string DumpDom(const std::string& url, const std::string& flags = "") {
  std::string cmd =
      std::string(kChromium) + kChromiumFlags + flags + " --dump-dom '" + url + "' 2>/dev/null";
  std::FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string dom;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) dom.append(buf, n);
  pclose(pipe);
  return dom;
}

}  // namespace tala::testing
