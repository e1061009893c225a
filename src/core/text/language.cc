#include "core/text/language.h"

#include <textcat.h>
#include <utf8proc.h>

#include <cstdlib>
#include <mutex>

namespace tala::text {

namespace {

struct Snowball {
  const char* code;
  const char* algorithm;
  const char* name;
};
// libstemmer 2.2's algorithms by ISO code ("porter" is English's older one).
constexpr Snowball kSnowball[] = {
    {"ar", "arabic", "Arabic"},         {"hy", "armenian", "Armenian"},
    {"eu", "basque", "Basque"},         {"ca", "catalan", "Catalan"},
    {"da", "danish", "Danish"},         {"nl", "dutch", "Dutch"},
    {"en", "english", "English"},       {"fi", "finnish", "Finnish"},
    {"fr", "french", "French"},         {"de", "german", "German"},
    {"el", "greek", "Greek"},           {"hi", "hindi", "Hindi"},
    {"hu", "hungarian", "Hungarian"},   {"id", "indonesian", "Indonesian"},
    {"ga", "irish", "Irish"},           {"it", "italian", "Italian"},
    {"lt", "lithuanian", "Lithuanian"}, {"ne", "nepali", "Nepali"},
    {"nb", "norwegian", "Norwegian"},   {"nn", "norwegian", "Norwegian"},
    {"pt", "portuguese", "Portuguese"}, {"ro", "romanian", "Romanian"},
    {"ru", "russian", "Russian"},       {"sr", "serbian", "Serbian"},
    {"es", "spanish", "Spanish"},       {"sv", "swedish", "Swedish"},
    {"ta", "tamil", "Tamil"},           {"tr", "turkish", "Turkish"},
};

const Snowball* SnowballFor(std::string_view code) {
  for (const Snowball& s : kSnowball) {
    if (code == s.code) return &s;
  }
  return nullptr;
}

// The language the script alone gives, or "" for scripts several languages share.
std::string ByScript(std::string_view text) {
  size_t letters = 0, kana = 0, han = 0, hangul = 0, thai = 0, lao = 0, khmer = 0, myanmar = 0;
  for (size_t i = 0; i < text.size();) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t len =
        utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + i),
                         static_cast<utf8proc_ssize_t>(text.size() - i), &cp);
    if (len <= 0) cp = 0xfffd;  // a byte that is not UTF-8 counts as a letter of no script
    i += len > 0 ? static_cast<size_t>(len) : 1;
    if (cp < 0x80) {
      letters += (cp | 0x20) >= 'a' && (cp | 0x20) <= 'z';
      continue;
    }
    ++letters;
    kana += cp >= 0x3040 && cp <= 0x30ff;
    han += (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) ||
           (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0x20000 && cp <= 0x2fa1f);
    hangul += cp >= 0xac00 && cp <= 0xd7af;
    thai += cp >= 0x0e00 && cp <= 0x0e7f;
    lao += cp >= 0x0e80 && cp <= 0x0eff;
    khmer += cp >= 0x1780 && cp <= 0x17ff;
    myanmar += cp >= 0x1000 && cp <= 0x109f;
  }
  if (letters == 0) return "";
  auto share = [&](size_t n) { return n * 5 >= letters; };  // a fifth of the letters or more
  if (share(kana + han) && kana > 0) return "ja";
  if (share(han)) return "zh";
  if (share(hangul)) return "ko";
  if (share(thai)) return "th";
  if (share(lao)) return "lo";
  if (share(khmer)) return "km";
  if (share(myanmar)) return "my";
  return "";
}

