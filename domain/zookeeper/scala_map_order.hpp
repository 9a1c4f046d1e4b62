#pragma once

// Kafka writes its znodes with Jackson from Scala maps (ZkData.scala), so the
// keys of a JSON object come in the Scala map's iteration order — neither
// insertion nor sorted order. To write the bytes Kafka writes, troupe
// reproduces the iteration order of Scala 2.13's maps (the Scala build Kafka
// 3.x recommends; the kafka_2.12 build orders keys differently, and Kafka's
// readers accept any order). Keys are compared by Java's String.hashCode.

#include <cstddef>
#include <string_view>
#include <vector>

namespace troupe::zk {

/// Iteration order of a scala.collection.mutable.HashMap created by
/// `mutable.Map(k1 -> v1, ...)` with the first `initial_entries` keys, to
/// which the remaining keys were added with `+=` (0: `mutable.Map()`).
/// Buckets are `improved hash & (table size - 1)`, each bucket sorted by hash.
std::vector<std::string_view>
scala_mutable_map_order(const std::vector<std::string_view>& keys,
                        size_t initial_entries);

/// Iteration order of a scala.collection.immutable.Map built from `keys`
/// (`Map(...)`, `.toMap`): up to four keys keep insertion order (Map1..Map4);
/// more make a CHAMP HashMap, walked payload first, then sub-nodes, by 5-bit
/// fragments of scala.util.hashing's improved hash.
std::vector<std::string_view>
scala_immutable_map_order(const std::vector<std::string_view>& keys);

} // namespace troupe::zk
