//! Delegation capability tokens: what a spawned child may do. A token names
//! its parent, the specialist and task it was given for, an expiry and a
//! scope (action kinds, workspace path globs, programs, hosts), and is signed
//! with HMAC-SHA256 under the workspace's delegation key. A scope is only ever
//! narrowed: a child's effective scope is the intersection of every scope on
//! its chain of tokens, so no sequence of delegations can widen what the
//! first one allowed. Revoking a token voids its whole subtree.
//! Knows nothing about processes or about what the child does.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use nerd_logic::vocab::ActionKind;
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::store::{DelegationRow, StateDb, StoreError};

/// The key file under `.nerd/`; never readable by confined programs.
pub const KEY_FILE: &str = "delegation.key";

#[derive(Debug, thiserror::Error)]
pub enum DelegationError {
    #[error("the delegation token is malformed: {0}")]
    Malformed(String),
    #[error("the delegation token {0} has a bad signature: it was not issued by this workspace, or was changed")]
    Signature(String),
    #[error("delegation {0} is not on record in this workspace")]
    Unknown(String),
    #[error("cannot use the delegation key {path}: {source}")]
    Key { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a token lets its holder ask the router for. `None` for programs or
/// hosts means "whatever the constitution allows"; it narrows to a set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// Action kinds, by their canonical words (`read_file`, `exec`...).
    pub kinds: BTreeSet<String>,
    /// Workspace-relative globs (`**` is the whole workspace).
    pub paths: BTreeSet<String>,
    pub programs: Option<BTreeSet<String>>,
    pub hosts: Option<BTreeSet<String>>,
}

/// Intersects two optional sets, `None` being the whole.
fn meet(a: &Option<BTreeSet<String>>, b: &Option<BTreeSet<String>>) -> Option<BTreeSet<String>> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(a), Some(b)) => Some(a.intersection(b).cloned().collect()),
    }
}

/// Whether glob `inner` names only paths that glob `outer` names, judged
/// conservatively: equal, or `outer` is `**` or `DIR/**` and `inner` lies under DIR.
fn glob_within(inner: &str, outer: &str) -> bool {
    if inner == outer || outer == "**" {
        return true;
    }
    match outer.strip_suffix("/**") {
        Some(dir) => {
            inner.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'))
                && !inner[..dir.len()].contains(['*', '?', '['])
        }
        None => false,
    }
}

impl Scope {
    /// Everything a person at the terminal may have a child do: the constitution still judges each action.
    pub fn whole() -> Scope {
        Scope {
            kinds: ActionKind::ALL.iter().map(|k| k.to_string()).collect(),
            paths: BTreeSet::from(["**".to_string()]),
            programs: None,
            hosts: None,
        }
    }

    /// The part of `wanted` that this scope also allows: never more than either.
    pub fn narrow(&self, wanted: &Scope) -> Scope {
        Scope {
            kinds: self.kinds.intersection(&wanted.kinds).cloned().collect(),
            paths: wanted.paths.iter().filter(|p| self.paths.iter().any(|q| glob_within(p, q))).cloned().collect(),
            programs: meet(&self.programs, &wanted.programs),
            hosts: meet(&self.hosts, &wanted.hosts),
        }
    }

    pub fn allows_kind(&self, kind: ActionKind) -> bool {
        self.kinds.contains(&kind.to_string())
    }

    /// Whether the workspace-relative `path` is inside the scope's globs.
    pub fn allows_path(&self, path: &str) -> bool {
        self.path_matcher().allows(path)
    }

    /// The scope's path globs compiled once, for checking many paths.
    pub fn path_matcher(&self) -> PathMatcher {
        let whole = self.paths.contains("**");
        let mut set = globset::GlobSetBuilder::new();
        for g in self.paths.iter().filter(|g| *g != "**") {
            // A glob that does not parse admits nothing (`check` refuses such tokens when issued).
            if let Ok(glob) = globset::GlobBuilder::new(g).literal_separator(true).build() {
                set.add(glob);
            }
        }
        PathMatcher { whole, set: set.build().unwrap_or_else(|_| globset::GlobSet::empty()) }
    }

    pub fn allows_program(&self, program: &str) -> bool {
        self.programs.as_ref().is_none_or(|p| p.contains(program))
    }

