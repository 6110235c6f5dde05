// Placeholder so the llm component links; the library engineer replaces it with the real
// provider (library_provider.h).

#include "llm/library_provider.h"

namespace kforge::llm {

namespace {

/// Answers every request with "no library kernel for this task".
class EmptyLibraryProvider final : public Provider {
 public:
  util::Result<ChatReply> chat(const ChatRequest& request) override {
    return util::fail("no library kernel for this task: {}", request.task_path.string());
  }
  std::string name() const override { return "library"; }
  std::string model() const override { return "verified"; }
};

}  // namespace

std::unique_ptr<Provider> make_library_provider(const LibraryProviderOptions&) {
  return std::make_unique<EmptyLibraryProvider>();
}

}  // namespace kforge::llm
