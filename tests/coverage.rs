//! The observed tier end to end: `nerd index --coverage` runs a project's own
//! tests under coverage.py (Python), `go test -cover` (Go), LLVM coverage
//! (Rust) and vitest with nerd's V8 setup file (TypeScript) in the sandbox,
//! and what each test executed becomes `covers(Test, Symbol)`, compared as a
//! set. The projects are built so that the call graph cannot see the links
//! (a pytest fixture hands the function over, a Go function is passed as a
//! value, Rust formats through a trait); after an edit, `needs_testing`
//! follows what the run observed. `scripts/install-test-deps` installs
//! coverage.py, pytest, the toolchain's llvm-tools and vitest.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{git, nerd, query};

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let to = dir.join(path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(to, text).unwrap();
    }
}

fn pairs(dir: &Path, predicate: &str) -> BTreeSet<(String, String)> {
    query(dir, predicate)
        .iter()
        .map(|a| (a["args"][0].as_str().unwrap().to_string(), a["args"][1].as_str().unwrap().to_string()))
        .collect()
}

fn ids(dir: &Path, predicate: &str) -> BTreeSet<String> {
    query(dir, predicate).iter().map(|a| a["args"][0].as_str().unwrap().to_string()).collect()
}

fn set(items: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    items.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn index_coverage(dir: &Path) -> serde_json::Value {
    let out = nerd(dir, &["index", ".", "--coverage", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Commits the project, so that an edit afterwards is `modified`.
fn commit(dir: &Path) {
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "project"]);
}

const PYTHON: &[(&str, &str)] = &[
    ("pyproject.toml", "[project]\nname = \"shop\"\nversion = \"0\"\n"),
    (
        "src/shop/cart.py",
        "def total(items):\n    return sum(price(i) for i in items)\n\n\n\
         def price(item):\n    return item[\"price\"] * item.get(\"qty\", 1)\n\n\n\
         def unused():\n    return 0\n\n\n\
         def rates():\n    return {\"std\": 1}\n\n\n\
         def discount():\n    return 0\n",
    ),
    ("src/shop/__init__.py", ""),
    (
        "tests/conftest.py",
        "import pytest\n\nfrom shop import cart\n\n\n@pytest.fixture\ndef checkout():\n    cart.discount()\n    return cart.total\n",
    ),
    (
        "tests/test_cart.py",
        "from shop import cart\n\nRATES = cart.rates()\n\n\n\
         def test_total(checkout):\n    assert checkout([{\"price\": 2}]) == 2\n\n\n\
         def test_nothing():\n    assert True\n\n\n\
         class TestCart:\n    def test_price(self):\n        from shop.cart import price\n\n        \
         assert price({\"price\": 3, \"qty\": 2}) == 6\n",
    ),
];

#[test]
fn python_tests_run_under_coverage_py_link_through_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), PYTHON);
    commit(dir.path());
    let report = index_coverage(dir.path());
    let runs = report["coverage"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "ran", "run scripts/install-test-deps first: {:?}", runs[0]);
    assert_eq!(runs[0]["tests"], 3, "{:?}", runs[0]);
    // What the test module's loading ran (rates) counts for each of its tests;
    // a test's fixtures are part of its run (checkout, and discount, which it
    // calls); test_nothing executed
    // nothing else, and no test covers its own lines.
    let want = set(&[
        ("tests/test_cart.py#test_total", "src/shop/cart.py#total"),
        ("tests/test_cart.py#test_total", "src/shop/cart.py#price"),
        ("tests/test_cart.py#test_total", "src/shop/cart.py#discount"),
        ("tests/test_cart.py#test_total", "tests/conftest.py#checkout"),
        ("tests/test_cart.py#test_total", "src/shop/cart.py#rates"),
        ("tests/test_cart.py#test_nothing", "src/shop/cart.py#rates"),
        ("tests/test_cart.py#TestCart.test_price", "src/shop/cart.py#price"),
        ("tests/test_cart.py#TestCart.test_price", "src/shop/cart.py#rates"),
    ]);
    assert_eq!(pairs(dir.path(), "covers"), want);
    // The call graph links test_total to its fixture, not to the cart: the fixture hands it over.
    let calls: BTreeSet<String> = query(dir.path(), "calls")
        .iter()
        .filter(|a| a["args"][0] == "tests/test_cart.py#test_total")
        .map(|a| a["args"][1].as_str().unwrap().to_string())
        .filter(|callee| callee.starts_with("src/"))
        .collect();
    assert!(calls.is_empty(), "{calls:?}");

    // Answers say which tests were seen executing a symbol, beyond those linked by name.
    let answer = nerd(dir.path(), &["run", "where is price defined"]);
    let answer = String::from_utf8_lossy(&answer.stdout);
    assert!(
        answer.contains("Tests whose run executed it (nerd index --coverage): tests/test_cart.py#test_total"),
        "{answer}"
    );

    // An edit of price: both tests that executed it must run, the other need not.
    let cart = dir.path().join("src/shop/cart.py");
    let text = std::fs::read_to_string(&cart).unwrap().replace("item.get(\"qty\", 1)", "item.get(\"qty\", 2)");
    std::fs::write(&cart, text).unwrap();
    let selected = ids(dir.path(), "needs_testing");
    let want: BTreeSet<String> =
        ["tests/test_cart.py#test_total", "tests/test_cart.py#TestCart.test_price"].map(String::from).into();
    assert_eq!(selected, want);
    let why = nerd(dir.path(), &["why", "needs_testing(\"tests/test_cart.py#test_total\")"]);
    let why = String::from_utf8_lossy(&why.stdout);
    assert!(why.contains("covers(") && why.contains("observed-by-test"), "{why}");

    // An edit of what the module's loading runs: every test of the module must run.
    let text = std::fs::read_to_string(&cart).unwrap().replace("{\"std\": 1}", "{\"std\": 2}");
    std::fs::write(&cart, text).unwrap();
    let selected = ids(dir.path(), "needs_testing");
    let want: BTreeSet<String> =
        ["tests/test_cart.py#test_total", "tests/test_cart.py#test_nothing", "tests/test_cart.py#TestCart.test_price"]
            .map(String::from)
            .into();
    assert_eq!(selected, want);
}

