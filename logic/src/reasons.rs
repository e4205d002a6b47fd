//! Why the kernel says no, kept structured until it is shown: `Why` an action
//! is denied (each variant holds what its rule matched) and the `Reason` a
//! commit is blocked. Rendered as sentences only at the edge.
//! Knows nothing about the rules that derive them.

use crate::atom::Term;
use crate::column::Render;
use crate::symbols::{PathId, Sym, Symbols};
use crate::vocab::{Access, ActionKind, PathClass, Severity, TestOutcome};

/// Why an action is denied, holding what its rule matched.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Why {
    NotAllowlisted(Sym),
    ProjectDenied(Sym),
    NotOnPath,
    Suspicious(Sym),
    /// Something the program's spec does not name: program, what.
    Unknown(Sym, Sym),
    /// An option the spec refuses: program, scope, option, why.
    Option(Sym, Sym, Sym, Sym),
    /// A (sub)command the spec refuses: program, subcommand, why.
    Command(Sym, Sym, Sym),
    /// An argument of a refused kind: program, why.
    Refused(Sym, Sym),
    /// A variable a wrapper sets that changes what runs.
    Env(Sym),
    Shell(Sym),
    Module(Sym, Sym),
    Path(PathId, PathClass, Access),
    Metadata,
    Domain(Sym),
    Exfiltration(Sym),
    NoMutationIntent,
    Stopped,
    /// A request constraint the write breaks: its id, its words, the path, the access.
    Constraint(Sym, Sym, PathId, Access),
    /// A spawn of a specialist that is not ready (no knowledge, or no passed viva voce).
    NotReady(Sym),
    /// The delegation token does not allow this kind of action: token, kind.
    DelegationKind(Sym, ActionKind),
    /// The delegation token's path scope does not hold this path: token, path.
    DelegationPath(Sym, PathId),
    /// The delegation token does not allow this program: token, program.
    DelegationProgram(Sym, Sym),
    /// The delegation token does not allow this host: token, host.
    DelegationHost(Sym, Sym),
    /// The delegation token no longer holds: token, why.
    DelegationVoid(Sym, Sym),
}

impl Why {
    /// The reason as a sentence.
    pub fn describe(&self, s: &Symbols) -> String {
        let r = |x: Sym| s.resolve(x).to_string();
        match *self {
            Why::NotAllowlisted(p) => format!("`{}` is not on the program allowlist", r(p)),
            Why::ProjectDenied(p) => format!("the project's policy denies `{}`", r(p)),
            Why::NotOnPath => "the program is not installed".to_string(),
            Why::Suspicious(why) => r(why),
            Why::Unknown(p, what) => {
                format!("{} {} is not in the program's specification, so it is refused", r(p), r(what))
            }
            Why::Option(p, scope, o, why) if s.resolve(scope).is_empty() || s.resolve(scope) == "*" => {
                format!("{} {}: {}", r(p), r(o), r(why))
            }
            Why::Option(p, scope, o, why) => format!("{} {} {}: {}", r(p), r(scope), r(o), r(why)),
            Why::Command(p, sub, why) if s.resolve(sub).is_empty() => format!("{}: {}", r(p), r(why)),
            Why::Command(p, sub, why) => format!("{} {}: {}", r(p), r(sub), r(why)),
            Why::Refused(p, why) => format!("{}: {}", r(p), r(why)),
            Why::Env(v) => format!("setting {} changes what runs, so a wrapper may not set it", r(v)),
            Why::Shell(p) => format!("`{}` is a shell; commands are judged one argv at a time", r(p)),
            Why::Module(p, m) => format!("`{} -m {}` is not an allowed module", r(p), r(m)),
            Why::Path(path, PathClass::Outside, _) => format!("{} is outside the workspace", r(path.0)),
            Why::Path(path, PathClass::Secret, _) => format!("{} holds secrets", r(path.0)),
            Why::Path(path, _, access) => format!("{} is read-only to the agent ({access})", r(path.0)),
            Why::Metadata => "cloud metadata addresses are never reachable".to_string(),
            Why::Domain(h) => format!("{} is not on the network allowlist", r(h)),
            Why::Exfiltration(why) => format!("looks like exfiltration: {}", r(why)),
            Why::NoMutationIntent => "no mutation was asked for: a query never changes anything".to_string(),
            Why::Stopped => "the watchdog stopped this session".to_string(),
            Why::Constraint(c, said, path, _) => {
                format!("writing {} breaks the request's constraint {} (\"{}\")", r(path.0), r(c), r(said))
            }
            Why::NotReady(n) => format!(
                "specialist {} is not ready: research its sources and pass its viva voce first (`nerd viva {}`)",
                r(n),
                r(n)
            ),
            Why::DelegationKind(t, k) => format!("delegation {} does not allow {k} actions", r(t)),
            Why::DelegationPath(t, path) => format!("{} is outside the paths delegation {} allows", r(path.0), r(t)),
            Why::DelegationProgram(t, p) => format!("delegation {} does not allow running `{}`", r(t), r(p)),
            Why::DelegationHost(t, h) => format!("delegation {} does not allow reaching {}", r(t), r(h)),
            Why::DelegationVoid(t, why) => format!("delegation {} no longer holds: {}", r(t), r(why)),
        }
    }
}

impl Render for Why {
    fn term(&self, s: &Symbols) -> Term {
        Term::Str(self.describe(s))
    }
}

/// Why a commit is blocked, kept structured until it is shown.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Reason {
    /// A diagnostic of a blocking severity: code and message.
    Diagnostic(Severity, Sym, Sym),
    /// A test that failed or errored: its name.
    TestFailed(Sym, TestOutcome),
    /// A secret in staged content: its kind.
    Secret(Sym),
    /// A project rule matched: its id and message.
    Rule(Sym, Sym),
}

impl Reason {
    /// The reason as a line of text.
    pub fn describe(&self, s: &Symbols) -> String {
        match *self {
            Reason::Diagnostic(sev, code, msg) if s.resolve(code).is_empty() => format!("{sev}: {}", s.resolve(msg)),
            Reason::Diagnostic(sev, code, msg) => format!("{sev}[{}]: {}", s.resolve(code), s.resolve(msg)),
            Reason::TestFailed(name, TestOutcome::Error) => format!("test errored: {}", s.resolve(name)),
            Reason::TestFailed(name, _) => format!("test failed: {}", s.resolve(name)),
            Reason::Secret(kind) => format!("secret: {}", s.resolve(kind)),
            Reason::Rule(id, msg) => format!("rule {}: {}", s.resolve(id), s.resolve(msg)),
        }
    }
}

impl Render for Reason {
    fn term(&self, s: &Symbols) -> Term {
        Term::Str(self.describe(s))
    }
}
