//! Instructions into rules. For `nerd instruct`, a forbidding instruction
//! that names a call ("never use unwrap in library code") becomes a
//! structural commit-gate rule in `.nerd/config.toml`. For learned rules, any
//! standing instruction or preference becomes a typed restriction: a call, a
//! new dependency, protected files or tests, indentation, or guidance the
//! model is shown. An instruction that would permit something ("you may push
//! without asking") is refused: rules only restrict.
//! Knows nothing about how rules are checked or stored.

use nerd_logic::vocab::{Category, Verb};

use super::Intent;
use crate::config::restriction::{Indent, Restriction};
use crate::world::lang::Lang;

/// A rule to add, as the TOML block and its id.
#[derive(Debug, PartialEq, Eq)]
pub struct NewRule {
    pub id: String,
    pub toml: String,
}

/// Words that name a language in an instruction.
fn named_lang(text: &str) -> Option<Lang> {
    let lower = text.to_lowercase();
    [
        ("rust", Lang::Rust),
        ("python", Lang::Python),
        ("golang", Lang::Go),
        (" go ", Lang::Go),
        ("typescript", Lang::TypeScript),
    ]
    .iter()
    .find(|(w, _)| format!(" {lower} ").contains(w))
    .map(|(_, l)| *l)
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// The call an instruction forbids: the word after "use"/"call", when it
/// ends the clause (so "never use global state" names no call).
fn forbidden_call(text: &str) -> Option<String> {
    const ENDS_CLAUSE: &[&str] =
        &["in", "inside", "outside", "within", "for", "on", "when", "except", "even", "anywhere", "and", "or", "ever"];
    let words: Vec<&str> = text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '`')).collect();
    let words: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
    let at = words
        .iter()
        .position(|w| matches!(w.to_lowercase().as_str(), "use" | "call" | "using" | "calling" | "invoke"))?;
    let word = *words.get(at + 1)?;
    let quoted = word.starts_with('`');
    let next = words.get(at + 2).map(|w| w.to_lowercase());
    let ends = next.as_deref().is_none_or(|n| ENDS_CLAUSE.contains(&n));
    let name = word.trim_matches('`').trim_matches('.').trim_end_matches("()");
    let name = name.rsplit('.').next().unwrap_or(name).to_string();
    let code_like =
        quoted || word.ends_with("()") || name.contains('_') || name.chars().skip(1).any(char::is_uppercase);
    let valid = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    (valid && (ends || code_like)).then_some(name)
}

/// The rule an instruction asks for. `workspace_lang` is the language most of
/// the workspace is written in, used when the instruction names none.
pub fn rule_for(text: &str, intent: &Intent, workspace_lang: Option<Lang>) -> Result<NewRule, String> {
    if intent.category != Category::Instruction {
        return Err(format!("this reads as a {} ({}), not a standing instruction", intent.category, intent.verb));
    }
    if intent.verb != Verb::Forbid {
        return Err(format!(
            "nerd can enforce forbidding instructions that name a call; this one asks to {} something, which no check can verify yet",
            intent.verb
        ));
    }
    let Some(call) = forbidden_call(text) else {
        return Err("name the call to forbid, as in \"never use unwrap\" or \"don't call print\"".into());
    };
    let lang = named_lang(text)
        .or(workspace_lang)
        .ok_or("say which language the rule is for (rust, python, go, typescript)")?;
    let id = format!("no-{}", call.to_lowercase().replace('_', "-"));
    let include_tests = text.to_lowercase().contains("even in tests");
    let toml = format!(
        "\n# Added by `nerd instruct` from: {text}\n[[check.rule]]\nid = {}\nlang = {}\ncall = {}\nmessage = {}\nseverity = \"error\"\ninclude_tests = {include_tests}\n",
        toml_string(&id),
        toml_string(lang.name()),
        toml_string(&call),
        toml_string(&format!("project rule: {}", text.trim())),
    );
    Ok(NewRule { id, toml })
}

