#pragma once

// Lenient readers of one field of a JSON object, shared by the edges that turn replies into
// structs where every field is optional (worker facts, run records, model replies).

#include <cstdint>
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
