// Topic configs through @platformatic/kafka, for the Python tests that
// need the two config APIs librdkafka 2.0.2 lacks or routes itself:
//
//   node configs_tool.mjs describe HOST:PORT TOPIC
//       DescribeConfigs v4 with synonyms on a connection to that one broker
//       only (the test asks each broker in turn); prints
//       {"error": code, "configs": {name: {value, source, read_only,
//       synonyms: [[name, value, source], ...]}}}
//   node configs_tool.mjs alter BOOTSTRAP TOPIC [--validate-only] OP:NAME[=VALUE]...
//       IncrementalAlterConfigs (OP is SET, DELETE, APPEND or SUBTRACT)
//       through the admin client; prints {"error": code, "message": ...}
//
// Exits 0 whenever the broker answered (the answer says how); 1 when no
// answer came within 20 s.

import {
  Admin,
  Connection,
  describeConfigsV4
} from '@platformatic/kafka'

const TOPIC = 2
const OPS = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 }

function done (answer) {
  process.stdout.write(JSON.stringify(answer) + '\n')
  process.exit(0)
}

setTimeout(() => {
  process.stderr.write('no answer within 20 s\n')
  process.exit(1)
}, 20000).unref()

const [command, target, topic, ...rest] = process.argv.slice(2)

if (command === 'describe') {
  const [host, port] = target.split(':')
  const connection = new Connection('configs-tool')
  connection.connect(host, Number(port), (error) => {
    if (error) {
      process.stderr.write(`connect: ${error.message}\n`)
      process.exit(1)
    }
    describeConfigsV4.api(connection,
      [{ resourceType: TOPIC, resourceName: topic, configurationKeys: null }],
      true, false, (error, response) => {
        // A result with an error code comes back as a ResponseError that
        // carries the response.
        const res = response ?? error?.response
        if (!res) {
          process.stderr.write(`describe: ${error?.message}\n`)
          process.exit(1)
        }
        const result = res.results[0]
        const configs = {}
        for (const c of result.configs ?? []) {
          configs[c.name] = {
            value: c.value,
            source: c.configSource,
            read_only: c.readOnly,
            synonyms: (c.synonyms ?? []).map((s) => [s.name, s.value, s.source])
          }
        }
        connection.close(() => done({ error: result.errorCode, configs }))
      })
  })
} else if (command === 'alter') {
  let validateOnly = false
  const configs = []
  for (const arg of rest) {
    if (arg === '--validate-only') {
      validateOnly = true
      continue
    }
    const colon = arg.indexOf(':')
    const op = arg.slice(0, colon)
    const [name, ...value] = arg.slice(colon + 1).split('=')
    configs.push({
      name,
      configOperation: OPS[op],
      value: value.length ? value.join('=') : null
    })
  }
  const admin = new Admin({
    clientId: 'configs-tool',
    bootstrapBrokers: target.split(','),
    retries: 0
  })
  // Callbacks, not promises: the promise API needs Promise.withResolvers,
  // which Debian's node 20 lacks.
  admin.incrementalAlterConfigs({
    resources: [{ resourceType: TOPIC, resourceName: topic, configs }],
    validateOnly
  }, (error) => {
    if (!error) {
      admin.close(() => done({ error: 0, message: null }))
      return
    }
    // The broker's per-resource error, as the admin client reports it.
    const errors = (error.errors ?? [error])
    const first = errors.find((e) => e.response || e.apiCode) ?? errors[0]
    const res = first?.response?.responses?.[0]
    const code = res?.errorCode ?? first?.apiCode
    if (code === undefined) {
      process.stderr.write(`alter: ${error.message}\n`)
      process.exit(1)
    }
    admin.close(() =>
      done({ error: code, message: res?.errorMessage ?? first.message }))
  })
} else {
  process.stderr.write('usage: configs_tool.mjs describe HOST:PORT TOPIC | ' +
    'alter BOOTSTRAP TOPIC [--validate-only] OP:NAME[=VALUE]...\n')
  process.exit(2)
}
