#pragma once

// JSON forms of the records the store writes (run.json, candidates/*.json, journal lines).
// Included only by src/store .cc files: the pipeline never sees nlohmann::json.

#include <nlohmann/json.hpp>

#include "analysis/analysis.h"
#include "eval/evaluation.h"
#include "llm/provider.h"
#include "store/run_record.h"
#include "util/error.h"

namespace kforge::store {

nlohmann::json to_json(const eval::Evaluation& evaluation);
util::Result<eval::Evaluation> evaluation_from_json(const nlohmann::json& json);

nlohmann::json to_json(const analysis::Report& report);
util::Result<analysis::Report> report_from_json(const nlohmann::json& json);

nlohmann::json to_json(const llm::ChatReply& reply);
util::Result<llm::ChatReply> reply_from_json(const nlohmann::json& json);

nlohmann::json to_json(const RunRecord& run);
util::Result<RunRecord> run_from_json(const nlohmann::json& json);

}  // namespace kforge::store
