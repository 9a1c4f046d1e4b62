// A KIP-848 consumer (groupProtocol 'consumer') of a topic whose partitions
// grow, for tests/kafka/admin_api_test.py's create-partitions case:
//
//   node admin_partitions.mjs host:port[,...] topic want
//
// Prints "owned N" each time the number of the topic's partitions it owns
// changes; exits 0 once it owns `want` of them, 1 after 90 s.

const { Consumer, stringDeserializers } = await import('./kafka.mjs')

const [brokerList, topic, wantText] = process.argv.slice(2)
const want = Number(wantText)
if (!brokerList || !topic || !want) {
  console.error('usage: admin_partitions.mjs host:port[,...] topic want')
  process.exit(2)
}
const deadline = Date.now() + 90000
const consumer = new Consumer({
  groupId: `cp-kip848-${topic}`,
  clientId: 'cp-kip848',
  bootstrapBrokers: brokerList.split(','),
  groupProtocol: 'consumer',
  deserializers: stringDeserializers,
  maxWaitTime: 200
})
const stream = await consumer.consume({
  topics: [topic],
  mode: 'earliest',
  autocommit: false
})
stream.on('data', () => {})
stream.on('error', error => {
  console.log(`stream error: ${error.message}`)
  process.exit(1)
})

function owned () {
  const mine = new Set()
  for (const a of consumer.assignments ?? []) {
    if (a.topic === topic) for (const p of a.partitions) mine.add(p)
  }
  return mine.size
}

let last = -1
while (true) {
  const n = owned()
  if (n !== last && n > 0) console.log(`owned ${n}`)
  last = n
  if (n >= want) break
  if (Date.now() > deadline) {
    console.log(`timed out owning ${n} of ${want}`)
    process.exit(1)
  }
  await new Promise(resolve => setTimeout(resolve, 50))
}
await consumer.close(true)
process.exit(0)
