#pragma once

#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "eval/process_launcher.h"
#include "llm/attempt_runner.h"
#include "llm/clock.h"
#include "llm/provider.h"
#include "llm/provider_config.h"
#include "llm/token_ledger.h"

namespace kforge::llm {

/// A model behind one shell command (`--provider exec --command "..."`): every attempt runs
/// `sh -c <command>` in its own process group with kforge's environment, writes the request as
/// one JSON object on its stdin and closes it:
///
///     {"stage": "seed", "task": "39_GRU", "task_path": "...", "model": "...", "attempt": 1,
///      "max_tokens": 8192 | null, "temperature": 0.2 | null,
///      "messages": [{"role": "system", "content": "..."}, {"role": "user", ...}]}
///
/// and reads the reply from stdout: a JSON object {"content": "...", "reasoning"?: "...",
/// "finish_reason"?: "...", "model"?: "...", "usage"?: {"prompt_tokens", "completion_tokens",
/// "reasoning_tokens"?, "cached_tokens"?}}, or anything else as the plain-text content (usage then
/// estimated at 4 characters per token). Exit 0 with output is a reply; exit 0 without output,
/// and exit 126/127 (the shell cannot run it), fail at once; another exit code or a signal is
/// retried like a 5xx. Time-outs, retries, the ledger and transcripts work as for the HTTP
/// providers (run_attempts): an attempt past its stage's time-out keeps running beside the retry
/// and the group of every attempt still running when the call ends is killed. Values of
/// environment variables that look like secrets (*_KEY, *_TOKEN, *_SECRET, *_PASSWORD) are
/// redacted from transcripts and messages. Thread-safe.
class ExecProvider final : public Provider {
 public:
  ExecProvider(ProviderConfig config, std::shared_ptr<eval::ProcessLauncher> launcher,
               std::shared_ptr<Clock> clock, std::shared_ptr<TokenLedger> ledger);

  util::Result<ChatReply> chat(const ChatRequest& request) override;
  std::string name() const override { return config_.name; }
  std::string model() const override { return config_.model; }

 private:
  AttemptResult attempt(const std::string& input, double timeout_s, const std::stop_token& stop);
  std::string redact_secrets(std::string text) const;

  ProviderConfig config_;
  std::shared_ptr<eval::ProcessLauncher> launcher_;
  std::shared_ptr<Clock> clock_;
  std::shared_ptr<TokenLedger> ledger_;
  /// Values of secret-looking environment variables, redacted wherever the provider writes.
  std::vector<std::string> secrets_;
  std::mutex rng_mutex_;
  std::mt19937_64 rng_;
};

/// The reply a command printed (`output`, its whole stdout): a JSON object with a string
/// "content" is read field by field; anything else is the content as plain text (one trailing
/// newline dropped). Errors only for a JSON reply with fields of the wrong type, naming them.
util::Result<ChatReply> parse_command_output(const std::string& output);

}  // namespace kforge::llm
