#include "tala/verdicts_json.h"

#include <simdjson.h>

#include "core/verdict_validation.h"
#include "io/readers/verdicts_parser.h"

namespace tala {

Result<Verdicts> VerdictsFromJson(std::string_view json, const Sample& sample,
                                  const std::string& source) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element root;
  if (auto error = parser.parse(padded).get(root); error) {
    return DataError(
        {source, sample.line, 0, "verdicts"},
        std::string("the verdicts are not valid JSON: ") + simdjson::error_message(error));
  }
  io::FieldContext ctx{source, sample.line};
  TALA_ASSIGN_OR_RETURN(Verdicts verdicts, io::ParseVerdicts(ctx, root));
  TALA_RETURN_IF_ERROR(ValidateVerdicts(sample, verdicts, source));
  return verdicts;
}

}  // namespace tala
