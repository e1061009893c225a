// Results files that are never lost or forged: one writer, whole rows, a cut-off tail dropped,
// paid-for verdicts kept, resume that retries, refuses another dataset and re-scores edits,
// caches that never touch what is not a cache, signals handled alike.
// F7, F7b, F9, F10, F11, F20, F21, F28, F29, F37, N17, N18, N20.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

// LLM runs against the mock need a key to be set (the mock ignores it).
const bool kKeySet = ::setenv("OPENAI_API_KEY", "x", 1) == 0;

// The demo rows cycled to `n` rows with ids u000...
std::string Rows(int n) {
  std::vector<std::string> demo = Lines(Demo());
  std::string out;
  for (int i = 0; i < n; ++i) {
    std::string line = demo[i % demo.size()];
    size_t at = line.find("\"demo-");
    char id[16];
    std::snprintf(id, sizeof id, "u%03d", i);
    line.replace(at + 1, 7, id);
    out += line + "\n";
  }
  return out;
}

// Every line of a results file parses, and the file ends on a newline.
void ExpectWholeLines(const std::string& text) {
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  simdjson::dom::parser p;
  for (const std::string& line : Lines(text)) {
    simdjson::dom::element e;
    EXPECT_FALSE(p.parse(line).get(e)) << line.substr(0, 120);
  }
}

size_t RowCount(const std::string& results) { return Count(results, "{\"id\":"); }

