//! What a learned rule forbids, as a typed value: a call, a new dependency,
//! changes to some files or to tests, an indentation style, or guidance that
//! only a model can follow. No variant permits anything: a rule can only
//! restrict. Stored as JSON and parsed strictly on the way back in.
//! Knows nothing about how rules are proposed, stored or checked.

use serde::{Deserialize, Serialize};

use crate::world::lang::Lang;

/// Which whitespace leads an indented line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Indent {
    Tabs,
    Spaces,
}

/// One restriction; what it applies to is named in its fields.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Restriction {
    /// No call to `name` in added code of `lang`; test code is exempt unless `include_tests`, and
    /// with `library_only` so are programs, examples, benches and scripts ("in library code").
    ForbidCall { lang: Lang, name: String, include_tests: bool, library_only: bool },
    /// No dependency added to a package manifest (Cargo.toml, package.json, go.mod, pyproject.toml, requirements).
    NoNewDependency,
    /// Files matching the glob are not changed.
    ProtectPaths { glob: String },
    /// Test files are not changed.
    ProtectTests,
    /// Only files matching the glob are changed ("only in src/api").
    OnlyPaths { glob: String },
    /// No public symbol's signature is changed or removed ("keep the public API").
    KeepPublicApi,
    /// Added lines of `lang` are indented with this whitespace.
    IndentWith { lang: Lang, indent: Indent },
    /// A way of working that no check can judge ("I prefer early returns"): the model is told.
    Guidance,
}

/// The stored form: the same fields, with languages by name.
#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
enum Wire {
    ForbidCall {
        lang: String,
        name: String,
        #[serde(default)]
        include_tests: bool,
        #[serde(default)]
        library_only: bool,
    },
    NoNewDependency {},
    ProtectPaths {
        glob: String,
    },
    ProtectTests {},
    OnlyPaths {
        glob: String,
    },
    KeepPublicApi {},
    IndentWith {
        lang: String,
        indent: Indent,
    },
    Guidance {},
}