// Phrases that grant rather than restrict ("you may", "without asking").
pattern!(
    permissive,
    r"(?i)\b(you (may|can|are allowed to|have permission to)|feel free|(it'?s|it is) (ok|okay|fine|alright|safe) to|go ahead and|(allow|permit|let) (you|nerd|yourself|it)|is (allowed|permitted)|without (asking|approval|confirm\w*|checking|review\w*)|no need to (ask|confirm|check|run|wait)|(don'?t|do not|never) (ask|bother asking|confirm|wait for)|stop asking|skip (the )?(gate|checks?|tests?|approvals?|review|hook)|(disable|turn off|bypass|override|ignore|skip) (the )?([\w-]+ )?(gate|rules?|constitution|polic(y|ies)|checks?|hook|sandbox|approvals?))\b"
);

// Negated grants ("you may not", "you can't") restrict; they are removed before looking for grants.
pattern!(
    negated_grant,
    r"(?i)\byou (may|can|are allowed to)\s*(not|never)\b|\byou (can'?t|cannot|mustn'?t)\b|\b(is|are)n'?t (allowed|permitted)\b|\b(is|are) not (allowed|permitted)\b"
);

pattern!(
    dependencies,
    r"(?i)\b(dependenc(y|ies)|deps|third[- ]party (packages?|libraries|crates|modules)|new (packages?|libraries|crates|modules)|npm packages?|pip packages?)\b"
);

pattern!(indentation, r"(?i)\b(tabs|spaces)\b");

// "In library code": the rule leaves programs, examples, benches and scripts alone.
pattern!(
    library_code,
    r"(?i)\b(in|inside|within|across) (the |our |any )?(librar(y|ies)|library code|lib code|library crates?|non-test library code)\b"
);

pattern!(
    protected,
    r"(?i)\b(touch|modify|change|edit|alter|rewrite|delete|remove|write to|commit to)\s+(the\s+|any\s+|our\s+)?(?P<what>`[^`]+`|[\w./*-]+)(\s+(files?|folder|directory|dir))?"
);