const GO: &[(&str, &str)] = &[
    ("go.mod", "module example.com/calc\n\ngo 1.19\n"),
    (
        "calc.go",
        "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n\
         // Apply calls f.\nfunc Apply(f func(int, int) int, a, b int) int {\n\treturn f(a, b)\n}\n\n\
         // Unused is never called.\nfunc Unused() int {\n\treturn 0\n}\n",
    ),
    (
        "calc_test.go",
        "package calc\n\nimport \"testing\"\n\n\
         func TestApply(t *testing.T) {\n\tif Apply(Add, 1, 2) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n\n\
         func TestNothing(t *testing.T) {}\n",
    ),
];

#[test]
fn go_tests_run_one_by_one_under_go_cover_link_through_function_values() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), GO);
    commit(dir.path());
    let report = index_coverage(dir.path());
    let runs = report["coverage"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "ran", "{:?}", runs[0]);
    assert_eq!(runs[0]["tests"], 2, "{:?}", runs[0]);
    let want = set(&[("calc_test.go#TestApply", "calc.go#Add"), ("calc_test.go#TestApply", "calc.go#Apply")]);
    assert_eq!(pairs(dir.path(), "covers"), want);

    let calc = dir.path().join("calc.go");
    let text = std::fs::read_to_string(&calc).unwrap().replace("return a + b", "return b + a");
    std::fs::write(&calc, text).unwrap();
    assert_eq!(ids(dir.path(), "needs_testing"), BTreeSet::from(["calc_test.go#TestApply".to_string()]));
}

const RUST: &[(&str, &str)] = &[
    ("Cargo.toml", "[package]\nname = \"money\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    (
        "src/lib.rs",
        "use std::fmt;\n\npub struct Money(pub i64);\n\n\
         impl fmt::Display for Money {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        \
         write!(f, \"${}\", self.0)\n    }\n}\n\n\
         pub fn unused() -> i32 {\n    0\n}\n\n\
         #[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn shows_money() {\n        \
         assert_eq!(Money(3).to_string(), \"$3\");\n    }\n\n    #[test]\n    fn nothing() {}\n}\n",
    ),
];

#[test]
fn rust_tests_run_one_by_one_under_llvm_coverage_link_through_implicit_trait_calls() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), RUST);
    commit(dir.path());
    let report = index_coverage(dir.path());
    let runs = report["coverage"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["status"], "ran", "run scripts/install-test-deps first (llvm-tools): {:?}", runs[0]);
    assert_eq!(runs[0]["tests"], 2, "{:?}", runs[0]);
    // `to_string` reaches `fmt` through the Display trait: no call names it.
    let want = set(&[("src/lib.rs#tests.shows_money", "src/lib.rs#Money.fmt")]);
    assert_eq!(pairs(dir.path(), "covers"), want);
    // No Cargo.lock was written into the workspace (the build ran on a copy).
    assert!(!dir.path().join("Cargo.lock").exists());
    assert!(!dir.path().join("target").exists());
}

