//! Headless Chromium, driven over the DevTools protocol on a pipe: load a
//! page, take a snapshot of it as data, click a node, type into one. Every
//! request the page makes is paused and put to a `Gate` (the router's
//! judgement) before any byte leaves; a refused one fails and is reported.
//! One browser per session, killed with its process tree when dropped.
//! Knows nothing about the kernel's rules, the audit or who asked.

mod cdp;
pub mod document;
mod process;
pub mod snapshot;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use cdp::{Connection, Message};
use process::Process;
pub use snapshot::Snapshot;

/// How long the browser may take to start and answer.
const LAUNCH: Duration = Duration::from_secs(30);
/// How long a click or a keystroke is given to start a navigation.
const SETTLE: Duration = Duration::from_millis(300);

/// Why the browser could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    #[error("no browser to run ({0}); install Debian's chromium (`apt-get install chromium`) or set NERD_CHROMIUM")]
    NotInstalled(String),
    #[error("the browser did not start: {0}")]
    Launch(String),
    #[error("the browser went away: {0}")]
    Gone(String),
    #[error("the browser's protocol: {0}")]
    Protocol(String),
    #[error("the browser refused {method}: {message}")]
    Command { method: String, message: String },
    #[error("the browser did not finish {0} in time")]
    Timeout(String),
    #[error("interrupted")]
    Interrupted,
    #[error(
        "no node {0} on the page the browser shows (node ids are those of its last snapshot: `nerd query dom_node`)"
    )]
    NoSuchNode(String),
    #[error("{url} did not load: {error}")]
    Navigation { url: String, error: String },
}

/// Judges each request a page makes; `Err` holds why it is refused.
pub trait Gate {
    fn judge(&self, url: &str, method: &str, body: Option<&str>) -> Result<(), String>;
}

/// A request the gate refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Blocked {
    pub url: String,
    pub reason: String,
}

/// What one browser action did to the network.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Traffic {
    /// Requests the gate let through.
    pub allowed: usize,
    pub blocked: Vec<Blocked>,
}

/// How the browser is started.
pub struct Options {
    /// Proxy bypass entries for the allowed hosts (`host`, `host:port`, `*.domain`).
    pub bypass: Vec<String>,
    /// The longest a page may take to load.
    pub timeout: Duration,
    pub cancel: Option<Arc<AtomicBool>>,
}

/// What the event handler keeps between messages.
#[derive(Default)]
struct PageState {
    loading: bool,
    loaded: bool,
    traffic: Traffic,
    crashed: Option<String>,
}

/// A running headless browser with one page.
pub struct Browser {
    process: Process,
    conn: Connection,
    session: String,
    timeout: Duration,
    state: PageState,
    /// The last snapshot: node ids are read against it.
    last: Option<Snapshot>,
    /// How long the last snapshot took: Chromium's capture, and its projection into a `Snapshot`.
    pub capture: Duration,
    pub projection: Duration,
    pub launch: Duration,
}

fn on_event(state: &mut PageState, gate: &dyn Gate, conn: &mut Connection, m: &Message) -> Result<(), BrowserError> {
    let p = m.params();
    match m.method() {
        Some("Fetch.requestPaused") => {
            let id = p.get("requestId").and_then(Value::as_str).unwrap_or_default().to_string();
            let url = p.pointer("/request/url").and_then(Value::as_str).unwrap_or_default();
            let method = p.pointer("/request/method").and_then(Value::as_str).unwrap_or("GET");
            let body = p.pointer("/request/postData").and_then(Value::as_str);
            match gate.judge(url, method, body) {
                Ok(()) => {
                    state.traffic.allowed += 1;
                    conn.send(m.session(), "Fetch.continueRequest", json!({ "requestId": id }))?;
                }
                Err(reason) => {
                    state.traffic.blocked.push(Blocked { url: url.to_string(), reason });
                    let params = json!({ "requestId": id, "errorReason": "BlockedByClient" });
                    conn.send(m.session(), "Fetch.failRequest", params)?;
                }
            }
        }
        Some("Page.frameStartedLoading") => {
            state.loading = true;
            state.loaded = false;
        }
        Some("Page.loadEventFired") => {
            state.loading = false;
            state.loaded = true;
        }
        Some("Inspector.detached" | "Target.targetCrashed" | "Target.detachedFromTarget") => {
            state.crashed = Some(m.method().unwrap_or_default().to_string());
        }
        _ => {}
    }
    Ok(())
}

