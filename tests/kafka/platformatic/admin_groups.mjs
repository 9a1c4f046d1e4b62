// Issue 22's group admin APIs for a KIP-848 group (groupProtocol
// 'consumer') and DeleteRecords / DescribeLogDirs in their flexible
// versions, all with @platformatic/kafka's Admin, for
// tests/kafka/admin_api_test.py's kip848-admin case:
//
//   node admin_groups.mjs host:port[,...]
//
// Prints "ok: <check>" per check held; exits 1 on the first that does not
// (with "FAIL: ..."), 0 after the last. Gives up after 120 s.

const { Admin, Consumer, Producer, stringDeserializers, stringSerializers } =
  await import('./kafka.mjs')

const bootstrapBrokers = (process.argv[2] ?? '').split(',')
if (!bootstrapBrokers[0]) {
  console.error('usage: admin_groups.mjs host:port[,...]')
  process.exit(2)
}
setTimeout(() => { console.log('FAIL: timed out after 120 s'); process.exit(1) }, 120000).unref()

function check (cond, what) {
  if (!cond) {
    console.log(`FAIL: ${what}`)
    process.exit(1)
  }
  console.log(`ok: ${what}`)
}

/// Kafka's error names inside a (nested) @platformatic/kafka error.
function codes (e) {
  const out = []
  const walk = x => {
    if (!x || typeof x !== 'object') return
    if (x.apiCode) out.push(x.apiId ?? x.apiCode)
    for (const inner of x.errors ?? []) walk(inner)
  }
  walk(e)
  return out
}

async function errorOf (promise) {
  try {
    await promise
    return null
  } catch (e) {
    return codes(e).length ? codes(e) : [`${e.message}`]
  }
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))
const admin = new Admin({ clientId: 'kip848-admin', bootstrapBrokers, retries: 1, retryDelay: 100 })
const topic = 'kip848-admin'
const groupId = 'kip848-admin-group'
await admin.createTopics({ topics: [topic], partitions: 2, replicas: 3 })
await sleep(500)

const producer = new Producer({ clientId: 'kip848-p', bootstrapBrokers, serializers: stringSerializers, acks: -1 })
const messages = []
for (let i = 0; i < 10; ++i) messages.push({ topic, partition: 0, key: `k${i}`, value: `v${i}` })
await producer.send({ messages })

async function member () {
  const consumer = new Consumer({
    groupId, clientId: 'kip848-c', bootstrapBrokers, groupProtocol: 'consumer',
    deserializers: stringDeserializers, maxWaitTime: 200
  })
  const stream = await consumer.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: false })
  const seen = []
  stream.on('data', m => { seen.push(m) })
  stream.on('error', e => { console.log(`FAIL: stream: ${e.message}`); process.exit(1) })
  return { consumer, seen }
}

async function committed () {
  const [g] = await admin.listConsumerGroupOffsets({ groups: [{ groupId, topics: [{ name: topic, partitionIndexes: [0] }] }] })
  const p = g?.topics?.find(t => t.name === topic)?.partitions?.find(x => x.partitionIndex === 0)
  return p ? Number(p.committedOffset) : null
}

// A live KIP-848 member that consumed and committed 10 on partition 0.
let m = await member()
while (m.seen.length < 10) await sleep(50)
await m.seen[9].commit()
check(await committed() === 10, 'the KIP-848 member committed 10')

let err = await errorOf(admin.deleteGroups({ groups: [groupId] }))
check(err?.includes('NON_EMPTY_GROUP'), `DeleteGroups of a KIP-848 group with a member is NON_EMPTY_GROUP (${err})`)
err = await errorOf(admin.deleteConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionIndexes: [0] }] }))
check(err?.includes('GROUP_SUBSCRIBED_TO_TOPIC'), `OffsetDelete of the subscribed topic is GROUP_SUBSCRIBED_TO_TOPIC (${err})`)
err = await errorOf(admin.alterConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 2n }] }] }))
check(err?.includes('UNKNOWN_MEMBER_ID'), `an admin OffsetCommit to the KIP-848 group with a member is UNKNOWN_MEMBER_ID (${err})`)
check(await committed() === 10, 'the refused commit changed nothing')

