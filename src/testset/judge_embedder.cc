#include "testset/judge_embedder.h"

#include <cmath>
#include <memory>

#include "judges/llm/call_source.h"

namespace tala::testset {

namespace {

Status BadReply(std::string message) { return Status(ErrorCode::kBadReply, std::move(message)); }

// One batch of texts as embeddings calls: all sent at once, each reply's vectors put in place,
// L2-normalised (a remote model need not normalise them).
class EmbedSource : public judges::llm::CallSource {
 public:
  explicit EmbedSource(std::span<const std::string> texts) : vectors_(texts.size()) {
    for (size_t at = 0; at < texts.size(); at += JudgeEmbedder::kTextsPerCall) {
      judges::llm::ModelCall call;
      call.kind = judges::llm::CallKind::kEmbed;
      const size_t end = std::min(texts.size(), at + JudgeEmbedder::kTextsPerCall);
      call.inputs.assign(texts.begin() + static_cast<long>(at),
                         texts.begin() + static_cast<long>(end));
      // Which batch a call is: its first text's place (chunk_begin is otherwise unused here).
      call.chunk_begin = static_cast<int>(at);
      calls_.push_back(std::move(call));
    }
    open_ = calls_.size();
  }
  const std::vector<judges::llm::ModelCall>& calls() const { return calls_; }

  std::vector<judges::llm::ModelCall> TakeReady() override {
    std::vector<judges::llm::ModelCall> out;
    out.swap(calls_);
    return out;
  }
  Status AcceptChat(const judges::llm::ModelCall&, std::string_view) override {
    return BadReply("an embeddings call got a chat reply");
  }
  Status AcceptEmbeddings(const judges::llm::ModelCall& call,
                          const std::vector<std::vector<double>>& vectors) override {
    if (vectors.size() != call.inputs.size()) {
      return BadReply("the embeddings reply has " + std::to_string(vectors.size()) +
                      " vectors for " + std::to_string(call.inputs.size()) + " texts");
    }
    for (size_t i = 0; i < vectors.size(); ++i) {
      std::vector<double> v = vectors[i];
      double norm = 0;
      for (double x : v) norm += x * x;
      if (norm <= 0 || !std::isfinite(norm)) {
        return BadReply("the embeddings reply holds a zero or non-finite vector");
      }
      for (double& x : v) x /= std::sqrt(norm);
      vectors_[static_cast<size_t>(call.chunk_begin) + i] = std::move(v);
    }
    --open_;
    return OkStatus();
  }
  void Fail(const judges::llm::ModelCall& call, const std::string& reason) override {
    if (error_.empty()) {
      error_ = "embeddings of " + std::to_string(call.inputs.size()) + " texts: " + reason;
    }
    --open_;
  }
  bool done() const override { return open_ == 0; }

  const std::string& error() const { return error_; }
  std::vector<std::vector<double>>& vectors() { return vectors_; }

 private:
  std::vector<judges::llm::ModelCall> calls_;
  size_t open_ = 0;
  std::vector<std::vector<double>> vectors_;
  std::string error_;
};

}  // namespace

Result<std::vector<std::vector<double>>> JudgeEmbedder::Embed(std::span<const std::string> texts) {
  if (texts.empty()) return std::vector<std::vector<double>>{};
  if (dry_run_) {
    const EmbedSource planned(texts);
    for (const judges::llm::ModelCall& call : planned.calls()) {
      int64_t chars = 0;
      for (const std::string& t : call.inputs) chars += static_cast<int64_t>(t.size());
      AddEstimatedCall(call, chars / 4 + 1, 0, true, *judge_.runner, judge_.setup, judge_.estimate);
    }
    return stand_in_->Embed(texts);
  }
  auto source = std::make_unique<EmbedSource>(texts);
  EmbedSource* own = source.get();
  std::unique_ptr<judges::llm::CallSource> back;
  Status s = judge_.runner->RunSources([&]() { return std::move(source); },
                                       [&](std::unique_ptr<judges::llm::CallSource> done) {
                                         back = std::move(done);
                                         return OkStatus();
                                       },
                                       stop_, [](const Progress&) {});
  TALA_RETURN_IF_ERROR(s);
  if (back.get() != own) return Internal("the embeddings calls were not handed back");
  if (!own->error().empty()) return BadReply(own->error());
  return std::move(own->vectors());
}

}  // namespace tala::testset
