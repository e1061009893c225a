#pragma once
// exec: and exec-once: targets. `exec:COMMAND` starts one long-lived process speaking JSON Lines:
// a request line on its stdin per call (several in flight), a reply line on its stdout carrying
// the same "id"; a process that dies fails its calls (retried by the runner) and is restarted on
// the next call, at most `max_restarts` times. `exec-once:COMMAND` starts one process per call:
// the request on stdin, the reply on stdout, a non-zero exit an error with its stderr; the call
// ends when the command exits (what it printed is read then), and at the deadline the command's
// whole process group is killed. Replies over the cap fail their call, never the process.

#include <list>
#include <map>
#include <optional>
#include <string>

#include "runtime/clock.h"
#include "targets/child_process.h"
#include "targets/target.h"

namespace tala::targets {

class ExecTarget : public Target {
 public:
  ExecTarget(std::string command, int max_restarts, size_t max_reply_bytes)
      : command_(std::move(command)), max_restarts_(max_restarts), max_reply_(max_reply_bytes) {}
  void Start(const TargetCall& call, std::chrono::milliseconds timeout,
             TargetCallback done) override;
  void Poll(std::chrono::milliseconds wait) override;
  int in_flight() const override { return static_cast<int>(pending_.size()); }
  void CancelAll() override;
  int64_t restarts() const override { return restarts_; }
  std::string Broken() const override { return broken_; }

 private:
  struct Pending {
    TargetCallback done;
    runtime::TimePoint deadline;
  };
  void FailAll(const Status& status);
  void HandleLine(const std::string& line);
  void ChildEnded();
  void Expire();

  std::string command_;
  int max_restarts_;
  size_t max_reply_;
  std::optional<ChildProcess> child_;
  bool started_ = false;
  int64_t restarts_ = 0;
  std::string to_write_, out_buf_, err_tail_;
  std::string broken_;
  bool broken_reply_ = false;               // the process wrote a line over the cap
  std::map<std::string, Pending> pending_;  // by the request's id
};

class ExecOnceTarget : public Target {
 public:
  ExecOnceTarget(std::string command, size_t max_reply_bytes)
      : command_(std::move(command)), max_reply_(max_reply_bytes) {}
  void Start(const TargetCall& call, std::chrono::milliseconds timeout,
             TargetCallback done) override;
  void Poll(std::chrono::milliseconds wait) override;
  int in_flight() const override { return static_cast<int>(running_.size()); }
  void CancelAll() override;

 private:
  struct Running {
    ChildProcess child;
    std::string input, out, err;
    bool out_open = true, err_open = true;
    TargetCallback done;
    runtime::TimePoint deadline;
  };
  std::string command_;
  size_t max_reply_;
  std::list<Running> running_;
};

}  // namespace tala::targets
