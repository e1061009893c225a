#pragma once
// tala run --simulate SCENARIOS: a simulated user talks with the target until the user's goal is
// met, the turn limit is reached, or the user gives up; each conversation is written as a
// conversation row (answers with their passages) that tala eval scores turn by turn.
//
// A scenario (JSON Lines): {"id", "goal": what the user wants to know or get done, "opening":
// the first message (default: the goal), "facts": what the user knows about themselves and says
// when asked ("I am a student"), "success": what an answer that meets the goal states ("Students
// with a valid card pay 35 euros."), "max_turns" (default 6)}; any other field is carried over.
//
// The user is tala's offline user, deterministic and free: it opens with `opening`; after each
// answer it ends with success when the answer supports `success` (its claims' graded support
// 0.7 or more, read as faithfulness reads a claim against passages), or, without one, when the
// answer reads as addressing the goal (the relevance reading, 0.5 or more, not a refusal: weaker);
// else it answers a question of the assistant with the fact that shares most words with it, or asks
// again adding its next fact, or, with nothing left to add, gives up ("Never mind, thank you."); at
// max_turns it stops (limit). No judge call is made for the user. Rounds: every conversation's next
// message goes to the target at once.

#include "tala/run.h"

namespace tala {

Result<RunReport> RunSimulation(const RunOptions& options, RunReport& report);

}  // namespace tala
