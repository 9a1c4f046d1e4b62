// @platformatic/kafka against `troupe --serve`, with either group protocol:
//
//   node group_test.mjs host:port[,host:port...] classic|consumer
//
// Produces to a 6-partition topic, three consumers of one group split it and
// commit every record they get, one closes, the two others take its
// partitions over and go on from its committed offsets (no record seen
// twice, none missing). With groupProtocol 'consumer' (KIP-848) every
// consumer's assignment is sampled every few milliseconds: no partition may
// ever be owned by two members at once. Exits non-zero on any failure.

const { Admin, Consumer, Producer, stringDeserializers, stringSerializers } =
  await import('./kafka.mjs')

const [brokerList, protocol] = process.argv.slice(2)
if (!brokerList || !['classic', 'consumer'].includes(protocol)) {
  console.error('usage: group_test.mjs host:port[,...] classic|consumer')
  process.exit(2)
}
const bootstrapBrokers = brokerList.split(',')
const partitions = 6
const suffix = `${protocol}-${process.pid}-${Date.now()}`
const topic = `pk-${suffix}`
const groupId = `pk-group-${suffix}`
const deadline = Date.now() + 120000

function fail (message) {
  console.error(`FAIL (${protocol}): ${message}`)
  process.exit(1)
}

async function until (what, condition) {
  while (!condition()) {
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

// -- topic and records ---------------------------------------------------------

const admin = new Admin({ clientId: 'pk-admin', bootstrapBrokers })
await admin.createTopics({ topics: [topic], partitions, replicas: 3 })
await admin.close()

const producer = new Producer({
  clientId: 'pk-producer',
  bootstrapBrokers,
  serializers: stringSerializers,
  acks: -1
})
let produced = 0
async function produce (perPartition, round) {
  const messages = []
  for (let p = 0; p < partitions; ++p) {
    for (let i = 0; i < perPartition; ++i) {
      messages.push({ topic, partition: p, key: `k${p}`, value: `${round}-${p}-${i}` })
    }
  }
  await producer.send({ messages })
  produced += messages.length
}

// -- consumers -----------------------------------------------------------------

const seen = new Map() // "partition:offset" -> consumer index
let duplicates = 0
let pendingCommits = 0
let commitErrors = 0
const members = []

async function start (index) {
  const options = {
    groupId,
    clientId: `pk-c${index}`,
    bootstrapBrokers,
    groupProtocol: protocol,
    deserializers: stringDeserializers,
    maxWaitTime: 200
  }
  if (protocol === 'classic') {
    Object.assign(options, { sessionTimeout: 10000, heartbeatInterval: 500, rebalanceTimeout: 20000 })
  }
  const consumer = new Consumer(options)
  const stream = await consumer.consume({
    topics: [topic],
    mode: 'committed',
    fallbackMode: 'earliest',
    autocommit: false
  })
  stream.on('data', message => {
    const key = `${message.partition}:${message.offset}`
    if (seen.has(key)) {
      ++duplicates
      console.error(`${key} delivered to c${index} after c${seen.get(key)}`)
    }
    seen.set(key, index)
    ++pendingCommits
    message.commit().then(
      () => { --pendingCommits },
      error => {
        --pendingCommits
        ++commitErrors
        console.error(`commit of ${key} by c${index} failed: ${error.message}`)
      })
  })
  stream.on('error', error => fail(`c${index}'s stream: ${error.message}`))
  members[index] = { consumer, stream, open: true }
}

/// The partitions each open consumer owns now.
function owned () {
  const result = []
  for (const [index, m] of members.entries()) {
    if (!m?.open) continue
    const mine = []
    for (const a of m.consumer.assignments ?? []) {
      if (a.topic === topic) mine.push(...a.partitions)
    }
    result.push({ index, partitions: mine })
  }
  return result
}

// KIP-848's promise: a partition moves only once its owner released it.
let doubleOwned = 0
let samples = 0
const t0 = Date.now()
let lastPicture = ''
const sampler = setInterval(() => {
  ++samples
  const picture = owned().map(o => `c${o.index}:[${o.partitions.join(',')}]`).join(' ')
  if (process.env.PK_TRACE && picture !== lastPicture) console.error(`${Date.now() - t0} ms: ${picture}`)
  lastPicture = picture
  const owners = new Map()
  for (const { index, partitions: ps } of owned()) {
    for (const p of ps) {
      if (owners.has(p)) {
        ++doubleOwned
        console.error(`partition ${p} owned by c${owners.get(p)} and c${index}`)
      }
      owners.set(p, index)
    }
  }
}, 5)

function covered (count) {
  const all = owned()
  const union = new Set(all.flatMap(o => o.partitions))
  const total = all.reduce((n, o) => n + o.partitions.length, 0)
  return all.length === count && all.every(o => o.partitions.length > 0) &&
    union.size === partitions && total === partitions
}

// @platformatic/kafka delivers what a fetch sent before a rebalance
// returns, even for partitions the consumer no longer owns (Kafka's Java
// consumer drops it). So records are produced only once every fetch sent
// before the last assignment change was answered: troupe answers a long
// poll after maxWaitTime (200 ms) at the latest.
const fetchesDrained = () => new Promise(resolve => setTimeout(resolve, 1000))

for (let i = 0; i < 3; ++i) await start(i)
await until('three consumers to split the topic', () => covered(3))
await fetchesDrained()
await produce(10, 1)
await until('every record of round 1', () => seen.size === produced && pendingCommits === 0)
const split = owned().map(o => `c${o.index}:[${o.partitions.join(',')}]`).join(' ')

// c2 closes (a LeaveGroup, or a heartbeat with member epoch -1).
members[2].open = false
await members[2].consumer.close(true)
await until('the two others to take over', () => covered(2))
await fetchesDrained()
await produce(5, 2)
await until('every record of round 2', () => seen.size === produced && pendingCommits === 0)
// Records committed before the close are not delivered again.
await new Promise(resolve => setTimeout(resolve, 500))
const takeover = owned().map(o => `c${o.index}:[${o.partitions.join(',')}]`).join(' ')

clearInterval(sampler)
for (const m of members) if (m.open) await m.consumer.close(true)
await producer.close()

if (duplicates !== 0) fail(`${duplicates} records delivered twice`)
if (commitErrors !== 0) fail(`${commitErrors} commits failed`)
if (protocol === 'consumer' && doubleOwned !== 0) fail(`${doubleOwned} times a partition had two owners`)
console.log(`ok (${protocol}): ${produced} records, split ${split}, after c2 left ${takeover}, ` +
  `${samples} ownership samples, no partition owned twice: ${doubleOwned === 0}`)
process.exit(0)
