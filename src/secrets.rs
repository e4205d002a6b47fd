//! Finds secrets in added lines: private keys, cloud and service tokens with
//! a known shape, high-entropy values assigned to secret-sounding names, and
//! files that are secrets by name (`.env`, `id_rsa`, `*.pem`...). Only added
//! lines are scanned, so a secret already in history does not block every
//! commit (rotate it; the gate cannot un-leak it). A base module: the commit
//! gate, the network policy and path classification all use it.
//! Knows nothing about git or how findings are used.

use std::sync::OnceLock;

use regex::Regex;

/// One secret found: its kind and the line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    pub kind: &'static str,
    pub line: u32,
}

/// Token shapes: (kind, pattern).
const SHAPES: &[(&str, &str)] = &[
    ("private_key", r"-----BEGIN ((RSA|DSA|EC|OPENSSH|PGP|ENCRYPTED) )?PRIVATE KEY( BLOCK)?-----"),
    ("aws_access_key_id", r"\b(AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("github_token", r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b"),
    ("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("slack_token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("stripe_live_key", r"\b[sr]k_live_[0-9A-Za-z]{20,}\b"),
    ("anthropic_api_key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    ("openai_api_key", r"\bsk-(proj-)?[A-Za-z0-9_\-]{32,}"),
];

/// `name = "value"` where the name sounds secret.
const ASSIGNMENT: &str = r#"(?i)\b[\w.-]*(secret|token|passw(or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential)[\w.-]*["']?\s*[:=]+\s*["']([^"'\s]{16,})["']"#;

/// `name = value` unquoted, the whole line (INI, `.env`, credentials files): the value is
/// only token characters, so code (`key = os.environ["K"]`) does not look like one.
const UNQUOTED_ASSIGNMENT: &str = r"(?i)^\s*(export\s+)?[\w.-]*(secret|token|passw(or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential)[\w.-]*\s*[:=]\s*([A-Za-z0-9+/=_.~-]{16,})\s*$";

fn unquoted_assignment() -> &'static Regex {
    static CELL: OnceLock<Regex> = OnceLock::new();
    CELL.get_or_init(|| Regex::new(UNQUOTED_ASSIGNMENT).unwrap_or_else(|e| panic!("built-in unquoted pattern: {e}")))
}

fn compiled() -> &'static (Vec<(&'static str, Regex)>, Regex) {
    static CELL: OnceLock<(Vec<(&'static str, Regex)>, Regex)> = OnceLock::new();
    CELL.get_or_init(|| {
        let shapes = SHAPES
            .iter()
            .map(|(k, p)| (*k, Regex::new(p).unwrap_or_else(|e| panic!("built-in secret pattern {k}: {e}"))))
            .collect();
        let assignment = Regex::new(ASSIGNMENT).unwrap_or_else(|e| panic!("built-in assignment pattern: {e}"));
        (shapes, assignment)
    })
}

/// Shannon entropy in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    for b in s.bytes() {
        counts[b as usize] += 1;
    }
    let n = s.len() as f64;
    counts.iter().filter(|&&c| c > 0).map(|&c| f64::from(c) / n).map(|p| -p * p.log2()).sum()
}

/// Values that are obviously not real secrets.
fn placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    ["example", "xxxx", "changeme", "placeholder", "dummy", "your_", "your-", "<", "${", "{{", "redacted", "test"]
        .iter()
        .any(|p| lower.contains(p))
}

/// The kind of secret a path is by its name alone.
pub fn secret_file(path: &str) -> Option<&'static str> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let env_file =
        name == ".env" || (name.starts_with(".env.") && !name.ends_with(".example") && !name.ends_with(".sample"));
    if env_file {
        return Some("env_file");
    }
    let lower = name.to_ascii_lowercase();
    let sample = [".example", ".sample", ".template", ".dist", ".pub"].iter().any(|s| lower.ends_with(s));
    if lower.ends_with(".env") && !sample {
        return Some("env_file");
    }
    let ssh_key = ["id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"].iter().any(|k| lower.starts_with(k));
    if (ssh_key && !sample)
        || matches!(lower.as_str(), ".netrc" | ".pgpass" | "credentials.json")
        || (lower.contains("service-account") || lower.contains("service_account")) && lower.ends_with(".json")
    {
        return Some("credentials_file");
    }
    // Anything inside a folder named for secrets.
    let in_secrets_dir =
        path.split('/').rev().skip(1).any(|d| matches!(d.to_ascii_lowercase().as_str(), "secrets" | ".secrets"));
    if in_secrets_dir && !sample {
        return Some("credentials_file");
    }
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    matches!(ext, Some("pem" | "key" | "p12" | "pfx" | "jks" | "keystore" | "p8" | "ppk" | "kdbx" | "keychain"))
        .then_some("key_file")
}

/// Secrets among the added lines of one file.
pub fn scan(path: &str, added: &[(u32, String)]) -> Vec<Hit> {
    let (shapes, assignment) = compiled();
    let mut out = Vec::new();
    let finding = |kind: &'static str, line: u32| Hit { kind, line };
    if let Some(kind) = secret_file(path) {
        out.push(finding(kind, added.first().map_or(1, |(l, _)| *l)));
    }
    for (line, text) in added {
        if let Some((kind, _)) = shapes.iter().find(|(_, re)| re.is_match(text)) {
            out.push(finding(kind, *line));
            continue;
        }
        let quoted = assignment.captures(text).and_then(|c| c.get(3));
        let unquoted = || unquoted_assignment().captures(text).and_then(|c| c.get(4));
        if let Some(value) = quoted.or_else(unquoted) {
            let v = value.as_str();
            if !placeholder(v) && entropy(v) >= 3.5 {
                out.push(finding("high_entropy_assignment", *line));
            }
        }
    }
    out
}

