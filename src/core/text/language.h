#pragma once
// The language a text is written in, for the offline judge's word statistics (issue 34):
// - by script where the script says it: kana -> Japanese, Han alone -> Chinese, Hangul -> Korean,
//   Thai, Lao, Khmer, Myanmar;
// - else by libexttextcat's n-gram fingerprints (Debian's libexttextcat-data), read from a few
//   hundred bytes. A text too short or too mixed to tell, or one the classifier ranks English
//   among its candidates, is English: the offline judge's rules were written for it, and a
//   short English answer must not be read as Scots.
// Thread-safe (the classifier's handle is shared under a lock).

#include <string>
#include <string_view>

#include "tala/sample.h"

namespace tala::text {

struct Language {
  std::string code;       // ISO 639: "en", "fi", "ja"; "" when the classifier is not installed
  std::string stemmer;    // the Snowball algorithm for it ("finnish"), "" when libstemmer has none
  bool unspaced = false;  // written without spaces between words (words come from ICU breaks)
  // Whether the offline judge can count its words: English, a Snowball language, or an
  // unspaced script ICU segments.
  bool supported() const { return code == "en" || !stemmer.empty() || unspaced; }
};

Language DetectLanguage(std::string_view text);

// A row's language, read from its question, response, contexts and reference (in that order, the
// first thousand bytes or so). Every judge reads a row's language this one way.
Language DetectRowLanguage(const Sample& s);

// A language's name for people ("Finnish"), or its code when tala has none.
std::string LanguageName(std::string_view code);

}  // namespace tala::text
