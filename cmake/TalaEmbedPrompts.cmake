# Script mode: cmake -DOUT=file.cc -DDIR=prompts-dir -P TalaEmbedPrompts.cmake
# Turns every prompts/*.txt into one entry of a generated table, so prompts live as plain text
# files in the repository and as constants in the binary.
file(GLOB files ${DIR}/*.txt)
list(SORT files)
set(body "// Generated from src/judges/prompts/*.txt by cmake/TalaEmbedPrompts.cmake. Do not edit.\n")
string(APPEND body "#include \"judges/llm/prompts.h\"\n\nnamespace tala::judges::llm {\n")
string(APPEND body "const std::vector<PromptFile>& PromptFiles() {\n  static const std::vector<PromptFile> kFiles = {\n")
foreach(f ${files})
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} text)
  string(APPEND body "      {\"${name}\", R\"tala_prompt(${text})tala_prompt\"},\n")
endforeach()
string(APPEND body "  };\n  return kFiles;\n}\n}  // namespace tala::judges::llm\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
