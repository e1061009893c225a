#pragma once
// Judge registry: name -> factory ("replay", "offline"). Immutable table: thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "tala/judge.h"

namespace tala::judges {

struct JudgeEntry {
  const char* name;
  const char* summary;
  std::unique_ptr<Judge> (*make)();
};

const std::vector<JudgeEntry>& JudgeRegistry();

// kNotFound lists the known judges.
Result<std::unique_ptr<Judge>> CreateJudge(const std::string& spec);

}  // namespace tala::judges