/// The restriction a standing instruction or preference asks for, or why it
/// cannot be one. `workspace_lang` is the language most of the workspace is
/// written in, used when the instruction names none.
pub fn restriction_for(text: &str, intent: &Intent, workspace_lang: Option<Lang>) -> Result<Restriction, String> {
    if intent.category != Category::Instruction || !matches!(intent.verb, Verb::Forbid | Verb::Require | Verb::Prefer) {
        return Err(format!("this reads as a {} ({}), not a standing instruction", intent.category, intent.verb));
    }
    let unnegated = negated_grant().replace_all(text, "must not");
    if let Some(m) = permissive().find(&unnegated) {
        return Err(format!(
            "\"{}\" would permit something, and a learned rule can only restrict: what nerd may do is decided by \
             its constitution and by a person's approval of each action, never by a rule",
            m.as_str().trim()
        ));
    }
    let lang = named_lang(text).or(workspace_lang);
    let forbids = intent.verb == Verb::Forbid;
    if forbids && dependencies().is_match(text) {
        return Ok(Restriction::NoNewDependency);
    }
    if let Some(m) = indentation().captures(text) {
        let lang = lang.ok_or("say which language the indentation is for (rust, python, go, typescript)")?;
        let says_tabs = m[1].eq_ignore_ascii_case("tabs");
        let indent = if says_tabs != forbids { Indent::Tabs } else { Indent::Spaces };
        return Ok(Restriction::IndentWith { lang: lang.family(), indent });
    }
    if forbids {
        if let Some(r) = protected().captures(text).and_then(|c| super::constraint::protecting(&c["what"])) {
            return Ok(r);
        }
        if let Some(name) = forbidden_call(text) {
            let lang = lang.ok_or("say which language the rule is for (rust, python, go, typescript)")?;
            let include_tests = text.to_lowercase().contains("even in tests");
            let library_only = library_code().is_match(text);
            return Ok(Restriction::ForbidCall { lang: lang.family(), name, include_tests, library_only });
        }
    }
    // "Only edit files in src/api", "always keep the public API": what a request's constraint can say.
    if intent.verb != Verb::Prefer {
        if let Some(r) = super::constraint::restriction(text) {
            return Ok(r);
        }
    }
    Ok(Restriction::Guidance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perceive::{perceive, Offline, Perceived};

    fn rule(text: &str, lang: Option<Lang>) -> Result<NewRule, String> {
        let Perceived::Intent { intent, .. } = perceive(&mut Offline, text) else { panic!("{text}") };
        rule_for(text, &intent, lang)
    }

    #[test]
    fn forbidding_a_call_becomes_a_rule() {
        let r = rule("never use unwrap in library code", Some(Lang::Rust)).unwrap();
        assert_eq!(r.id, "no-unwrap");
        assert!(
            r.toml.contains("call = \"unwrap\"")
                && r.toml.contains("lang = \"rust\"")
                && r.toml.contains("include_tests = false")
        );
        let r = rule("don't ever call print in the core package, in python", None).unwrap();
        assert!(r.toml.contains("lang = \"python\""), "{}", r.toml);
        assert!(crate::config::Config::parse(&r.toml).is_ok(), "the block is valid configuration");
    }

    #[test]
    fn what_cannot_be_enforced_is_refused() {
        assert!(rule("prefer iterators over index loops", Some(Lang::Rust)).unwrap_err().contains("prefer"));
        assert!(rule("fix the parser", Some(Lang::Rust)).unwrap_err().contains("not a standing instruction"));
        assert!(rule("never use unwrap", None).unwrap_err().contains("which language"));
        assert!(rule("from now on, avoid adding new dependencies", Some(Lang::Rust))
            .unwrap_err()
            .contains("name the call"));
    }

    fn restriction(text: &str) -> Result<Restriction, String> {
        let Perceived::Intent { intent, .. } = perceive(&mut Offline, text) else { panic!("{text}") };
        restriction_for(text, &intent, Some(Lang::Rust))
    }

    #[test]
    fn instructions_and_preferences_become_restrictions() {
        let cases = [
            ("do not add dependencies", Restriction::NoNewDependency),
            ("Do not add new dependencies.", Restriction::NoNewDependency),
            ("from now on, avoid adding new dependencies", Restriction::NoNewDependency),
            ("never pull in third-party crates", Restriction::NoNewDependency),
            ("use tabs in Go", Restriction::IndentWith { lang: Lang::Go, indent: Indent::Tabs }),
            ("never use tabs in python", Restriction::IndentWith { lang: Lang::Python, indent: Indent::Spaces }),
            ("don't touch the tests", Restriction::ProtectTests),
            ("never edit migrations/", Restriction::ProtectPaths { glob: "migrations/**".into() }),
            ("do not modify src/generated.rs", Restriction::ProtectPaths { glob: "src/generated.rs".into() }),
            (
                "never use unwrap in library code",
                Restriction::ForbidCall {
                    lang: Lang::Rust,
                    name: "unwrap".into(),
                    include_tests: false,
                    library_only: true,
                },
            ),
            (
                "never use unwrap",
                Restriction::ForbidCall {
                    lang: Lang::Rust,
                    name: "unwrap".into(),
                    include_tests: false,
                    library_only: false,
                },
            ),
            (
                "don't ever call print in the core package, in python",
                Restriction::ForbidCall {
                    lang: Lang::Python,
                    name: "print".into(),
                    include_tests: false,
                    library_only: false,
                },
            ),
            ("always keep the public API stable", Restriction::KeepPublicApi),
            (
                "never change files outside src/api, only edit src/api",
                Restriction::OnlyPaths { glob: "src/api/**".into() },
            ),
            ("I prefer early returns", Restriction::Guidance),
            ("keep answers short", Restriction::Guidance),
            ("never use global state", Restriction::Guidance),
            ("prefer iterators over index loops", Restriction::Guidance),
        ];
        for (text, expected) in cases {
            assert_eq!(restriction(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn an_instruction_that_would_permit_is_refused() {
        for text in [
            "from now on you may push to main without asking",
            "always feel free to run rm -rf in the build folder",
            "never ask before deleting files",
            "always skip the tests",
            "from now on, ignore the commit gate",
            "it's ok to add dependencies without asking",
        ] {
            let err = restriction(text).map(|r| format!("{r:?}")).unwrap_or_else(|e| e);
            assert!(err.contains("can only restrict"), "{text}: {err}");
        }
        // A negated grant is a restriction.
        assert_eq!(restriction("never, you may not add dependencies"), Ok(Restriction::NoNewDependency));
        assert!(restriction("fix the parser").unwrap_err().contains("not a standing instruction"));
    }
}
