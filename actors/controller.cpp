#include "actors/controller.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "domain/topic_name.hpp"

namespace troupe {

namespace {

topic_result create_topic(controller_state& st, const new_topic& t) {
  if (auto e = validate_topic_name(t.name); e != error_code::none)
    return {t.name, e, "Topic name is illegal: " + t.name};
  if (st.topics.count(t.name))
    return {t.name, error_code::topic_already_exists,
            "Topic '" + t.name + "' already exists."};
  auto partitions = t.num_partitions == -1 ? st.config.num_partitions
                                           : t.num_partitions;
  if (partitions < 1 || partitions > 1000000)
    return {t.name, error_code::invalid_partitions,
            "Number of partitions must be between 1 and 1000000."};
  int32_t rf = t.replication_factor == -1 ? st.config.default_replication_factor
                                          : t.replication_factor;
  if (rf < 1 || rf > st.config.brokers)
    return {t.name, error_code::invalid_replication_factor,
            "Replication factor: " + std::to_string(rf)
              + " larger than available brokers: "
              + std::to_string(st.config.brokers) + "."};
  st.topics.emplace(t.name, partitions);
  spdlog::info("controller: created topic {} with {} partitions", t.name,
               partitions);
  return {t.name, error_code::none, {}};
}

} // namespace

controller_actor::behavior_type controller(controller_ptr self,
                                           cluster_config config) {
  self->state.config = std::move(config);
  return {
    [self](create_topics_request& req) {
      create_topics_response res;
      for (auto& t : req.topics)
        res.topics.push_back(create_topic(self->state, t));
      return res;
    },
    [self](metadata_request& req) {
      auto& st = self->state;
      metadata_response res;
      if (req.topics.empty()) {
        for (auto& [name, partitions] : st.topics)
          res.topics.push_back({error_code::none, name, partitions});
        return res;
      }
      for (auto& name : req.topics) {
        auto i = st.topics.find(name);
        if (i != st.topics.end()) {
          res.topics.push_back({error_code::none, name, i->second});
          continue;
        }
        if (auto e = validate_topic_name(name); e != error_code::none) {
          res.topics.push_back({e, name, 0});
          continue;
        }
        if (req.allow_auto_topic_creation && st.config.auto_create_topics) {
          auto created = create_topic(st, {name, -1, -1});
          res.topics.push_back(
            {created.error, name,
             created.error == error_code::none ? st.topics[name] : 0});
          continue;
        }
        res.topics.push_back({error_code::unknown_topic_or_partition, name, 0});
      }
      return res;
    },
  };
}

} // namespace troupe
