// Compiles WordNet's text files into the table the offline judge links (wordnet.h), at build
// time: compile_wordnet WORDNET_DIR OUT. An unreadable WORDNET_DIR writes an empty file, and the
// program then reads the text files at first use.

#include <cstdio>
#include <string>

#include "judges/offline/wordnet.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: compile_wordnet WORDNET_DIR OUT\n");
    return 2;
  }
  const std::string table = tala::judges::offline::CompileWordNet(argv[1]);
  const std::string scratch = std::string(argv[2]) + ".tmp";
  std::FILE* out = std::fopen(scratch.c_str(), "wb");
  if (out == nullptr || std::fwrite(table.data(), 1, table.size(), out) != table.size() ||
      std::fclose(out) != 0 || std::rename(scratch.c_str(), argv[2]) != 0) {
    std::perror(argv[2]);
    return 1;
  }
  return 0;
}
