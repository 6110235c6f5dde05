#include "library/library_provider.h"

#include <gtest/gtest.h>

namespace kforge::library {
namespace {

constexpr const char* kGruHidden = R"({
  "modules": [{"path": "gru", "type": "GRU", "args": {"batch_first": false, "bidirectional": false}}],
  "outputs": [{"shape": [6, 10, 256], "dtype": "float32"}],
  "output_sources": [{"module": "gru", "value": "h_n"}]})";

LibraryProviderOptions options_with(std::string task_info) {
  LibraryProviderOptions options;
  options.library_dirs = {std::filesystem::path(KFORGE_SOURCE_DIR) / "library"};
  options.inspect_task = [task_info](const std::filesystem::path&) {
    return task::parse_task_info(task_info);
  };
  return options;
}

TEST(LibraryProvider, AnswersWithTheMatchingKernelInAPythonBlock) {
  auto provider = make_library_provider(options_with(kGruHidden));
  llm::ChatRequest request;
  request.task_path = "tasks/40_GRUHidden.py";
  auto reply = provider->chat(request);
  ASSERT_TRUE(reply) << reply.error().message;
  EXPECT_NE(reply->content.find("Library kernel `gru_hn`"), std::string::npos);
  EXPECT_NE(reply->content.find("```python\n"), std::string::npos);
  EXPECT_NE(reply->content.find("class ModelNew"), std::string::npos);
  EXPECT_EQ(provider->name(), "library");
}

TEST(LibraryProvider, NoMatchSaysWhichSignatureHasNoKernel) {
  auto provider = make_library_provider(options_with(
      R"({"modules": [{"path": "rnn", "type": "RNN", "args": {}}], "outputs": [{"shape": [1]}]})"));
  llm::ChatRequest request;
  request.task_path = "tasks/33_VanillaRNN.py";
  auto reply = provider->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "no library kernel for this task: type=rnn bidirectional=false batch_first=false "
            "has_fc=false returns=other");
}

TEST(LibraryProvider, InspectionFailureIsReportedWithTheTask) {
  LibraryProviderOptions options;
  options.inspect_task = [](const std::filesystem::path&) -> util::Result<task::TaskInfo> {
    return util::fail("worker gone");
  };
  auto provider = make_library_provider(options);
  llm::ChatRequest request;
  request.task_path = "tasks/39_GRU.py";
  auto reply = provider->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message, "failed to inspect task tasks/39_GRU.py: worker gone");
}

TEST(LibraryProvider, StartsNoWorkerOfItsOwn) {
  auto provider = make_library_provider({});  // no inspector: the command's pool is missing
  llm::ChatRequest request;
  request.task_path = "tasks/39_GRU.py";
  auto reply = provider->chat(request);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error().message,
            "failed to pick a library kernel: no worker to inspect the task with");
  EXPECT_EQ(reply.error().kind, util::ErrorKind::kInternal);
}

}  // namespace
}  // namespace kforge::library
