// One consumer of either group protocol reads partition 0 of a topic from
// the earliest record, commits once after the last of `count` records, and
// leaves its group (tests/kafka/offsets_retention_test.py: the group that
// commits once and goes quiet):
//
//   node commit_once.mjs host:port[,...] topic group classic|consumer count
//
// Exits non-zero on any failure; gives up after 60 s.

const { Consumer, stringDeserializers } = await import('./kafka.mjs')

const [brokerList, topic, groupId, protocol, countArg] = process.argv.slice(2)
const count = Number(countArg)
if (!brokerList || !topic || !groupId ||
    !['classic', 'consumer'].includes(protocol) || !(count > 0)) {
  console.error('usage: commit_once.mjs host:port[,...] topic group classic|consumer count')
  process.exit(2)
}

const timer = setTimeout(() => {
  console.error(`FAIL: ${count} records not read and committed within 60 s`)
  process.exit(1)
}, 60000)

const consumer = new Consumer({
  groupId,
  clientId: `commit-once-${protocol}`,
  bootstrapBrokers: brokerList.split(','),
  groupProtocol: protocol,
  deserializers: stringDeserializers,
  maxWaitTime: 200
})
const stream = await consumer.consume({
  topics: [topic],
  mode: 'earliest',
  autocommit: false
})
const { promise: done, resolve, reject } = Promise.withResolvers()
stream.on('data', message => {
  if (message.partition === 0 && Number(message.offset) === count - 1) {
    // Kafka's commit of a record is the offset after it.
    message.commit().then(resolve, reject)
  }
})
stream.on('error', reject)
try {
  await done
} catch (error) {
  console.error(`FAIL: ${error.message}`)
  process.exit(1)
}
await consumer.close(true)
clearTimeout(timer)
console.log(`ok: ${groupId} (${protocol}) committed ${count}`)
