#pragma once
// The two non-row records of a results file. The first line is the run manifest, what was run
// ({"tala_manifest": {versions, judge, prompts, metrics, settings}}), so a results file says
// how its numbers were made and `tala compare` can refuse to mix versions; each run (or
// resumed part of one) that called a model ends with {"tala_run": {accounting}}. Readers of
// results skip both. Pure formatting; thread-safe.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tala/run_summary.h"

namespace tala::io {

struct RunManifest {
  std::string tala_version;
  std::string created;  // UTC, ISO 8601
  std::string dataset;
  std::string dataset_sha256;  // the dataset file's content; "" in older files
  std::string judge;
  std::string embeddings;                      // empty when no embeddings model is used
  std::map<std::string, std::string> prompts;  // prompt name -> version (LLM judges)
  std::map<std::string, std::string> metrics;  // results key -> definition version
  std::vector<std::pair<std::string, std::string>> settings;  // "temperature" -> "0"
};

inline constexpr const char* kManifestKey = "tala_manifest";
inline constexpr const char* kRunRecordKey = "tala_run";

std::string FormatManifestLine(const RunManifest& manifest);
// `status` is "complete", "cancelled" or the error that stopped the run.
std::string FormatRunRecordLine(const RunAccounting& accounting, const std::string& status,
                                const std::string& finished);

// The current UTC time as ISO 8601 ("2026-12-02T17:05:00Z").
std::string UtcNow();

}  // namespace tala::io
