// nerd's coverage core for `nerd index --coverage` on TypeScript tests, shared by its
// setup files for vitest (vitest-setup.mjs) and jest (jest-setup.cjs): takes V8's
// function coverage (node:inspector, precise call counts, which reset on each take)
// and maps every workspace function that ran, through its module's inline source map,
// to the original line it starts on. Records are JSON lines that nerd reads back as
// untrusted data.
'use strict';
const { Session } = require('node:inspector');
const { appendFileSync } = require('node:fs');
const { fileURLToPath } = require('node:url');
const { threadId } = require('node:worker_threads');

const ROOT = process.env.NERD_COVERAGE_ROOT + '/';
const OUT = `${process.env.NERD_COVERAGE_OUT}/${process.pid}-${threadId}.jsonl`;

function write(record) {
  appendFileSync(OUT, JSON.stringify(record) + '\n');
}

// A same-thread session answers within `post`: every call here is synchronous,
// so coverage can start before the test file loads and no hook waits.
function post(session, method, params) {
  let answered = false;
  let failure = null;
  let answer = null;
  session.post(method, params ?? {}, (error, result) => {
    answered = true;
    failure = error;
    answer = result;
  });
  if (!answered) throw new Error(`the inspector did not answer ${method} at once`);
  if (failure) throw failure;
  return answer;
}

// A session with precise coverage started. Script sources (with their inline
// source maps) come from the debugger, which never stops the tests (a
// `debugger;` statement is skipped).
function start() {
  const session = new Session();
  session.connect();
  post(session, 'Profiler.enable');
  post(session, 'Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  post(session, 'Debugger.enable');
  post(session, 'Debugger.setSkipAllPauses', { skip: true });
  return { session, sources: new Map() };
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
function sourceOf(state, scriptId) {
  let known = state.sources.get(scriptId);
  if (known) return known;
  const { scriptSource } = post(state.session, 'Debugger.getScriptSource', { scriptId });
  const starts = [0];
  for (let i = 0; i < scriptSource.length; i++) if (scriptSource.charCodeAt(i) === 10) starts.push(i + 1);
  let map = null;
  // The runner may close the wrapper it runs the module in after the map's comment (vite-node does).
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
function executed(state) {
  const { result } = post(state.session, 'Profiler.takePreciseCoverage');
  const lines = {};
  for (const script of result) {
    const file = pathOf(script.url);
    if (!file || !file.startsWith(ROOT) || file.includes('/node_modules/')) continue;
    const ran = script.functions.filter((f) => f.ranges.length > 0 && f.ranges[0].count > 0);
    if (ran.length === 0) continue;
    const { starts, map } = sourceOf(state, script.scriptId);
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

module.exports = { start, executed, write };
