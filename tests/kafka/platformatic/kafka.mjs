// @platformatic/kafka (installed here by scripts/setup.sh) for troupe's test
// scripts, with the Promise.withResolvers polyfill loaded first.
import './with_resolvers.mjs'
export * from '@platformatic/kafka'
