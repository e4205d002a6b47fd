// nerd's setup file for `nerd index --coverage` under vitest: around each test
// it takes V8's function coverage (node:inspector, precise call counts, which
// reset on each take) and writes, as one JSON line, the original source line of
// every workspace function that ran. What runs between tests (a test file's
// loading, describe bodies, hooks) is written as a record without a test.
// nerd reads these lines back as untrusted data.
import { afterEach, beforeEach } from 'vitest';
import { Session } from 'node:inspector';
import { appendFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

const OUT = process.env.NERD_COVERAGE_OUT;
const ROOT = process.env.NERD_COVERAGE_ROOT + '/';
const KEY = Symbol.for('nerd.coverage');
const out = `${OUT}/${process.pid}-${threadId}.jsonl`;

function write(record) {
  appendFileSync(out, JSON.stringify(record) + '\n');
}

function post(session, method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result))));
}

// One inspector session per process, however many test files it runs.
if (!process[KEY]) {
  const session = new Session();
  session.connect();
  process[KEY] = {
    session,
    sources: new Map(),
    ready: (async () => {
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.startPreciseCoverage', { callCount: true, detailed: false });
      // Script sources (with their inline source maps) come from the debugger,
      // which never stops the tests (a `debugger;` statement is skipped).
      await post(session, 'Debugger.enable');
      await post(session, 'Debugger.setSkipAllPauses', { skip: true });
    })(),
  };
}
const state = process[KEY];
let broken = null;
try {
  await state.ready;
} catch (error) {
  broken = String(error);
  write({ error: broken });
}

function pathOf(url) {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return null;
    }
  }
  return url.startsWith('/') ? url : null;
}

const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

// A source map's mappings as, per generated line, [column, original line] pairs in order.
function decode(mappings) {
  const lines = [];
  let original = 0;
  for (const text of mappings.split(';')) {
    const pairs = [];
    let column = 0;
    for (const segment of text.split(',')) {
      if (!segment) continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const c of segment) {
        const digit = DIGITS.indexOf(c);
        if (digit < 0) throw new Error('not a source map');
        value += (digit & 31) << shift;
        if (digit & 32) {
          shift += 5;
          continue;
        }
        fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
        value = 0;
        shift = 0;
      }
      column += fields[0];
      if (fields.length >= 4) {
        original += fields[2];
        pairs.push(column, original);
      }
    }
    lines.push(pairs);
  }
  return lines;
}

// A script's line starts and decoded inline source map, once per script.
async function sourceOf(scriptId) {
  let known = state.sources.get(scriptId);
  if (known) return known;
  const { scriptSource } = await post(state.session, 'Debugger.getScriptSource', { scriptId });
  const starts = [0];
  for (let i = 0; i < scriptSource.length; i++) if (scriptSource.charCodeAt(i) === 10) starts.push(i + 1);
  let map = null;
  // vite-node puts the map's comment inside the wrapper it runs the module in, not last.
  const at = scriptSource.lastIndexOf('//# sourceMappingURL=data:application/json');
  const inline = at < 0 ? null : /^[^,\n]*;base64,([A-Za-z0-9+/=]+)/.exec(scriptSource.slice(at));
  if (inline) {
    try {
      map = decode(JSON.parse(Buffer.from(inline[1], 'base64').toString('utf8')).mappings);
    } catch {
      map = null;
    }
  }
  known = { starts, map };
  state.sources.set(scriptId, known);
  return known;
}

// The generated [line, column] (0-based) of an offset.
function positionOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return [lo, offset - starts[lo]];
}

// The original line (1-based) of the first mapping at or after a generated
// position and no later than line `last`: a function's first mapped token.
function originalLine(map, line, column, last) {
  for (let l = line; l <= last && l < map.length; l++) {
    const pairs = map[l];
    for (let i = 0; i < pairs.length; i += 2) if (l > line || pairs[i] >= column) return pairs[i + 1] + 1;
  }
  return null;
}

// What ran since the last take, as original lines per workspace-relative file.
async function executed() {
  const { result } = await post(state.session, 'Profiler.takePreciseCoverage');
  const lines = {};
  for (const script of result) {
    const file = pathOf(script.url);
    if (!file || !file.startsWith(ROOT) || file.includes('/node_modules/')) continue;
    const ran = script.functions.filter((f) => f.ranges.length > 0 && f.ranges[0].count > 0);
    if (ran.length === 0) continue;
    const { starts, map } = await sourceOf(script.scriptId);
    const lastLine = starts.length - 1;
    const seen = [];
    for (const f of ran) {
      const [line, column] = positionOf(starts, f.ranges[0].startOffset);
      const [end] = positionOf(starts, Math.max(f.ranges[0].endOffset - 1, 0));
      // The module itself, and the wrapper the runner puts around it, span every line.
      if (line === 0 && end >= lastLine - 1) continue;
      const original = map ? originalLine(map, line, column, end) : line + 1;
      if (original !== null) seen.push(original);
    }
    if (seen.length > 0) lines[file.slice(ROOT.length)] = seen;
  }
  return lines;
}

beforeEach(async (context) => {
  if (broken) return;
  write({ file: context.task.file?.filepath, lines: await executed() });
});

afterEach(async (context) => {
  if (broken) return;
  const task = context.task;
  write({ file: task.file?.filepath, test: task.name, line: task.location?.line, lines: await executed() });
});
