#include "prompts/code_extractor.h"

#include <vector>

namespace kforge::prompts {

namespace {

/// The bodies of all ``` fences in `text` (an unterminated last fence runs to the end: replies
/// cut off by the token limit still yield their code, and evaluation reports what is missing).
std::vector<std::string_view> fenced_blocks(std::string_view text) {
  std::vector<std::string_view> blocks;
  std::size_t pos = 0;
  while (true) {
    std::size_t open = text.find("```", pos);
    if (open == std::string_view::npos) break;
    std::size_t body = text.find('\n', open);
    if (body == std::string_view::npos) break;
    ++body;
    std::size_t close = text.find("\n```", body - 1);
    if (close == std::string_view::npos) {
      blocks.push_back(text.substr(body));
      break;
    }
    blocks.push_back(text.substr(body, close + 1 - body));
    pos = close + 4;
  }
  return blocks;
}

}  // namespace

util::Result<std::string> extract_model_code(std::string_view reply) {
  std::vector<std::string_view> blocks = fenced_blocks(reply);
  std::string_view best;
  for (std::string_view block : blocks)
    if (block.find("class ModelNew") != std::string_view::npos && block.size() > best.size())
      best = block;
  if (!best.empty()) return std::string(best);
  if (blocks.empty() && reply.find("class ModelNew") != std::string_view::npos)
    return std::string(reply);
  if (blocks.empty())
    return util::fail(
        "failed to extract code from the reply: it has no ```python block and no class ModelNew");
  return util::fail(
      "failed to extract code from the reply: none of its {} code block(s) defines class "
      "ModelNew",
      blocks.size());
}

}  // namespace kforge::prompts