TEST(ResultsFileTest, F9_SecondWriterOnOneResultsFileIsRefusedWithThePid) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Demo());
  const std::string out = dir.Write("same.jsonl", "");
  // This process holds the lock a running tala eval would hold.
  int fd = ::open(out.c_str(), O_RDWR);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  auto r = RunTala("eval " + data + " -m bleu -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("in use by another tala process (pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << r.out;
  ::close(fd);
  r = RunTala("eval " + data + " -m bleu --no-progress -o " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(RowCount(Slurp(out)), 22u);
}

// A device is no file with one writer: a run writing its results to /dev/null is not refused
// because another one does (ctest runs such tests side by side).
TEST(ResultsFileTest, F9_DevNullIsNotLocked) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Demo());
  int fd = ::open("/dev/null", O_RDWR);
  ASSERT_GE(fd, 0);
  // A lock another process could hold on it (flock on a device succeeds; tala must not ask).
  ::flock(fd, LOCK_EX | LOCK_NB);
  auto r = RunTala("eval " + data + " -m bleu --no-progress -o /dev/null 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out.find("in use by another tala process"), std::string::npos) << r.out;
  ::flock(fd, LOCK_UN);
  ::close(fd);
}

// Issue 58 item 7: a report, an export or a merged file aimed at a device was written beside it
// and renamed onto it, replacing the device with a regular file (as root, /dev/null for the whole
// machine, after which runs writing there locked each other out). A device node of the test's
// own stands in for /dev/null: every output is written into it, and it stays a device.
TEST(ResultsFileTest, Item7_OutputsToADeviceAreWrittenInPlaceNeverReplaceIt) {
  TempDir dir;
  const std::string dev = dir.path() + "/null";
  if (::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod needs root";
  }
  const std::string data = dir.Write("d.jsonl", Demo());
  auto is_device = [&] {
    struct stat st;
    return ::stat(dev.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
  };
  // Two runs at once of the default metrics, each writing its results to the device.
  const std::string cmd =
      kTala + " eval " + data + " -q --no-progress -o " + dev + " > /dev/null 2>&1; echo $?";
  ChildProcess first({"/bin/sh", "-c", cmd});
  auto second = RunTala("eval " + data + " -q --no-progress -o " + dev + " 2>&1");
  EXPECT_EQ(second.exit_code, 0) << second.out;
  EXPECT_EQ(first.FirstLine(), "0");
  EXPECT_TRUE(is_device());
  // Reports are read back from the results file: with a device there, eval says so first.
  auto r = RunTala("eval " + data + " -q --no-progress -o " + dev + " --html " + dev + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("give -o a file"), std::string::npos) << r.out;
  const std::string results = dir.path() + "/r.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " -m bleu --no-progress -q -o " + results).exit_code, 0);
  r = RunTala("report " + results + " --html " + dev + " --markdown " + dev + " --csv " + dev +
              " --junit " + dev + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_TRUE(is_device());
  // Outputs that are renamed into place whole (a shard, a merge) refuse a device and say why.
  r = RunTala("eval " + data + " -m bleu --no-progress -q --shard 0/2 -o " + dev + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("is not a regular file"), std::string::npos) << r.out;
  EXPECT_TRUE(is_device());
}

TEST(ResultsFileTest, F9_TwoEvalsAtOnceNeverInterleave) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({"--latency-ms", "150"}, &url);
  const std::string data = dir.Write("d.jsonl", Rows(30));
  const std::string out = dir.path() + "/same.jsonl";
  std::string cmd = "OPENAI_API_KEY=x " + kTala + " eval " + data +
                    " --judge openai:gpt-4o-mini --base-url " + url +
                    " -m faithfulness --cache off --max-in-flight 1 --no-progress -o " + out +
                    " > /dev/null 2>&1";
  ChildProcess first({"/bin/sh", "-c", cmd + "; echo $?"});
  // The first writer has the file once its manifest is there (30 rows take it 4.5 s more).
  for (int i = 0; i < 200 && Slurp(out).find("tala_manifest") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto second = RunTala("eval " + data + " -m bleu -o " + out + " 2>&1");
  EXPECT_EQ(second.exit_code, 2) << second.out;
  EXPECT_NE(second.out.find("in use by another tala process"), std::string::npos) << second.out;
  EXPECT_EQ(first.FirstLine(), "0");
  const std::string text = Slurp(out);
  ExpectWholeLines(text);
  EXPECT_EQ(RowCount(text), 30u);
}

TEST(ResultsFileTest, F37_ResultsOfAnLlmJudgeAreReplacedOnlyWithOverwrite) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Demo());
  const std::string prev = dir.Write("prev.jsonl", PaidResults());
  auto r = RunTala("eval " + data + " -m bleu -o " + prev + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--overwrite"), std::string::npos) << r.out;
  EXPECT_EQ(Slurp(prev), PaidResults());
  // A file that is no results file at all (a dataset) is not replaced either.
  const std::string other = dir.Write("other.jsonl", Demo());
  r = RunTala("eval " + data + " -m bleu -o " + other + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(Slurp(other), Demo());
  r = RunTala("eval " + data + " -m bleu --no-progress --overwrite -o " + prev);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(RowCount(Slurp(prev)), 22u);
  // Offline results cost nothing to make again: replaced without a flag.
  r = RunTala("eval " + data + " -m bleu --no-progress -o " + prev);
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST(ResultsFileTest, F11_CutOffLastLineIsDroppedAndResumeContinues) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Demo());
  const std::string full = dir.path() + "/full.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " --no-progress -o " + full).exit_code, 0);
  std::vector<std::string> lines = Lines(Slurp(full));
  std::string cut;
  for (size_t i = 0; i < 11; ++i) cut += lines[i] + "\n";
  cut += lines[11].substr(0, 200);  // a write cut off mid-row, no newline
  const std::string trunc = dir.Write("trunc.jsonl", cut);
  auto rep = RunTala("report " + trunc + " --markdown - 2>&1");
  EXPECT_EQ(rep.exit_code, 0) << rep.out;
  EXPECT_NE(rep.out.find(":12: the last row was cut off"), std::string::npos) << rep.out;
  auto r = RunTala("eval " + data + " -o " + trunc + " --resume 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cut off"), std::string::npos) << r.out;
  const std::string text = Slurp(trunc);
  ExpectWholeLines(text);
  EXPECT_EQ(RowCount(text), 22u);
}

TEST(ResultsFileTest, F28_AFullDiskCutsBackToTheLastWholeRowAndResumeFinishes) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Rows(200));
  const std::string out = dir.path() + "/enospc.jsonl";
  // A file size limit makes writes fail part-way, as a full disk does (SIGXFSZ ignored, so the
  // write returns EFBIG).
  std::string cmd = "trap '' XFSZ; ulimit -f 64; " + kTala + " eval " + data + " -o " + out +
                    " --no-progress 2>&1; echo rc=$?";
  const std::string log = Shell(cmd);
  EXPECT_NE(log.find("rc=2"), std::string::npos) << log;
  EXPECT_NE(log.find("finish with --resume"), std::string::npos) << log;
  const std::string partial = Slurp(out);
  ExpectWholeLines(partial);
  EXPECT_GT(RowCount(partial), 0u);
  EXPECT_LT(RowCount(partial), 200u);
  auto r = RunTala("eval " + data + " -o " + out + " --resume --no-progress 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string text = Slurp(out);
  ExpectWholeLines(text);
  EXPECT_EQ(RowCount(text), 200u);
}