    pub fn allows_host(&self, host: &str) -> bool {
        self.hosts.as_ref().is_none_or(|h| h.contains(host))
    }

    /// Checks the kinds are nerd's and the globs parse.
    fn check(&self) -> Result<(), DelegationError> {
        for k in &self.kinds {
            k.parse::<ActionKind>().map_err(|e| DelegationError::Malformed(format!("scope kind {k}: {e}")))?;
        }
        for g in &self.paths {
            if g.starts_with('/') || g.split('/').any(|c| c == "..") {
                return Err(DelegationError::Malformed(format!("scope path {g} leaves the workspace")));
            }
            globset::Glob::new(g).map_err(|e| DelegationError::Malformed(format!("scope path {g}: {e}")))?;
        }
        Ok(())
    }
}

/// A scope's path globs, compiled.
pub struct PathMatcher {
    whole: bool,
    set: globset::GlobSet,
}

impl PathMatcher {
    pub fn allows(&self, path: &str) -> bool {
        self.whole || self.set.is_match(path)
    }
}

/// What a token says; the signature covers exactly this, serialised.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claims {
    pub id: String,
    pub parent: Option<String>,
    pub specialist: Option<String>,
    pub task: String,
    pub scope: Scope,
    pub issued_ns: i64,
    pub expires_ns: i64,
}

/// A signed token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Token {
    pub claims: Claims,
    /// HMAC-SHA256 of the claims' JSON, hex.
    pub signature: String,
}

/// The workspace's delegation key: 32 random bytes in `.nerd/delegation.key`, made on first use (mode 0600).
pub struct Key(Vec<u8>);

impl Key {
    pub fn path(root: &Path) -> PathBuf {
        root.join(".nerd").join(KEY_FILE)
    }

    pub fn load_or_create(root: &Path) -> Result<Key, DelegationError> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = Key::path(root);
        let fail = |source| DelegationError::Key { path: path.clone(), source };
        match std::fs::read(&path) {
            Ok(bytes) if bytes.len() == 32 => return Ok(Key(bytes)),
            Ok(_) => return Err(fail(std::io::Error::other("the key is not 32 bytes; nerd never rewrites it"))),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
            Err(_) => {}
        }
        crate::store::nerd_dir(root).map_err(|e| fail(std::io::Error::other(e.to_string())))?;
        let bytes = random_bytes(32).map_err(fail)?;
        // create_new: two processes racing both end up with the one key written first.
        match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(&path) {
            Ok(mut f) => {
                use std::io::Write;
                f.write_all(&bytes).and_then(|_| f.sync_all()).map_err(fail)?;
                Ok(Key(bytes))
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Key::load_or_create(root),
            Err(e) => Err(fail(e)),
        }
    }

