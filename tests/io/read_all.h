#pragma once
// Test helper: every row a reader yields, samples and errors alike.

#include <vector>

#include "io/readers/dataset_reader.h"

namespace tala::testing {

inline std::vector<Result<Sample>> ReadAll(const std::string& path,
                                           const io::ReaderOptions& options = {}) {
  std::vector<Result<Sample>> rows;
  auto reader = io::OpenDataset(path, options);
  if (!reader) {
    rows.push_back(reader.error());
    return rows;
  }
  while (auto row = (*reader)->Next()) rows.push_back(std::move(*row));
  return rows;
}

}  // namespace tala::testing
