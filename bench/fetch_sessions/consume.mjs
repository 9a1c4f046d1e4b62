// One @platformatic/kafka consumer of a 1,000-partition topic while a
// producer trickles records over all of them: the broker's CPU per MB
// consumed (bench/fetch_sessions/run.sh runs it against troupe with fetch
// sessions on and off).
//
//   node consume.mjs host:port[,...] TROUPE_PID [partitions=1000] [seconds=20]
//
// Prints `RESULT key value` lines: mb (consumed in the window), cpu_s (the
// troupe process's user + system time in the window), cpu_ms_per_mb, fetches
// (the consumer's fetch requests in the window).

import { readFileSync } from 'node:fs'

const { Admin, Consumer, Producer } = await import('../../tests/kafka/platformatic/kafka.mjs')

const [brokerList, pidArg, partitionsArg, secondsArg] = process.argv.slice(2)
const bootstrapBrokers = brokerList.split(',')
const pid = Number(pidArg)
const partitions = Number(partitionsArg ?? 1000)
const seconds = Number(secondsArg ?? 20)
const topic = `fsb-${process.pid}-${Date.now()}`

function cpuSeconds () {
  // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const admin = new Admin({ clientId: 'fsb-admin', bootstrapBrokers })
await admin.createTopics({ topics: [topic], partitions, replicas: 1 })
await admin.close()

const producer = new Producer({ clientId: 'fsb-producer', bootstrapBrokers, acks: 1 })
const value = Buffer.alloc(1024, 'x')
let producing = true
async function trickle () {
  // About 1 MB/s: 10 records of 1 KB every 10 ms, on random partitions.
  while (producing) {
    const messages = []
    for (let i = 0; i < 10; ++i) {
      messages.push({ topic, partition: Math.floor(Math.random() * partitions), value })
    }
    await producer.send({ messages })
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

const consumer = new Consumer({
  groupId: `fsb-group-${process.pid}`,
  clientId: 'fsb-consumer',
  bootstrapBrokers,
  maxWaitTime: 100,
  sessionTimeout: 10000,
  heartbeatInterval: 1000
})
let bytes = 0
const stream = await consumer.consume({ topics: [topic], mode: 'latest' })
stream.on('data', message => { bytes += message.value?.length ?? 0 })
stream.on('error', error => { console.error(`stream: ${error.message}`); process.exit(1) })

const pump = trickle()
// Warm up until records flow, then measure a window.
const warm = Date.now() + 30000
while (bytes === 0 && Date.now() < warm) await new Promise(resolve => setTimeout(resolve, 100))
await new Promise(resolve => setTimeout(resolve, 2000))
const b0 = bytes
const c0 = cpuSeconds()
await new Promise(resolve => setTimeout(resolve, seconds * 1000))
const mb = (bytes - b0) / (1024 * 1024)
const cpu = cpuSeconds() - c0
producing = false
await pump
console.log(`RESULT mb ${mb.toFixed(2)}`)
console.log(`RESULT cpu_s ${cpu.toFixed(2)}`)
console.log(`RESULT cpu_ms_per_mb ${(mb > 0 ? (cpu * 1000) / mb : 0).toFixed(1)}`)
await stream.close()
await consumer.close()
await producer.close()
process.exit(0)
