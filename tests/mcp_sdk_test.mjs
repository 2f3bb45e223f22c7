// optrace mcp driven by the official MCP TypeScript SDK client, as an agent's
// host drives it: connect (initialize), list the tools, call every tool with
// valid and invalid arguments, and 20 calls at once; then every tool again in
// each of the five protocol revisions. The SDK checks every
// structuredContent against the tool's outputSchema itself, and fails a call
// that gets no answer within its timeout -- which is how a server answering
// with id null, or not at all, shows up. Run by mcp_sdk_test.sh (a CTest).
//   node mcp_sdk_test.mjs OPTRACE_BINARY PYTORCH_CHECKOUT PROFILER_EXPORT
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [optrace, source, profilerExport] = process.argv.slice(2);
let failures = 0;
function check(ok, what) {
  if (!ok) failures++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
}
const text = (result) => (result.content && result.content[0] ? result.content[0].text : '');

const transport = new StdioClientTransport({
  command: optrace,
  args: ['mcp', '--source', source],
  env: { ...process.env, OPTRACE_NO_VERSION_CHECK: '1' },
  stderr: 'ignore',
});
const client = new Client({ name: 'optrace-sdk-test', version: '1.0.0' });
await client.connect(transport);
check(client.getServerVersion()?.name === 'optrace', 'initialize: serverInfo.name is optrace');

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check(JSON.stringify(names) === JSON.stringify(['find', 'op', 'profile', 'scan', 'source', 'tests', 'trace', 'verify']), `tools/list: ${names}`);
for (const t of tools) check(t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object', `${t.name}: input and output schemas are objects`);

// The first call that needs the index may wait for it to be built.
const FIRST = { timeout: 900_000 };
const call = (name, args, options) => client.callTool({ name, arguments: args }, undefined, options);

const source0 = await call('source', {});
check(!source0.isError || source0.structuredContent?.state === 'failed', 'source answers at once');
check(typeof source0.structuredContent?.root === 'string', `source names the checkout while loading: ${source0.structuredContent?.root}`);

// Valid calls; the SDK has validated each structuredContent against its outputSchema.
const lstm = await call('trace', { query: 'nn.LSTM' }, FIRST);
check(!lstm.isError && lstm.structuredContent.schema === 'optrace.trace/1', 'trace nn.LSTM');
check(lstm.structuredContent.ops.some((op) => op.name === 'lstm.input'), 'trace nn.LSTM reaches aten::lstm.input');
const lstmBytes = Buffer.byteLength(JSON.stringify(lstm.structuredContent));
check(lstmBytes <= 16 * 1024, `trace nn.LSTM brief structuredContent: ${lstmBytes} bytes <= 16 KB`);
const full = await call('trace', { query: 'aten::add.Tensor', detail: 'full', device: 'cuda', depth: 1, backward: false });
check(!full.isError && full.structuredContent.target.name === 'aten::add.Tensor', 'trace aten::add.Tensor full');
const kernel = await call('find', { symbol: 'softmax_warp_forward', limit: 5 });
const def = kernel.structuredContent?.definitions?.[0];
check(!kernel.isError && def?.file === 'aten/src/ATen/native/cuda/PersistentSoftmax.cuh' && def?.line === 68,
  'find softmax_warp_forward: PersistentSoftmax.cuh:68');
const op = await call('op', { name: 'aten::add.Tensor' });
check(!op.isError && op.structuredContent.entries[0]?.line === 552, 'op aten::add.Tensor: native_functions.yaml:552');
const tests = await call('tests', { query: 'nn.LSTM' });
check(!tests.isError && tests.structuredContent.schema === 'optrace.tests/1' && tests.structuredContent.entries.length > 0,
  'tests nn.LSTM: its ModuleInfo entries');
check(typeof tests.structuredContent?.source?.root === 'string', 'tests: carries source');
// verify runs the installed torch: a result, or (no torch on this machine) a one-line tool error.
const verify = await call('verify', { query: 'torch.relu', device: 'cpu', samples: 1 }, { timeout: 300_000 });
check(verify.isError ? text(verify).length > 0 && !text(verify).includes('\n')
                     : verify.structuredContent.schema === 'optrace.verify/1',
  `verify torch.relu: ${verify.isError ? 'isError: ' + text(verify).slice(0, 80) : 'optrace.verify/1'}`);
const prof = await call('profile', { path: profilerExport, top: 3 });
check(!prof.isError && prof.structuredContent.schema === 'optrace.profile/1' && prof.structuredContent.rows.length === 3,
  'profile: the top 3 kernels of the H200 conv-net step');
const scan = await call('scan', {
  text: 'import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n',
  name: 'm.py',
});
check(!scan.isError && Array.isArray(scan.structuredContent.ops) && scan.structuredContent.ops.length > 0, 'scan a small model');
const ready = await call('source', {});
check(ready.structuredContent.state === 'ready', 'source: ready');

// Names that name nothing: tool errors with suggestions, not protocol errors.
const typo = await call('trace', { query: 'nn.LSTMM' });
check(typo.isError && text(typo).includes('nn.LSTM'), 'trace nn.LSTMM: isError, did you mean nn.LSTM');
const conv = await call('trace', { query: 'conv' });
check(conv.isError && text(conv).includes('nn.Conv2d') && text(conv).includes('F.conv2d'), 'trace conv: suggests nn.Conv2d, F.conv2d');
const lower = await call('trace', { query: 'nn.lstm' });
check(lower.isError && text(lower).includes('nn.LSTM'), 'trace nn.lstm: did you mean nn.LSTM');
const sdpa = await call('trace', { query: 'F.sdpa' });
check(sdpa.isError && text(sdpa).includes('F.scaled_dot_product_attention'), 'trace F.sdpa: did you mean F.scaled_dot_product_attention');
const subscript = await call('trace', { query: '[]' });
check(!subscript.isError && subscript.structuredContent.target.name.includes('__getitem__'), `trace '[]': ${subscript.structuredContent?.target?.name}`);
const norm = await call('trace', { query: 'norm' });
check(norm.isError && text(norm).includes('torch.norm') && text(norm).includes('aten::norm'), 'trace norm: lists its meanings');
const sym = await call('find', { symbol: 'softmax_warp_forwrd' });
check(sym.isError && text(sym).includes('softmax_warp_forward'), 'find a misspelled kernel: did you mean');
const badop = await call('op', { name: 'aten::add.Tensr' });
check(badop.isError && text(badop).includes('add.Tensor'), 'op a misspelled overload: did you mean');

// Arguments that break the input schema: tool errors under 2025-11-25 (SEP-1303), answered before any work.
const invalid = [
  ['trace', {}],
  ['trace', { query: 'nn.LSTM', device: 'tpu' }],
  ['trace', { query: 'nn.LSTM', depth: 99 }],
  ['trace', { query: 'nn.LSTM', detail: 'everything' }],
  ['trace', { query: 'x'.repeat(100_000) }],
  ['trace', { query: '\uD800' }],  // a lone surrogate: JSON.stringify writes "\ud800"
  ['find', { symbol: 'add', limit: 0 }],
  ['find', { symbol: '' }],
  ['op', { name: 'add', extra: 1 }],
  ['op', { name: 'y'.repeat(8193) }],
  ['profile', {}],
  ['profile', { path: 'x', top: -1 }],
  ['scan', { text: '' }],
  ['source', { unexpected: true }],
  ['tests', {}],
  ['tests', { query: '' }],
  ['verify', { query: 'torch.relu', samples: 0 }],
  ['verify', { query: 'torch.relu', device: 'tpu' }],
  ['scan', { text: 'import torch\n', class: 7 }],
];
for (const [name, args] of invalid) {
  const started = Date.now();
  const r = await call(name, args);
  const shown = JSON.stringify(args).slice(0, 60);
  check(r.isError === true && text(r).startsWith('Invalid arguments for tool ' + name), `${name} ${shown}: isError (${Date.now() - started} ms)`);
}
let unknown = '';
try {
  await call('grep', { pattern: 'x' });
} catch (e) {
  unknown = String(e.code ?? e.message);
}
check(unknown === '-32602', `unknown tool: protocol error -32602 (${unknown})`);

// The longest text the scan schema allows fits in one message.
const long = await call('scan', { text: '# ' + 'é'.repeat(999_985) + '\n' });
check(long.isError !== undefined, 'scan of 999,988 characters (2 MB of UTF-8) is answered');

// 20 calls at once, each answered with its own result.
const batch = [];
const ops = ['add.Tensor', 'mm', 'bmm', 'addmm', 'relu', 'gelu', 'matmul', 'exp', 'log', 'cat'];
const symbols = ['add_stub', 'softmax_warp_forward', 'lstm_cudnn', 'MulFunctor', 'layer_norm_cuda'];
const queries = ['nn.Linear', 'F.softmax', 'torch.mm', 'Tensor.view', 'nn.GELU'];
for (const name of ops) batch.push(call('op', { name }).then((r) => ['op', name, r.structuredContent.query, r.isError]));
for (const symbol of symbols) batch.push(call('find', { symbol }).then((r) => ['find', symbol, r.structuredContent.symbol, r.isError]));
for (const query of queries) batch.push(call('trace', { query }).then((r) => ['trace', query, r.structuredContent.query, r.isError]));
const answers = await Promise.all(batch);
check(answers.length === 20, '20 concurrent calls answered');
for (const [tool, asked, answered, isError] of answers) check(asked === answered && !isError, `concurrent ${tool} ${asked}`);

await client.close();

// Every protocol revision a client may ask for (issue 27): the handshake
// revisions through initialize (the SDK 1.32 client sends its latest; the
// request is rewritten on its way out, as an older SDK would have written
// it), 2026-07-28 through _meta on every request. In each: the version asked
// is the version answered, every tool is called with the SDK checking its
// structuredContent against the outputSchema, and a broken argument is
// answered as that revision says (-32602 before 2025-11-25, isError since).
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
  const modern = version === '2026-07-28';
  const t = new StdioClientTransport({
    command: optrace,
    args: ['mcp', '--source', source],
    env: { ...process.env, OPTRACE_NO_VERSION_CHECK: '1' },
    stderr: 'ignore',
  });
  let negotiated = '';
  const send = t.send.bind(t);
  t.send = (message, options) => {
    if (message.method === 'initialize' && !modern) {
      message = { ...message, params: { ...message.params, protocolVersion: version } };
    } else if (modern && message.method && message.id !== undefined && message.method !== 'initialize') {
      const meta = { ...(message.params?._meta ?? {}), [META_VERSION]: version, 'io.modelcontextprotocol/clientCapabilities': {} };
      message = { ...message, params: { ...(message.params ?? {}), _meta: meta } };
    }
    return send(message, options);
  };
  t.setProtocolVersion = (v) => { negotiated = v; };
  const c = new Client({ name: 'optrace-sdk-test', version: '1.0.0' });
  await c.connect(t);
  if (!modern) check(negotiated === version, `${version}: initialize answers ${negotiated}`);
  const listed = await c.listTools();
  if (modern) check(listed._meta?.['io.modelcontextprotocol/serverInfo']?.name === 'optrace' && listed.ttlMs > 0,
    `${version}: tools/list served statelessly (serverInfo in _meta, ttlMs)`);
  check(listed.tools.length === 8 && listed.tools.every((tool) => tool.outputSchema?.type === 'object'),
    `${version}: tools/list, eight tools with output schemas`);
  const run = (name, args, options) => c.callTool({ name, arguments: args }, undefined, options);
  const calls = [
    ['trace', { query: 'F.softmax' }],
    ['trace', { query: 'nn.LSTM', detail: 'full', cursor: '2' }],
    ['trace', { query: 'F.layer_norm', ops: ['native_layer_norm_backward'] }],
    ['find', { symbol: 'softmax_warp_forward', limit: 3 }],
    ['op', { name: 'aten::add.Tensor' }],
    ['source', {}],
    ['scan', { text: 'import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return -x.float() ** 2\n' }],
    ['tests', { query: 'nn.LSTM' }],
    ['verify', { query: 'torch.relu', device: 'cpu', samples: 1 }],
    ['profile', { path: profilerExport, top: 3 }],
  ];
  for (const [name, args] of calls) {
    const r = await run(name, args, { timeout: 300_000 });
    const ok = name === 'verify' ? (r.isError ? !text(r).includes('\n') : r.structuredContent?.schema === 'optrace.verify/1')
                                 : !r.isError && typeof r.structuredContent === 'object' && text(r).length > 0;
    const bytes = Buffer.byteLength(JSON.stringify(r.structuredContent ?? {}));
    check(ok && bytes <= 20 * 1024, `${version}: ${name} ${JSON.stringify(args).slice(0, 50)} (${bytes} bytes)`);
  }
  let answer = '';
  try {
    const r = await run('trace', { query: 'nn.LSTM', depth: 99 });
    answer = r.isError && text(r).startsWith('Invalid arguments for tool trace') ? 'isError' : 'other result';
  } catch (e) {
    answer = String(e.code ?? e.message);
  }
  const expected = version < '2025-11-25' ? '-32602' : 'isError';
  check(answer === expected, `${version}: a broken argument is answered ${answer} (expected ${expected})`);
  await c.close();
}

console.log(failures ? `${failures} FAILED` : 'all passed');
process.exit(failures ? 1 : 0);
