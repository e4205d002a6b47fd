//! A page read as a document: its headings, paragraphs, list items and code
//! blocks in the order a person reads them, as Markdown-like text, and the
//! links it holds, resolved against the page's address. The text of
//! navigation, page headers and footers is left out; their links are kept
//! (a documentation site's table of contents lives there). This is what research reads of a page;
//! the page's text stays data (knowledge atoms), never instructions.
//! Knows nothing about the router, the kernel or research.

use std::collections::{BTreeSet, HashMap};

use super::snapshot::{Node, Snapshot};

/// Elements whose text is one block of the document.
const BLOCKS: &[&str] = &[
    "H1",
    "H2",
    "H3",
    "H4",
    "H5",
    "H6",
    "P",
    "LI",
    "PRE",
    "DT",
    "DD",
    "BLOCKQUOTE",
    "TD",
    "TH",
    "FIGCAPTION",
    "CAPTION",
];
/// Elements around what is not the page's content: site navigation and chrome.
const CHROME: &[&str] = &["NAV", "HEADER", "FOOTER", "ASIDE", "BUTTON", "SELECT", "FORM"];

/// A page as research reads it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    pub url: String,
    pub title: String,
    /// Headings as `#` lines, paragraphs, `- ` list items and fenced code, blank lines between.
    pub text: String,
    /// Every `<a href>` of the page, absolute, without fragments, in order, once each: a site's
    /// table of contents is usually in its navigation, whose text is left out.
    pub links: Vec<String>,
}