/// `name=value` or `name: value`, quoted or not, where the name sounds secret: for redaction,
/// which errs on the side of hiding.
const LOOSE_ASSIGNMENT: &str = r#"(?i)\b[\w.-]*(secret|token|passw(or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credential|auth)[\w.-]*["']?\s*[:=]\s*["']?([^"'\s,;]{8,})"#;

fn loose_assignment() -> &'static Regex {
    static CELL: OnceLock<Regex> = OnceLock::new();
    CELL.get_or_init(|| Regex::new(LOOSE_ASSIGNMENT).unwrap_or_else(|e| panic!("built-in redaction pattern: {e}")))
}

/// `text` with every secret it shows replaced by `[redacted KIND]`: token
/// shapes, values assigned to secret-sounding names, and the body of private
/// key blocks. For what nerd stores or shows of programs' output.
pub fn redact(text: &str) -> String {
    let (shapes, _) = compiled();
    let mut out = String::with_capacity(text.len());
    let mut in_key = false;
    for line in text.split_inclusive('\n') {
        if in_key {
            if line.contains("-----END ") {
                in_key = false;
                out.push_str(line);
            } else {
                out.push_str("[redacted private_key]\n");
            }
            continue;
        }
        let mut redacted = line.to_string();
        for (kind, re) in shapes {
            if *kind == "private_key" {
                in_key |= re.is_match(&redacted);
                continue;
            }
            redacted = re.replace_all(&redacted, format!("[redacted {kind}]").as_str()).into_owned();
        }
        redacted = loose_assignment()
            .replace_all(&redacted, |c: &regex::Captures| {
                let whole = &c[0];
                let value = &c[3];
                if placeholder(value) {
                    whole.to_string()
                } else {
                    whole.replacen(value, "[redacted secret]", 1)
                }
            })
            .into_owned();
        out.push_str(&redacted);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(path: &str, lines: &[&str]) -> Vec<String> {
        let added: Vec<(u32, String)> = lines.iter().enumerate().map(|(i, l)| (i as u32 + 1, l.to_string())).collect();
        scan(path, &added).into_iter().map(|h| format!("{}@{}", h.kind, h.line)).collect()
    }

    #[test]
    fn real_shapes_are_found() {
        let found = kinds(
            "src/config.rs",
            &[
                "-----BEGIN OPENSSH PRIVATE KEY-----",
                "let id = \"AKIAIOSFODNN7EXAMPLQ\";",
                "token: ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "API_KEY = \"q8Zr3mVx9LkP2wT7yBn4HcJ6\"",
                "let x = 1;",
            ],
        );
        assert_eq!(found, vec!["private_key@1", "aws_access_key_id@2", "github_token@3", "high_entropy_assignment@4"]);
    }

    #[test]
    fn placeholders_and_low_entropy_are_not_secrets() {
        let found = kinds(
            "src/config.py",
            &[
                "password = \"changeme-changeme\"",
                "API_KEY = \"aaaaaaaaaaaaaaaaaaaa\"",
                "token = \"${GITHUB_TOKEN}xxxxxxx\"",
                "name = \"a perfectly normal string\"",
            ],
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn secret_files_by_name() {
        assert_eq!(secret_file("config/.env"), Some("env_file"));
        assert_eq!(secret_file(".env.example"), None);
        assert_eq!(secret_file("deploy/id_rsa"), Some("credentials_file"));
        assert_eq!(secret_file("certs/server.pem"), Some("key_file"));
        assert_eq!(secret_file("src/key.rs"), None);
        assert_eq!(kinds(".env", &["DB=postgres://x"]), vec!["env_file@1"]);
    }

    #[test]
    fn redaction_hides_tokens_assignments_and_key_bodies() {
        let text = "ok line\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Zr3mVx9\n\
                    token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789 here\n\
                    -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone\n";
        let shown = redact(text);
        for secret in ["wJalrXUtnFEMI", "ghp_aBcDeF", "b3BlbnNzaC1rZXktdjEAAAAA"] {
            assert!(!shown.contains(secret), "{secret} leaked: {shown}");
        }
        assert!(shown.contains("ok line\n") && shown.contains("done\n") && shown.contains("[redacted github_token]"));
        assert_eq!(redact("password = changeme_placeholder\n"), "password = changeme_placeholder\n");
    }

    #[test]
    fn unquoted_ini_and_env_values_are_found_and_code_is_not() {
        assert_eq!(
            kinds(
                "config/credentials",
                &["[default]", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8Zr3mVx9"]
            ),
            vec!["high_entropy_assignment@2"]
        );
        assert_eq!(
            kinds("deploy/app.ini", &["export API_TOKEN=q8Zr3mVx9LkP2wT7yBn4HcJ6"]),
            vec!["high_entropy_assignment@1"]
        );
        assert!(kinds("src/app.py", &["api_key = os.environ[\"API_KEY\"]", "token = self.token_for(user)"]).is_empty());
    }
}
