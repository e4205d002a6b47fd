//! The router's browser and network hands: `browse` (navigate), `click` and
//! `type` in the session's one headless browser, and `net_request` (a GET).
//! Every request a page makes, and every redirect a GET follows, is judged by
//! the constitution as a `net_request` of its own before it leaves; a denied
//! one is refused and reported. Each browser action leaves a fresh snapshot
//! in the durable state, where `nerd query` and `nerd why` read its facts.
//! Knows nothing about why an action was proposed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use std::time::{Duration, Instant};

use nerd_logic::Facts;

use super::{Output, PageVisit, Router};
use crate::browser::{Browser, Gate, Options, Snapshot, Traffic};
use crate::policy::{self, Action, Verdict, ACTION_ID};
use crate::store::PageRow;

/// Bytes of a response body a GET returns.
pub const MAX_RESPONSE_BYTES: u64 = 2 << 20;
/// Redirects a GET follows, each judged.
const MAX_REDIRECTS: usize = 5;

/// The constitution, asked about each request a page or a redirect makes:
/// only its denials count (the action that caused the request was approved).
/// Requests whose targets read the same (host, port, class, exfiltration
/// signs) get the same judgement, so each such target is evaluated once.
struct Judge<'a> {
    router: &'a Router,
    judged: RefCell<HashMap<String, Result<(), String>>>,
}

impl<'a> Judge<'a> {
    fn new(router: &'a Router) -> Judge<'a> {
        Judge { router, judged: RefCell::new(HashMap::new()) }
    }
}

impl Gate for Judge<'_> {
    fn judge(&self, url: &str, _method: &str, body: Option<&str>) -> Result<(), String> {
        let request = Action::NetRequest { url: url.to_string(), body: body.map(str::to_string) };
        if let Err(e) = request.validate() {
            return Err(e.to_string());
        }
        let key = match policy::url::target(url, body) {
            Ok(t) => format!("{}|{}|{:?}|{:?}", t.host, t.port, t.class, t.exfiltration),
            Err(e) => return Err(format!("unreadable URL: {e}")),
        };
        if let Some(known) = self.judged.borrow().get(&key) {
            return known.clone();
        }
        let fixpoint = nerd_logic::evaluate(self.router.facts_for(Some(&request)));
        let decision = policy::verdict(&fixpoint, ACTION_ID, self.router.project.autonomy(self.router.autonomy));
        let judged = match decision.decision {
            Verdict::Deny => Err(decision.reasons.join("; ")),
            Verdict::Allow | Verdict::Ask => Ok(()),
        };
        self.judged.borrow_mut().insert(key, judged.clone());
        judged
    }
}

impl Router {
    /// `allow_host` and `allow_subdomains` for each of the user's `[policy] allow_hosts` entries.
    pub(super) fn host_facts(&self, f: &mut Facts) {
        for p in self.hosts.patterns() {
            let (host, subdomains, port) = p.parts();
            let row = (f.sym(host), port.map_or(0, u32::from));
            if subdomains {
                f.allow_subdomains.push(row);
            } else {
                f.allow_host.push(row);
            }
        }
    }

    /// The proxy bypass entries of the hosts the allowlist holds: all else meets the refusing proxy.
    fn bypass(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for d in nerd_logic::constitution::NETWORK_ALLOW {
            out.push(d.to_string());
            out.push(format!("*.{d}"));
        }
        out.extend(self.hosts.patterns().iter().map(|p| p.to_string()));
        out
    }

