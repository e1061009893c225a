#include "fs/output_paths.h"

#include <sys/stat.h>

#include <filesystem>
#include <optional>

namespace tala::fs {

namespace {

// What a path names: "dev:ino" when the file exists, else its resolved absolute path; nothing
// for a character device (/dev/null, a terminal), which any number of outputs may share and no
// output can destroy.
std::optional<std::string> Identity(const std::string& path) {
  if (path.empty() || path == "-") return std::nullopt;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) return std::nullopt;
    return "inode " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  }
  std::error_code ec;
  auto resolved = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return "path " + (ec ? path : resolved.string());
}

std::string Describe(const NamedPath& p) { return p.flag + " (" + p.path + ")"; }

}  // namespace

Status CheckOutputsDistinct(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs) {
  std::vector<std::pair<std::string, const NamedPath*>> seen;
  for (const NamedPath& in : inputs) {
    if (auto id = Identity(in.path)) seen.emplace_back(*id, &in);
  }
  const size_t n_inputs = seen.size();
  for (const NamedPath& out : outputs) {
    auto id = Identity(out.path);
    if (!id) continue;
    for (size_t i = 0; i < seen.size(); ++i) {
      if (seen[i].first != *id) continue;
      const bool is_input = i < n_inputs;
      return InvalidArgument(
          Describe(out) + " and " + Describe(*seen[i].second) + " are the same file; " +
          (is_input ? "writing it would destroy the input" : "one would overwrite the other") +
          ". Choose another path for " + out.flag);
    }
    seen.emplace_back(*id, &out);
  }
  return OkStatus();
}

Status CheckRenamedIntoPlace(const NamedPath& out) {
  struct stat st;
  if (out.path.empty() || out.path == "-" || ::stat(out.path.c_str(), &st) != 0 ||
      S_ISREG(st.st_mode)) {
    return OkStatus();
  }
  return InvalidArgument(out.flag + " " + out.path +
                         " is not a regular file (a device, pipe or folder): this output is "
                         "written beside it and renamed into place, which would replace it; "
                         "give a file's path");
}

}  // namespace tala::fs
