// No input is ever destroyed: every output flag of every command is compared with every input
// (and the other outputs) by the file it names, before anything is opened for writing.
// F16, N3, N4, N5 and the property over every command, flag and spelling of a path.

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <cstdlib>
#include <map>

#include "safety/safety_support.h"

namespace tala::safety {
namespace {

// Runs `args` after `cd dir` (so relative spellings resolve there); stderr merged.
testing::CommandOutput InDir(const std::string& dir, const std::string& args) {
  testing::CommandOutput result;
  const std::string out =
      Shell("cd '" + dir + "' && " + kTala + " " + args + " 2>&1; echo \"rc=$?\"");
  size_t rc = out.rfind("rc=");
  result.out = out.substr(0, rc);
  result.exit_code = std::atoi(out.c_str() + rc + 3);
  return result;
}

// The inputs the commands read: a dataset, its results, two shards and a golden file.
void MakeInputs(const TempDir& dir) {
  dir.Write("d.jsonl", Demo());
  ASSERT_EQ(InDir(dir.path(), "eval d.jsonl -q -o res.jsonl").exit_code, 0);
  ASSERT_EQ(InDir(dir.path(), "eval d.jsonl -m bleu --shard 0/2 -o p0.jsonl -q").exit_code, 0);
  ASSERT_EQ(InDir(dir.path(), "eval d.jsonl -m bleu --shard 1/2 -o p1.jsonl -q").exit_code, 0);
  dir.Write("g.jsonl", "{\"id\":\"g1\",\"user_input\":\"When do night buses run?\"}\n");
}

// Every file in the folder with its bytes.
std::map<std::string, std::string> Snapshot(const TempDir& dir,
                                            const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const std::string& n : names) out[n] = Slurp(dir.path() + "/" + n);
  return out;
}

TEST(OutputPathsTest, F16_OutputEqualToInputIsRefused) {
  TempDir dir;
  const std::string data = dir.Write("inplace.jsonl", Demo());
  for (const std::string& flags : {"-o " + data, "-o ./" + std::string("inplace.jsonl"),
                                   "-o r.jsonl --csv " + data, "-o r.jsonl --html " + data}) {
    auto r = InDir(dir.path(), "eval inplace.jsonl -m bleu,hit_rate " + flags);
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.out;
    EXPECT_NE(r.out.find("are the same file"), std::string::npos) << r.out;
    EXPECT_EQ(Slurp(data), Demo()) << flags;
  }
  // An output equal to another output: the results file would be replaced by the HTML.
  auto r = InDir(dir.path(), "eval inplace.jsonl -m bleu -o r3.jsonl --html r3.jsonl");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("one would overwrite the other"), std::string::npos) << r.out;
  // tala report RESULTS --html RESULTS.
  ASSERT_EQ(InDir(dir.path(), "eval inplace.jsonl -m bleu -q -o self.jsonl").exit_code, 0);
  const std::string before = Slurp(dir.path() + "/self.jsonl");
  r = InDir(dir.path(), "report self.jsonl --html self.jsonl");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(Slurp(dir.path() + "/self.jsonl"), before);
}

TEST(OutputPathsTest, N3_ShardOutputEqualToDatasetIsRefused) {
  TempDir dir;
  const std::string data = dir.Write("sh.jsonl", Demo());
  for (const char* out : {"sh.jsonl", "./sh.jsonl"}) {
    auto r = InDir(dir.path(), std::string("eval sh.jsonl --shard 0/2 -m bleu -o ") + out);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_EQ(r.out.find("run it again"), std::string::npos) << r.out;
    ASSERT_TRUE(Exists(data));
    EXPECT_EQ(Slurp(data), Demo());
  }
}

TEST(OutputPathsTest, N5_ReviewMergeRunAndGateOutputsEqualToInputsAreRefused) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(MakeInputs(dir));
  const std::vector<std::string> files = {"d.jsonl", "res.jsonl", "p0.jsonl", "p1.jsonl",
                                          "g.jsonl"};
  const auto before = Snapshot(dir, files);
  for (const char* args :
       {"review res.jsonl --out res.jsonl", "review res.jsonl --serve --labels-out res.jsonl",
        "merge p0.jsonl p1.jsonl -o ./p0.jsonl", "run g.jsonl --target exec-once:cat --out g.jsonl",
        "gate res.jsonl --min faithfulness=0 --junit ./res.jsonl"}) {
    auto r = InDir(dir.path(), args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("are the same file"), std::string::npos) << args << "\n" << r.out;
  }
  EXPECT_EQ(Snapshot(dir, files), before);
}

