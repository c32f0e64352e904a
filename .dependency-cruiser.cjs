/**
 * The rooms of shared/src and what each may import, as lists of what is allowed (`npm run lint:rooms`,
 * part of `npm run lint`): a new adapter, package or module is refused in a room until it is named
 * here, so nothing slips past a list of what is forbidden. docs/architecture.md ("The rooms") says why
 * each room holds what it holds; packages/testing/src/lint-rules.unit.spec.ts has a case that must fail
 * for every rule.
 *
 * Type-only imports count: the application naming an adapter's type depends on that adapter.
 */

/** Node's modules the pure rooms may use: hashing, compression, a context for the current work. */
const PURE_NODE = '^(node:)?(crypto|zlib|async_hooks)$';

/**
 * The protocols' codecs and the ports' own helpers: pure code, no I/O, that the application builds
 * with (what a spend puts on chain, x402's headers, a webhook's signature, the log's pages and hash
 * chain, its spans). Each is held to no I/O by the last rule.
 */
const CODECS = [
  'chain/transactions', // instructions and messages, by value
  'chain/keys', // signers from seeds
  'chain/compute-budget', // the compute budget in front of a transaction, asked of the chain port
  'chain/payments', // the payment watcher's port: what a payment is, read from a transaction
  'venues/klend', // klend's instruction layouts
  'x402/requirements', // reading a 402's payment requirements
  'x402/payment', // signing a payment payload
  'webhooks/signing', // Standard Webhooks signatures (packages/webhook-signing)
  'event-store/appends', // where an append landed, for the work it ran for
  'event-store/pages', // the log a page at a time, over the port
  'event-store/hash-chain', // the events' SHA-256 chain
  'tracing/spans', // spans through @opentelemetry/api (a no-op while tracing is off)
  'tracing/traced-store', // the store's appends in spans, over the port
  'net/address-guard', // which addresses are public (the resolver is handed in)
  'net/allowed-hosts', // WEBHOOK_ALLOWED_PRIVATE_HOSTS read
];
const CODEC_PATHS = `^shared/src/(${CODECS.join('|')})\\.ts$`;

/** Packages with I/O in them: a pure room imports none. */
const IO_PACKAGES =
  '(^|/)node_modules/(pg|ioredis|bullmq|express|undici|litesvm|redis-semaphore|rate-limiter-flexible|ws|winston|prom-client|@electric-sql/[^/]+|@eventstore/[^/]+)/';
/** Node's modules that reach outside the process. */
const IO_NODE =
  '^(node:)?(dns|dns/promises|net|tls|http|https|http2|dgram|fs|fs/promises|child_process|worker_threads|cluster)$';

const SPECS = '\\.spec\\.ts$';

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-rules-only',
      comment:
        'The domain is pure rules over events: it imports its own files, money and errors, and three packages of values (big.js, bs58, immutable), and hashes with node:crypto.',
      severity: 'error',
      from: { path: '^shared/src/domain/', pathNot: SPECS },
      to: {
        pathNot: [
          '^shared/src/(domain|money|errors)/',
          '(^|/)node_modules/(big\\.js|bs58|immutable)/',
          '^(node:)?crypto$',
        ],
      },
    },
    {
      name: 'application-imports-ports-and-rules',
      comment:
        'The application talks to ports (*/port.ts) and the domain; it builds with money, errors, the contract, the event catalogue and the codecs (CODECS), and four packages of values. An adapter or process wiring is handed in through the Context.',
      severity: 'error',
      from: { path: '^shared/src/application/', pathNot: SPECS },
      to: {
        pathNot: [
          '^shared/src/(application|domain|money|errors|contract|events)/',
          '^shared/src/[^/]+/port\\.ts$',
          CODEC_PATHS,
          '(^|/)node_modules/(async-lock|big\\.js|bs58|uuid)/',
          '(^|/)node_modules/@x402/core/|^@x402/core/',
          PURE_NODE,
        ],
      },
    },
    {
      name: 'spend-kinds-take-a-narrow-context',
      comment:
        'A spend kind (spends/<kind>.ts and its helpers) reaches the chain, the aggregator, the venues and the clock through SpendContext (the x402 payer also its vault, resource client and agent stream: PayerContext), both in spends/kind.ts: it imports no Context, repository or other use case. The pipeline, the idempotency and the refusals are the shared part and take the Context.',
      severity: 'error',
      from: {
        path: '^shared/src/application/spends/',
        pathNot: ['^shared/src/application/spends/(kind|pipeline|idempotency|refused|index)\\.ts$', SPECS],
      },
      to: { path: '^shared/src/application/[^/]+\\.ts$' },
    },
    {
      name: 'only-the-roof-imports-process',
      comment:
        "process/ is the roof: the wiring of a process, reading its settings (Env) and opening its adapters. Nothing under it imports it; the one named exception is the next rule's.",
      severity: 'error',
      from: {
        path: '^shared/src/',
        pathNot: ['^shared/src/process(/|\\.ts$)', '^shared/src/chain/rpc-node\\.ts$', SPECS],
      },
      to: { path: '^shared/src/process/' },
    },
    {
      name: 'the-chain-node-answers-ops-only',
      comment:
        'The local chain node (chain/rpc-node.ts) answers /healthz, /readyz and /metrics as every process does, with process/ops.ts; it takes nothing else of the roof.',
      severity: 'error',
      from: { path: '^shared/src/chain/rpc-node\\.ts$' },
      to: { path: '^shared/src/process/', pathNot: '^shared/src/process/ops\\.ts$' },
    },
    {
      name: 'settings-are-data',
      comment:
        'settings/ is the ground: the catalogue of settings (names, types, defaults, bounds, meanings), its tables for the docs and the take-over timings, as data, beside the domain, whose defaults it may name. It names two defaults of higher rooms where the code keeps them: the job retry (queue/port.ts) and the delivery retry (application/webhooks/deliver.ts).',
      severity: 'error',
      from: { path: '^shared/src/settings/', pathNot: SPECS },
      to: {
        pathNot: [
          // The ground beside it: defaults the domain keeps (the compute budget's), amounts.
          '^shared/src/(settings|domain|money)/',
          '^shared/src/docs/generated-table\\.ts$',
          '^shared/src/queue/port\\.ts$',
          '^shared/src/application/webhooks/deliver\\.ts$',
        ],
      },
    },
    {
      name: 'pure-rooms-do-no-io',
      comment:
        'The domain, the application, the codecs and the rooms they build on (money, errors, contract, events) reach nothing outside the process: no network, file or child process, no database, cache, queue or HTTP package.',
      severity: 'error',
      from: {
        path: ['^shared/src/(domain|application|money|errors|contract|events|settings)/', CODEC_PATHS],
        pathNot: SPECS,
      },
      // A type (node:http's IncomingMessage for a span's attributes) does no I/O.
      to: { path: [IO_NODE, IO_PACKAGES], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: SPECS },
  },
};
