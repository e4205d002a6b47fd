//! A request's constraints ("but don't touch the tests", "only in src/api",
//! "without new dependencies", "keep the public API") as typed restrictions
//! that hold for that request alone, each with an id and the words it came
//! from. A constraint no check can judge is left to the model. Knows nothing
//! about how writes are judged.

use crate::config::restriction::Restriction;

/// One checked constraint of a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestConstraint {
    /// `c1`, `c2`…: how the kernel names it.
    pub id: String,
    /// The words it came from.
    pub said: String,
    pub restriction: Restriction,
}

pattern!(
    dependencies,
    r"(?i)\b(dependenc(y|ies)|deps|third[- ]party (packages?|libraries|crates|modules)|new (packages?|libraries|crates|modules))\b"
);
pattern!(public_api, r"(?i)\b(public|exported) (api|interface|signatures?|functions|symbols)\b|\bpublic api\b");
pattern!(
    protected,
    r"(?i)\b(touch|touching|modify|modifying|change|changing|edit|editing|alter|altering)\s+(the\s+|any\s+|our\s+)?(?P<what>`[^`]+`|[\w./*-]+)"
);
pattern!(
    only,
    r"(?i)\bonly\s+(in|inside|within|under|touch|change|edit|modify)\s+(the\s+)?(?P<what>`[^`]+`|[\w./*-]+)"
);

/// A glob for a path-like word ("src/api" is the folder, "src/api.py" the
/// file, "migrations/*.sql" itself); `None` for a word that names no path.
fn glob_of(what: &str) -> Option<String> {
    let what = what.trim_matches('`').trim_end_matches(['.', ',']).trim_start_matches("./");
    if !(what.contains('/') || what.contains('*') || what.contains('.')) {
        return None;
    }
    let file = what.rsplit('/').next().is_some_and(|f| f.contains('.'));
    let glob = if what.contains('*') || file { what.to_string() } else { format!("{}/**", what.trim_end_matches('/')) };
    globset::Glob::new(&glob).is_ok().then_some(glob)
}

/// What keeping `what` unchanged protects: the test files, or the files a
/// path-like word names; `None` for a word that names neither.
pub(crate) fn protecting(what: &str) -> Option<Restriction> {
    let word = what.trim_matches('`').trim_end_matches(['.', ',']).to_lowercase();
    if matches!(word.as_str(), "tests" | "test" | "specs" | "test_files") {
        return Some(Restriction::ProtectTests);
    }
    glob_of(what).map(|glob| Restriction::ProtectPaths { glob })
}

/// The restriction one constraint asks for, if a check can judge it.
pub(crate) fn restriction(said: &str) -> Option<Restriction> {
    let lower = said.to_lowercase();
    if public_api().is_match(said) {
        return Some(Restriction::KeepPublicApi);
    }
    if dependencies().is_match(said) && (lower.starts_with("without") || lower.contains("n't") || lower.contains("not"))
    {
        return Some(Restriction::NoNewDependency);
    }
    if let Some(c) = only().captures(said) {
        return glob_of(&c["what"]).map(|glob| Restriction::OnlyPaths { glob });
    }
    protected().captures(said).and_then(|c| protecting(&c["what"]))
}

/// The checked constraints among a request's `constraints`, numbered in order.
pub fn restrictions(constraints: &[String]) -> Vec<RequestConstraint> {
    constraints
        .iter()
        .filter_map(|said| restriction(said).map(|r| (said, r)))
        .enumerate()
        .map(|(n, (said, restriction))| RequestConstraint {
            id: format!("c{}", n + 1),
            said: said.clone(),
            restriction,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perceive::{perceive, Offline, Perceived};

    fn read(request: &str) -> Vec<Restriction> {
        let Perceived::Intent { intent, .. } = perceive(&mut Offline, request) else { panic!("{request}") };
        restrictions(&intent.constraints).into_iter().map(|c| c.restriction).collect()
    }

    #[test]
    fn constraints_said_in_a_request_become_restrictions_for_it() {
        let cases: &[(&str, &[Restriction])] = &[
            ("rename add to plus but don't touch the tests", &[Restriction::ProtectTests]),
            (
                "fix the parser without touching src/generated.rs",
                &[Restriction::ProtectPaths { glob: "src/generated.rs".into() }],
            ),
            ("add retry support, only in src/api", &[Restriction::OnlyPaths { glob: "src/api/**".into() }]),
            ("implement caching without new dependencies", &[Restriction::NoNewDependency]),
            (
                "write tests for UnmarshalText in null.go; put them in a new file and do not change null.go",
                &[Restriction::ProtectPaths { glob: "null.go".into() }],
            ),
            ("simplify the parser but keep the public API unchanged", &[Restriction::KeepPublicApi]),
            ("refactor load_config without changing the public API", &[Restriction::KeepPublicApi]),
        ];
        for (request, expected) in cases {
            assert_eq!(read(request), expected.to_vec(), "{request}");
        }
        // Said, but nothing a check can judge: left to the model.
        for request in ["fix the parser without breaking anything", "rename parse everywhere", "add logging"] {
            assert_eq!(read(request), vec![], "{request}");
        }
    }
}
