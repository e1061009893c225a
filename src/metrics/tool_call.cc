#include "metrics/tool_call.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace tala::metrics {

namespace {
constexpr FieldSet kFields = Field::kUserInput | Field::kReferenceToolCalls;

std::vector<ToolCall> Predicted(const Sample& s) {
  std::vector<ToolCall> out;
  for (const Message& m : s.messages) {
    if (m.type == Message::Type::kAi)
      out.insert(out.end(), m.tool_calls.begin(), m.tool_calls.end());
  }
  return out;
}

// (name, then each argument name and value with the arguments sorted by name): the order
// non-strict alignment sorts by, and the identity tool_call_f1 compares.
std::vector<std::string> Key(const ToolCall& c) {
  auto args = c.args;
  std::sort(args.begin(), args.end());
  std::vector<std::string> key{c.name};
  for (const auto& [name, value] : args) {
    key.push_back(name);
    key.push_back(value);
  }
  return key;
}

double ArgumentScore(const ToolCall& predicted, const ToolCall& reference) {
  if (reference.args.empty()) return predicted.args.empty() ? 1.0 : 0.0;
  size_t matched = 0;
  for (const auto& [name, value] : reference.args) {
    for (const auto& [pname, pvalue] : predicted.args) {
      if (pname == name) {
        matched += pvalue == value ? 1 : 0;
        break;
      }
    }
  }
  return static_cast<double>(matched) / static_cast<double>(reference.args.size());
}

class ToolCallAccuracy : public MetricBase {
 public:
  ToolCallAccuracy(MetricOptions options, bool strict)
      : MetricBase(ToolCallAccuracyInfo(), std::move(options)), strict_(strict) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    std::vector<ToolCall> predicted = Predicted(s), reference = *s.reference_tool_calls;
    if (predicted.empty() && reference.empty()) {
      return MetricValue::Number(1.0, "no calls expected, none made");
    }
    if (predicted.empty()) return MetricValue::Number(0.0, "no tool call made");
    if (reference.empty()) return MetricValue::Number(0.0, "tool calls made, none expected");
    if (!strict_) {
      auto by_key = [](const ToolCall& a, const ToolCall& b) { return Key(a) < Key(b); };
      std::sort(predicted.begin(), predicted.end(), by_key);
      std::sort(reference.begin(), reference.end(), by_key);
    }
    bool aligned = predicted.size() == reference.size();
    for (size_t i = 0; aligned && i < reference.size(); ++i) {
      aligned = predicted[i].name == reference[i].name;
    }
    if (!aligned) {
      return MetricValue::Number(0.0, "calls do not line up by name (" +
                                          std::to_string(predicted.size()) + " made, " +
                                          std::to_string(reference.size()) + " expected" +
                                          (strict_ ? ", in order)" : ")"));
    }
    double sum = 0;
    for (size_t i = 0; i < reference.size(); ++i) sum += ArgumentScore(predicted[i], reference[i]);
    char why[96];
    std::snprintf(why, sizeof why, "%zu calls aligned; arguments matched %.4g of %zu",
                  reference.size(), sum, reference.size());
    return MetricValue::Number(sum / static_cast<double>(reference.size()), why);
  }

 private:
  bool strict_;
};

class ToolCallF1 : public MetricBase {
 public:
  explicit ToolCallF1(MetricOptions options) : MetricBase(ToolCallF1Info(), std::move(options)) {}
  MetricValue Score(const Sample& s, const Verdicts&) const override {
    std::set<std::vector<std::string>> actual, expected;
    for (const ToolCall& c : Predicted(s)) actual.insert(Key(c));
    for (const ToolCall& c : *s.reference_tool_calls) expected.insert(Key(c));
    size_t tp = 0;
    for (const auto& k : actual) tp += expected.count(k);
    double p = actual.empty() ? 0 : static_cast<double>(tp) / actual.size();
    double r = expected.empty() ? 0 : static_cast<double>(tp) / expected.size();
    double f1 = p + r > 0 ? 2 * p * r / (p + r) : 0;
    return MetricValue::Number(f1, "TP " + std::to_string(tp) + ", FP " +
                                       std::to_string(actual.size() - tp) + ", FN " +
                                       std::to_string(expected.size() - tp));
  }
};
}  // namespace

const MetricInfo& ToolCallAccuracyInfo() {
  static const MetricInfo kInfo{
      .name = "tool_call_accuracy",
      .required_fields = kFields,
      .summary =
          "the agent's tool calls lined up with the reference calls by name (in order "
          "unless strict_order=false), each scoring its share of matching arguments",
  };
  return kInfo;
}

const MetricInfo& ToolCallF1Info() {
  static const MetricInfo kInfo{
      .name = "tool_call_f1",
      .required_fields = kFields,
      .summary = "F1 of the agent's (tool, arguments) calls against the reference calls",
  };
  return kInfo;
}

Result<std::unique_ptr<Metric>> MakeToolCallAccuracy(const MetricOptions& options) {
  const std::string& name = ToolCallAccuracyInfo().name;
  TALA_RETURN_IF_ERROR(CheckOptionNames(name, options, {"strict_order"}));
  bool strict = true;
  if (auto it = options.find("strict_order"); it != options.end()) {
    if (it->second != "true" && it->second != "false") {
      return InvalidArgument("metric " + name + ": strict_order must be true or false");
    }
    strict = it->second == "true";
  }
  return std::unique_ptr<Metric>(new ToolCallAccuracy(options, strict));
}

Result<std::unique_ptr<Metric>> MakeToolCallF1(const MetricOptions& options) {
  TALA_RETURN_IF_ERROR(CheckOptionNames(ToolCallF1Info().name, options, {}));
  return std::unique_ptr<Metric>(new ToolCallF1(options));
}

}  // namespace tala::metrics