    fn mac(&self, claims: &Claims) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(serde_json::to_string(claims).unwrap_or_default().as_bytes());
        mac
    }

    pub fn sign(&self, claims: Claims) -> Token {
        let signature = hex(&self.mac(&claims).finalize().into_bytes());
        Token { claims, signature }
    }

    pub fn verify(&self, token: &Token) -> Result<(), DelegationError> {
        let bytes = unhex(&token.signature).ok_or_else(|| DelegationError::Signature(token.claims.id.clone()))?;
        self.mac(&token.claims).verify_slice(&bytes).map_err(|_| DelegationError::Signature(token.claims.id.clone()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// `n` bytes from the kernel's random source.
fn random_bytes(n: usize) -> Result<Vec<u8>, std::io::Error> {
    let mut bytes = vec![0u8; n];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// A fresh token id: 8 random bytes, hex.
fn new_id() -> Result<String, std::io::Error> {
    Ok(hex(&random_bytes(8)?))
}

impl Token {
    pub fn parse(text: &str) -> Result<Token, DelegationError> {
        let token: Token = serde_json::from_str(text).map_err(|e| DelegationError::Malformed(e.to_string()))?;
        token.claims.scope.check()?;
        Ok(token)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A verified token with its verified ancestors: what a child acts under.
#[derive(Clone, Debug)]
pub struct Chain {
    /// Leaf first.
    pub tokens: Vec<Token>,
}

impl Chain {
    pub fn leaf(&self) -> &Token {
        &self.tokens[0]
    }

    pub fn id(&self) -> &str {
        &self.leaf().claims.id
    }

    /// The intersection of every scope on the chain.
    pub fn scope(&self) -> Scope {
        let mut tokens = self.tokens.iter().rev();
        let first = tokens.next().map(|t| t.claims.scope.clone()).unwrap_or_default();
        tokens.fold(first, |acc, t| acc.narrow(&t.claims.scope))
    }

    pub fn allows_kind(&self, kind: ActionKind) -> bool {
        self.tokens.iter().all(|t| t.claims.scope.allows_kind(kind))
    }

    /// Whether the chain allows nothing beyond reading and searching.
    pub fn reads_only(&self) -> bool {
        ActionKind::ALL
            .iter()
            .filter(|k| !matches!(k, ActionKind::ReadFile | ActionKind::Search))
            .all(|k| !self.allows_kind(*k))
    }

    pub fn allows_path(&self, path: &str) -> bool {
        self.tokens.iter().all(|t| t.claims.scope.allows_path(path))
    }

    /// Every token's path globs compiled once: a path is allowed when each token allows it.
    pub fn path_matcher(&self) -> impl Fn(&str) -> bool {
        let matchers: Vec<PathMatcher> = self.tokens.iter().map(|t| t.claims.scope.path_matcher()).collect();
        move |path: &str| matchers.iter().all(|m| m.allows(path))
    }

    pub fn allows_program(&self, program: &str) -> bool {
        self.tokens.iter().all(|t| t.claims.scope.allows_program(program))
    }

    pub fn allows_host(&self, host: &str) -> bool {
        self.tokens.iter().all(|t| t.claims.scope.allows_host(host))
    }

    /// Why the chain no longer holds at `now_ns`, read fresh from the state: revoked or expired.
    pub fn void(&self, state: &StateDb, now_ns: i64) -> Result<Option<String>, DelegationError> {
        for (i, t) in self.tokens.iter().enumerate() {
            let who = if i == 0 { String::new() } else { format!(" (ancestor {})", t.claims.id) };
            let row = state.delegation(&t.claims.id)?;
            if row.as_ref().is_none_or(|r| r.revoked_ns.is_some()) {
                return Ok(Some(format!("revoked{who}")));
            }
            if now_ns > t.claims.expires_ns {
                return Ok(Some(format!("expired{who}")));
            }
        }
        Ok(None)
    }
}

/// Issues a token for a child under `parent` (none: the person at the terminal), records it, and returns it.
pub fn issue(
    root: &Path,
    state: &StateDb,
    parent: Option<&Chain>,
    specialist: Option<&str>,
    task: &str,
    wanted: &Scope,
    lifetime_ns: i64,
) -> Result<Token, DelegationError> {
    let key = Key::load_or_create(root)?;
    let scope = match parent {
        Some(chain) => chain.scope().narrow(wanted),
        None => Scope::whole().narrow(wanted),
    };
    scope.check()?;
    let now = crate::timing::now_ns();
    let expires = parent.map_or(i64::MAX, |c| c.tokens.iter().map(|t| t.claims.expires_ns).min().unwrap_or(i64::MAX));
    let id = new_id().map_err(|source| DelegationError::Key { path: PathBuf::from("/dev/urandom"), source })?;
    let token = key.sign(Claims {
        id: id.clone(),
        parent: parent.map(|c| c.id().to_string()),
        specialist: specialist.map(str::to_string),
        task: task.to_string(),
        scope,
        issued_ns: now,
        expires_ns: now.saturating_add(lifetime_ns).min(expires),
    });
    state.delegation_insert(&DelegationRow {
        id,
        parent: token.claims.parent.clone(),
        specialist: token.claims.specialist.clone(),
        task: task.to_string(),
        token: token.to_json(),
        issued_ns: token.claims.issued_ns,
        expires_ns: token.claims.expires_ns,
        revoked_ns: None,
        pid: None,
        status: "issued".into(),
        result: None,
    })?;
    Ok(token)
}

/// Verifies `token` and every ancestor on record against the workspace's key.
pub fn verify(root: &Path, state: &StateDb, token: Token) -> Result<Chain, DelegationError> {
    let key = Key::load_or_create(root)?;
    key.verify(&token)?;
    let mut tokens = vec![token];
    while let Some(parent) = tokens.last().and_then(|t| t.claims.parent.clone()) {
        if tokens.iter().any(|t| t.claims.id == parent) {
            return Err(DelegationError::Malformed(format!("delegation {parent} is its own ancestor")));
        }
        let row = state.delegation(&parent)?.ok_or_else(|| DelegationError::Unknown(parent.clone()))?;
        let t = Token::parse(&row.token)?;
        key.verify(&t)?;
        tokens.push(t);
    }
    Ok(Chain { tokens })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(kinds: &[&str], paths: &[&str], programs: Option<&[&str]>) -> Scope {
        Scope {
            kinds: kinds.iter().map(|s| s.to_string()).collect(),
            paths: paths.iter().map(|s| s.to_string()).collect(),
            programs: programs.map(|p| p.iter().map(|s| s.to_string()).collect()),
            hosts: None,
        }
    }

    #[test]
    fn narrowing_keeps_only_what_both_allow() {
        let parent = scope(&["read_file", "write_file"], &["docs/**"], Some(&["cargo"]));
        let wanted = scope(&["write_file", "exec"], &["docs/api/**", "src/**"], Some(&["cargo", "git"]));
        let child = parent.narrow(&wanted);
        assert_eq!(child, scope(&["write_file"], &["docs/api/**"], Some(&["cargo"])));
        assert!(child.allows_path("docs/api/x.md") && !child.allows_path("src/lib.rs"));
        assert!(glob_within("docs/a.md", "docs/**") && !glob_within("doc*/a.md", "docs/**"));
        assert!(!glob_within("docsx/a.md", "docs/**"));
    }

    /// No sequence of delegations widens a scope: for random chains, whatever
    /// the leaf allows every ancestor allows, on every probe.
    #[test]
    fn no_sequence_of_delegations_widens_a_scope() {
        let kinds = ["read_file", "write_file", "exec", "search", "spawn", "net_request"];
        let globs = ["**", "src/**", "src/api/**", "docs/**", "docs/guide.md", "tests/**", "src/*.rs", "*.md"];
        let programs = ["cargo", "git", "pytest", "go"];
        let probes = ["src/lib.rs", "src/api/v1.rs", "docs/guide.md", "docs/x/y.md", "tests/t.py", "README.md", "a/b"];
        let mut seed: u64 = 0x9e3779b97f4a7c15;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..2000 {
            let random_scope = |next: &mut dyn FnMut(usize) -> usize| Scope {
                kinds: (0..next(4) + 1).map(|_| kinds[next(kinds.len())].to_string()).collect(),
                paths: (0..next(3) + 1).map(|_| globs[next(globs.len())].to_string()).collect(),
                programs: (next(3) > 0)
                    .then(|| (0..next(3)).map(|_| programs[next(programs.len())].to_string()).collect()),
                hosts: None,
            };
            let mut chain = vec![Scope::whole().narrow(&random_scope(&mut next))];
            for _ in 0..next(5) {
                let wanted = random_scope(&mut next);
                let parent = chain.last().cloned().unwrap_or_default();
                chain.push(parent.narrow(&wanted));
            }
            for w in chain.windows(2) {
                let (parent, child) = (&w[0], &w[1]);
                assert!(child.kinds.is_subset(&parent.kinds), "{parent:?} -> {child:?}");
                for p in probes {
                    assert!(!child.allows_path(p) || parent.allows_path(p), "{p}: {parent:?} -> {child:?}");
                }
                for p in programs {
                    assert!(!child.allows_program(p) || parent.allows_program(p), "{p}: {parent:?} -> {child:?}");
                }
            }
        }
    }

    #[test]
    fn a_changed_token_fails_its_signature() {
        let key = Key(vec![7; 32]);
        let claims = Claims {
            id: "t1".into(),
            parent: None,
            specialist: Some("docs".into()),
            task: "how do I".into(),
            scope: scope(&["read_file"], &["**"], None),
            issued_ns: 1,
            expires_ns: 2,
        };
        let token = key.sign(claims);
        assert!(key.verify(&token).is_ok());
        let mut widened = token.clone();
        widened.claims.scope.kinds.insert("write_file".into());
        assert!(matches!(key.verify(&widened), Err(DelegationError::Signature(_))));
        assert!(Key(vec![8; 32]).verify(&token).is_err());
        let mut garbled = token;
        garbled.signature = "zz".into();
        assert!(key.verify(&garbled).is_err());
    }
}
