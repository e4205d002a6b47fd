//! nerd's side of the network allowance: an HTTP proxy serving a listening
//! socket that the child made inside its loopback-only network namespace and
//! handed out before exec. Each request (`CONNECT host:port`, or a plain
//! `GET http://host/…`) is judged against the user's `allow_hosts`; allowed
//! ones are connected from outside the namespace and relayed byte for byte,
//! refused ones get `403` with the reason. Every request is logged for the
//! audit record. Knows nothing about which program runs or why.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use crate::hosts::HostAllowance;

/// The port the proxy listens on inside each sandbox (the namespace is the program's own, so it is free).
pub const PORT: u16 = 41873;
/// Requests logged per run; later ones are counted only.
const LOGGED: usize = 200;
const HEAD_LIMIT: usize = 16 * 1024;
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
/// A relayed connection with no traffic either way for this long is closed.
const IDLE: Duration = Duration::from_secs(600);
/// Requests served at once; more are answered `503` (each costs nerd two threads).
const AT_ONCE: usize = 64;

/// One request a sandboxed program made through the proxy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Connection {
    pub host: String,
    pub port: u16,
    pub allowed: bool,
    /// Why it was refused, or why an allowed one could not be connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

#[derive(Default)]
struct Log {
    kept: Vec<Connection>,
    more: usize,
}

/// The proxy serving one program; `finish` it when the program has ended.
pub struct Proxy {
    listener: TcpListener,
    stopping: Arc<AtomicBool>,
    log: Arc<Mutex<Log>>,
    accepting: Option<JoinHandle<()>>,
}

/// Serves `listener` (made in the child's namespace) for `hosts`, on a thread of its own.
pub fn serve(listener: OwnedFd, hosts: HostAllowance) -> std::io::Result<Proxy> {
    let listener = TcpListener::from(listener);
    let stopping = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Log::default()));
    let accepting = {
        let (listener, stopping, log) = (listener.try_clone()?, stopping.clone(), log.clone());
        let hosts = Arc::new(hosts);
        let busy = Arc::new(AtomicUsize::new(0));
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut client) = client else {
                    // Out of descriptors, say: wait a little rather than spin.
                    std::thread::sleep(Duration::from_millis(20));
                    continue;
                };
                if busy.fetch_add(1, Ordering::SeqCst) >= AT_ONCE {
                    busy.fetch_sub(1, Ordering::SeqCst);
                    let _ = reply(&mut client, "503 Service Unavailable", "nerd's proxy: too many requests at once\n");
                    continue;
                }
                let (hosts, log, busy) = (hosts.clone(), log.clone(), busy.clone());
                std::thread::spawn(move || {
                    serve_one(client, &hosts, &log);
                    busy.fetch_sub(1, Ordering::SeqCst);
                });
            }
        })
    };
    Ok(Proxy { listener, stopping, log, accepting: Some(accepting) })
}

impl Proxy {
    /// Stops accepting and returns the requests served (at most 200), with a count of those not kept.
    pub fn finish(mut self) -> (Vec<Connection>, usize) {
        self.stopping.store(true, Ordering::SeqCst);
        // SAFETY: shutdown(2) on a socket this handle owns; it wakes the blocked accept.
        unsafe { libc::shutdown(self.listener.as_raw_fd(), libc::SHUT_RDWR) };
        if let Some(t) = self.accepting.take() {
            let _ = t.join();
        }
        let log = self.log.lock().map(|l| (l.kept.clone(), l.more)).unwrap_or_default();
        log
    }
}

fn note(log: &Mutex<Log>, c: Connection) {
    if let Ok(mut l) = log.lock() {
        if l.kept.len() < LOGGED {
            l.kept.push(c);
        } else {
            l.more += 1;
        }
    }
}

/// What the program asked the proxy for.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    /// `CONNECT host:port`: a tunnel (HTTPS).
    Tunnel { host: String, port: u16 },
    /// An absolute-form request (`GET http://host:port/path HTTP/1.1`): the head
    /// to send upstream, rewritten to origin form without `Proxy-*` headers.
    Forward { host: String, port: u16, head: Vec<u8> },
}