/// Where a node's text goes.
#[derive(Clone, Copy)]
enum Place<'a> {
    /// Site chrome: nowhere.
    Chrome,
    /// The outermost content block around it.
    Block(&'a Node),
    /// No block around it: loose text in this container, a paragraph of its own.
    Loose(&'a Node),
}

fn place_of<'a>(id: &str, by_id: &HashMap<&str, &'a Node>, memo: &mut HashMap<String, Place<'a>>) -> Option<Place<'a>> {
    if let Some(known) = memo.get(id) {
        return Some(*known);
    }
    // Ancestors first, iteratively: a deep page never recurses deeply.
    let mut chain: Vec<&'a Node> = Vec::new();
    let mut at = by_id.get(id).copied();
    let mut above = None;
    while let Some(node) = at {
        if let Some(known) = memo.get(node.id.as_str()) {
            above = Some(*known);
            break;
        }
        chain.push(node);
        at = by_id.get(node.parent.as_str()).copied();
    }
    for node in chain.into_iter().rev() {
        let here = match above {
            _ if CHROME.contains(&node.tag.as_str()) => Place::Chrome,
            Some(Place::Chrome) => Place::Chrome,
            Some(Place::Block(b)) => Place::Block(b),
            _ if BLOCKS.contains(&node.tag.as_str()) => Place::Block(node),
            _ => Place::Loose(node),
        };
        memo.insert(node.id.clone(), here);
        above = Some(here);
    }
    memo.get(id).copied()
}

/// A link's address, absolute against `base`, without its fragment; `None` for other schemes.
pub fn absolute(base: &str, href: &str) -> Option<String> {
    let href = href.trim();
    let lower = href.to_ascii_lowercase();
    if href.is_empty()
        || href.starts_with('#')
        || ["javascript:", "mailto:", "data:", "tel:"].iter().any(|p| lower.starts_with(p))
    {
        return None;
    }
    let joined = join(base, href);
    let joined = joined.split('#').next().unwrap_or(&joined).to_string();
    (joined.starts_with("http://") || joined.starts_with("https://")).then_some(joined)
}

/// An address relative to `base` made absolute (RFC 3986's common cases: absolute, scheme-relative, rooted, relative).
pub fn join(base: &str, location: &str) -> String {
    if location.contains("://") {
        return location.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    if let Some(path) = location.strip_prefix("//") {
        return format!("{scheme}://{path}");
    }
    if location.starts_with('/') {
        return format!("{scheme}://{authority}{location}");
    }
    let path = &rest[authority.len()..];
    let dir = path.split(['?', '#']).next().unwrap_or("").rsplit_once('/').map_or("", |(d, _)| d);
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let (location, tail) = match location.find(['?', '#']) {
        Some(i) => location.split_at(i),
        None => (location, ""),
    };
    let mut segments = location.split('/').peekable();
    while let Some(seg) = segments.next() {
        match seg {
            "." => {}
            ".." => {
                parts.pop();
            }
            s if s.is_empty() && segments.peek().is_none() => parts.push(""),
            s => parts.push(s),
        }
    }
    format!("{scheme}://{authority}/{}{tail}", parts.join("/"))
}

impl Document {
    /// Reads `snapshot` as a document.
    pub fn of(snapshot: &Snapshot) -> Document {
        let by_id: HashMap<&str, &Node> = snapshot.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
        let mut memo = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        let mut texts: HashMap<&str, (String, String)> = HashMap::new();
        let mut links = Vec::new();
        let mut seen = BTreeSet::new();
        for node in &snapshot.nodes {
            if node.tag == "A" {
                let href = node.attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case("href")).map(|(_, v)| v.as_str());
                if let Some(url) = href.and_then(|h| absolute(&snapshot.url, h)) {
                    if seen.insert(url.clone()) {
                        links.push(url);
                    }
                }
            }
            let Some(text) = node.text.as_deref() else { continue };
            let block = match place_of(&node.parent, &by_id, &mut memo) {
                Some(Place::Block(b) | Place::Loose(b)) => b,
                Some(Place::Chrome) | None => continue,
            };
            let entry = texts.entry(block.id.as_str()).or_insert_with(|| {
                order.push(block.id.as_str());
                (block.tag.clone(), String::new())
            });
            let pre = entry.0 == "PRE";
            if !pre && !entry.1.is_empty() && !entry.1.ends_with(' ') && !text.starts_with([',', '.', ';', ':', ')']) {
                entry.1.push(' ');
            }
            entry.1.push_str(text);
        }
        let blocks: Vec<String> = order
            .iter()
            .filter_map(|id| texts.get(id))
            .filter(|(_, t)| !t.trim().is_empty())
            .map(|(tag, t)| match tag.as_str() {
                "H1" | "H2" | "H3" | "H4" | "H5" | "H6" => {
                    let level = tag[1..].parse::<usize>().unwrap_or(1);
                    format!("{} {}", "#".repeat(level), t.trim())
                }
                "LI" | "DT" | "DD" => format!("- {}", t.trim()),
                "PRE" => format!("```\n{}\n```", t.trim_end()),
                _ => t.trim().to_string(),
            })
            .collect();
        Document { url: snapshot.url.clone(), title: snapshot.title.clone(), text: blocks.join("\n\n"), links }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, tag: &str, parent: &str, text: Option<&str>) -> Node {
        Node {
            id: id.into(),
            tag: tag.into(),
            parent: parent.into(),
            text: text.map(str::to_string),
            ..Node::default()
        }
    }

    #[test]
    fn headings_paragraphs_lists_and_code_in_reading_order_without_the_chrome() {
        let mut a = node("a", "A", "p1", None);
        a.attrs = vec![("href".into(), "../api/parse.html#x".into())];
        let mut nav_link = node("l", "A", "nav", None);
        nav_link.attrs = vec![("href".into(), "/elsewhere".into())];
        let snapshot = Snapshot {
            url: "http://127.0.0.1:9/docs/guide/intro.html".into(),
            title: "Intro".into(),
            nodes: vec![
                node("html", "HTML", "", None),
                node("nav", "NAV", "html", None),
                nav_link,
                node("t0", "#text", "l", Some("Home")),
                node("h", "H1", "html", None),
                node("t1", "#text", "h", Some("Parsing")),
                node("p1", "P", "html", None),
                node("t2", "#text", "p1", Some("Call")),
                a,
                node("t3", "#text", "a", Some("parse()")),
                node("t4", "#text", "p1", Some("to read a config file.")),
                node("pre", "PRE", "html", None),
                node("t5", "#text", "pre", Some("cfg = parse(\"a.toml\")\nprint(cfg)")),
                node("ul", "UL", "html", None),
                node("li", "LI", "ul", None),
                node("t6", "#text", "li", Some("Never call parse on untrusted input.")),
            ],
            cut: 0,
        };
        let d = Document::of(&snapshot);
        assert_eq!(
            d.text,
            "# Parsing\n\nCall parse() to read a config file.\n\n```\ncfg = parse(\"a.toml\")\nprint(cfg)\n```\n\n- Never call parse on untrusted input."
        );
        assert_eq!(
            d.links,
            vec!["http://127.0.0.1:9/elsewhere".to_string(), "http://127.0.0.1:9/docs/api/parse.html".to_string()]
        );
    }

    #[test]
    fn links_resolve_against_the_page_and_other_schemes_are_dropped() {
        let base = "https://docs.example/lib/v1/guide.html?x=1";
        assert_eq!(absolute(base, "api.html"), Some("https://docs.example/lib/v1/api.html".into()));
        assert_eq!(absolute(base, "./a/../b.html"), Some("https://docs.example/lib/v1/b.html".into()));
        assert_eq!(absolute(base, "/root.html#top"), Some("https://docs.example/root.html".into()));
        assert_eq!(absolute(base, "//cdn.example/x"), Some("https://cdn.example/x".into()));
        assert_eq!(absolute(base, "#section"), None);
        assert_eq!(absolute(base, "javascript:void(0)"), None);
        assert_eq!(absolute(base, "mailto:a@b.c"), None);
    }
}