impl Browser {
    /// Starts the browser and opens one blank page whose every request is gated.
    pub fn launch(options: Options) -> Result<Browser, BrowserError> {
        let started = Instant::now();
        let binary = process::find()?;
        let (process, to, from) = Process::start(&binary, &options.bypass)?;
        let conn = Connection::new(to, from, options.cancel);
        let mut browser = Browser {
            process,
            conn,
            session: String::new(),
            timeout: options.timeout,
            state: PageState::default(),
            last: None,
            capture: Duration::ZERO,
            projection: Duration::ZERO,
            launch: Duration::ZERO,
        };
        let deadline = Instant::now() + LAUNCH;
        let first = browser.browser_call("Browser.getVersion", json!({}), deadline);
        if let Err(e) = first {
            let tail = browser.process.stderr_tail();
            return Err(BrowserError::Launch(if tail.is_empty() { e.to_string() } else { format!("{e}: {tail}") }));
        }
        browser.browser_call("Browser.setDownloadBehavior", json!({ "behavior": "deny" }), deadline)?;
        let target = browser.browser_call("Target.createTarget", json!({ "url": "about:blank" }), deadline)?;
        let target = target.get("targetId").and_then(Value::as_str).unwrap_or_default().to_string();
        let attached =
            browser.browser_call("Target.attachToTarget", json!({ "targetId": target, "flatten": true }), deadline)?;
        browser.session = attached.get("sessionId").and_then(Value::as_str).unwrap_or_default().to_string();
        browser.page_call("Page.enable", json!({}), deadline, &Refuse)?;
        browser.page_call("Fetch.enable", json!({ "patterns": [{ "urlPattern": "*" }] }), deadline, &Refuse)?;
        browser.launch = started.elapsed();
        Ok(browser)
    }

    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// Whether the browser process still runs.
    pub fn alive(&mut self) -> bool {
        self.process.alive()
    }

    fn browser_call(&mut self, method: &str, params: Value, deadline: Instant) -> Result<Value, BrowserError> {
        let state = &mut self.state;
        self.conn.call(None, method, params, deadline, &mut |c, m| on_event(state, &Refuse, c, m))
    }

    fn page_call(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
        gate: &dyn Gate,
    ) -> Result<Value, BrowserError> {
        let state = &mut self.state;
        let session = self.session.clone();
        let reply =
            self.conn.call(Some(&session), method, params, deadline, &mut |c, m| on_event(state, gate, c, m))?;
        match self.state.crashed.take() {
            Some(why) => Err(BrowserError::Gone(why)),
            None => Ok(reply),
        }
    }

    /// Reads messages until `done` holds or the deadline passes (`false` then).
    fn wait(&mut self, deadline: Instant, gate: &dyn Gate, done: fn(&PageState) -> bool) -> Result<bool, BrowserError> {
        while !done(&self.state) {
            let Some(m) = self.conn.next(deadline)? else { return Ok(false) };
            if m.method().is_some() {
                on_event(&mut self.state, gate, &mut self.conn, &m)?;
            }
            if let Some(why) = self.state.crashed.take() {
                return Err(BrowserError::Gone(why));
            }
        }
        Ok(true)
    }

    /// Loads `url` and waits for its load event.
    pub fn navigate(&mut self, url: &str, gate: &dyn Gate) -> Result<Traffic, BrowserError> {
        self.state.traffic = Traffic::default();
        self.state.loaded = false;
        let deadline = Instant::now() + self.timeout;
        let reply = self.page_call("Page.navigate", json!({ "url": url }), deadline, gate)?;
        if let Some(error) = reply.get("errorText").and_then(Value::as_str).filter(|e| !e.is_empty()) {
            // The refused request of the document itself (its URL may have been upgraded to https).
            let blocked = self.state.traffic.blocked.iter();
            let error = match blocked.clone().find(|b| b.url == url).or_else(|| blocked.last()) {
                Some(b) => format!("{error}: {} ({})", b.reason, b.url),
                None => error.to_string(),
            };
            return Err(BrowserError::Navigation { url: url.to_string(), error });
        }
        if !self.wait(deadline, gate, |s| s.loaded)? {
            return Err(BrowserError::Timeout(format!("loading {url}")));
        }
        Ok(std::mem::take(&mut self.state.traffic))
    }