await m.consumer.close(true)
// The group empties once the member left (a heartbeat with epoch -1).
let altered = 'not tried'
for (let i = 0; i < 50; ++i) {
  altered = await errorOf(admin.alterConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionOffsets: [{ partition: 0, offset: 3n }] }] }))
  if (altered === null) break
  await sleep(200)
}
check(altered === null, `an admin OffsetCommit to the emptied KIP-848 group is accepted (${altered})`)
check(await committed() === 3, 'listConsumerGroupOffsets answers the reset offset 3')
m = await member()
while (m.seen.length < 1) await sleep(50)
check(m.seen[0].partition === 0 && Number(m.seen[0].offset) === 3, `a new KIP-848 member resumes at 3 (${m.seen[0].partition}:${m.seen[0].offset})`)
await m.consumer.close(true)

let deleted = 'not tried'
for (let i = 0; i < 50; ++i) {
  deleted = await errorOf(admin.deleteConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionIndexes: [0] }] }))
  if (deleted === null) break
  await sleep(200)
}
check(deleted === null, `OffsetDelete of the emptied KIP-848 group is accepted (${deleted})`)
check(await committed() === null || await committed() === -1, `its offset is gone (${await committed()})`)
err = await errorOf(admin.deleteGroups({ groups: [groupId] }))
check(err === null, `DeleteGroups of the emptied KIP-848 group succeeds (${err})`)
err = await errorOf(admin.deleteGroups({ groups: [groupId] }))
check(err?.includes('GROUP_ID_NOT_FOUND'), `a second DeleteGroups is GROUP_ID_NOT_FOUND (${err})`)

// DeleteRecords and DescribeLogDirs at @platformatic/kafka's versions.
const [dr] = await admin.deleteRecords({ topics: [{ name: topic, partitions: [{ partition: 0, offset: 6n }] }] })
const low = dr?.partitions?.find(p => p.partition === 0)?.lowWatermark
check(dr?.name === topic && Number(low) === 6, `DeleteRecords before 6 answers low watermark 6 (${low})`)
err = await errorOf(admin.deleteRecords({ topics: [{ name: topic, partitions: [{ partition: 0, offset: 100n }] }] }))
check(err?.includes('OFFSET_OUT_OF_RANGE'), `DeleteRecords beyond the high watermark is OFFSET_OUT_OF_RANGE (${err})`)
const brokers = await admin.describeLogDirs({ topics: [{ name: topic, partitions: [0, 1] }] })
check(brokers.length === 3, `DescribeLogDirs answers from the 3 brokers (${brokers.map(b => b.broker)})`)
for (const b of brokers) {
  const parts = []
  for (const r of b.results) {
    for (const t of r.topics) {
      check(t.name === topic, `broker ${b.broker} describes only the asked topic (${t.name})`)
      for (const p of t.partitions) parts.push([p.partitionIndex, Number(p.partitionSize)])
    }
    check(r.logDir.includes(`broker-${b.broker}`), `broker ${b.broker}'s log dir ${r.logDir}`)
    check(Number(r.totalBytes) > 0 && Number(r.usableBytes) > 0 && Number(r.usableBytes) <= Number(r.totalBytes),
      `broker ${b.broker}'s log dir has total ${r.totalBytes} and usable ${r.usableBytes} bytes`)
  }
  parts.sort((a, c) => a[0] - c[0])
  check(parts.length === 2 && parts[0][0] === 0 && parts[0][1] > 0 && parts[1][0] === 1 && parts[1][1] === 0,
    `broker ${b.broker}: partition 0 has bytes, partition 1 none (${JSON.stringify(parts)})`)
}

await producer.close()
await admin.close()
console.log('PASS')
process.exit(0)
