// Runs zod's own vitest suite from the npm package's sources (bench/eval):
// the package's self-imports ("zod/v3", "zod/v4/core"...) resolve to src/.
import path from "node:path";
const src = (p) => path.join(process.cwd(), "src", p);
export default {
  resolve: {
    alias: [
      { find: /^zod\/v4\/locales\/(.*)$/, replacement: src("v4/locales/$1") },
      { find: /^zod\/v4\/locales$/, replacement: src("v4/locales/index.ts") },
      { find: /^zod\/v4\/core$/, replacement: src("v4/core/index.ts") },
      { find: /^zod\/v4\/mini$/, replacement: src("v4/mini/index.ts") },
      { find: /^zod\/v4-mini$/, replacement: src("v4-mini/index.ts") },
      { find: /^zod\/v4$/, replacement: src("v4/index.ts") },
      { find: /^zod\/v3$/, replacement: src("v3/index.ts") },
      { find: /^zod$/, replacement: src("index.ts") },
    ],
  },
  cacheDir: path.join(process.cwd(), "node_modules", ".eval-vite-cache"),
  test: { include: ["src/**/*.test.ts"], watch: false, pool: "threads", poolOptions: { threads: { maxThreads: 2, minThreads: 1 } } },
};
