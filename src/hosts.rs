//! Hosts a sandboxed program may reach through nerd's proxy: the user's
//! `[policy] allow_hosts` entries parsed into checked patterns, and the
//! judgement of one `host:port` a program asks for, by name and by the
//! addresses the name resolves to. Also the class of an IP address (public,
//! private, loopback, cloud metadata), shared with the constitution's URL
//! reading. Knows nothing about sockets, the sandbox or who asks.

use std::net::{IpAddr, SocketAddr, ToSocketAddrs};

use nerd_logic::vocab::NetClass;

/// Where the user allows hosts, for every message that says how.
pub const WHERE_ALLOWED: &str = "[policy] allow_hosts in ~/.config/nerd/config.toml";

/// One entry of `allow_hosts`: `pypi.org` (that host), `*.pythonhosted.org`
/// (its subdomains, not itself), either with `:PORT` (only that port; else
/// 80 and 443), or an IP address (`10.0.0.5`, `[fd00::1]:8080`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostPattern {
    host: String,
    subdomains: bool,
    port: Option<u16>,
}

impl HostPattern {
    /// Parses one entry; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<HostPattern, String> {
        let t = text.trim();
        if t.contains("://") || t.contains('/') || t.contains('@') {
            return Err(format!("`{text}` must be a host (`pypi.org`, `*.example.com`, `host:8443`), not a URL"));
        }
        let (host, port) = split_port(t).ok_or_else(|| format!("`{text}` has a bad port"))?;
        let (subdomains, host) = match host.strip_prefix("*.") {
            Some(rest) => (true, rest),
            None => (false, host),
        };
        let host = normalise(host);
        let is_ip = host.parse::<IpAddr>().is_ok();
        let label_ok = |l: &str| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if host.is_empty() || (!is_ip && !host.split('.').all(label_ok)) || (subdomains && is_ip) {
            return Err(format!(
                "`{text}` is not a host name or address (a `*.` prefix is the only wildcard, for subdomains)"
            ));
        }
        if !subdomains && !is_ip && !host.contains('.') && host != "localhost" {
            return Err(format!("`{text}` is a bare name; write the full host (`{host}.example.com`)"));
        }
        Ok(HostPattern { host, subdomains, port })
    }

    /// Whether this entry names `host` (already normalised) on `port`.
    fn covers(&self, host: &str, port: u16) -> bool {
        let port_ok = match self.port {
            Some(p) => p == port,
            None => port == 80 || port == 443,
        };
        let host_ok = if self.subdomains {
            host.strip_suffix(self.host.as_str()).is_some_and(|head| head.ends_with('.') && head.len() > 1)
        } else {
            host == self.host
        };
        port_ok && host_ok
    }

    /// The host (or domain, for a `*.` entry), whether it names subdomains, and its port if it names one.
    pub fn parts(&self) -> (&str, bool, Option<u16>) {
        (&self.host, self.subdomains, self.port)
    }

    fn is_address(&self) -> bool {
        self.host.parse::<IpAddr>().is_ok()
    }
}

impl std::fmt::Display for HostPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let star = if self.subdomains { "*." } else { "" };
        let host = if self.host.contains(':') { format!("[{}]", self.host) } else { self.host.clone() };
        match self.port {
            Some(p) => write!(f, "{star}{host}:{p}"),
            None => write!(f, "{star}{host}"),
        }
    }
}

/// `host[:port]`, `[v6]` or `[v6]:port`; `None` for a bad port.
fn split_port(t: &str) -> Option<(&str, Option<u16>)> {
    if let Some(rest) = t.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after.strip_prefix(':') {
            Some(p) => Some((host, Some(p.parse().ok().filter(|&p| p > 0)?))),
            None if after.is_empty() => Some((host, None)),
            None => None,
        };
    }
    match t.rsplit_once(':') {
        // More than one colon without brackets: a bare IPv6 address.
        Some((host, _)) if host.contains(':') => Some((t, None)),
        Some((host, p)) => Some((host, Some(p.parse().ok().filter(|&p| p > 0)?))),
        None => Some((t, None)),
    }
}

/// Lower case, no trailing dot, no brackets.
fn normalise(host: &str) -> String {
    host.trim_start_matches('[').trim_end_matches(']').trim_end_matches('.').to_ascii_lowercase()
}

/// The hosts sandboxed programs may reach through nerd's proxy. Empty: none
/// (the default), and then no proxy runs at all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostAllowance {
    patterns: Vec<HostPattern>,
}

/// Why a host was not reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No entry of `allow_hosts` names it (on that port).
    NotAllowed,
    /// An allowed name resolved to a loopback, private or metadata address
    /// (DNS rebinding); listing the address itself allows it.
    Internal(IpAddr),
    /// The name did not resolve.
    Unresolved(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotAllowed => f.write_str("not in [policy] allow_hosts"),
            Refusal::Internal(ip) => write!(
                f,
                "it resolves to {ip}, a {} address; only an entry naming that address allows it",
                class_word(ip_class(*ip))
            ),
            Refusal::Unresolved(why) => write!(f, "it does not resolve ({why})"),
        }
    }
}

fn class_word(c: NetClass) -> &'static str {
    match c {
        NetClass::Loopback => "loopback",
        NetClass::Private => "private",
        NetClass::Metadata => "cloud metadata",
        NetClass::Public => "public",
    }
}

impl HostAllowance {
    /// Parses every entry; the first bad one is the error.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<HostAllowance, String> {
        let patterns = entries.iter().map(|e| HostPattern::parse(e.as_ref())).collect::<Result<_, _>>()?;
        Ok(HostAllowance { patterns })
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    pub fn patterns(&self) -> &[HostPattern] {
        &self.patterns
    }

