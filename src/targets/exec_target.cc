#include "targets/exec_target.h"

#include <poll.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

namespace tala::targets {

namespace {
constexpr size_t kStderrKept = 2000;  // the tail of a process's stderr quoted in errors

runtime::TimePoint Now() { return runtime::SystemClock().Now(); }

void KeepTail(std::string& s) {
  if (s.size() > kStderrKept) s.erase(0, s.size() - kStderrKept);
}

std::string Quoted(const std::string& err) {
  std::string t = err;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t.empty() ? "" : "; its stderr ends: " + t;
}

int Millis(runtime::Duration d) {
  return static_cast<int>(std::clamp<int64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(d).count(), 0, 60000));
}

// The id a reply line carries, as text; empty when it has none.
std::string ReplyId(const nlohmann::json& reply) {
  if (!reply.is_object()) return "";
  auto it = reply.find("id");
  if (it == reply.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}
}  // namespace

void ExecTarget::Start(const TargetCall& call, std::chrono::milliseconds timeout,
                       TargetCallback done) {
  if (!child_) {
    if (started_ && restarts_ >= max_restarts_) {
      broken_ = "the target process ended " + std::to_string(restarts_ + 1) +
                " times (--max-restarts " + std::to_string(max_restarts_) + ")" + Quoted(err_tail_);
      done(Status(ErrorCode::kUnavailable, broken_));
      return;
    }
    auto child = ChildProcess::Spawn(command_);
    if (!child) {
      done(child.error());
      return;
    }
    restarts_ += started_ ? 1 : 0;
    started_ = true;
    child_.emplace(std::move(*child));
    out_buf_.clear();
    to_write_.clear();
  }
  pending_[call.id] = {std::move(done), Now() + timeout};
  to_write_ += call.request;
  to_write_ += '\n';
  if (!child_->Feed(to_write_)) ChildEnded();
}

void ExecTarget::Poll(std::chrono::milliseconds wait) {
  if (!child_) {
    Expire();
    return;
  }
  runtime::TimePoint until = Now() + wait;
  for (const auto& [id, p] : pending_) until = std::min(until, p.deadline);
  std::vector<pollfd> fds = {{child_->stdout_fd(), POLLIN, 0}, {child_->stderr_fd(), POLLIN, 0}};
  if (!to_write_.empty() && child_->stdin_fd() >= 0) {
    fds.push_back({child_->stdin_fd(), POLLOUT, 0});
  }
  ::poll(fds.data(), fds.size(), Millis(until - Now()));
  bool err_open = ChildProcess::Drain(child_->stderr_fd(), err_tail_);
  KeepTail(err_tail_);
  bool out_open = ChildProcess::Drain(child_->stdout_fd(), out_buf_, max_reply_);
  if (out_buf_.size() > max_reply_ && out_buf_.find('\n') == std::string::npos) {
    // A line that never ends: the stream cannot be read further. The process is restarted.
    out_buf_.clear();
    broken_reply_ = true;
    ChildEnded();
    return;
  }
  size_t start = 0;
  for (size_t nl; (nl = out_buf_.find('\n', start)) != std::string::npos; start = nl + 1) {
    HandleLine(out_buf_.substr(start, nl - start));
  }
  out_buf_.erase(0, start);
  if (!out_open || !err_open || (!to_write_.empty() && !child_->Feed(to_write_))) {
    ChildEnded();
  }
  Expire();
}

void ExecTarget::HandleLine(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;
  nlohmann::json reply = nlohmann::json::parse(line, nullptr, false);
  std::string id = reply.is_discarded() ? "" : ReplyId(reply);
  auto it = pending_.find(id);
  // A reply without a usable id can only be matched when one call is in flight.
  if (it == pending_.end() && id.empty() && pending_.size() == 1) it = pending_.begin();
  if (it == pending_.end()) return;  // a late reply to a call that timed out, or noise
  TargetCallback done = std::move(it->second.done);
  pending_.erase(it);
  done(TargetReply{line, ""});
}

void ExecTarget::ChildEnded() {
  std::string how = "closed its output";
  if (child_) {
    child_->Kill();
    child_->CloseStdin();
    ChildProcess::Drain(child_->stderr_fd(), err_tail_);
    KeepTail(err_tail_);
    for (int i = 0; i < 100 && !child_->Exited(&how); ++i) ::poll(nullptr, 0, 10);
  }
  if (broken_reply_) {  // stopped by us, for a reply over the cap: that is the reason
    how = "wrote a reply line over " + std::to_string(max_reply_ >> 20) +
          " MiB (--max-reply-mib) and was stopped";
    broken_reply_ = false;
  }
  child_.reset();
  FailAll(Status(ErrorCode::kUnavailable, "the target process ended (" + how + ") with " +
                                              std::to_string(pending_.size()) + " calls in flight" +
                                              Quoted(err_tail_)));
}

void ExecTarget::Expire() {
  runtime::TimePoint now = Now();
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.deadline > now) {
      ++it;
      continue;
    }
    TargetCallback done = std::move(it->second.done);
    it = pending_.erase(it);
    done(Status(ErrorCode::kDeadlineExceeded, "no reply line within the timeout"));
  }
}

