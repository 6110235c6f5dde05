#include "report/report_writer.h"

#include "report/html_report.h"
#include "report/summary_markdown.h"
#include "util/printable.h"

namespace kforge::report {

util::Result<void> write_reports(store::RunStore& store) {
  auto run = store.read_run();
  if (!run) return std::unexpected(run.error());
  if (auto ok = store.write_file("summary.md", util::printable(render_summary_markdown(*run))); !ok)
    return ok;
  return store.write_file("report.html", render_html_report(*run));
}

}  // namespace kforge::report