// libexttextcat's answer: "[fi--utf8]" or "[en--utf8][sco--utf8]" (candidates within its
// threshold), "SHORT" or "UNKNOWN". Returns the first candidate's code, "en" when English is
// among them, "" when it cannot tell, "?" when the classifier is not installed.
std::string ByFingerprint(std::string_view text) {
  static std::mutex mutex;
  static void* handle = [] {
    const char* dir = std::getenv("TALA_TEXTCAT_DIR");
    std::string prefix = dir != nullptr ? std::string(dir) + "/" : "/usr/share/libexttextcat/";
    return special_textcat_Init((prefix + "fpdb.conf").c_str(), prefix.c_str());
  }();
  if (handle == nullptr) return "?";
  // Under this many bytes the fingerprints guess ("Delhi" reads as Luxembourgish).
  if (text.size() < 40) return "";
  // A few hundred bytes suffice (its documentation), cut at a character boundary.
  size_t size = std::min<size_t>(text.size(), 600);
  while (size > 0 && size < text.size() &&
         (static_cast<unsigned char>(text[size]) & 0xc0) == 0x80) {
    --size;  // a hostile run of continuation bytes stops at 0, never wraps
  }
  std::string out;
  {
    std::lock_guard<std::mutex> lock(mutex);
    out = textcat_Classify(handle, text.data(), size);
  }
  if (out.empty() || out[0] != '[') return "";
  if (out.find("[en-") != std::string::npos) return "en";
  size_t end = out.find_first_of("-]", 1);
  return out.substr(1, end - 1);
}

// True when English function words make a tenth of the words or more: English prose runs near
// 40%, other languages that write Latin letters near none ("was" and "an", German words too, are
// left out), and the fingerprints cost a hundred times more (this check keeps faithfulness alone
// above 10,000 rows a second).
bool PlainlyEnglish(std::string_view text) {
  static constexpr std::string_view kWords[] = {
      "the",   "of",  "and",  "is",   "were", "are",  "for", "with",  "that", "this", "which",
      "from",  "by",  "has",  "have", "his",  "her",  "its", "their", "who",  "what", "when",
      "where", "how", "does", "did",  "be",   "been", "not", "or",    "it"};
  auto letter = [](char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; };
  size_t words = 0, english = 0;
  // The first sixty words tell.
  for (size_t i = 0; i < text.size() && words < 60;) {
    while (i < text.size() && !letter(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && letter(text[i])) ++i;
    if (i == start) break;
    ++words;
    if (i - start > 5) continue;  // every word of the list is short
    char lower[6] = {};
    for (size_t k = start; k < i; ++k) lower[k - start] = static_cast<char>(text[k] | 0x20);
    const std::string_view word(lower, i - start);
    for (std::string_view w : kWords) {
      if (word == w) {
        ++english;
        break;
      }
    }
  }
  return words > 0 && english * 10 >= words;
}

}  // namespace

Language DetectLanguage(std::string_view text) {
  if (PlainlyEnglish(text)) return Language{"en", "english", false};
  Language l;
  l.code = ByScript(text);
  if (!l.code.empty()) {
    l.unspaced = l.code != "ko";  // Korean spaces its words
    return l;
  }
  l.code = ByFingerprint(text);
  if (l.code == "?") return Language{"en", "english", false};  // no classifier: as before
  if (l.code.empty() || l.code == "sco") l.code = "en";
  if (const Snowball* s = SnowballFor(l.code)) l.stemmer = s->algorithm;
  return l;
}

Language DetectRowLanguage(const Sample& s) {
  std::string text = s.user_input.value_or("");
  if (s.response) text += "\n" + *s.response;
  if (s.retrieved_contexts) {
    for (const std::string& c : *s.retrieved_contexts) {
      if (text.size() > 1000) break;
      text += "\n" + c;
    }
  }
  if (s.reference && text.size() < 1000) text += "\n" + *s.reference;
  return DetectLanguage(text);
}

std::string LanguageName(std::string_view code) {
  if (const Snowball* s = SnowballFor(code)) return s->name;
  static constexpr std::pair<const char*, const char*> kOthers[] = {
      {"ja", "Japanese"},  {"cs", "Czech"},      {"pl", "Polish"},    {"sk", "Slovak"},
      {"sl", "Slovenian"}, {"hr", "Croatian"},   {"bg", "Bulgarian"}, {"uk", "Ukrainian"},
      {"et", "Estonian"},  {"lv", "Latvian"},    {"he", "Hebrew"},    {"fa", "Persian"},
      {"ur", "Urdu"},      {"vi", "Vietnamese"}, {"ms", "Malay"},     {"zh", "Chinese"},
      {"ko", "Korean"},    {"th", "Thai"},       {"lo", "Lao"},       {"km", "Khmer"},
      {"my", "Burmese"},
  };
  for (const auto& [c, name] : kOthers) {
    if (code == c) return name;
  }
  return std::string(code);
}

}  // namespace tala::text
