#pragma once
// English Snowball stemming (libstemmer) with a cache, since the same words recur in every chunk.
// Not thread-safe: one Stemmer per thread (each judge owns one).

#include <string>
#include <string_view>
#include <unordered_map>

struct sb_stemmer;

namespace tala::text {

class Stemmer {
 public:
  // `algorithm` is a Snowball algorithm name: "english" (Porter2, the default) or "porter"
  // (the original Porter stemmer, as ROUGE uses).
  explicit Stemmer(const char* algorithm = "english");
  ~Stemmer();
  Stemmer(const Stemmer&) = delete;
  Stemmer& operator=(const Stemmer&) = delete;

  // The stem of a folded token ("published" -> "publish"); numbers are returned unchanged.
  const std::string& Stem(const std::string& folded_token);

 private:
  sb_stemmer* stemmer_;
  std::unordered_map<std::string, std::string> cache_;
};

}  // namespace tala::text
