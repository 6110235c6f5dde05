// `kforge report DIR`: (re)write summary.md and report.html of a run and record it in the index.

#include <fmt/core.h>

#include "cli/commands.h"
#include "report/report_writer.h"
#include "store/run_index.h"
#include "store/run_store.h"

namespace kforge::cli {

int run_report_command(const Options& options) {
  if (options.path.empty()) {
    fmt::print(stderr, "kforge report: failed to read the run directory: none given\n");
    return kExitUsage;
  }
  auto store = store::RunStore::open(options.path);
  if (!store) {
    fmt::print(stderr, "kforge report: {}\n", store.error().message);
    return kExitUsage;
  }
  if (auto ok = report::write_reports(**store); !ok) {
    fmt::print(stderr, "kforge report: {}\n", ok.error().message);
    return kExitUsage;
  }
  auto run = (*store)->read_run();
  if (run) {
    auto index = store::RunIndex::open((*store)->dir().parent_path() / "index.sqlite");
    if (index) (void)(*index)->record(*run, (*store)->dir());
  }
  fmt::print("{}\n{}\n", ((*store)->dir() / "summary.md").string(),
             ((*store)->dir() / "report.html").string());
  return kExitOk;
}

}  // namespace kforge::cli