void ExecTarget::FailAll(const Status& status) {
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, p] : pending) p.done(status);
}

void ExecTarget::CancelAll() {
  FailAll(Status(ErrorCode::kCancelled, "cancelled"));
  child_.reset();
}

void ExecOnceTarget::Start(const TargetCall& call, std::chrono::milliseconds timeout,
                           TargetCallback done) {
  auto child = ChildProcess::Spawn(command_);
  if (!child) {
    done(child.error());
    return;
  }
  Running& r = running_.emplace_back(Running{std::move(*child), call.request + "\n", "", "", true,
                                             true, std::move(done), Now() + timeout});
  if (!r.child.Feed(r.input) || r.input.empty()) r.child.CloseStdin();
}

void ExecOnceTarget::Poll(std::chrono::milliseconds wait) {
  runtime::TimePoint until = Now() + wait;
  std::vector<pollfd> fds;
  for (Running& r : running_) {
    until = std::min(until, r.deadline);
    if (r.out_open) fds.push_back({r.child.stdout_fd(), POLLIN, 0});
    if (r.err_open) fds.push_back({r.child.stderr_fd(), POLLIN, 0});
    if (!r.input.empty() && r.child.stdin_fd() >= 0) {
      fds.push_back({r.child.stdin_fd(), POLLOUT, 0});
    }
  }
  // Processes whose pipes are all closed are only waited for: poll a little, then reap.
  ::poll(fds.data(), fds.size(),
         fds.empty() ? std::min(Millis(until - Now()), 5) : Millis(until - Now()));
  runtime::TimePoint now = Now();
  for (auto it = running_.begin(); it != running_.end();) {
    Running& r = *it;
    if (r.out_open) r.out_open = ChildProcess::Drain(r.child.stdout_fd(), r.out, max_reply_);
    if (r.err_open) r.err_open = ChildProcess::Drain(r.child.stderr_fd(), r.err, max_reply_);
    KeepTail(r.err);
    if (!r.input.empty() && (!r.child.Feed(r.input) || r.input.empty())) r.child.CloseStdin();
    if (r.out.size() > max_reply_) {
      TargetCallback done = std::move(r.done);
      it = running_.erase(it);  // kills the process group
      done(Status(ErrorCode::kBadReply, "the command's reply is over " +
                                            std::to_string(max_reply_ >> 20) +
                                            " MiB (--max-reply-mib); it was stopped"));
      continue;
    }
    std::string how;
    // The call is over when the command exits, even if something it started in the background
    // still holds its output open: what it wrote is read, and the rest of its group killed.
    if (r.child.Exited(&how)) {
      if (r.out_open) ChildProcess::Drain(r.child.stdout_fd(), r.out, max_reply_);
      if (r.err_open) ChildProcess::Drain(r.child.stderr_fd(), r.err, max_reply_);
      KeepTail(r.err);
      TargetCallback done = std::move(r.done);
      std::string out = std::move(r.out), err = std::move(r.err);
      it = running_.erase(it);
      if (out.size() > max_reply_) {
        done(Status(ErrorCode::kBadReply,
                    "the command's reply is over " + std::to_string(max_reply_ >> 20) + " MiB"));
      } else if (how == "exit status 0") {
        done(TargetReply{std::move(out), std::move(err)});
      } else {
        done(Status(ErrorCode::kUnavailable, "the command failed (" + how + ")" + Quoted(err)));
      }
      continue;
    }
    if (r.deadline <= now) {
      TargetCallback done = std::move(r.done);
      it = running_.erase(it);  // kills the process group
      done(Status(ErrorCode::kDeadlineExceeded, "the command did not finish within the timeout"));
      continue;
    }
    ++it;
  }
}

void ExecOnceTarget::CancelAll() {
  auto running = std::move(running_);
  running_.clear();
  for (Running& r : running) r.done(Status(ErrorCode::kCancelled, "cancelled"));
}

}  // namespace tala::targets