#[test]
fn a_missing_coverage_tool_is_a_note_and_what_was_observed_stays() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), PYTHON);
    commit(dir.path());
    index_coverage(dir.path());
    let before = pairs(dir.path(), "covers");
    assert!(!before.is_empty());
    write(dir.path(), &[(".nerd/config.toml", "[index]\ncoverage_python = \"/nonexistent/python3\"\n")]);
    let report = index_coverage(dir.path());
    let run = &report["coverage"]["runs"][0];
    assert_eq!(run["status"], "missing", "{run:?}");
    assert!(run["hint"].as_str().unwrap().contains("pip install coverage"), "{run:?}");
    assert_eq!(pairs(dir.path(), "covers"), before);
}

const TYPESCRIPT: &[(&str, &str)] = &[
    ("package.json", "{\"type\": \"module\", \"scripts\": {\"test\": \"vitest run\"}, \"devDependencies\": {\"vitest\": \"^3.2.0\"}}\n"),
    (
        // The project's own config must hold: its alias is how the tests import the code.
        "vitest.config.ts",
        "import { defineConfig } from \"vitest/config\";\nimport { fileURLToPath } from \"node:url\";\n\n\
         export default defineConfig({\n  resolve: { alias: { \"@shop\": fileURLToPath(new URL(\"./src\", import.meta.url)) } },\n  \
         test: { include: [\"test/**/*.test.ts\"] },\n});\n",
    ),
    (
        "src/cart.ts",
        "export class Cart {\n  items: number[] = [];\n\n  add(x: number): this {\n    this.items.push(x);\n    return this;\n  }\n\n  \
         total(): number {\n    return this.items.reduce((a, b) => a + b, 0);\n  }\n}\n\n\
         /** The price of some of one item. */\nexport function price(item: { price: number; qty?: number }): number {\n  \
         return item.price * (item.qty ?? 1);\n}\n\n\
         export function table(): Map<string, number> {\n  return new Map([[\"a\", 1]]);\n}\n\n\
         export function unused(): number {\n  return 0;\n}\n",
    ),
    (
        "test/cart.test.ts",
        "import { describe, expect, it } from \"vitest\";\nimport { Cart, price, table } from \"@shop/cart\";\n\n\
         const known = table();\n\n\
         describe(\"cart\", () => {\n  it(\"sums\", () => {\n    const cart = new Cart().add(2).add(3);\n    \
         const method = [\"to\", \"tal\"].join(\"\") as \"total\";\n    expect(cart[method]()).toBe(5);\n  });\n});\n\n\
         describe(\"prices\", () => {\n  it(\"sums\", () => {\n    expect(price({ price: 3, qty: 2 })).toBe(6);\n  });\n});\n\n\
         it(\"nothing\", () => {\n  expect(known.size).toBe(1);\n});\n",
    ),
];

/// Gives the project in `dir` the test tools' own node_modules as its `npm
/// install` (`runner` among them, installed by `scripts/install-test-deps`),
/// and commits it.
fn install_and_commit(dir: &Path, runner: &str) {
    let tools = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/test-tools/node_modules");
    assert!(tools.join(".bin").join(runner).is_file(), "scripts/install-test-deps installs {runner}");
    std::os::unix::fs::symlink(&tools, dir.join("node_modules")).unwrap();
    write(dir, &[(".gitignore", "node_modules\n")]);
    commit(dir);
}