fn serve_one(mut client: TcpStream, hosts: &HostAllowance, log: &Mutex<Log>) {
    let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
    let Some((head, rest)) = read_head(&mut client) else { return };
    let request = match parse(&head) {
        Ok(r) => r,
        Err(why) => {
            let _ = reply(&mut client, "400 Bad Request", &format!("nerd's proxy: {why}\n"));
            return;
        }
    };
    let (host, port) = match &request {
        Request::Tunnel { host, port } | Request::Forward { host, port, .. } => (host.clone(), *port),
    };
    let addresses = match hosts.judge(&host, port) {
        Ok(a) => a,
        Err(refusal) => {
            let why = refusal.to_string();
            let body = format!(
                "nerd's sandbox refused {host}:{port}: {why}. To let sandboxed programs reach it, add it to {}.\n",
                crate::hosts::WHERE_ALLOWED
            );
            // Logged before the answer: whoever sees the refusal finds it in the log.
            note(log, Connection { host, port, allowed: false, why: Some(why) });
            let _ = reply(&mut client, "403 Forbidden", &body);
            return;
        }
    };
    let mut upstream = match connect(&addresses) {
        Ok(u) => u,
        Err(e) => {
            let why = format!("cannot connect: {e}");
            let answer = format!("nerd's proxy: {host}:{port}: {why}\n");
            note(log, Connection { host, port, allowed: true, why: Some(why) });
            let _ = reply(&mut client, "502 Bad Gateway", &answer);
            return;
        }
    };
    note(log, Connection { host, port, allowed: true, why: None });
    let sent = match request {
        Request::Tunnel { .. } => client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n"),
        Request::Forward { head, .. } => upstream.write_all(&head),
    };
    if sent.and_then(|()| upstream.write_all(&rest)).is_err() {
        return;
    }
    relay(client, upstream);
}

/// Reads up to the end of the request head; returns it and what followed it.
fn read_head(client: &mut TcpStream) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Some((buf, rest));
        }
        if buf.len() > HEAD_LIMIT {
            let _ =
                reply(client, "431 Request Header Fields Too Large", "nerd's proxy: the request head is too long\n");
            return None;
        }
        match client.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

fn parse(head: &[u8]) -> Result<Request, String> {
    let text = std::str::from_utf8(head).map_err(|_| "the request head is not UTF-8".to_string())?;
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or_default();
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(format!("cannot read the request line `{}`", first.chars().take(120).collect::<String>()));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(format!("unsupported protocol `{version}`"));
    }
    if method.eq_ignore_ascii_case("CONNECT") {
        let (host, port) = authority(target, None)?;
        return Ok(Request::Tunnel { host, port });
    }
    let Some(after) = target.strip_prefix("http://") else {
        return Err(format!("`{method} {target}`: only CONNECT and absolute http:// requests go through a proxy"));
    };
    let (auth, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    if auth.contains('@') {
        return Err("credentials in the URL are not passed on".into());
    }
    let (host, port) = authority(auth, Some(80))?;
    let mut out = format!("{method} {path} {version}\r\n");
    for line in lines.filter(|l| !l.is_empty()) {
        let name = line.split(':').next().unwrap_or_default().trim();
        if !name.to_ascii_lowercase().starts_with("proxy-") {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.push_str("\r\n");
    Ok(Request::Forward { host, port, head: out.into_bytes() })
}

/// `host:port` (`[v6]:port`); `default` when the port is left out.
fn authority(text: &str, default: Option<u16>) -> Result<(String, u16), String> {
    let bad = || format!("cannot read the host and port in `{text}`");
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (host, after) = rest.split_once(']').ok_or_else(bad)?;
        (host, after.strip_prefix(':'))
    } else {
        match text.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (text, None),
        }
    };
    let port = match port {
        Some(p) => p.parse::<u16>().ok().filter(|&p| p > 0).ok_or_else(bad)?,
        None => default.ok_or_else(bad)?,
    };
    if host.is_empty() {
        return Err(bad());
    }
    Ok((host.to_string(), port))
}

