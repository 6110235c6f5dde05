#include "util/data_dir.h"

namespace kforge::util {

namespace fs = std::filesystem;

bool is_data_dir(const fs::path& dir) {
  std::error_code error;
  return fs::is_regular_file(dir / "worker" / "kforge_worker" / "__main__.py", error) ||
         fs::is_regular_file(dir / "worker" / "kforge_worker" / "__init__.py", error);
}

std::optional<fs::path> find_data_dir() {
  std::error_code error;
  fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    for (fs::path dir = exe.parent_path(); !dir.empty(); dir = dir.parent_path()) {
      if (is_data_dir(dir)) return dir;
      if (is_data_dir(dir / "share" / "kforge")) return dir / "share" / "kforge";
      if (dir == dir.root_path()) break;
    }
  }
#ifdef KFORGE_SOURCE_DIR
  if (fs::path source(KFORGE_SOURCE_DIR); is_data_dir(source)) return source;
#endif
  return std::nullopt;
}

}  // namespace kforge::util
