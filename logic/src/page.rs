//! The browser page as space: which projected DOM nodes are `visible`, which
//! lies `left_of` or `above` which, and which text `labelled_by` names a
//! control (its accessible name, else the nearest text beside it: the
//! checkbox left of "Agree"). Rules over the snapshot facts `dom_node`,
//! `dom_attr`, `dom_text`, `geometry`, `computed_style`, `interactable` and
//! `ax_name`. Knows nothing about browsers, pages or how a snapshot is taken.

use ascent::aggregators::min;
use ascent::ascent;

use crate::atom::Atom;
use crate::proof::{Premise, Proof};
use crate::schema::{atoms, relation, Facts};
use crate::symbols::{Sym, Symbols};

/// Height of the bands that rows are joined on, in CSS pixels.
const ROW_BAND: i64 = 16;
/// Nodes taller than this are containers, not places on a line.
const MAX_PLACE_HEIGHT: i64 = 1000;
/// The most space between a box and the one `above` it.
pub const ABOVE_GAP: i64 = 48;
/// Bands of `ABOVE_GAP / ROW_BAND` pixels a box's top reaches back over.
const ABOVE_BANDS: i64 = ABOVE_GAP / ROW_BAND + 1;
/// The most space between a checkbox or radio button and the text beside it.
pub const TOGGLE_GAP: i64 = 48;
/// The most space between a text field and the text left of it.
pub const FIELD_GAP: i64 = 240;

/// How a control came by its label, for proofs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum LabelWay {
    /// Chromium's accessible name (a `<label>`, `aria-label`, `aria-labelledby`, a title).
    Name,
    /// The nearest text right of a checkbox or radio button on its line.
    RightOfToggle,
    /// The nearest text left of a field on its line.
    LeftOfField,
    /// The text just above a field with nothing beside it.
    AboveField,
}

ascent! {
    /// Spatial rules over one page snapshot.
    pub struct PageProgram;

    relation dom_node(Sym, Sym, Sym);
    relation dom_text(Sym, Sym);
    relation geometry(Sym, i64, i64, i64, i64);
    relation interactable(Sym);
    relation ax_name(Sym, Sym);
    // Read off the snapshot by the loader: styles that hide, kinds of control, bands.
    relation invisible_style(Sym);
    relation faded(Sym);
    relation toggle(Sym);
    relation field(Sym);
    relation row_band(Sym, i64);
    relation top_band(Sym, i64);
    relation bottom_band(Sym, i64);

    relation transparent(Sym);
    relation hidden(Sym);
    relation visible(Sym);
    relation place(Sym);
    relation text_place(Sym);
    relation control(Sym);
    relation named(Sym);
    relation left_of(Sym, Sym);
    relation above(Sym, Sym);
    relation right_text(Sym, Sym, i64);
    relation left_text(Sym, Sym, i64);
    relation above_text(Sym, Sym, i64);
    relation beside(Sym);
    relation labelled_by(Sym, Sym);
    relation w_labelled(Sym, Sym, LabelWay, Sym, i64);

    // Opacity 0 hides a node and everything inside it; `visibility` is inherited
    // by the computed style itself, so a node's own value decides.
    transparent(n) <-- faded(n);
    transparent(c) <-- dom_node(c, _, p), transparent(p);
    hidden(n) <-- invisible_style(n);
    hidden(n) <-- transparent(n);
    visible(n) <-- geometry(n, _, _, w, h), if *w > 0 && *h > 0, !hidden(n);

    // Places: what a person sees and points at, text and controls.
    place(n) <-- visible(n), interactable(n);
    place(n), text_place(n) <-- visible(n), dom_text(n, _);
    control(c) <-- toggle(c);
    control(c) <-- field(c);
    named(c) <-- control(c), ax_name(c, _);

    // Same line: the boxes share a band and overlap vertically; one ends before the other starts.
    left_of(a, b) <--
        row_band(a, k), row_band(b, k), if a != b, place(a), place(b),
        geometry(a, ax, ay, aw, ah), geometry(b, bx, by, _, bh),
        if *ax + *aw <= *bx && *ay < *by + *bh && *by < *ay + *ah;
    // Same column: the boxes overlap horizontally, one ends at most ABOVE_GAP above the other.
    above(a, b) <--
        bottom_band(a, k), top_band(b, k), if a != b, place(a), place(b),
        geometry(a, ax, ay, aw, ah), geometry(b, bx, by, bw, _),
        if *ay + *ah <= *by && *by - (*ay + *ah) <= ABOVE_GAP && *ax < *bx + *bw && *bx < *ax + *aw;

    // A control is labelled by its accessible name when it has one.
    labelled_by(c, n), w_labelled(c, n, LabelWay::Name, c, 0) <-- control(c), ax_name(c, n);
    // Else by proximity: the nearest text right of a toggle, left of a field, or just above a field.
    right_text(c, t, *bx - (*cx + *cw)) <--
        toggle(c), !named(c), left_of(c, t), text_place(t), geometry(c, cx, _, cw, _), geometry(t, bx, _, _, _),
        if *bx - (*cx + *cw) <= TOGGLE_GAP;
    left_text(c, t, *cx - (*tx + *tw)) <--
        field(c), !named(c), left_of(t, c), text_place(t), geometry(c, cx, _, _, _), geometry(t, tx, _, tw, _),
        if *cx - (*tx + *tw) <= FIELD_GAP;
    beside(c) <-- left_text(c, _, _);
    above_text(c, t, *cy - (*ty + *th)) <--
        field(c), !named(c), !beside(c), above(t, c), text_place(t), geometry(c, _, cy, _, _), geometry(t, _, ty, _, th);
    labelled_by(c, text), w_labelled(c, text, LabelWay::RightOfToggle, t, g) <--
        right_text(c, t, g), agg m = min(x) in right_text(c, _, x), if g == &m, dom_text(t, text);
    labelled_by(c, text), w_labelled(c, text, LabelWay::LeftOfField, t, g) <--
        left_text(c, t, g), agg m = min(x) in left_text(c, _, x), if g == &m, dom_text(t, text);
    labelled_by(c, text), w_labelled(c, text, LabelWay::AboveField, t, g) <--
        above_text(c, t, g), agg m = min(x) in above_text(c, _, x), if g == &m, dom_text(t, text);
}