    /// Gives a click or keystroke time to start a navigation, and waits for it to load.
    fn settle(&mut self, gate: &dyn Gate) -> Result<(), BrowserError> {
        let _ = self.wait(Instant::now() + SETTLE, gate, |s| s.loading)?;
        if self.state.loading && !self.wait(Instant::now() + self.timeout, gate, |s| s.loaded)? {
            return Err(BrowserError::Timeout("the navigation the action started".into()));
        }
        Ok(())
    }

    /// Clicks the middle of `node` (scrolled into view) with the left button, as a person would.
    pub fn click(&mut self, node: &str, gate: &dyn Gate) -> Result<Traffic, BrowserError> {
        self.state.traffic = Traffic::default();
        let id = self.backend_id(node)?;
        let deadline = Instant::now() + self.timeout;
        let not_found = |e: BrowserError| match e {
            BrowserError::Command { .. } => BrowserError::NoSuchNode(node.to_string()),
            other => other,
        };
        self.page_call("DOM.scrollIntoViewIfNeeded", json!({ "backendNodeId": id }), deadline, gate)
            .map_err(not_found)?;
        let quads =
            self.page_call("DOM.getContentQuads", json!({ "backendNodeId": id }), deadline, gate).map_err(not_found)?;
        let quad: Vec<f64> = quads
            .pointer("/quads/0")
            .and_then(Value::as_array)
            .map(|q| q.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        if quad.len() != 8 {
            return Err(BrowserError::NoSuchNode(format!("{node} (it has no box to click)")));
        }
        let x = (quad[0] + quad[2] + quad[4] + quad[6]) / 4.0;
        let y = (quad[1] + quad[3] + quad[5] + quad[7]) / 4.0;
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            let params = json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 });
            self.page_call("Input.dispatchMouseEvent", params, deadline, gate)?;
        }
        self.settle(gate)?;
        Ok(std::mem::take(&mut self.state.traffic))
    }

    /// Focuses `node` and types `text` into it.
    pub fn type_text(&mut self, node: &str, text: &str, gate: &dyn Gate) -> Result<Traffic, BrowserError> {
        self.state.traffic = Traffic::default();
        let id = self.backend_id(node)?;
        let deadline = Instant::now() + self.timeout;
        self.page_call("DOM.focus", json!({ "backendNodeId": id }), deadline, gate).map_err(|e| match e {
            BrowserError::Command { .. } => BrowserError::NoSuchNode(format!("{node} (it cannot take focus)")),
            other => other,
        })?;
        self.page_call("Input.insertText", json!({ "text": text }), deadline, gate)?;
        // The keystrokes go to whatever holds focus: check they reached the node.
        let focused = self.page_call(
            "Runtime.evaluate",
            json!({ "expression": "document.activeElement && document.activeElement.value", "returnByValue": true }),
            deadline,
            gate,
        )?;
        let value = focused.pointer("/result/value").and_then(Value::as_str).unwrap_or_default();
        if !value.contains(text) {
            return Err(BrowserError::Protocol(format!(
                "the text did not reach {node} (the focused field holds {value:?})"
            )));
        }
        self.settle(gate)?;
        Ok(std::mem::take(&mut self.state.traffic))
    }

    /// The page as it is now.
    pub fn snapshot(&mut self, gate: &dyn Gate) -> Result<Snapshot, BrowserError> {
        let started = Instant::now();
        let deadline = started + self.timeout;
        let params = json!({ "computedStyles": snapshot::STYLES });
        let dom = self.page_call("DOMSnapshot.captureSnapshot", params, deadline, gate)?;
        let ax = self.page_call("Accessibility.getFullAXTree", json!({}), deadline, gate)?;
        self.capture = started.elapsed();
        let snapshot = Snapshot::parse(&dom, &ax)?;
        self.projection = started.elapsed() - self.capture;
        self.last = Some(snapshot.clone());
        Ok(snapshot)
    }

    /// Chromium's id of a node of the last snapshot.
    fn backend_id(&self, node: &str) -> Result<i64, BrowserError> {
        self.last
            .as_ref()
            .and_then(|s| s.node(node))
            .map(|n| n.backend)
            .filter(|b| *b >= 0)
            .ok_or_else(|| BrowserError::NoSuchNode(node.to_string()))
    }
}

/// The gate while nothing is being loaded: every request is refused.
struct Refuse;

impl Gate for Refuse {
    fn judge(&self, _: &str, _: &str, _: Option<&str>) -> Result<(), String> {
        Err("no page is being loaded".into())
    }
}
