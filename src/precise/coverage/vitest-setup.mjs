// nerd's setup file for `nerd index --coverage` under vitest: around each test it
// records what ran (coverage-core.cjs); what runs between tests (a test file's
// loading, describe bodies, hooks) is recorded without a test.
import { afterEach, beforeEach } from 'vitest';
import { createRequire } from 'node:module';

// Loaded by Node itself, not through vite: one copy per process.
const core = createRequire(import.meta.url)(process.env.NERD_COVERAGE_CORE);
const KEY = Symbol.for('nerd.coverage');

// One inspector session per process, however many test files it runs.
let state = process[KEY] ?? null;
if (!state) {
  try {
    state = process[KEY] = core.start();
  } catch (error) {
    core.write({ error: String(error) });
  }
}

beforeEach((context) => {
  if (state) core.write({ file: context.task.file?.filepath, lines: core.executed(state) });
});

afterEach((context) => {
  if (!state) return;
  const task = context.task;
  core.write({ file: task.file?.filepath, test: task.name, line: task.location?.line, lines: core.executed(state) });
});