TEST(OutputPathsTest, N4_ExportOverItsDatabaseIsRefused) {
  TempDir dir;
  const std::string db = dir.path() + "/s1.sqlite";
  {
    Server s(db);
    ASSERT_FALSE(s.url.empty());
    httplib::Client c(s.url);
    auto res = c.Post("/v1/interactions", Demo(), "application/x-ndjson");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 202);
    // Exported rows are scored rows: wait for the scorer.
    for (int i = 0; i < 200; ++i) {
      auto summary = c.Get("/v1/summary?window=1d");
      if (summary && summary->body.find("\"rows_pending\":0,") != std::string::npos) break;
      usleep(50000);
    }
    EXPECT_EQ(s.child->Stop(SIGTERM), 0);
  }
  const std::string before = Slurp(db);
  for (const std::string& out : {db, dir.path() + "/./s1.sqlite", db + "-wal"}) {
    auto r = RunTala("export " + db + " -o " + out + " --limit 1 2>&1");
    EXPECT_EQ(r.exit_code, 2) << out << "\n" << r.out;
    EXPECT_EQ(Slurp(db), before);
  }
  // A path of its own works, and the database is still a database.
  auto r = RunTala("export " + db + " -o " + dir.path() + "/golden.jsonl 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(Lines(Slurp(dir.path() + "/golden.jsonl")).size(), 22u);
}

// The property: for every command and every output flag, an output naming an input (as the
// same path, ./path, an absolute path, a symlink or a hard link) is refused with exit 2, and
// every file is left byte for byte as it was.
TEST(OutputPathsTest, PropertyEveryOutputFlagEverySpellingOfAnInputIsRefused) {
  TempDir dir;
  ASSERT_NO_FATAL_FAILURE(MakeInputs(dir));
  dir.Write("labels.jsonl", "{\"id\":\"demo-01\",\"faithfulness\":1}\n");
  // A command line with {} where the output goes, and the input file {} must not replace.
  struct Case {
    std::string args, input;
  };
  const std::vector<Case> cases = {
      {"eval d.jsonl -m bleu -o {}", "d.jsonl"},
      {"eval d.jsonl -m bleu -o r.jsonl --csv {}", "d.jsonl"},
      {"eval d.jsonl -m bleu -o r.jsonl --html {}", "d.jsonl"},
      {"eval d.jsonl -m bleu -o r.jsonl --markdown {}", "d.jsonl"},
      {"eval d.jsonl -m bleu -o r.jsonl --junit {}", "d.jsonl"},
      {"eval d.jsonl -m faithfulness -o {} --labels labels.jsonl", "labels.jsonl"},
      {"eval d.jsonl -m bleu -o r.jsonl --html {} --diagnose-baseline res.jsonl", "res.jsonl"},
      {"eval d.jsonl -m bleu --shard 0/2 -o {}", "d.jsonl"},
      {"report res.jsonl --html {}", "res.jsonl"},
      {"report res.jsonl --csv {}", "res.jsonl"},
      {"report res.jsonl --markdown {}", "res.jsonl"},
      {"report res.jsonl --junit {}", "res.jsonl"},
      {"review res.jsonl --out {}", "res.jsonl"},
      {"review res.jsonl --serve --port 0 --labels-out {}", "res.jsonl"},
      {"merge p0.jsonl p1.jsonl -o {}", "p0.jsonl"},
      {"merge p0.jsonl p1.jsonl -o {}", "p1.jsonl"},
      {"merge p0.jsonl p1.jsonl -o {}", "p0.jsonl.shard.json"},
      {"run g.jsonl --target exec-once:cat --out {}", "g.jsonl"},
      {"run g.jsonl --target exec-once:cat --out o.jsonl --target-cache {}", "g.jsonl"},
      {"gate res.jsonl --min faithfulness=0 --junit {}", "res.jsonl"},
  };
  std::vector<std::string> files = {"d.jsonl",     "res.jsonl",           "p0.jsonl",
                                    "p1.jsonl",    "p0.jsonl.shard.json", "g.jsonl",
                                    "labels.jsonl"};
  for (const Case& c : cases) {
    ::unlink((dir.path() + "/link").c_str());
    ::unlink((dir.path() + "/hard").c_str());
    ASSERT_EQ(::symlink(c.input.c_str(), (dir.path() + "/link").c_str()), 0);
    ASSERT_EQ(::link((dir.path() + "/" + c.input).c_str(), (dir.path() + "/hard").c_str()), 0);
    for (const std::string& spelling : {c.input, "./" + c.input, dir.path() + "/" + c.input,
                                        std::string("link"), std::string("hard")}) {
      const auto before = Snapshot(dir, files);
      std::string args = c.args;
      args.replace(args.find("{}"), 2, spelling);
      auto r = InDir(dir.path(), args);
      EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
      EXPECT_NE(r.out.find("are the same file"), std::string::npos) << args << "\n" << r.out;
      EXPECT_EQ(Snapshot(dir, files), before) << args;
    }
  }
}

}  // namespace
}  // namespace tala::safety
