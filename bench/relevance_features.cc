// The parts the offline judge's relevance blends are fitted from (issue 34), one JSON line per
// input row: the lexical answer reading (answer_relevance.h) and the sentence encoder's cosine
// between the question and the response, or its first retrieved context. Reads JSONL rows on
// stdin (bench/relevance_sets.py makes them); bench/fit_relevance.py fits on the "fit" half.
//
//   build/bench/relevance_features < rows.jsonl > features.jsonl

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/text/stemmer.h"
#include "judges/offline/answer_relevance.h"
#include "judges/offline/hashed_embedder.h"
#include "judges/offline/question_parts.h"
#include "judges/offline/sentence_encoder.h"

namespace offline = tala::judges::offline;

int main() {
  auto loaded = offline::SentenceEncoder::Load(offline::SentenceEncoder::DefaultDir());
  if (!loaded) {
    std::fprintf(stderr, "relevance_features: %s\n", loaded.error().ToString().c_str());
    return 2;
  }
  offline::SentenceEncoder& encoder = **loaded;
  tala::text::Stemmer stemmer;
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    nlohmann::json row = nlohmann::json::parse(line);
    const std::string question = row.value("user_input", "");
    std::string text;
    if (row.contains("response")) {
      // As the judge reads it: an opening pronoun stands for the question's subject.
      text = offline::WithPronounResolved(question, row["response"].get<std::string>());
    } else if (row.contains("retrieved_contexts") && !row["retrieved_contexts"].empty()) {
      text = row["retrieved_contexts"][0].get<std::string>();
    }
    offline::TextProfile q(question, stemmer), r(text, stemmer);
    const std::string asked = offline::AskedFor(q);
    const std::string texts[] = {question, text, asked};
    auto vectors = encoder.Embed(texts);
    if (!vectors) return 3;
    double cosine = 0, asked_cosine = 0;
    for (size_t i = 0; i < (*vectors)[0].size(); ++i) {
      cosine += (*vectors)[0][i] * (*vectors)[1][i];
      asked_cosine += (*vectors)[2][i] * (*vectors)[1][i];
    }
    const offline::AnswerReading a = offline::ReadAnswer(q, r);
    size_t sentences = 0;  // those OnTopicShare counts, as the judge's ResponseRelevance reads them
    double bearing = 0;
    const double on_topic = offline::OnTopicShare(q, text, stemmer, &sentences, &bearing);
    // A question of several parts, read part by part (question_parts.h); one part: the whole.
    offline::PartsReading parts;
    std::vector<std::string> asks = offline::QuestionParts(question);
    if (asks.size() >= 2 && row.contains("response")) {
      auto cosines = [&](const std::string& sentence, const std::string& part,
                         const std::string& part_asked) -> tala::Result<offline::EncoderCosines> {
        const std::string three[] = {part, sentence, part_asked};
        auto v = encoder.Embed(three);
        if (!v) return v.error();
        offline::EncoderCosines c;
        for (size_t i = 0; i < (*v)[0].size(); ++i) {
          c.question += (*v)[0][i] * (*v)[1][i];
          c.asked += part_asked.empty() ? 0.0 : (*v)[2][i] * (*v)[1][i];
        }
        return c;
      };
      auto read = offline::ReadParts(std::move(asks), text, stemmer, cosines);
      if (!read) return 3;
      parts = std::move(*read);
    }
    double weakest = 1;
    for (double s : parts.scores) weakest = std::min(weakest, s);
    nlohmann::json out = {{"id", row.value("id", "")},
                          {"parts", std::max<size_t>(1, parts.parts.size())},
                          {"parts_answered", parts.parts.empty() ? 1 : parts.answered},
                          {"parts_mean", parts.parts.empty() ? 1.0 : parts.mean},
                          {"weakest_part", weakest},
                          {"metadata", row.value("metadata", nlohmann::json::object())},
                          {"cosine", cosine},
                          {"asked", asked},
                          {"asked_cosine", asked.empty() ? 0.0 : asked_cosine},
                          {"coverage", a.coverage},
                          {"typed_question", a.typed_question},
                          {"typed", a.typed},
                          {"fragment", a.fragment},
                          {"novelty", a.novelty},
                          {"direct", a.direct},
                          {"form", a.form},
                          {"lexical", a.lexical},
                          {"slot", a.slot},
                          {"defines", a.defines_subject},
                          {"ontopic", on_topic},
                          {"bearing", bearing},
                          {"sentences", sentences},
                          {"words", r.tokens().size()}};
    std::cout << out.dump() << "\n";
  }
  return 0;
}