    /// The session's browser, started on first use.
    fn with_browser<T>(
        &self,
        start: bool,
        act: impl FnOnce(&mut Browser, &Judge<'_>) -> Result<T, String>,
    ) -> Result<(T, Option<Duration>, u32), String> {
        let mut slot = self.browser.lock().map_err(|_| "the browser's lock was poisoned".to_string())?;
        let mut launched = None;
        if slot.is_none() {
            if !start {
                return Err("no page is open in this session: browse a URL first".into());
            }
            let options = Options {
                bypass: self.bypass(),
                timeout: self.timeout.min(Duration::from_secs(60)),
                cancel: self.cancel.clone(),
            };
            let browser = Browser::launch(options).map_err(|e| e.to_string())?;
            launched = Some(browser.launch);
            *slot = Some(browser);
        }
        let Some(browser) = slot.as_mut() else { return Err("the browser is gone".into()) };
        let pid = browser.pid();
        let result = act(browser, &Judge::new(self));
        // A browser that went away is not kept: the next browse starts a fresh one.
        if result.is_err() && slot.as_mut().is_some_and(|b| !b.alive()) {
            *slot = None;
        }
        result.map(|t| (t, launched, pid))
    }

    /// Carries out one browser action and keeps the snapshot of the page it leaves.
    pub(super) fn browse(&self, action: &Action) -> Result<Output, String> {
        let started = Instant::now();
        let start = matches!(action, Action::Browse { .. });
        let ((traffic, snapshot, times), launched, pid) = self.with_browser(start, |b, judge| {
            let acting = Instant::now();
            let traffic: Traffic = match action {
                Action::Browse { url } => b.navigate(url, judge),
                Action::Click { node } => b.click(node, judge),
                Action::Type { node, text } => b.type_text(node, text, judge),
                _ => return Err(format!("{} is not a browser action", action.kind())),
            }
            .map_err(|e| e.to_string())?;
            let load = acting.elapsed();
            let snapshot = b.snapshot(judge).map_err(|e| e.to_string())?;
            Ok((traffic, snapshot, [load, b.capture, b.projection]))
        })?;
        let [load, capture, projection] = times.map(|d| d.as_millis() as u64);
        let snapshot_sha256 = self.keep_page(&snapshot)?;
        let visit = PageVisit {
            url: snapshot.url.clone(),
            title: snapshot.title.clone(),
            nodes: snapshot.nodes.len(),
            cut: snapshot.cut,
            traffic,
            launch_ms: launched.map(|d| d.as_millis() as u64),
            load_ms: load,
            capture_ms: capture,
            projection_ms: projection,
            wall_ms: started.elapsed().as_millis() as u64,
            browser_pid: pid,
            snapshot_sha256,
        };
        Ok(Output::Page { visit, snapshot: Box::new(snapshot) })
    }

    /// Keeps the snapshot in the state; returns the digest of what was kept.
    fn keep_page(&self, snapshot: &Snapshot) -> Result<String, String> {
        let json = serde_json::to_string(snapshot).map_err(|e| e.to_string())?;
        let digest = crate::digest::sha256_hex(json.as_bytes());
        let row = PageRow {
            url: snapshot.url.clone(),
            title: snapshot.title.clone(),
            session: self.session.clone(),
            taken_ns: crate::timing::now_ns(),
            snapshot: json,
        };
        self.state.save_page(&row).map_err(|e| e.to_string())?;
        Ok(digest)
    }

    /// Stops the session's browser and its whole process tree now.
    pub fn close_browser(&self) {
        if let Ok(mut slot) = self.browser.lock() {
            *slot = None;
        }
    }

    /// A GET of `url`, following at most `MAX_REDIRECTS` redirects, each judged first.
    pub(super) fn net_request(&self, url: &str, body: Option<&str>) -> Result<Output, String> {
        if body.is_some() {
            return Err("net_request only GETs: a request body is never sent".into());
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(self.timeout.min(Duration::from_secs(60))))
            .max_redirects(0)
            .http_status_as_error(false)
            .proxy(None)
            .build()
            .into();
        let judge = Judge::new(self);
        let mut current = url.to_string();
        let mut redirects = Vec::new();
        loop {
            let mut response = agent.get(&current).call().map_err(|e| format!("cannot reach {current}: {e}"))?;
            let status = response.status().as_u16();
            let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_string);
            if let (300..=399, Some(location)) = (status, location) {
                let next = crate::browser::document::join(&current, &location);
                if redirects.len() >= MAX_REDIRECTS {
                    return Err(format!("more than {MAX_REDIRECTS} redirects (the last to {next})"));
                }
                judge.judge(&next, "GET", None).map_err(|why| format!("the redirect to {next} is refused: {why}"))?;
                redirects.push(next.clone());
                current = next;
                continue;
            }
            let content_type =
                response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string();
            let mut bytes = Vec::new();
            response
                .body_mut()
                .as_reader()
                .take(MAX_RESPONSE_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|e| format!("reading {current}: {e}"))?;
            let truncated = bytes.len() as u64 > MAX_RESPONSE_BYTES;
            bytes.truncate(MAX_RESPONSE_BYTES as usize);
            return Ok(Output::Fetched {
                url: current,
                status,
                content_type,
                body: String::from_utf8_lossy(&bytes).into_owned(),
                truncated,
                redirects,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::browser::document::join;

    #[test]
    fn redirects_are_resolved_against_the_url_they_came_from() {
        assert_eq!(join("http://a.example/x/y?q", "/z"), "http://a.example/z");
        assert_eq!(join("http://a.example/x/y", "z"), "http://a.example/x/z");
        assert_eq!(join("https://a.example:8443/x", "//b.example/"), "https://b.example/");
        assert_eq!(join("http://a.example/", "https://c.example/p"), "https://c.example/p");
    }
}
