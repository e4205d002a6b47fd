//! Instructions into project rules. A forbidding instruction that names a
//! call ("never use unwrap in library code") becomes a structural commit-gate
//! rule in `.nerd/config.toml`; rules only restrict. An instruction nerd
//! cannot enforce is refused with the reason, never stored as if it were.
//! Knows nothing about how rules are checked.

use nerd_logic::vocab::{Category, Verb};

use super::Intent;
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
    let call = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map(|w| w.trim_matches('.').trim_end_matches("()"))
        .skip_while(|w| !matches!(w.to_lowercase().as_str(), "use" | "call" | "using" | "calling" | "invoke"))
        .nth(1)
        .map(|w| w.rsplit('.').next().unwrap_or(w).to_string())
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_'));
    let Some(call) = call else {
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
}
