#pragma once
// A file's content digest (SHA-256, hex): what the run manifest and a shard's state record of
// the dataset, so --resume and tala merge can tell another (or an edited) dataset from the one
// a run was made from, whatever its name and size.

#include <chrono>
#include <string>
#include <string_view>

#include "tala/status.h"

namespace tala::fs {

// kIoError when the file cannot be read. A digest is remembered per file version (device, inode,
// size, modification and change times) once that version is `settled` old when hashing begins,
// so hashing the same unchanged dataset again (each shard of a sharded run, a notebook's
// repeated runs) does not read it again.
Result<std::string> FileSha256(const std::string& path,
                               std::chrono::nanoseconds settled = std::chrono::seconds(2));

// The SHA-256 (hex) of `bytes`, as core's Sha256Hex gives it, with OpenSSL's faster code: for
// megabytes, not for short texts.
std::string Sha256OfBytes(std::string_view bytes);

}  // namespace tala::fs
