#pragma once
// Judge registry: name -> factory ("replay", "offline"). Immutable table: thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "tala/judge.h"
#include "tala/offline_blend.h"

namespace tala::judges {

struct JudgeEntry {
  const char* name;
  const char* summary;
  std::unique_ptr<Judge> (*make)(const OfflineBlend& blend);
};

const std::vector<JudgeEntry>& JudgeRegistry();

// kNotFound lists the known judges. `blend`: the offline judge's refitted relevance weights (a
// judge profile's); the other judges have none.
Result<std::unique_ptr<Judge>> CreateJudge(const std::string& spec, const OfflineBlend& blend = {});

}  // namespace tala::judges
