#pragma once
// tala_fs: the file-safety layer every face shares (standard library and POSIX only). This file:
// before anything is opened for writing, every output is compared with every input and with the
// other outputs by what the file *is* (device and inode), not by how its path is spelled, so
// `x`, `./x`, `/abs/x`, a symlink and a hard link all count as the same file.

#include <string>
#include <vector>

#include "tala/status.h"

namespace tala::fs {

// One path a command reads or writes, named by the flag (or argument) that gave it.
struct NamedPath {
  std::string flag;  // "-o", "DATA", "--html", ...
  std::string path;  // "" and "-" (stdin/stdout) are ignored
};

// kInvalidArgument, naming both flags, when an output is the same file as an input or as another
// output. Nothing is opened for writing. Outputs that do not exist yet are compared by their
// resolved absolute path.
Status CheckOutputsDistinct(const std::vector<NamedPath>& inputs,
                            const std::vector<NamedPath>& outputs);

// kInvalidArgument when `out.path` exists and is not a regular file (a device such as /dev/null,
// a pipe, a folder): an output that is written beside its target and renamed into place would
// replace the device itself (as root, /dev/null for the whole machine).
Status CheckRenamedIntoPlace(const NamedPath& out);

}  // namespace tala::fs
