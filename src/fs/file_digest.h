#pragma once
// A file's content digest (SHA-256, hex): what the run manifest and a shard's state record of
// the dataset, so --resume and tala merge can tell another (or an edited) dataset from the one
// a run was made from, whatever its name and size.

#include <string>

#include "tala/status.h"

namespace tala::fs {

// kIoError when the file cannot be read.
Result<std::string> FileSha256(const std::string& path);

}  // namespace tala::fs
