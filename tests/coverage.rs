//! The observed tier end to end: `nerd index --coverage` runs a project's own
//! tests under coverage.py (Python), `go test -cover` (Go) and LLVM coverage
//! (Rust) in the sandbox,
//! and what each test executed becomes `covers(Test, Symbol)`, compared as a
//! set. The projects are built so that the call graph cannot see the links
//! (a pytest fixture hands the function over, a Go function is passed as a
//! value, Rust formats through a trait); after an edit, `needs_testing`
//! follows what the run observed. `scripts/install-test-deps` installs
//! coverage.py, pytest and the toolchain's llvm-tools.

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
         def unused():\n    return 0\n",
    ),
    ("src/shop/__init__.py", ""),
    (
        "tests/conftest.py",
        "import pytest\n\nfrom shop import cart\n\n\n@pytest.fixture\ndef checkout():\n    return cart.total\n",
    ),
    (
        "tests/test_cart.py",
        "def test_total(checkout):\n    assert checkout([{\"price\": 2}]) == 2\n\n\n\
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
    // test_nothing executed nothing of the project, and no test covers its own lines.
    let want = set(&[
        ("tests/test_cart.py#test_total", "src/shop/cart.py#total"),
        ("tests/test_cart.py#test_total", "src/shop/cart.py#price"),
        ("tests/test_cart.py#TestCart.test_price", "src/shop/cart.py#price"),
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
