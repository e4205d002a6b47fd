//! One page as data: Chromium's `DOMSnapshot.captureSnapshot` (nodes,
//! attributes, text, live control state, layout boxes, computed styles,
//! clickability) and its accessibility tree, parsed once into a `Snapshot`
//! and projected into the kernel's facts (`dom_node`, `dom_attr`, `dom_text`,
//! `dom_prop`, `geometry`, `computed_style`, `interactable`, `ax_role`,
//! `ax_name`, `page`). A page's text is data: it becomes `dom_text` facts and
//! nothing else. Knows nothing about the pipe, the router or the rules.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use nerd_logic::Facts;

use super::BrowserError;

/// The computed styles asked for, in this order.
pub const STYLES: &[&str] = &["display", "visibility", "opacity", "pointer-events"];
/// Nodes projected at most; a bigger page is cut and says so.
pub const MAX_NODES: usize = 20_000;
/// Characters of one text node or attribute value kept.
const MAX_TEXT: usize = 1000;
/// Elements whose text is code or markup, not something a person reads on the page.
const UNREAD: &[&str] = &["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"];

/// A node's first layout box and its computed styles.
type LaidOut = ([i64; 4], Vec<(String, String)>);

/// One projected DOM node.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// `n` and a digest of the node's place in the document (each ancestor's
    /// tag and rank among its like siblings): the same on every load of the same page.
    pub id: String,
    /// Chromium's id of the node, valid while this browser shows this document.
    pub backend: i64,
    /// The element's name in upper case (`INPUT`), or `#text`.
    pub tag: String,
    /// The nearest projected ancestor; empty for the root.
    pub parent: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attrs: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Live state: `checked`, `value`, `selected`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub props: Vec<(String, String)>,
    /// x, y, width, height in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bounds: Option<[i64; 4]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub styles: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clickable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A page at one moment.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub url: String,
    pub title: String,
    pub nodes: Vec<Node>,
    /// Nodes left out beyond `MAX_NODES`.
    #[serde(default)]
    pub cut: usize,
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// Whitespace runs as one space, trimmed.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn bad(what: &str) -> BrowserError {
    BrowserError::Protocol(format!("the DOM snapshot lacks {what}"))
}

/// Reads `captureSnapshot`'s rare data (`{index: [...], value: [...]}`) as node index → string index.
fn rare_strings(v: &Value) -> HashMap<usize, i64> {
    let index = v.get("index").and_then(Value::as_array);
    let value = v.get("value").and_then(Value::as_array);
    match (index, value) {
        (Some(i), Some(v)) => i.iter().zip(v).filter_map(|(i, v)| Some((i.as_u64()? as usize, v.as_i64()?))).collect(),
        _ => HashMap::new(),
    }
}

fn rare_flags(v: &Value) -> std::collections::HashSet<usize> {
    v.get("index")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|i| i.as_u64().map(|i| i as usize)).collect())
        .unwrap_or_default()
}

impl Snapshot {
    /// Parses the replies of `DOMSnapshot.captureSnapshot` (asked for `STYLES`)
    /// and `Accessibility.getFullAXTree`, for the main document.
    pub fn parse(snapshot: &Value, ax: &Value) -> Result<Snapshot, BrowserError> {
        let strings: Vec<&str> = snapshot
            .get("strings")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("strings"))?
            .iter()
            .map(|s| s.as_str().unwrap_or_default())
            .collect();
        let string = |i: &Value| i.as_i64().and_then(|i| usize::try_from(i).ok()).and_then(|i| strings.get(i).copied());
        let doc = snapshot.get("documents").and_then(|d| d.get(0)).ok_or_else(|| bad("a document"))?;
        let nodes = doc.get("nodes").ok_or_else(|| bad("nodes"))?;
        let column = |name: &str| nodes.get(name).and_then(Value::as_array).ok_or_else(|| bad(name));
        let names = column("nodeName")?;
        let parents = column("parentIndex")?;
        let backend = column("backendNodeId")?;
        let types = column("nodeType")?;
        let values = nodes.get("nodeValue").and_then(Value::as_array);
        let attributes = nodes.get("attributes").and_then(Value::as_array);
        let clickable = rare_flags(nodes.get("isClickable").unwrap_or(&Value::Null));
        let checked = rare_flags(nodes.get("inputChecked").unwrap_or(&Value::Null));
        let selected = rare_flags(nodes.get("optionSelected").unwrap_or(&Value::Null));
        let input_values = rare_strings(nodes.get("inputValue").unwrap_or(&Value::Null));
        let text_values = rare_strings(nodes.get("textValue").unwrap_or(&Value::Null));