impl Restriction {
    /// The kind, as stored and listed.
    pub fn kind(&self) -> &'static str {
        match self {
            Restriction::ForbidCall { .. } => "forbid_call",
            Restriction::NoNewDependency => "no_new_dependency",
            Restriction::ProtectPaths { .. } => "protect_paths",
            Restriction::ProtectTests => "protect_tests",
            Restriction::OnlyPaths { .. } => "only_paths",
            Restriction::KeepPublicApi => "keep_public_api",
            Restriction::IndentWith { .. } => "indent_with",
            Restriction::Guidance => "guidance",
        }
    }

    /// Whether a check judges it (guidance is only shown to the model).
    pub fn is_checked(&self) -> bool {
        !matches!(self, Restriction::Guidance)
    }

    /// What it forbids, in a sentence fragment.
    pub fn describe(&self) -> String {
        match self {
            Restriction::ForbidCall { lang, name, include_tests, library_only } => {
                let tests = if *include_tests { ", tests included" } else { ", tests exempt" };
                let code = if *library_only { "library code" } else { "code" };
                format!("no call to `{name}` in added {} {code}{tests}", lang.name())
            }
            Restriction::NoNewDependency => "no new dependency in a package manifest".into(),
            Restriction::ProtectPaths { glob } => format!("no change to files matching `{glob}`"),
            Restriction::ProtectTests => "no change to test files".into(),
            Restriction::OnlyPaths { glob } => format!("changes only to files matching `{glob}`"),
            Restriction::KeepPublicApi => "no public symbol's signature changed or removed".into(),
            Restriction::IndentWith { lang, indent } => {
                let with = if *indent == Indent::Tabs { "tabs" } else { "spaces" };
                format!("added {} lines are indented with {with}", lang.name())
            }
            Restriction::Guidance => "guidance for the model; no check judges it".into(),
        }
    }

    /// What a change that breaks it does, as a verb phrase ("add a dependency …").
    pub fn breaking(&self) -> String {
        match self {
            Restriction::ForbidCall { lang, name, .. } => format!("call `{name}` in {} code", lang.name()),
            Restriction::NoNewDependency => "add a dependency to a package manifest".into(),
            Restriction::ProtectPaths { glob } => format!("change files matching `{glob}`"),
            Restriction::ProtectTests => "change test files".into(),
            Restriction::OnlyPaths { glob } => format!("change files outside `{glob}`"),
            Restriction::KeepPublicApi => "change or remove a public signature".into(),
            Restriction::IndentWith { lang, indent } => {
                let with = if *indent == Indent::Tabs { "spaces" } else { "tabs" };
                format!("indent {} with {with}", lang.name())
            }
            Restriction::Guidance => "go against guidance".into(),
        }
    }

    /// The stored JSON.
    pub fn to_json(&self) -> String {
        let wire = match self.clone() {
            Restriction::ForbidCall { lang, name, include_tests, library_only } => {
                Wire::ForbidCall { lang: lang.name().into(), name, include_tests, library_only }
            }
            Restriction::NoNewDependency => Wire::NoNewDependency {},
            Restriction::ProtectPaths { glob } => Wire::ProtectPaths { glob },
            Restriction::ProtectTests => Wire::ProtectTests {},
            Restriction::OnlyPaths { glob } => Wire::OnlyPaths { glob },
            Restriction::KeepPublicApi => Wire::KeepPublicApi {},
            Restriction::IndentWith { lang, indent } => Wire::IndentWith { lang: lang.name().into(), indent },
            Restriction::Guidance => Wire::Guidance {},
        };
        serde_json::to_string(&wire).unwrap_or_default()
    }

    /// Parses the stored JSON, checking every field.
    pub fn from_json(text: &str) -> Result<Restriction, String> {
        let wire: Wire = serde_json::from_str(text).map_err(|e| format!("not a restriction: {e}"))?;
        let lang =
            |name: &str| Lang::from_name(name).ok_or_else(|| format!("`{name}` is not a language nerd projects"));
        Ok(match wire {
            Wire::ForbidCall { lang: l, name, include_tests, library_only } => {
                if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
                    return Err(format!("`{name}` is not the name of a call"));
                }
                Restriction::ForbidCall { lang: lang(&l)?, name, include_tests, library_only }
            }
            Wire::NoNewDependency {} => Restriction::NoNewDependency,
            Wire::ProtectPaths { glob } => {
                globset::Glob::new(&glob).map_err(|e| format!("`{glob}` is not a glob: {e}"))?;
                Restriction::ProtectPaths { glob }
            }
            Wire::ProtectTests {} => Restriction::ProtectTests,
            Wire::OnlyPaths { glob } => {
                globset::Glob::new(&glob).map_err(|e| format!("`{glob}` is not a glob: {e}"))?;
                Restriction::OnlyPaths { glob }
            }
            Wire::KeepPublicApi {} => Restriction::KeepPublicApi,
            Wire::IndentWith { lang: l, indent } => Restriction::IndentWith { lang: lang(&l)?, indent },
            Wire::Guidance {} => Restriction::Guidance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_restriction_survives_its_stored_form() {
        let all = [
            Restriction::ForbidCall {
                lang: Lang::Rust,
                name: "unwrap".into(),
                include_tests: false,
                library_only: false,
            },
            Restriction::NoNewDependency,
            Restriction::ProtectPaths { glob: "migrations/**".into() },
            Restriction::ProtectTests,
            Restriction::OnlyPaths { glob: "src/api/**".into() },
            Restriction::KeepPublicApi,
            Restriction::IndentWith { lang: Lang::Go, indent: Indent::Tabs },
            Restriction::Guidance,
        ];
        for r in all {
            assert_eq!(Restriction::from_json(&r.to_json()), Ok(r.clone()), "{}", r.to_json());
        }
    }

    #[test]
    fn a_stored_form_that_permits_or_is_malformed_is_refused() {
        for bad in [
            r#"{"kind":"permit","action":"git push --force"}"#,
            r#"{"kind":"forbid_call","lang":"cobol","name":"x"}"#,
            r#"{"kind":"forbid_call","lang":"rust","name":"a b"}"#,
            r#"{"kind":"protect_paths","glob":"a/[b"}"#,
            r#"{"kind":"no_new_dependency","allow":true}"#,
            "not json",
        ] {
            assert!(Restriction::from_json(bad).is_err(), "{bad}");
        }
    }
}
