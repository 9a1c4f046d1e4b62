#include "domain/zookeeper/scala_map_order.hpp"

#include <algorithm>
#include <cstdint>

#include "domain/java_hash.hpp"

namespace troupe::zk {

namespace {

// -- mutable.HashMap (Scala 2.13) ------------------------------------------------

// mutable.HashMap.improveHash: the high half folded into the low half.
uint32_t mutable_improve(uint32_t h) {
  return h ^ (h >> 16);
}

// mutable.HashMap.tableSizeFor.
size_t table_size_for(size_t capacity) {
  size_t n = std::max<size_t>(capacity - 1, 4);
  size_t highest = 1;
  while (highest * 2 <= n)
    highest *= 2;
  return highest * 2;
}

size_t threshold_of(size_t table_size) {
  return static_cast<size_t>(static_cast<double>(table_size) * 0.75);
}

// -- immutable.HashMap (CHAMP, Scala 2.13) -----------------------------------------

// scala.collection.Hashing.improve.
uint32_t champ_improve(uint32_t h) {
  h = h + ~(h << 9);
  h = h ^ (h >> 14);
  h = h + (h << 4);
  return h ^ (h >> 10);
}

struct hashed_key {
  std::string_view key;
  uint32_t hash;
};

// Appends the keys of one CHAMP node (all sharing the fragments above
// `shift`): those alone in their fragment first, then each sub-node in
// fragment order.
void walk_champ(std::vector<hashed_key> keys, unsigned shift,
                std::vector<std::string_view>& out) {
  constexpr unsigned max_shift = 30; // the last 2 bits of a 32-bit hash
  if (shift > max_shift) {
    // Equal hashes: a collision node, in insertion order.
    for (auto& k : keys)
      out.push_back(k.key);
    return;
  }
  auto fragment = [shift](const hashed_key& k) {
    return (k.hash >> shift) & 0x1f;
  };
  std::stable_sort(keys.begin(), keys.end(),
                   [&](const hashed_key& x, const hashed_key& y) {
                     return fragment(x) < fragment(y);
                   });
  std::vector<std::vector<hashed_key>> sub_nodes;
  for (size_t i = 0; i < keys.size();) {
    size_t j = i;
    while (j < keys.size() && fragment(keys[j]) == fragment(keys[i]))
      ++j;
    if (j - i == 1)
      out.push_back(keys[i].key);
    else
      sub_nodes.emplace_back(keys.begin() + i, keys.begin() + j);
    i = j;
  }
  for (auto& node : sub_nodes)
    walk_champ(std::move(node), shift + 5, out);
}

} // namespace

std::vector<std::string_view>
scala_mutable_map_order(const std::vector<std::string_view>& keys,
                        size_t initial_entries) {
  // mutable.HashMap.from sizes the table for the known entries; every later
  // put doubles it once contentSize + 1 reaches the threshold.
  constexpr size_t default_capacity = 16;
  size_t table = initial_entries > 0 ? table_size_for(static_cast<size_t>(
                   static_cast<double>(initial_entries + 1) / 0.75))
                                     : table_size_for(default_capacity);
  for (size_t size = initial_entries; size < keys.size(); ++size)
    if (size + 1 >= threshold_of(table))
      table *= 2;
  std::vector<std::pair<std::string_view, int32_t>> hashed;
  for (auto key : keys)
    hashed.emplace_back(key, static_cast<int32_t>(mutable_improve(
                               static_cast<uint32_t>(java_string_hash(key)))));
  auto mask = static_cast<uint32_t>(table - 1);
  // Buckets in table order; inside one, nodes sorted by hash (signed, as
  // put0 compares Ints).
  std::stable_sort(hashed.begin(), hashed.end(),
                   [mask](const auto& x, const auto& y) {
                     auto bx = static_cast<uint32_t>(x.second) & mask;
                     auto by = static_cast<uint32_t>(y.second) & mask;
                     return bx != by ? bx < by : x.second < y.second;
                   });
  std::vector<std::string_view> result;
  for (auto& [key, hash] : hashed)
    result.push_back(key);
  return result;
}

std::vector<std::string_view>
scala_immutable_map_order(const std::vector<std::string_view>& keys) {
  constexpr size_t largest_small_map = 4; // Map4
  if (keys.size() <= largest_small_map)
    return keys;
  std::vector<hashed_key> hashed;
  for (auto key : keys)
    hashed.push_back(
      {key, champ_improve(static_cast<uint32_t>(java_string_hash(key)))});
  std::vector<std::string_view> result;
  walk_champ(std::move(hashed), 0, result);
  return result;
}

} // namespace troupe::zk
