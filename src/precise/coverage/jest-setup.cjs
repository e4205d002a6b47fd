// nerd's setup file for `nerd index --coverage` under jest (setupFilesAfterEnv):
// around each test it records what ran (coverage-core.cjs); what runs between
// tests (the file's loading, describe bodies, hooks) is recorded without a test.
// jest names a test by its describe titles and its own, joined by spaces, and
// gives no line.
'use strict';
const core = require(process.env.NERD_COVERAGE_CORE);
const hooks = typeof beforeEach === 'function' ? globalThis : require('@jest/globals');

// Each test file runs in a context of its own: one session per file, started
// before the file loads, so that its loading is recorded too.
let state = null;
try {
  state = core.start();
} catch (error) {
  core.write({ error: String(error) });
}

hooks.beforeEach(() => {
  if (state) core.write({ file: hooks.expect.getState().testPath, lines: core.executed(state) });
});

hooks.afterEach(() => {
  if (!state) return;
  const { testPath, currentTestName } = hooks.expect.getState();
  core.write({ file: testPath, full: currentTestName, lines: core.executed(state) });
});

hooks.afterAll(() => {
  if (state) state.session.disconnect();
});
