#include "core/text/stemmer.h"

#include <libstemmer.h>

namespace tala::text {

Stemmer::Stemmer(const char* algorithm) : stemmer_(sb_stemmer_new(algorithm, "UTF_8")) {}

Stemmer::~Stemmer() {
  if (stemmer_ != nullptr) sb_stemmer_delete(stemmer_);
}

const std::string& Stemmer::Stem(const std::string& token) {
  auto it = cache_.find(token);
  if (it != cache_.end()) return it->second;
  if (cache_.size() > 1000000) cache_.clear();  // bounded memory on endless vocabularies
  std::string stem = token;
  if (stemmer_ != nullptr && !token.empty() && !(token[0] >= '0' && token[0] <= '9')) {
    const sb_symbol* s = sb_stemmer_stem(stemmer_, reinterpret_cast<const sb_symbol*>(token.data()),
                                         static_cast<int>(token.size()));
    if (s != nullptr) stem.assign(reinterpret_cast<const char*>(s), sb_stemmer_length(stemmer_));
  }
  return cache_.emplace(token, std::move(stem)).first->second;
}

}  // namespace tala::text