fn connect(addresses: &[SocketAddr]) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("no address");
    for a in addresses {
        match TcpStream::connect_timeout(a, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn reply(client: &mut TcpStream, status: &str, body: &str) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    client.write_all(head.as_bytes())?;
    client.write_all(body.as_bytes())
}

/// Copies both ways until either side closes or goes idle.
fn relay(client: TcpStream, upstream: TcpStream) {
    let (Ok(client_back), Ok(upstream_back)) = (client.try_clone(), upstream.try_clone()) else { return };
    for s in [&client, &upstream] {
        let _ = s.set_read_timeout(Some(IDLE));
    }
    let down = std::thread::spawn(move || pump(upstream_back, client_back));
    pump(client, upstream);
    let _ = down.join();
}

/// One direction; when it ends, both sockets close, so the other direction ends
/// too (HTTP and TLS clients never half-close, and a held slot would outlive its client).
fn pump(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_as_proxies_receive_them() {
        assert_eq!(
            parse(b"CONNECT pypi.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n"),
            Ok(Request::Tunnel { host: "pypi.org".into(), port: 443 })
        );
        assert_eq!(
            parse(b"CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n"),
            Ok(Request::Tunnel { host: "2001:db8::1".into(), port: 8443 })
        );
        let forward = parse(
            b"GET http://example.com/simple/?q=1 HTTP/1.1\r\nHost: example.com\r\nProxy-Connection: keep-alive\r\nAccept: */*\r\n\r\n",
        )
        .unwrap();
        assert_eq!(
            forward,
            Request::Forward {
                host: "example.com".into(),
                port: 80,
                head: b"GET /simple/?q=1 HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n".to_vec()
            }
        );
        for bad in [
            &b"GET /relative HTTP/1.1\r\n\r\n"[..],
            b"CONNECT pypi.org HTTP/1.1\r\n\r\n",
            b"GET ftp://example.com/ HTTP/1.1\r\n\r\n",
            b"GET http://user:pw@example.com/ HTTP/1.1\r\n\r\n",
            b"CONNECT pypi.org:443 SPDY/3\r\n\r\n",
            b"garbage\r\n\r\n",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    fn head_of(stream: &mut TcpStream) -> String {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
            head.push(byte[0]);
        }
        String::from_utf8_lossy(&head).into_owned()
    }

    #[test]
    fn tunnels_open_to_allowed_hosts_up_to_the_cap_and_every_request_is_logged() {
        // An upstream that holds every connection open.
        let upstream = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = upstream.local_addr().unwrap().port();
        std::thread::spawn(move || {
            let held: Vec<TcpStream> = upstream.incoming().map_while(Result::ok).collect();
            drop(held);
        });
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let at = listener.local_addr().unwrap();
        let hosts = HostAllowance::parse(&[format!("127.0.0.1:{port}")]).unwrap();
        let proxy = serve(OwnedFd::from(listener), hosts).unwrap();
        let connect = |host: &str| {
            let mut c = TcpStream::connect(at).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            c.write_all(format!("CONNECT {host}:{port} HTTP/1.1\r\n\r\n").as_bytes()).unwrap();
            let head = head_of(&mut c);
            (c, head)
        };
        let tunnels: Vec<TcpStream> = (0..AT_ONCE)
            .map(|_| {
                let (c, head) = connect("127.0.0.1");
                assert!(head.starts_with("HTTP/1.1 200"), "{head}");
                c
            })
            .collect();
        assert!(connect("127.0.0.1").1.starts_with("HTTP/1.1 503"), "the cap holds");
        drop(tunnels);
        // Once the tunnels close, requests are served again; a host not allowed is refused.
        std::thread::sleep(Duration::from_millis(200));
        let (_, refused) = connect("127.0.0.9");
        assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
        let (log, more) = proxy.finish();
        assert_eq!(more, 0);
        assert_eq!(log.iter().filter(|c| c.allowed).count(), AT_ONCE);
        assert_eq!(
            log.iter().filter(|c| !c.allowed).map(|c| (c.host.as_str(), c.port)).collect::<Vec<_>>(),
            [("127.0.0.9", port)]
        );
    }
}
