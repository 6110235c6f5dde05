#include "store/run_index.h"

#include <fmt/format.h>
#include <sqlite3.h>

namespace kforge::store {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  dir TEXT NOT NULL,
  task TEXT NOT NULL,
  task_name TEXT,
  provider TEXT,
  model TEXT,
  device TEXT,
  gpu TEXT,
  state TEXT,
  stop_reason TEXT,
  started_at TEXT,
  updated_at TEXT,
  elapsed_s REAL,
  best_id INTEGER,
  best_score REAL,
  best_latency_ms REAL,
  prompt_tokens INTEGER,
  completion_tokens INTEGER,
  candidates INTEGER
);
CREATE TABLE IF NOT EXISTS candidates (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  id INTEGER NOT NULL,
  stage TEXT NOT NULL,
  parent INTEGER,
  file TEXT,
  status TEXT,
  score REAL,
  latency_ms REAL,
  max_abs_err REAL,
  kernel_type TEXT,
  persistent INTEGER,
  PRIMARY KEY (run_id, id)
);
)sql";

/// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return stmt_; }
  bool ok() const { return stmt_ != nullptr; }
  void text(int i, const std::string& value) {
    sqlite3_bind_text(stmt_, i, value.c_str(), -1, SQLITE_TRANSIENT);
  }
  void real(int i, const std::optional<double>& value) {
    if (value && *value == *value)
      sqlite3_bind_double(stmt_, i, *value);
    else
      sqlite3_bind_null(stmt_, i);
  }
  void integer(int i, const std::optional<long long>& value) {
    if (value)
      sqlite3_bind_int64(stmt_, i, *value);
    else
      sqlite3_bind_null(stmt_, i);
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string column_text(sqlite3_stmt* stmt, int i) {
  const unsigned char* text = sqlite3_column_text(stmt, i);
  return text ? reinterpret_cast<const char*>(text) : "";
}

std::optional<double> column_real(sqlite3_stmt* stmt, int i) {
  if (sqlite3_column_type(stmt, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt, i);
}

std::optional<long long> opt(const std::optional<int>& value) {
  return value ? std::optional<long long>(*value) : std::nullopt;
}

}  // namespace

util::Result<std::unique_ptr<RunIndex>> RunIndex::open(const std::filesystem::path& file) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  auto index = std::unique_ptr<RunIndex>(new RunIndex());
  index->file_ = file;
  if (sqlite3_open(file.c_str(), &index->db_) != SQLITE_OK)
    return util::fail("failed to open run index {}: {}", file.string(),
                      index->db_ ? sqlite3_errmsg(index->db_) : "out of memory");
  sqlite3_busy_timeout(index->db_, 10000);
  if (auto ok = index->exec("PRAGMA foreign_keys = ON;"); !ok) return std::unexpected(ok.error());
  if (auto ok = index->exec(kSchema); !ok) return std::unexpected(ok.error());
  return index;
}

RunIndex::~RunIndex() {
  if (db_) sqlite3_close(db_);
}

util::Result<void> RunIndex::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return util::fail("failed to update run index {}: {}", file_.string(), text);
  }
  return {};
}