/// The one coverage run `--coverage` made: `tool` ran and saw `tests` test symbols.
fn the_run_of(report: &serde_json::Value, tool: &str, tests: u64) {
    let runs = report["coverage"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!((runs[0]["tool"].as_str(), runs[0]["status"].as_str()), (Some(tool), Some("ran")), "{:?}", runs[0]);
    assert_eq!(runs[0]["tests"], tests, "{:?}", runs[0]);
}

/// Nothing was written into the workspace (the runner's caches and nerd's config went to scratch).
fn nothing_written(dir: &Path) {
    let status = std::process::Command::new("git").args(["status", "--porcelain"]).current_dir(dir).output();
    assert_eq!(String::from_utf8_lossy(&status.unwrap().stdout), "");
}

/// The TypeScript project, tested by vitest.
fn typescript(dir: &Path) {
    write(dir, TYPESCRIPT);
    install_and_commit(dir, "vitest");
}

#[test]
fn typescript_tests_run_under_vitest_link_through_dynamic_calls_and_what_their_file_ran_loading() {
    let dir = tempfile::tempdir().unwrap();
    typescript(dir.path());
    the_run_of(&index_coverage(dir.path()), "vitest", 3);
    // The two tests titled "sums" are told apart by their lines; `table` ran
    // while the file loaded, so it counts for each of its tests.
    let want = set(&[
        ("test/cart.test.ts#sums", "src/cart.ts#Cart.add"),
        ("test/cart.test.ts#sums", "src/cart.ts#Cart.total"),
        ("test/cart.test.ts#sums", "src/cart.ts#table"),
        ("test/cart.test.ts#sums~2", "src/cart.ts#price"),
        ("test/cart.test.ts#sums~2", "src/cart.ts#table"),
        ("test/cart.test.ts#nothing", "src/cart.ts#table"),
    ]);
    assert_eq!(pairs(dir.path(), "covers"), want);
    nothing_written(dir.path());

    // `total` is called through a computed name: only the run links it to its test.
    let cart = dir.path().join("src/cart.ts");
    let text = std::fs::read_to_string(&cart).unwrap().replace("(a, b) => a + b, 0", "(a, b) => b + a, 0");
    std::fs::write(&cart, text).unwrap();
    assert!(ids(dir.path(), "needs_testing").contains("test/cart.test.ts#sums"));
}

/// The same project, tested by jest with ts-jest: its configuration (here the
/// `jest` key of package.json, with a setup file of its own) keeps holding.
fn typescript_under_jest(dir: &Path) {
    write(dir, TYPESCRIPT);
    let manifest =
        "{\"scripts\": {\"test\": \"jest\"}, \"jest\": {\"preset\": \"ts-jest\", \"testEnvironment\": \"node\", \
                    \"moduleNameMapper\": {\"^@shop/(.*)$\": \"<rootDir>/src/$1\"}, \
                    \"setupFilesAfterEnv\": [\"<rootDir>/test/setup.ts\"]}}\n";
    write(
        dir,
        &[
            ("package.json", manifest),
            (
                "tsconfig.json",
                "{\"compilerOptions\": {\"strict\": true, \"esModuleInterop\": true, \"baseUrl\": \".\", \
                 \"paths\": {\"@shop/*\": [\"src/*\"]}}}\n",
            ),
            // The project's own setup file: nerd's comes after it, never instead of it
            // (without it, the test file would not call `table` while loading).
            ("test/setup.ts", "(globalThis as { ready?: boolean }).ready = true;\n"),
        ],
    );
    std::fs::remove_file(dir.join("vitest.config.ts")).unwrap();
    let test = dir.join("test/cart.test.ts");
    let text = std::fs::read_to_string(&test).unwrap().replace(
        "import { describe, expect, it } from \"vitest\";",
        "import { describe, expect, it } from \"@jest/globals\";",
    );
    // jest names a test by its describe titles and its own, joined by spaces, with no
    // line: "prices sums prices" is the test titled "sums prices", the longest title that
    // ends it. (Two tests titled alike cannot be told apart by name, and are left out.)
    let text = text.replace("it(\"sums\", () => {\n    expect(price", "it(\"sums prices\", () => {\n    expect(price");
    let ready = "const known = (globalThis as { ready?: boolean }).ready ? table() : new Map([[\"a\", 1]]);";
    std::fs::write(&test, text.replace("const known = table();", ready)).unwrap();
    install_and_commit(dir, "jest");
}

#[test]
fn typescript_tests_run_under_jest_with_the_project_s_config_link_by_the_title_that_ends_their_name() {
    let dir = tempfile::tempdir().unwrap();
    typescript_under_jest(dir.path());
    the_run_of(&index_coverage(dir.path()), "jest", 3);
    let want = set(&[
        ("test/cart.test.ts#sums", "src/cart.ts#Cart.add"),
        ("test/cart.test.ts#sums", "src/cart.ts#Cart.total"),
        ("test/cart.test.ts#sums", "src/cart.ts#table"),
        ("test/cart.test.ts#sums prices", "src/cart.ts#price"),
        ("test/cart.test.ts#sums prices", "src/cart.ts#table"),
        ("test/cart.test.ts#nothing", "src/cart.ts#table"),
    ]);
    assert_eq!(pairs(dir.path(), "covers"), want);
    nothing_written(dir.path());
}

#[test]
fn a_typescript_project_tested_by_node_s_own_runner_says_what_nerd_observes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), TYPESCRIPT);
    write(dir.path(), &[("package.json", "{\"scripts\": {\"test\": \"node --test\"}}\n")]);
    commit(dir.path());
    let report = index_coverage(dir.path());
    let run = &report["coverage"]["runs"][0];
    assert_eq!((run["tool"].as_str(), run["status"].as_str()), (Some("vitest"), Some("missing")), "{run:?}");
    assert!(run["hint"].as_str().unwrap().contains("under vitest or jest"), "{run:?}");
}
