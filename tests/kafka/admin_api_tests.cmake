# Issue 22's admin APIs end to end (tests/kafka/admin_api_test.py): each case
# starts its own `troupe serve` (the embedded node, three brokers) on free
# ports with a temporary log.dirs and stops it by pid, also on failure.
# kafka-python's KafkaAdminClient and confluent-kafka where Debian's clients
# have the API, Kafka's request schemas written by hand where they do not;
# @platformatic/kafka (tests/kafka/platformatic) for a KIP-848 group.
# DEBIAN_PYTHON3 and NODE_EXECUTABLE come from tests/kafka/kafka_tests.cmake.
set(_adm ${CMAKE_SOURCE_DIR}/tests/kafka/admin_api_test.py)
foreach(_case IN ITEMS
    "delete-groups|DeleteGroups is NON_EMPTY_GROUP for a group with a member, deletes the emptied group and its offsets, a second delete is GROUP_ID_NOT_FOUND"
    "offset-delete|OffsetDelete is GROUP_SUBSCRIBED_TO_TOPIC for a topic a member subscribes to, deletes another topic's offsets and the emptied group's, GROUP_ID_NOT_FOUND for an unknown group"
    "admin-commit|an admin OffsetCommit (generation -1, no member id) to an Empty group is stored and the next consumer resumes there, to a Stable group it is UNKNOWN_MEMBER_ID"
    "create-partitions|CreatePartitions validate_only changes nothing, INVALID_PARTITIONS and UNKNOWN_TOPIC_OR_PARTITION, a classic and a KIP-848 group both own the new partitions"
    "delete-records|DeleteRecords answers the low watermark, ListOffsets earliest is it, a Fetch below it is OFFSET_OUT_OF_RANGE, it survives a restart"
    "describe-log-dirs|DescribeLogDirs answers each broker's log dir and every replica with its segments' size"
    "kip848-admin|a KIP-848 group refuses DeleteGroups, OffsetDelete of a subscribed topic and an admin OffsetCommit while it has a member, once empty the admin commit is where a new member resumes and the group is deleted (@platformatic/kafka, flexible DeleteRecords and DescribeLogDirs too)"
    "elect-leaders|ElectLeaders PREFERRED is ELECTION_NOT_NEEDED when the preferred replicas lead, UNKNOWN_TOPIC_OR_PARTITION for an unknown topic")
  troupe_case_fields("${_case}" _name _what)
  set(_test "kafka: ${_what}")
  add_test(NAME "${_test}"
           COMMAND ${DEBIAN_PYTHON3} ${_adm} $<TARGET_FILE:troupe> ${_name}
                   ${NODE_EXECUTABLE})
  set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE)
endforeach()

# DeleteTopics on a ZooKeeper cluster of three troupe processes
# (tests/cluster/delete_topics_test.py, with tests/cluster/cluster_fixture.py;
# python3-kazoo is required by tests/cluster/cluster_tests.cmake): Kafka's
# /admin/delete_topics path, every node's metadata and log directories.
set(_dt ${CMAKE_SOURCE_DIR}/tests/cluster/delete_topics_test.py)
set(_test "cluster: DeleteTopics through a node that is not the controller removes the topic from ZooKeeper, from every node's metadata and every node's log directories, and the topic can be created again empty")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3} ${_dt} $<TARGET_FILE:troupe> delete-topics)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE
                     LABELS cluster)
set(_test "cluster: a node down while its topic is deleted removes its replicas of it as stray logs when it returns, and the topic created again holds none of the deleted one's records on any node")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3} ${_dt} $<TARGET_FILE:troupe>
                 delete-topics-node-down)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE
                     LABELS cluster)
set(_test "cluster: a node whose ZooKeeper session expired while its topic was deleted removes its replicas of it when it registers again, and the topic created again holds only new records")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3} ${_dt} $<TARGET_FILE:troupe>
                 delete-topics-session-lost)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE
                     LABELS cluster)
set(_test "cluster: CreatePartitions through a node that is not the controller (validate_only, INVALID_PARTITIONS) writes the new assignment to ZooKeeper and every node serves and replicates the new partitions")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3} ${_dt} $<TARGET_FILE:troupe>
                 create-partitions)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE
                     LABELS cluster)
set(_test "cluster: ElectLeaders PREFERRED is ELECTION_NOT_NEEDED while the preferred replica leads and moves the leadership back to it with a new leader epoch once it is in the ISR again")
add_test(NAME "${_test}"
         COMMAND ${DEBIAN_PYTHON3} ${_dt} $<TARGET_FILE:troupe>
                 elect-leaders)
set_tests_properties("${_test}" PROPERTIES TIMEOUT 180 RUN_SERIAL TRUE
                     LABELS cluster)