util::Result<void> RunIndex::record(const RunRecord& run, const std::filesystem::path& dir) {
  if (auto ok = exec("BEGIN IMMEDIATE;"); !ok) return ok;
  auto rollback = [&](std::string what) -> util::Result<void> {
    std::string cause = sqlite3_errmsg(db_);
    (void)exec("ROLLBACK;");
    return util::fail("failed to record run {} in {}: {}: {}", run.id, file_.string(), what, cause);
  };
  {
    Statement remove(db_, "DELETE FROM candidates WHERE run_id = ?1;");
    remove.text(1, run.id);
    if (!remove.ok() || sqlite3_step(remove.get()) != SQLITE_DONE) return rollback("delete");
  }
  const CandidateRecord* best = run.best_id ? find_candidate(run, *run.best_id) : nullptr;
  TokenRow total = total_tokens(run);
  {
    Statement insert(db_,
                     "INSERT OR REPLACE INTO runs (id, dir, task, task_name, provider, model, "
                     "device, gpu, state, stop_reason, started_at, updated_at, elapsed_s, best_id, "
                     "best_score, best_latency_ms, prompt_tokens, completion_tokens, candidates) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                     "?16, ?17, ?18, ?19);");
    if (!insert.ok()) return rollback("prepare");
    insert.text(1, run.id);
    insert.text(2, std::filesystem::absolute(dir).string());
    insert.text(3, run.config.task);
    insert.text(4, run.task_name);
    insert.text(5, run.config.provider);
    insert.text(6, run.config.model);
    insert.text(7, run.config.device);
    auto gpu = run.device.find("name");
    insert.text(8, gpu == run.device.end() ? "" : gpu->second);
    insert.text(9, run.state);
    insert.text(10, run.stop_reason);
    insert.text(11, run.started_at);
    insert.text(12, run.updated_at);
    insert.real(13, run.elapsed_s);
    insert.integer(14, opt(run.best_id));
    insert.real(15, best ? best->score : std::nullopt);
    insert.real(16, best ? best->latency_ms : std::nullopt);
    insert.integer(17, total.prompt_tokens);
    insert.integer(18, total.completion_tokens);
    insert.integer(19, static_cast<long long>(run.candidates.size()));
    if (sqlite3_step(insert.get()) != SQLITE_DONE) return rollback("insert run");
  }
  for (const CandidateRecord& c : run.candidates) {
    Statement insert(db_,
                     "INSERT INTO candidates (run_id, id, stage, parent, file, status, score, "
                     "latency_ms, max_abs_err, kernel_type, persistent) VALUES (?1, ?2, ?3, ?4, "
                     "?5, ?6, ?7, ?8, ?9, ?10, ?11);");
    if (!insert.ok()) return rollback("prepare");
    insert.text(1, run.id);
    insert.integer(2, c.id);
    insert.text(3, c.stage);
    insert.integer(4, opt(c.parent));
    insert.text(5, c.file);
    insert.text(6, c.status);
    insert.real(7, c.score);
    insert.real(8, c.latency_ms);
    insert.real(9, c.max_abs_err);
    insert.text(10, c.kernel_type);
    insert.integer(11, c.persistent ? 1 : 0);
    if (sqlite3_step(insert.get()) != SQLITE_DONE) return rollback("insert candidate");
  }
  return exec("COMMIT;");
}

util::Result<std::vector<IndexedRun>> RunIndex::runs() const {
  Statement query(db_,
                  "SELECT id, dir, task, provider, model, device, state, started_at, best_id, "
                  "best_score, best_latency_ms, prompt_tokens + completion_tokens, candidates "
                  "FROM runs ORDER BY started_at, id;");
  if (!query.ok())
    return util::fail("failed to query run index {}: {}", file_.string(), sqlite3_errmsg(db_));
  std::vector<IndexedRun> out;
  while (sqlite3_step(query.get()) == SQLITE_ROW) {
    sqlite3_stmt* s = query.get();
    IndexedRun run;
    run.id = column_text(s, 0);
    run.dir = column_text(s, 1);
    run.task = column_text(s, 2);
    run.provider = column_text(s, 3);
    run.model = column_text(s, 4);
    run.device = column_text(s, 5);
    run.state = column_text(s, 6);
    run.started_at = column_text(s, 7);
    if (sqlite3_column_type(s, 8) != SQLITE_NULL) run.best_id = sqlite3_column_int(s, 8);
    run.best_score = column_real(s, 9);
    run.best_latency_ms = column_real(s, 10);
    run.total_tokens = sqlite3_column_int64(s, 11);
    run.candidates = sqlite3_column_int(s, 12);
    out.push_back(std::move(run));
  }
  return out;
}

util::Result<std::vector<CandidateRecord>> RunIndex::candidates(const std::string& run_id) const {
  Statement query(db_,
                  "SELECT id, stage, parent, file, status, score, latency_ms, max_abs_err, "
                  "kernel_type, persistent FROM candidates WHERE run_id = ?1 ORDER BY id;");
  if (!query.ok())
    return util::fail("failed to query run index {}: {}", file_.string(), sqlite3_errmsg(db_));
  sqlite3_bind_text(query.get(), 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
  std::vector<CandidateRecord> out;
  while (sqlite3_step(query.get()) == SQLITE_ROW) {
    sqlite3_stmt* s = query.get();
    CandidateRecord c;
    c.id = sqlite3_column_int(s, 0);
    c.stage = column_text(s, 1);
    if (sqlite3_column_type(s, 2) != SQLITE_NULL) c.parent = sqlite3_column_int(s, 2);
    c.file = column_text(s, 3);
    c.status = column_text(s, 4);
    c.score = column_real(s, 5);
    c.latency_ms = column_real(s, 6);
    c.max_abs_err = column_real(s, 7);
    c.kernel_type = column_text(s, 8);
    c.persistent = sqlite3_column_int(s, 9) != 0;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace kforge::store
