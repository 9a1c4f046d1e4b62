// @platformatic/kafka needs Node 22's Promise.withResolvers; on Node 20 it
// is defined here. kafka.mjs imports this module before the library, and a
// module's imports are evaluated in the order they are written.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers () {
    let resolve
    let reject
    const promise = new Promise((res, rej) => {
      resolve = res
      reject = rej
    })
    return { promise, resolve, reject }
  }
}
