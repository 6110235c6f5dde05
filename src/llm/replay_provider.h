#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "llm/provider.h"
#include "llm/token_ledger.h"
#include "util/error.h"

namespace kforge::llm {

/// One model call of a recorded run: its transcript file and what it said.
struct RecordedCall {
  /// The transcript's file name ("3_optimise.json"): the name the pipeline gives the same call.
  std::string name;
  std::string stage;
  /// The messages that were sent.
  std::vector<Message> messages;
  /// The reply, or nullopt when the call failed (`error` says why).
  std::optional<ChatReply> reply;
  std::string error;
};

/// A recorded run's model calls in the order they finished: the order of the `chat` entries of
/// its journal.jsonl (matched to the transcripts by reply), then the transcripts no journal entry
/// names, by number and name. Errors name the folder or file and the cause ("failed to read
/// recorded run runs/x: no transcripts/ folder", "...transcripts/1_seed.json:3:4: ...").
util::Result<std::vector<RecordedCall>> load_recorded_calls(const std::filesystem::path& run_dir);

/// `--provider replay --from RUN_DIR`: answers each request with the recorded reply of the same
/// call, read from RUN_DIR/transcripts/. A request is the same call as the recorded one whose
/// transcript has the request's transcript file name ("3_optimise.json": candidate number and
/// stage), else (a request without a transcript path) the next call not yet replayed, in order.
/// A request whose stage differs from the recorded call's, a name with no recording, a call
/// replayed twice and a run out of recorded calls are errors that say so; a prompt that differs
/// from the recorded one is only a warning (prompt templates change; the reply is still the
/// recorded one). A recorded failure is replayed as the same failure. Transcripts of the replayed
/// calls are written like any provider's. Thread-safe.
class ReplayProvider final : public Provider {
 public:
  /// Errors: the run directory cannot be read (load_recorded_calls) or holds no calls.
  static util::Result<std::unique_ptr<ReplayProvider>> open(const std::filesystem::path& run_dir,
                                                            std::shared_ptr<TokenLedger> ledger);

  util::Result<ChatReply> chat(const ChatRequest& request) override;
  std::string name() const override { return "replay"; }
  /// The recorded run's model.
  std::string model() const override { return model_; }

 private:
  ReplayProvider(std::filesystem::path run_dir, std::vector<RecordedCall> calls, std::string model,
                 std::shared_ptr<TokenLedger> ledger);
  /// The call to answer `request` with, marked used; an error when there is none.
  util::Result<std::size_t> take(const ChatRequest& request);

  std::filesystem::path run_dir_;
  std::vector<RecordedCall> calls_;
  std::vector<bool> used_;
  std::string model_;
  std::shared_ptr<TokenLedger> ledger_;
  std::mutex mutex_;
};

}  // namespace kforge::llm