    /// Whether `host:port` may be reached, and at which addresses. A name is
    /// resolved here; its loopback, private and metadata addresses are never
    /// used unless an entry names the address itself.
    pub fn judge(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
        let host = normalise(host);
        let Some(entry) = self.patterns.iter().find(|p| p.covers(&host, port)) else {
            return Err(Refusal::NotAllowed);
        };
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let resolved: Vec<SocketAddr> =
            (host.as_str(), port).to_socket_addrs().map_err(|e| Refusal::Unresolved(e.to_string()))?.collect();
        if let Some(inner) = resolved.iter().find(|a| ip_class(a.ip()) != NetClass::Public) {
            if !entry.is_address() {
                return Err(Refusal::Internal(inner.ip()));
            }
        }
        if resolved.is_empty() {
            return Err(Refusal::Unresolved("no address".into()));
        }
        Ok(resolved)
    }
}

impl std::fmt::Display for HostAllowance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: Vec<String> = self.patterns.iter().map(ToString::to_string).collect();
        f.write_str(&shown.join(", "))
    }
}

/// The class of an address: loopback, private (RFC 1918, CGNAT, link-local,
/// IPv6 unique-local), cloud metadata (169.254.0.0/16, fd00:ec2::/32), else public.
pub fn ip_class(ip: IpAddr) -> NetClass {
    match ip {
        IpAddr::V4(ip) => {
            let o = ip.octets();
            if o[0] == 169 && o[1] == 254 || (o[0] == 100 && o[1] == 100 && o[2] == 100 && o[3] == 200) {
                NetClass::Metadata
            } else if ip.is_loopback() || ip.is_unspecified() {
                NetClass::Loopback
            } else if ip.is_private() || ip.is_link_local() || (o[0] == 100 && (64..128).contains(&o[1])) {
                NetClass::Private
            } else {
                NetClass::Public
            }
        }
        IpAddr::V6(ip) => {
            let s = ip.segments();
            if s[0] == 0xfd00 && s[1] == 0x0ec2 {
                NetClass::Metadata
            } else if ip.is_loopback() || ip.is_unspecified() {
                NetClass::Loopback
            } else if (s[0] & 0xfe00) == 0xfc00 || (s[0] & 0xffc0) == 0xfe80 {
                NetClass::Private
            } else if let Some(v4) = ip.to_ipv4_mapped() {
                ip_class(IpAddr::V4(v4))
            } else {
                NetClass::Public
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(entries: &[&str]) -> HostAllowance {
        HostAllowance::parse(entries).unwrap()
    }

    #[test]
    fn entries_match_and_do_not_match() {
        let a = allow(&["pypi.org", "*.pythonhosted.org", "git.example.com:8443", "203.0.113.7", "[2001:db8::1]:8080"]);
        let matches = [
            ("pypi.org", 443),
            ("PyPI.org.", 80),
            ("files.pythonhosted.org", 443),
            ("a.b.pythonhosted.org", 443),
            ("git.example.com", 8443),
            ("203.0.113.7", 443),
            ("2001:db8::1", 8080),
        ];
        for (host, port) in matches {
            let covered = a.patterns.iter().any(|p| p.covers(&normalise(host), port));
            assert!(covered, "{host}:{port} should match");
        }
        let not_matches = [
            ("pypi.org", 22),
            ("evil-pypi.org", 443),
            ("pypi.org.evil.com", 443),
            ("pythonhosted.org", 443),
            ("xpythonhosted.org", 443),
            ("git.example.com", 443),
            ("203.0.113.8", 443),
            ("2001:db8::1", 443),
        ];
        for (host, port) in not_matches {
            assert_eq!(a.judge(host, port), Err(Refusal::NotAllowed), "{host}:{port} should not match");
        }
    }

    #[test]
    fn bad_entries_are_errors_that_say_why() {
        for bad in ["https://pypi.org", "pypi.org/simple", "*.*.org", "py*.org", "pypi", "pypi.org:0", "pypi.org:x", ""]
        {
            assert!(HostPattern::parse(bad).is_err(), "`{bad}` should be refused");
        }
        assert_eq!(HostPattern::parse("[::1]:8080").unwrap().to_string(), "[::1]:8080");
        assert_eq!(HostPattern::parse("*.Example.COM").unwrap().to_string(), "*.example.com");
    }

    #[test]
    fn a_name_that_resolves_inside_is_refused_unless_the_address_is_listed() {
        let by_name = allow(&["localhost"]);
        assert!(matches!(by_name.judge("localhost", 443), Err(Refusal::Internal(ip)) if ip.is_loopback()));
        let by_address = allow(&["127.0.0.2:8080"]);
        assert_eq!(by_address.judge("127.0.0.2", 8080).unwrap(), vec!["127.0.0.2:8080".parse().unwrap()]);
    }

    #[test]
    fn addresses_are_classified() {
        let class = |s: &str| ip_class(s.parse().unwrap());
        assert_eq!(class("169.254.169.254"), NetClass::Metadata);
        assert_eq!(class("127.0.0.1"), NetClass::Loopback);
        assert_eq!(class("10.1.2.3"), NetClass::Private);
        assert_eq!(class("100.64.0.1"), NetClass::Private);
        assert_eq!(class("fe80::1"), NetClass::Private);
        assert_eq!(class("::ffff:192.168.0.1"), NetClass::Private);
        assert_eq!(class("93.184.216.34"), NetClass::Public);
    }
}
