#pragma once
// CallSource: one unit of work the judge runtime drives through its model calls: a row's judge
// tasks (RowCalls), or an item of a golden set being written (testset/). The runtime asks for
// the calls that may go now, hands back each reply, and reports a call it gave up on; the
// source checks each reply and says what is wrong with one it cannot use, so the runtime can ask
// once more quoting the error. Pure (no I/O); not thread-safe.

#include <string>
#include <string_view>
#include <vector>

#include "judges/llm/model_call.h"
#include "tala/status.h"

namespace tala::judges::llm {

class CallSource {
 public:
  virtual ~CallSource() = default;
  // The calls that may be sent now; each call is handed out once. Empty while earlier calls are
  // outstanding, and once done().
  virtual std::vector<ModelCall> TakeReady() = 0;
  // A chat call's reply text. kBadReply naming what is wrong; the source is unchanged then, so
  // the call may be asked again.
  virtual Status AcceptChat(const ModelCall& call, std::string_view reply) = 0;
  // An embeddings call's vectors, one per input, in order.
  virtual Status AcceptEmbeddings(const ModelCall& call,
                                  const std::vector<std::vector<double>>& vectors) = 0;
  // The call failed for good (transport, or a reply still unusable after a repair).
  virtual void Fail(const ModelCall& call, const std::string& reason) = 0;
  virtual bool done() const = 0;
};

}  // namespace tala::judges::llm
