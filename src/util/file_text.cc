#include "util/file_text.h"

#include <fstream>
#include <sstream>

namespace kforge::util {

Result<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("failed to read {}: cannot open it", path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace kforge::util