        // Layout: the first box and styles of each node.
        let mut boxes: HashMap<usize, LaidOut> = HashMap::new();
        if let Some(layout) = doc.get("layout") {
            let index = layout.get("nodeIndex").and_then(Value::as_array).ok_or_else(|| bad("layout nodes"))?;
            let bounds = layout.get("bounds").and_then(Value::as_array).ok_or_else(|| bad("layout bounds"))?;
            let styles = layout.get("styles").and_then(Value::as_array);
            for (k, (n, b)) in index.iter().zip(bounds).enumerate() {
                let Some(n) = n.as_u64().map(|n| n as usize) else { continue };
                if boxes.contains_key(&n) {
                    continue;
                }
                let b: Vec<i64> = b
                    .as_array()
                    .map(|b| b.iter().map(|x| x.as_f64().unwrap_or(0.0).round() as i64).collect())
                    .unwrap_or_default();
                let Ok(b) = <[i64; 4]>::try_from(b) else { continue };
                let style: Vec<(String, String)> = styles
                    .and_then(|s| s.get(k))
                    .and_then(Value::as_array)
                    .map(|s| {
                        STYLES
                            .iter()
                            .zip(s)
                            .filter_map(|(p, v)| Some((p.to_string(), string(v)?.to_string())))
                            .collect()
                    })
                    .unwrap_or_default();
                boxes.insert(n, (b, style));
            }
        }

        let mut ax_of: HashMap<i64, (Option<String>, Option<String>)> = HashMap::new();
        for a in ax.get("nodes").and_then(Value::as_array).into_iter().flatten() {
            let Some(b) = a.get("backendDOMNodeId").and_then(Value::as_i64) else { continue };
            if a.get("ignored").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let role = a.pointer("/role/value").and_then(Value::as_str).unwrap_or_default();
            // Text is projected as `dom_text`; its accessibility node only repeats it.
            if matches!(role, "InlineTextBox" | "StaticText" | "LineBreak") {
                continue;
            }
            let role = Some(role.to_string()).filter(|r| !matches!(r.as_str(), "" | "none" | "generic"));
            let name = a.pointer("/name/value").and_then(Value::as_str).map(collapse).filter(|n| !n.is_empty());
            ax_of.insert(b, (role, name.map(|n| clip(&n))));
        }

