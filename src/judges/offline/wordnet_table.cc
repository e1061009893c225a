// The WordNet table the build compiled (tools/compile_wordnet.cc), linked into the program as
// read-only data: the operating system maps it on first touch and processes share its pages, so
// no process parses the lexicon. TALA_WORDNET_TABLE names the file at compile time; a build
// without one (no wordnet-base) reads the text files at first use instead.

#include <cstdlib>
#include <string_view>

#include "judges/offline/wordnet.h"

#ifdef TALA_WORDNET_TABLE
// .incbin copies the file into this object's read-only data; the symbols are hidden so that a
// shared library (the Python module) reaches them without a relocation through its GOT.
asm(R"(
  .section .rodata
  .balign 16
  .hidden tala_wordnet_table_begin
  .hidden tala_wordnet_table_end
tala_wordnet_table_begin:
  .incbin ")" TALA_WORDNET_TABLE R"("
tala_wordnet_table_end:
  .previous
)");
extern "C" const char tala_wordnet_table_begin[];
extern "C" const char tala_wordnet_table_end[];
#endif

namespace tala::judges::offline {

const WordNet& WordNet::Get() {
  // Never destroyed: a lexicon read from text files holds some megabytes that the process's
  // exit frees anyway.
  static const WordNet* const kWordNet = [] {
    if (const char* dir = std::getenv("TALA_WORDNET_DIR")) return new WordNet(Load(dir));
#ifdef TALA_WORDNET_TABLE
    WordNet linked = View(std::string_view(tala_wordnet_table_begin,
                                           tala_wordnet_table_end - tala_wordnet_table_begin));
    if (!linked.empty()) return new WordNet(std::move(linked));
#endif
    return new WordNet(Load("/usr/share/wordnet"));
  }();
  return *kWordNet;
}

}  // namespace tala::judges::offline