/// Reads the snapshot facts into the program: which styles hide, which nodes
/// are checkboxes or fields, and the bands boxes are joined on.
pub fn run(f: &Facts) -> PageProgram {
    let mut p = PageProgram {
        dom_node: relation::dom_node(f),
        dom_text: relation::dom_text(f),
        geometry: relation::geometry(f),
        interactable: relation::interactable(f),
        ax_name: relation::ax_name(f),
        ..Default::default()
    };
    if f.dom_node.is_empty() {
        return p;
    }
    let word = |s: Sym| f.symbols.resolve(s).trim().to_ascii_lowercase();
    for &(n, prop, value) in &f.computed_style {
        match (word(prop).as_str(), word(value).as_str()) {
            ("visibility", "hidden" | "collapse") => p.invisible_style.push((n,)),
            ("opacity", v) if v.parse::<f64>().is_ok_and(|o| o <= 0.0) => p.faded.push((n,)),
            _ => {}
        }
    }
    let input_type =
        |n: Sym| f.dom_attr.iter().find(|(m, name, _)| *m == n && word(*name) == "type").map(|(_, _, v)| word(*v));
    for &(n, tag, _) in &f.dom_node {
        match word(tag).as_str() {
            "input" => match input_type(n).as_deref() {
                Some("checkbox" | "radio") => p.toggle.push((n,)),
                Some("hidden" | "submit" | "button" | "reset" | "image" | "file" | "range" | "color") => {}
                _ => p.field.push((n,)),
            },
            "select" | "textarea" => p.field.push((n,)),
            _ => {}
        }
    }
    for &(n, _, y, _, h) in &f.geometry {
        if h <= 0 || h > MAX_PLACE_HEIGHT {
            continue;
        }
        for k in y.div_euclid(ROW_BAND)..=(y + h - 1).div_euclid(ROW_BAND) {
            p.row_band.push((n, k));
        }
        p.bottom_band.push((n, (y + h).div_euclid(ROW_BAND)));
        let top = y.div_euclid(ROW_BAND);
        for k in top - ABOVE_BANDS..=top {
            p.top_band.push((n, k));
        }
    }
    p.run();
    p
}

fn boxed(s: &Symbols, rows: &[(Sym, i64, i64, i64, i64)], n: Sym) -> Option<Premise> {
    rows.iter().find(|r| r.0 == n).map(|&r| Premise::Holds(atoms::geometry(s, r)))
}

impl PageProgram {
    pub fn proofs(&self, s: &Symbols, out: &mut Vec<(Atom, Proof)>) {
        for &(n,) in &self.visible {
            let mut premises: Vec<Premise> = boxed(s, &self.geometry, n).into_iter().collect();
            premises.push(Premise::Check("its box has an area, and no style hides it or fades a container".into()));
            out.push((atoms::visible(s, n), Proof { rule: "page/visible", premises }));
        }
        for &(a, b) in &self.left_of {
            let mut premises = vec![Premise::Holds(atoms::visible(s, a)), Premise::Holds(atoms::visible(s, b))];
            premises.extend(boxed(s, &self.geometry, a));
            premises.extend(boxed(s, &self.geometry, b));
            premises.push(Premise::Check("the first box ends before the second begins, on the same line".into()));
            out.push((atoms::left_of(s, (a, b)), Proof { rule: "page/left-of", premises }));
        }
        for &(a, b) in &self.above {
            let mut premises = vec![Premise::Holds(atoms::visible(s, a)), Premise::Holds(atoms::visible(s, b))];
            premises.extend(boxed(s, &self.geometry, a));
            premises.extend(boxed(s, &self.geometry, b));
            premises.push(Premise::Check(format!(
                "the first box ends at most {ABOVE_GAP}px above the second, in the same column"
            )));
            out.push((atoms::above(s, (a, b)), Proof { rule: "page/above", premises }));
        }
        for &(c, text, way, t, gap) in &self.w_labelled {
            let premises = match way {
                LabelWay::Name => vec![
                    Premise::Holds(atoms::ax_name(s, (c, text))),
                    Premise::Check("a form control: Chromium computed its accessible name".into()),
                ],
                LabelWay::RightOfToggle => vec![
                    Premise::Holds(atoms::left_of(s, (c, t))),
                    Premise::Holds(atoms::dom_text(s, (t, text))),
                    Premise::Check(format!(
                        "a checkbox or radio button without an accessible name; this is the nearest text right of it, {gap}px away"
                    )),
                ],
                LabelWay::LeftOfField => vec![
                    Premise::Holds(atoms::left_of(s, (t, c))),
                    Premise::Holds(atoms::dom_text(s, (t, text))),
                    Premise::Check(format!(
                        "a field without an accessible name; this is the nearest text left of it, {gap}px away"
                    )),
                ],
                LabelWay::AboveField => vec![
                    Premise::Holds(atoms::above(s, (t, c))),
                    Premise::Holds(atoms::dom_text(s, (t, text))),
                    Premise::Check(format!(
                        "a field without an accessible name or text beside it; this is the nearest text above, {gap}px away"
                    )),
                ],
            };
            out.push((atoms::labelled_by(s, (c, text)), Proof { rule: "page/labelled-by", premises }));
        }
    }
}
