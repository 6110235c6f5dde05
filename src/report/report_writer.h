#pragma once

#include <filesystem>

#include "store/run_store.h"
#include "util/error.h"

namespace kforge::report {

/// Writes summary.md and report.html into the run directory from its run.json (so `kforge
/// report DIR` can redo them for any run, finished or interrupted).
util::Result<void> write_reports(store::RunStore& store);

}  // namespace kforge::report
