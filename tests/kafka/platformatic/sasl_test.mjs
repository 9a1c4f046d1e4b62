// @platformatic/kafka over a SASL listener of `troupe serve`:
//
//   node sasl_test.mjs host:port[,host:port...] PLAIN|SCRAM-SHA-256|SCRAM-SHA-512 user password [ms]
//
// Creates a topic, produces with acks=-1 and reads every record back in a
// consumer group, every connection authenticated with the mechanism. With
// `ms`, the producer goes on sending one record every 100 ms for that long
// over its connections (KIP-368: it re-authenticates them when the broker
// gives a session lifetime). Exits non-zero on any failure; gives up after
// 60 s.

const { Admin, Consumer, Producer, stringDeserializers, stringSerializers } =
  await import('./kafka.mjs')

const [brokerList, mechanism, username, password, keepMs] = process.argv.slice(2)
if (!brokerList || !mechanism || !username) {
  console.error('usage: sasl_test.mjs host:port[,...] MECHANISM user password')
  process.exit(2)
}
const bootstrapBrokers = brokerList.split(',')
const sasl = { mechanism, username, password }
const topic = `pk-sasl-${mechanism.toLowerCase()}-${process.pid}-${Date.now()}`
let records = 60
const timer = setTimeout(() => fail('timed out'), 60000)

function fail (message) {
  console.error(`FAIL (${mechanism}): ${message}`)
  process.exit(1)
}

try {
  const admin = new Admin({ clientId: 'pk-sasl-admin', bootstrapBrokers, sasl })
  await admin.createTopics({ topics: [topic], partitions: 3, replicas: 3 })
  await admin.close()

  const producer = new Producer({
    clientId: 'pk-sasl-producer',
    bootstrapBrokers,
    sasl,
    serializers: stringSerializers,
    acks: -1
  })
  const messages = []
  for (let i = 0; i < records; ++i) {
    messages.push({ topic, partition: i % 3, key: `k${i}`, value: `v${i}` })
  }
  await producer.send({ messages })
  const until = Date.now() + Number(keepMs ?? 0)
  while (Date.now() < until) {
    await producer.send({ messages: [{ topic, partition: records % 3, key: 'k', value: `v${records}` }] })
    ++records
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  await producer.close()

  const consumer = new Consumer({
    groupId: `${topic}-group`,
    clientId: 'pk-sasl-consumer',
    bootstrapBrokers,
    sasl,
    deserializers: stringDeserializers,
    maxWaitTime: 200
  })
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest' })
  const seen = new Set()
  await new Promise((resolve, reject) => {
    stream.on('data', message => {
      seen.add(message.value)
      if (seen.size === records) resolve()
    })
    stream.on('error', reject)
  })
  await consumer.close(true)
  console.log(`ok: @platformatic/kafka ${mechanism}: ${seen.size} records produced and consumed in a group`)
  clearTimeout(timer)
  process.exit(0)
} catch (error) {
  fail(error.stack ?? String(error))
}
