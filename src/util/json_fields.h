#pragma once

// Lenient readers of one field of a JSON object, shared by the edges that turn replies into
// structs where every field is optional (worker facts, run records, model replies).

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::util {

/// The string at `key`; `fallback` when `object` has no such field, it is no string, or `object`
/// is no object.
inline std::string string_field(const nlohmann::json& object, std::string_view key,
                                std::string fallback = {}) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

/// The number at `key` as a `T`; `fallback` when absent or no number.
template <typename T = std::int64_t>
T number_field(const nlohmann::json& object, std::string_view key, T fallback = T{}) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<T>() : fallback;
}

/// The boolean at `key`; false when absent or no boolean.
inline bool bool_field(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

/// The string at `key`; nullopt when absent or no string.
inline std::optional<std::string> optional_string_field(const nlohmann::json& object,
                                                        std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

/// The number at `key`; nullopt when absent or no number.
template <typename T>
std::optional<T> optional_number_field(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<T>();
}

/// The array at `key`; an empty array when absent or no array.
inline const nlohmann::json& array_field(const nlohmann::json& object, std::string_view key) {
  static const nlohmann::json empty = nlohmann::json::array();
  auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : empty;
}

/// The value at `key` as a `T`; `fallback` when absent, null or not convertible to `T`.
template <typename T>
T value_field(const nlohmann::json& object, std::string_view key, T fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    return fallback;
  }
}

/// The boolean at `key`; nullopt when absent or no boolean.
inline std::optional<bool> optional_bool_field(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

/// `value`, or null for nullopt.
template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

/// A float for JSON: non-finite values travel as "nan", "inf", "-inf" (docs/protocol.md).
inline nlohmann::json number_json(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

/// The same, null for nullopt.
inline nlohmann::json number_json(const std::optional<double>& value) {
  return value ? number_json(*value) : nlohmann::json(nullptr);
}

/// A number or one of number_json's strings; nullopt for null or anything else.
inline std::optional<double> read_number(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<double>::infinity();
    if (text == "-inf") return -std::numeric_limits<double>::infinity();
  }
  return std::nullopt;
}

/// read_number of the field at `key`; nullopt when absent.
inline std::optional<double> read_number_field(const nlohmann::json& object, std::string_view key) {
  auto it = object.find(key);
  return it == object.end() ? std::nullopt : read_number(*it);
}

/// The strings of the array at `key`, other items skipped.
inline std::vector<std::string> string_items(const nlohmann::json& object, std::string_view key) {
  std::vector<std::string> out;
  for (const nlohmann::json& item : array_field(object, key))
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

/// The numbers of the array at `key` as `T`, other items skipped.
template <typename T>
std::vector<T> number_items(const nlohmann::json& object, std::string_view key) {
  std::vector<T> out;
  for (const nlohmann::json& item : array_field(object, key))
    if (item.is_number()) out.push_back(item.get<T>());
  return out;
}

}  // namespace kforge::util
