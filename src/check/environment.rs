//! What a test runner's output says is missing from the environment rather
//! than wrong in the code: a Python module, an npm package or a Go module that
//! is imported but neither installed nor part of the workspace. A suite that
//! fails for that reason was not verified, and no patch to the code fixes it.
//! Knows nothing about running tools or about what the agent does next.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use super::parse::rx;
use crate::config::Tool;

/// The dependencies `tool`'s output says are missing, as `python module `x``
/// (install hints included), each once; empty when none or when the named
/// module is the workspace's own (then the code is at fault).
pub fn missing_dependencies(tool: Tool, root: &Path, output: &str) -> Vec<String> {
    static PYTHON: OnceLock<Regex> = OnceLock::new();
    static NODE: OnceLock<Regex> = OnceLock::new();
    static GO: OnceLock<Regex> = OnceLock::new();
    let mut found = BTreeSet::new();
    match tool {
        Tool::Pytest => {
            let re = rx(&PYTHON, r"No module named '([A-Za-z_][\w.]*)'");
            for c in re.captures_iter(output) {
                let top = c[1].split('.').next().unwrap_or_default();
                let own = ["", "src/", "lib/"].iter().any(|base| {
                    root.join(format!("{base}{top}")).is_dir() || root.join(format!("{base}{top}.py")).is_file()
                });
                if !own {
                    found.insert(format!("python module `{top}` (install it in the environment the tests run in)"));
                }
            }
        }
        Tool::NodeTest | Tool::Vitest | Tool::Jest => {
            let re = rx(&NODE, r"Cannot find (?:module|package) '([^'./][^']*)'");
            for c in re.captures_iter(output) {
                let mut parts = c[1].split('/');
                let name = match (parts.next(), parts.next()) {
                    (Some(scope), Some(pkg)) if scope.starts_with('@') => format!("{scope}/{pkg}"),
                    (Some(first), _) => first.to_string(),
                    _ => continue,
                };
                if name.starts_with("node:") || root.join("node_modules").join(&name).exists() {
                    continue;
                }
                found.insert(format!("npm package `{name}` (`npm install`)"));
            }
        }
        Tool::GoTest => {
            let re = rx(&GO, r"no required module provides package ([^\s;:]+)");
            for c in re.captures_iter(output) {
                found.insert(format!("Go package `{}` (`go mod download`, or `go get` it)", &c[1]));
            }
        }
        _ => {}
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_third_party_modules_are_the_environment_and_the_workspace_own_are_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/mypkg")).unwrap();
        std::fs::write(dir.path().join("helpers.py"), "").unwrap();
        let out = "ERROR tests/test_a.py - ModuleNotFoundError: No module named 'pytest_httpbin'\n\
                   E   ModuleNotFoundError: No module named 'mypkg.sub'\n\
                   E   ModuleNotFoundError: No module named 'helpers'\n\
                   E   ModuleNotFoundError: No module named 'pytest_httpbin.certs'\n";
        assert_eq!(
            missing_dependencies(Tool::Pytest, dir.path(), out),
            ["python module `pytest_httpbin` (install it in the environment the tests run in)"]
        );
        assert!(missing_dependencies(Tool::Pytest, dir.path(), "E   NameError: name 'x' is not defined").is_empty());

        std::fs::create_dir_all(dir.path().join("node_modules/present")).unwrap();
        let node = "Error: Cannot find module 'zod'\nError: Cannot find package '@scope/pkg' imported from x\n\
                    Error: Cannot find module './local'\nError: Cannot find module 'present/sub'\n";
        assert_eq!(
            missing_dependencies(Tool::NodeTest, dir.path(), node),
            ["npm package `@scope/pkg` (`npm install`)", "npm package `zod` (`npm install`)"]
        );
        let go = "x_test.go:4:2: no required module provides package github.com/stretchr/testify/assert; to add it:";
        assert_eq!(
            missing_dependencies(Tool::GoTest, dir.path(), go),
            ["Go package `github.com/stretchr/testify/assert` (`go mod download`, or `go get` it)"]
        );
    }
}
