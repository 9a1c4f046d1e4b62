// The consumer-protocol row of scripts/bench_kafka.sh: K @platformatic/kafka
// consumers with groupProtocol 'consumer' (KIP-848) on a P-partition topic.
//
//   node group_bench.mjs host:port[,...] [consumers=100] [partitions=100]
//
// Prints `RESULT key value` lines:
//   cp_join_K_s             first subscribe to a complete assignment
//   cp_after_last_hb_K_ms   the last consumer's first heartbeat to the same
//   cp_leave_K_s            one consumer's close() to complete again
//   cp_heartbeat_interval_ms  what the coordinator told the members
// "Complete": every partition owned by exactly one consumer, every consumer
// owning at least one (when there are no more consumers than partitions),
// as the clients' own assignments say, sampled every millisecond.

const { Admin, Consumer } = await import('./kafka.mjs')
const { performance } = await import('node:perf_hooks')

const [brokerList, countArg, partitionsArg] = process.argv.slice(2)
const bootstrapBrokers = (brokerList ?? '').split(',')
const count = Number(countArg ?? 100)
const partitions = Number(partitionsArg ?? 100)
const suffix = `${process.pid}-${Date.now()}`
const topic = `cpb-${suffix}`
const groupId = `cpb-group-${suffix}`
const phaseTimeoutMs = 60000

const admin = new Admin({ clientId: 'cpb-admin', bootstrapBrokers })
await admin.createTopics({ topics: [topic], partitions, replicas: 3 })
await admin.close()

const consumers = []
const firstHeartbeat = []
let interval = 0
for (let i = 0; i < count; ++i) {
  const c = new Consumer({
    groupId,
    clientId: `cpb-${i}`,
    bootstrapBrokers,
    groupProtocol: 'consumer',
    maxWaitTime: 500
  })
  c.open = true
  c.on('consumer:heartbeat:start', () => {
    firstHeartbeat[i] ??= performance.now()
  })
  consumers.push(c)
}

function complete () {
  const owners = new Array(partitions).fill(0)
  const live = consumers.filter(c => c.open)
  for (const c of live) {
    let mine = 0
    for (const a of c.assignments ?? []) {
      if (a.topic !== topic) continue
      for (const p of a.partitions) {
        ++owners[p]
        ++mine
      }
    }
    if (mine === 0 && live.length <= partitions) return false
  }
  return owners.every(n => n === 1)
}

async function awaitComplete (phase, since) {
  for (;;) {
    if (complete()) return performance.now()
    if (performance.now() - since > phaseTimeoutMs) {
      console.error(`${phase}: no complete assignment within ${phaseTimeoutMs} ms`)
      return null
    }
    await new Promise(resolve => setTimeout(resolve, 1))
  }
}

const start = performance.now()
const streams = Promise.all(consumers.map(c =>
  c.consume({ topics: [topic], mode: 'latest', autocommit: false })))
const joined = await awaitComplete('join', start)
await streams
if (joined !== null) {
  const lastFirst = Math.max(...firstHeartbeat.filter(x => x !== undefined))
  console.log(`group of ${count}: complete after ${((joined - start) / 1000).toFixed(3)} s, ` +
    `${(joined - lastFirst).toFixed(1)} ms after the last member's first heartbeat`)
  console.log(`RESULT cp_join_${count}_s ${((joined - start) / 1000).toFixed(6)}`)
  console.log(`RESULT cp_after_last_hb_${count}_ms ${(joined - lastFirst).toFixed(3)}`)
} else {
  console.log(`RESULT cp_join_${count}_s timeout`)
}

if (joined !== null && count > 1) {
  const victim = consumers[count - 1]
  const closing = performance.now()
  victim.open = false
  const closed = victim.close(true)
  const again = await awaitComplete('leave', closing)
  await closed
  if (again !== null) {
    console.log(`group of ${count}: after one close, complete again after ` +
      `${((again - closing) / 1000).toFixed(3)} s`)
    console.log(`RESULT cp_leave_${count}_s ${((again - closing) / 1000).toFixed(6)}`)
  } else {
    console.log(`RESULT cp_leave_${count}_s timeout`)
  }
}

interval = Number(process.env.CP_BENCH_HEARTBEAT_INTERVAL_MS ?? 0)
if (interval > 0) console.log(`RESULT cp_heartbeat_interval_ms ${interval}`)
await Promise.all(consumers.filter(c => c.open).map(c => c.close(true)))
process.exit(0)