        let mut out = Snapshot {
            url: doc.get("documentURL").and_then(string).unwrap_or_default().to_string(),
            title: doc.get("title").and_then(string).map(collapse).unwrap_or_default(),
            ..Default::default()
        };
        // The id each node index projects to; `None` for nodes left out (their children hang on the nearest kept ancestor).
        let mut kept: Vec<Option<String>> = Vec::with_capacity(names.len());
        // Each node's place: its parent's, then its tag and rank among the parent's children of that tag.
        let mut places: Vec<String> = Vec::with_capacity(names.len());
        let mut ranks: HashMap<(Option<usize>, String), usize> = HashMap::new();
        let mut unread: Vec<bool> = Vec::with_capacity(names.len());
        // Preformatted text keeps its line breaks: code on a page is read as code.
        let mut preformatted: Vec<bool> = Vec::with_capacity(names.len());
        for i in 0..names.len() {
            let parent = parents.get(i).and_then(Value::as_i64).and_then(|p| usize::try_from(p).ok());
            let tag = string(&names[i]).unwrap_or_default().to_string();
            let node_type = types.get(i).and_then(Value::as_i64).unwrap_or(0);
            let rank = ranks.entry((parent, tag.clone())).or_insert(0);
            let place = format!("{}/{tag}[{rank}]", parent.and_then(|p| places.get(p)).map_or("", String::as_str));
            *rank += 1;
            places.push(place);
            let in_unread = parent.is_some_and(|p| unread.get(p).copied().unwrap_or(false));
            unread.push(in_unread || UNREAD.contains(&tag.as_str()));
            let in_pre = parent.is_some_and(|p| preformatted.get(p).copied().unwrap_or(false));
            preformatted.push(in_pre || tag == "PRE" || tag == "TEXTAREA");
            let anchor = parent.and_then(|p| kept.get(p).cloned().flatten());
            // Elements (1) and text (3) are projected; the document, comments and doctypes are not.
            let text = match node_type {
                3 => {
                    let raw = values.and_then(|v| v.get(i)).and_then(string).unwrap_or_default();
                    Some(if in_pre {
                        if raw.trim().is_empty() {
                            String::new()
                        } else {
                            raw.to_string()
                        }
                    } else {
                        collapse(raw)
                    })
                }
                1 => None,
                _ => {
                    kept.push(parent.and_then(|p| kept.get(p).cloned().flatten()));
                    continue;
                }
            };
            if text.as_deref().is_some_and(|t| t.is_empty() || in_unread) || out.nodes.len() >= MAX_NODES {
                if out.nodes.len() >= MAX_NODES {
                    out.cut += 1;
                }
                kept.push(anchor);
                continue;
            }
            let id = format!("n{}", &crate::digest::sha256_hex(places[i].as_bytes())[..10]);
            let mut node = Node {
                id: id.clone(),
                backend: backend.get(i).and_then(Value::as_i64).unwrap_or(-1),
                tag: tag.clone(),
                parent: anchor.unwrap_or_default(),
                ..Node::default()
            };
            if let Some(a) = attributes.and_then(|a| a.get(i)).and_then(Value::as_array) {
                for pair in a.chunks(2) {
                    if let [k, v] = pair {
                        node.attrs
                            .push((string(k).unwrap_or_default().to_string(), clip(string(v).unwrap_or_default())));
                    }
                }
            }
            let attr =
                |name: &str| node.attrs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
            let input_type = attr("type").unwrap_or_default().to_ascii_lowercase();
            if tag == "INPUT" && matches!(input_type.as_str(), "checkbox" | "radio") {
                node.props.push(("checked".into(), checked.contains(&i).to_string()));
            }
            // A password field's value is a secret: never projected.
            if input_type != "password" {
                if let Some(v) =
                    input_values.get(&i).or_else(|| text_values.get(&i)).and_then(|v| strings.get(*v as usize))
                {
                    node.props.push(("value".into(), clip(v)));
                }
            }
            if selected.contains(&i) {
                node.props.push(("selected".into(), "true".into()));
            }
            node.text = text.map(|t| clip(&t));
            if let Some((b, styles)) = boxes.get(&i) {
                node.bounds = Some(*b);
                node.styles = styles
                    .iter()
                    .filter(|(p, v)| match p.as_str() {
                        "display" => node.text.is_none(),
                        "visibility" => v != "visible",
                        "opacity" => v != "1",
                        "pointer-events" => v != "auto",
                        _ => false,
                    })
                    .cloned()
                    .collect();
            }
            node.clickable = clickable.contains(&i);
            if let Some((role, name)) = backend.get(i).and_then(Value::as_i64).and_then(|b| ax_of.get(&b)) {
                node.role = role.clone();
                node.name = name.clone();
            }
            kept.push(Some(id));
            out.nodes.push(node);
        }
        Ok(out)
    }

    /// The node with this id.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Adds the snapshot's facts to `f`.
    pub fn facts(&self, f: &mut Facts) {
        let row = (f.sym(&self.url), f.sym(&self.title));
        f.page.push(row);
        for n in &self.nodes {
            let id = f.sym(&n.id);
            let row = (id, f.sym(&n.tag), f.sym(&n.parent));
            f.dom_node.push(row);
            for (k, v) in &n.attrs {
                let row = (id, f.sym(k), f.sym(v));
                f.dom_attr.push(row);
            }
            if let Some(t) = &n.text {
                let row = (id, f.sym(t));
                f.dom_text.push(row);
            }
            for (k, v) in &n.props {
                let row = (id, f.sym(k), f.sym(v));
                f.dom_prop.push(row);
            }
            if let Some([x, y, w, h]) = n.bounds {
                f.geometry.push((id, x, y, w, h));
            }
            for (k, v) in &n.styles {
                let row = (id, f.sym(k), f.sym(v));
                f.computed_style.push(row);
            }
            if n.clickable {
                f.interactable.push(id);
            }
            if let Some(r) = &n.role {
                let row = (id, f.sym(r));
                f.ax_role.push(row);
            }
            if let Some(name) = &n.name {
                let row = (id, f.sym(name));
                f.ax_name.push(row);
            }
        }
    }
}
