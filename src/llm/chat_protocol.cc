#include "llm/chat_protocol.h"

namespace kforge::llm {

bool is_openai_reasoning_model(std::string_view model) {
  if (std::size_t slash = model.rfind('/'); slash != std::string_view::npos)
    model = model.substr(slash + 1);
  for (std::string_view family : {"o1", "o3", "o4", "gpt-5"}) {
    if (model.starts_with(family) && (model.size() == family.size() ||
                                      model[family.size()] == '-' || model[family.size()] == '.'))
      return true;
  }
  return false;
}

}  // namespace kforge::llm
