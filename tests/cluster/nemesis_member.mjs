// One KIP-848 group member for tests/cluster/nemesis.py
// (@platformatic/kafka, groupProtocol 'consumer', auto-commit):
//
//   node nemesis_member.mjs BOOTSTRAP GROUP TOPIC NAME
//
// Prints one JSON line per event on stdout:
//   {"r": [partition, offset, value]}   a record read
//   {"a": [partitions...]}              its assignment changed
//   {"e": "message"}                    a client error (it carries on)
// and stops when its stdin closes (the checker closes it at the end).

// The package installed for tests/kafka/platformatic (scripts/setup.sh).
const { Consumer, stringDeserializers } = await import('../kafka/platformatic/kafka.mjs')

const [bootstrap, groupId, topic, name] = process.argv.slice(2)

function out (event) {
  process.stdout.write(JSON.stringify(event) + '\n')
}

const consumer = new Consumer({
  groupId,
  clientId: name,
  bootstrapBrokers: bootstrap.split(','),
  groupProtocol: 'consumer',
  deserializers: stringDeserializers,
  maxWaitTime: 100,
  timeout: 3000,
  retries: 5,
  retryDelay: 250
})
function describe (error) {
  const codes = [error, ...(error?.errors ?? [])]
    .map(e => e?.response?.errorCode ?? e?.apiCode ?? e?.code)
    .filter(c => c !== undefined && c !== 0)
  const texts = [error, ...(error?.errors ?? [])]
    .map(e => e?.response?.errorMessage)
    .filter(Boolean)
  return `${error?.message ?? error}${codes.length ? ` [${codes.join(', ')}]` : ''}${texts.length ? ` ${texts[texts.length - 1]}` : ''}`
}
consumer.on('error', error => out({ e: describe(error) }))
consumer.on('consumer:heartbeat:error', p => out({ e: `heartbeat: ${describe(p?.error)}` }))

let last = ''
setInterval(() => {
  const mine = []
  for (const a of consumer.assignments ?? []) {
    if (a.topic === topic) mine.push(...a.partitions)
  }
  mine.sort((x, y) => x - y)
  const now = JSON.stringify(mine)
  if (now !== last) {
    last = now
    out({ a: mine })
  }
}, 20)

async function consume () {
  for (;;) {
    try {
      const stream = await consumer.consume({
        topics: [topic],
        mode: 'committed',
        fallbackMode: 'earliest',
        autocommit: 500
      })
      await new Promise(resolve => {
        stream.on('data', m => out({ r: [m.partition, Number(m.offset), m.value] }))
        stream.on('error', error => {
          out({ e: `stream: ${describe(error)}` })
          resolve()
        })
        stream.on('close', resolve)
      })
    } catch (error) {
      out({ e: `consume: ${describe(error)}` })
    }
    await new Promise(resolve => setTimeout(resolve, 500))
  }
}

process.stdin.resume()
process.stdin.on('end', async () => {
  try {
    await consumer.close(true)
  } finally {
    process.exit(0)
  }
})
consume()
