//! Go: each package's test binary is built once with coverage of the whole
//! module (`go test -c -vet=off -cover -coverpkg=./...`: vet findings are the
//! gate's business, not a reason to observe nothing), then run once per test
//! (`-test.run '^Name$' -test.coverprofile=…`), and each profile's executed
//! blocks are mapped to the symbols that hold them.
//! Knows nothing about the store.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

use super::{add_lines, finish, tail, Collected, Executed, Holders, Observed, Session};
use crate::world::walk::dir_of;

const HINT: &str = "install Go (Debian: apt-get install golang-go)";

pub(super) fn collect(session: &Session<'_>, holders: &Holders<'_>) -> Result<Collected, String> {
    let root = session.runner.root;
    if !session.probe(vec!["go".into(), "version".into()], root) {
        return Ok(Collected::Missing(HINT.to_string()));
    }
    let module = std::fs::read_to_string(root.join("go.mod"))
        .ok()
        .and_then(|text| module_path(&text))
        .ok_or("no go.mod with a module line at the workspace root")?;
    let listed = session.exec(
        ["go", "list", "-f", "{{.Dir}}\t{{.ImportPath}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}", "./..."]
            .map(OsString::from)
            .to_vec(),
        root,
        &[],
    )?;
    if listed.code != Some(0) {
        return Err(format!("go list failed: {}", tail(&listed)));
    }
    let tests_by_dir = tests_by_dir(holders);
    let bin = session.runner.scratch.join("bin");
    std::fs::create_dir_all(&bin).map_err(|e| format!("cannot make a folder for test binaries: {e}"))?;
    let profile = session.runner.scratch.join("cover.out");
    let (mut covers, mut ran, mut failures) = (Vec::new(), 0usize, Vec::new());
    for (n, line) in listed.stdout.lines().enumerate() {
        let fields: Vec<&str> = line.split('\t').collect();
        let [dir, import, tests, xtests] = fields[..] else { continue };
        if tests == "0" && xtests == "0" {
            continue;
        }
        let Some(rel) = Path::new(dir).strip_prefix(root).ok().map(|p| p.to_string_lossy().into_owned()) else {
            continue;
        };
        let Some(known) = tests_by_dir.get(rel.as_str()) else { continue };
        let binary = bin.join(format!("{n}.test"));
        let mut build: Vec<OsString> =
            ["go", "test", "-c", "-vet=off", "-covermode=set", "-coverpkg=./..."].map(OsString::from).to_vec();
        build.extend(["-o".into(), binary.clone().into_os_string(), import.into()]);
        let built = session.exec(build, root, &[])?;
        if built.code != Some(0) || !binary.is_file() {
            failures.push(format!("{import}: {}", tail(&built)));
            continue;
        }
        let package_dir = root.join(&rel);
        let listed = session.exec(vec![binary.clone().into_os_string(), "-test.list=.".into()], &package_dir, &[])?;
        let names: Vec<&str> = listed.stdout.lines().map(str::trim).filter(|n| known.contains_key(n)).collect();
        for name in names {
            let _ = std::fs::remove_file(&profile);
            let argv: Vec<OsString> = vec![
                binary.clone().into_os_string(),
                format!("-test.run=^{name}$").into(),
                "-test.count=1".into(),
                format!("-test.coverprofile={}", profile.display()).into(),
            ];
            session.exec(argv, &package_dir, &[])?;
            // A failing test still executed what it executed.
            let Ok(text) = std::fs::read_to_string(&profile) else { continue };
            ran += 1;
            let test = known[name];
            for (path, lines) in executed(&text, &module) {
                add_lines(holders, test, &path, lines, &mut covers);
            }
        }
    }
    if ran == 0 {
        let why = failures.first().map_or("no test of the workspace ran".to_string(), |f| format!("no test ran: {f}"));
        return Err(why);
    }
    let note =
        (!failures.is_empty()).then(|| format!("{} packages did not build: {}", failures.len(), failures.join(" | ")));
    Ok(Collected::Ran(Observed { tests: ran, covers: finish(covers), note }))
}

/// The module path a `go.mod` declares.
fn module_path(go_mod: &str) -> Option<String> {
    go_mod.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("module")?;
        let path = rest.trim().trim_matches('"');
        (!path.is_empty() && rest.starts_with(char::is_whitespace)).then(|| path.to_string())
    })
}

/// Test symbols by the workspace-relative folder (package) of their file, by name.
fn tests_by_dir<'a>(holders: &Holders<'a>) -> BTreeMap<&'a str, BTreeMap<&'a str, &'a str>> {
    let mut out: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for (path, tests) in &holders.tests {
        if !path.ends_with("_test.go") {
            continue;
        }
        let dir = dir_of(path);
        for test in tests {
            out.entry(dir).or_default().insert(test.qualified, test.id);
        }
    }
    out
}

/// The executed lines per workspace-relative file of a cover profile
/// (`module/dir/file.go:L1.C1,L2.C2 statements count`), files outside the module left out.
fn executed(profile: &str, module: &str) -> Executed {
    let prefix = format!("{module}/");
    let mut out = Executed::new();
    for line in profile.lines().skip_while(|l| l.starts_with("mode:")) {
        let Some((block, counts)) = line.rsplit_once(':') else { continue };
        let Some(path) = block.strip_prefix(&prefix) else { continue };
        let mut fields = counts.split_whitespace();
        let (Some(span), Some(_statements), Some(count)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        if count == "0" {
            continue;
        }
        let Some((start, end)) = span.split_once(',') else { continue };
        let line_of = |pos: &str| pos.split_once('.').and_then(|(l, _)| l.parse::<u32>().ok());
        let (Some(lo), Some(hi)) = (line_of(start), line_of(end)) else { continue };
        if hi < lo || hi - lo > 100_000 {
            continue;
        }
        out.entry(path.to_string()).or_default().extend(lo..=hi);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_gives_executed_lines_of_the_module_only() {
        let profile = "mode: set\n\
            github.com/x/flag/bool.go:12.34,14.2 2 1\n\
            github.com/x/flag/bool.go:20.1,21.2 1 0\n\
            github.com/x/flag/sub/a.go:3.1,3.9 1 1\n\
            github.com/other/dep/b.go:1.1,2.2 1 1\n\
            garbage line\n";
        let got = executed(profile, "github.com/x/flag");
        let want: Executed =
            [("bool.go".to_string(), [12, 13, 14].into()), ("sub/a.go".to_string(), [3].into())].into_iter().collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_module_path_is_read_from_go_mod() {
        assert_eq!(
            module_path("// c\nmodule github.com/spf13/pflag\n\ngo 1.12\n").as_deref(),
            Some("github.com/spf13/pflag")
        );
        assert_eq!(module_path("modules x\n"), None);
        assert_eq!(module_path("go 1.12\n"), None);
    }
}