TEST(ResultsFileTest, F7_ResumeRetriesTheRowsWhoseJudgeCallsFailed) {
  TempDir dir;
  const std::string data = dir.Write("d.jsonl", Rows(10));
  const std::string out = dir.path() + "/five.jsonl";
  const std::string llm =
      " --judge openai:gpt-4o-mini -m faithfulness --cache off --no-progress -o " + out;
  {
    std::string url;
    auto broken = testing::StartMockJudge({"--always", "500"}, &url);
    auto r = RunTala("eval " + data + llm + " --base-url " + url + " --max-retries 0 2>&1");
    EXPECT_EQ(r.exit_code, 3) << r.out;
  }
  std::string url;
  auto healthy = testing::StartMockJudge({}, &url);
  auto r = RunTala("eval " + data + llm + " --base-url " + url + " --resume 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("10 rows whose judge calls had failed were scored again"), std::string::npos)
      << r.out;
  // Report, gate and compare read one row per id: the retried rows replace the failed ones.
  auto gate = RunTala("gate " + out + " --min faithfulness=0 2>&1");
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_NE(gate.out.find("over 10 rows"), std::string::npos) << gate.out;
}

TEST(ResultsFileTest, N20_ResumeRefusesAnotherDatasetAndScoresEditedRowsAgain) {
  TempDir dir;
  const std::string data = dir.Write("u10.jsonl", Rows(10));
  const std::string out = dir.path() + "/mix.jsonl";
  ASSERT_EQ(RunTala("eval " + data + " -m bleu --no-progress -o " + out).exit_code, 0);
  const std::string before = Slurp(out);
  const std::string other = dir.Write("other.jsonl", Demo());
  auto r = RunTala("eval " + other + " -m bleu -o " + out + " --resume 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("made from another dataset (10 of its 10 rows are not in"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Slurp(out), before);
  // The same ids with two responses edited: those two are scored again, the rest kept.
  std::string edited = Rows(10);
  for (int k = 0; k < 2; ++k) {
    size_t at = edited.find("\"response\": \"", k == 0 ? 0 : edited.find("u001"));
    edited.insert(at + 13, "Edited: ");
  }
  const std::string changed = dir.Write("u10.jsonl", edited);
  r = RunTala("eval " + changed + " -m bleu -o " + out + " --resume 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("2 rows whose inputs changed since they were scored were scored again"),
            std::string::npos)
      << r.out;
  auto report = RunTala("report " + out + " --csv - 2>&1");
  EXPECT_EQ(Lines(report.out).size(), 11u) << report.out;  // header + 10 rows, once each
}

TEST(ResultsFileTest, N17_MergeRefusesShardsOfADatasetEditedBetweenThem) {
  TempDir dir;
  const std::string data = dir.Write("data.jsonl", Demo());
  ASSERT_EQ(
      RunTala("eval " + data + " -m bleu --shard 0/2 --no-progress -o " + dir.path() + "/p0.jsonl")
          .exit_code,
      0);
  std::string edited = Demo();
  edited.replace(edited.find("Larkspur"), 8, "Larkspar");  // same size, other content
  dir.Write("data.jsonl", edited);
  ASSERT_EQ(
      RunTala("eval " + data + " -m bleu --shard 1/2 --no-progress -o " + dir.path() + "/p1.jsonl")
          .exit_code,
      0);
  auto r = RunTala("merge " + dir.path() + "/p0.jsonl " + dir.path() + "/p1.jsonl -o " +
                   dir.path() + "/m.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("edited between the shards"), std::string::npos) << r.out;
  // Shards diagnosed with other thresholds are not one run either.
  dir.Write("data.jsonl", Demo());
  ASSERT_EQ(
      RunTala("eval " + data + " -m bleu --shard 1/2 --no-progress --diagnosis-threshold 0.5 -o " +
              dir.path() + "/p1.jsonl")
          .exit_code,
      0);
  r = RunTala("merge " + dir.path() + "/p0.jsonl " + dir.path() + "/p1.jsonl -o " + dir.path() +
              "/m.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("diagnosis thresholds"), std::string::npos) << r.out;
}

TEST(ResultsFileTest, F20_DuplicateIdsAreAnErrorNamingBothLines) {
  TempDir dir;
  const std::string dup =
      dir.Write("dup.jsonl",
                "{\"id\":\"a\",\"user_input\":\"q\",\"response\":\"x\",\"reference\":\"x\"}\n"
                "{\"id\":\"a\",\"user_input\":\"q\",\"response\":\"y\",\"reference\":\"x\"}\n");
  for (const char* cmd : {"validate ", "eval "}) {
    auto r = RunTala(std::string(cmd) + dup + " -o " + dir.path() + "/r.jsonl 2>&1");
    if (std::string(cmd) == "validate ") r = RunTala(std::string(cmd) + dup + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << cmd << r.out;
    EXPECT_NE(r.out.find(":2: field \"id\": \"a\" is also the id of the row on line 1"),
              std::string::npos)
        << cmd << r.out;
  }
  const std::string golden = dir.Write("g.jsonl",
                                       "{\"id\":\"a\",\"user_input\":\"q\"}\n"
                                       "{\"id\":\"a\",\"user_input\":\"r\"}\n");
  auto r =
      RunTala("run " + golden + " --target exec-once:cat --out " + dir.path() + "/o.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("duplicate id a (also on line 1)"), std::string::npos) << r.out;
}

TEST(ResultsFileTest, F10_CacheFlagsNeverTouchAFileThatIsNotACache) {
  TempDir dir;
  const std::string victim = dir.Write("victim.jsonl", Demo());
  for (const char* sub : {"cache stats --cache ", "cache clear --cache "}) {
    auto r = RunTala(std::string(sub) + victim + " 2>&1");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("is not a tala judge cache: it looks like JSON"), std::string::npos)
        << r.out;
  }
  const std::string golden = dir.Write("g.jsonl", "{\"id\":\"g1\",\"user_input\":\"q\"}\n");
  auto r = RunTala("run " + golden + " --target exec-once:cat --out " + dir.path() +
                   "/o.jsonl --target-cache " + victim + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  std::string url;
  auto mock = testing::StartMockJudge({}, &url);
  r = RunTala("eval " + golden + " --judge openai:m --base-url " + url + " -m faithfulness " +
              "-o " + dir.path() + "/r.jsonl --cache " + victim + " 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(Slurp(victim), Demo());
  EXPECT_FALSE(Exists(victim + ".corrupt"));
  EXPECT_FALSE(Exists(victim + ".corrupt-1"));
}

TEST(ResultsFileTest, F10_DamagedCachesAreSetAsideUnderFreshNames) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({}, &url);
  const std::string data = dir.Write("d.jsonl", Rows(2));
  const std::string cache = dir.path() + "/c.sqlite";
  const std::string eval = "OPENAI_API_KEY=x " + kTala + " eval " + data +
                           " --judge openai:m --base-url " + url +
                           " -m faithfulness --no-progress " + "--overwrite -o " + dir.path() +
                           "/r.jsonl --cache " + cache + " 2>&1";
  for (int round = 1; round <= 2; ++round) {
    ASSERT_EQ(std::system(eval.c_str()), 0);
    // Damage the database past its header: still "SQLite format 3", unreadable.
    std::string bytes = Slurp(cache);
    for (size_t i = 100; i < bytes.size(); ++i) bytes[i] = static_cast<char>(0x5a);
    dir.Write("c.sqlite", bytes);
    ::unlink((cache + "-wal").c_str());
    ::unlink((cache + "-shm").c_str());
    const std::string log = Shell(eval);
    EXPECT_NE(log.find("moved to " + cache + ".corrupt-" + std::to_string(round)),
              std::string::npos)
        << log;
  }
  EXPECT_TRUE(Exists(cache + ".corrupt-1"));
  EXPECT_TRUE(Exists(cache + ".corrupt-2"));
}

TEST(ResultsFileTest, F21_CacheStatsInAMissingFolderSaysSo) {
  auto r = RunTala("cache stats --cache /nonexistent/dir/c.sqlite 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("does not exist"), std::string::npos) << r.out;
}

TEST(ResultsFileTest, F29_SigtermKeepsTheRowsRecordsTheRunAndExits143) {
  TempDir dir;
  std::string url;
  auto mock = testing::StartMockJudge({"--latency-ms", "300"}, &url);
  const std::string data = dir.Write("d.jsonl", Rows(40));
  const std::string out = dir.path() + "/t.jsonl";
  ChildProcess eval(
      {"/bin/sh", "-c",
       "OPENAI_API_KEY=x exec " + kTala + " eval " + data + " --judge openai:m --base-url " + url +
           " -m faithfulness --cache off --max-in-flight 2 --no-progress -o " + out + " 2>" +
           dir.path() + "/err.txt"},
      false);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(eval.Stop(SIGTERM), 143);
  const std::string err = Slurp(dir.path() + "/err.txt");
  EXPECT_NE(err.find("finish with --resume"), std::string::npos) << err;
  const std::string text = Slurp(out);
  ExpectWholeLines(text);
  EXPECT_NE(text.find("\"status\":\"cancelled\""), std::string::npos);
  auto r = RunTala("eval " + data + " --judge openai:m --base-url " + url +
                   " -m faithfulness --cache off --no-progress --resume -o " + out + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(RowCount(Slurp(out)), 40u);
}

TEST(ResultsFileTest, N18_SigtermStopsTalaRunWithAMessageAndExit143) {
  TempDir dir;
  std::string rows;
  for (int i = 0; i < 20; ++i) {
    rows += "{\"id\":\"g" + std::to_string(i) + "\",\"user_input\":\"q\"}\n";
  }
  const std::string golden = dir.Write("g.jsonl", rows);
  const std::string slow = dir.Write("slow.sh",
                                     "#!/bin/sh\nread line\nsleep 1\n"
                                     "echo '{\"answer\":\"a\",\"contexts\":[\"c\"]}'\n");
  ::chmod(slow.c_str(), 0755);
  const std::string out = dir.path() + "/o.jsonl";
  ChildProcess run({"/bin/sh", "-c",
                    "exec " + kTala + " run " + golden + " --target exec-once:" + slow +
                        " --max-in-flight 2 --out " + out + " 2>" + dir.path() + "/err.txt"},
                   false);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(run.Stop(SIGTERM), 143);
  const std::string err = Slurp(dir.path() + "/err.txt");
  EXPECT_NE(err.find("--resume calls for the rest"), std::string::npos) << err;
  ExpectWholeLines(Slurp(out));
}

}  // namespace
}  // namespace tala::safety
