//! Proofs of derived atoms and the explanation trees `nerd why` prints.
//! Programs record one witness tuple per rule firing; this module turns those
//! into proofs and picks, for each atom, a shortest well-founded derivation.
//! Knows nothing about any particular program.

use std::collections::{HashMap, HashSet};

use crate::atom::Atom;

/// One premise of a rule firing.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Premise {
    /// A fact that held (base or derived).
    Holds(Atom),
    /// A negated premise: the atom was absent from the fixpoint.
    Absent(Atom),
    /// A built-in comparison that held, in words.
    Check(String),
}

impl Premise {
    /// The premise a rule read either way: `atom` held, or it was absent.
    pub fn either(held: bool, atom: Atom) -> Premise {
        if held {
            Premise::Holds(atom)
        } else {
            Premise::Absent(atom)
        }
    }
}

/// One way an atom was derived: a named rule and the premises it used.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Proof {
    pub rule: &'static str,
    pub premises: Vec<Premise>,
}

/// A derivation tree down to base facts.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Explanation {
    /// A base fact, asserted by projection, perception or policy.
    Fact(Atom),
    /// A derived atom with the rule that produced it and its explained premises.
    Derived { atom: Atom, rule: &'static str, premises: Vec<ExplainedPremise> },
}

#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ExplainedPremise {
    Holds(Explanation),
    Absent(Atom),
    Check(String),
}

impl Explanation {
    pub fn atom(&self) -> &Atom {
        match self {
            Explanation::Fact(a) | Explanation::Derived { atom: a, .. } => a,
        }
    }

    /// Renders the tree with box-drawing guides, one atom per line.
    pub fn to_tree_string(&self) -> String {
        let mut out = String::new();
        self.write_tree(&mut out, "", "");
        out
    }

    fn write_tree(&self, out: &mut String, first: &str, rest: &str) {
        match self {
            Explanation::Fact(atom) => out.push_str(&format!("{first}{atom}  (fact)\n")),
            Explanation::Derived { atom, rule, premises } => {
                out.push_str(&format!("{first}{atom}  [rule {rule}]\n"));
                for (i, p) in premises.iter().enumerate() {
                    let last = i + 1 == premises.len();
                    let (branch, guide) = if last { ("└─ ", "   ") } else { ("├─ ", "│  ") };
                    let head = format!("{rest}{branch}");
                    let tail = format!("{rest}{guide}");
                    match p {
                        ExplainedPremise::Holds(e) => e.write_tree(out, &head, &tail),
                        ExplainedPremise::Absent(a) => out.push_str(&format!("{head}not {a}  (absent)\n")),
                        ExplainedPremise::Check(c) => out.push_str(&format!("{head}{c}  (check)\n")),
                    }
                }
            }
        }
    }
}

/// Builds the shortest well-founded explanation of `target`.
///
/// `proofs` maps each derived atom to its recorded proofs; `is_fact` says
/// whether an atom is a base fact. Returns `None` when `target` is neither.
pub fn explain(
    target: &Atom,
    proofs: &HashMap<Atom, Vec<Proof>>,
    is_fact: &dyn Fn(&Atom) -> bool,
) -> Option<Explanation> {
    if !proofs.contains_key(target) {
        return is_fact(target).then(|| Explanation::Fact(target.clone()));
    }
    // Collect the atoms reachable from the target through proofs.
    let mut reachable: HashSet<&Atom> = HashSet::new();
    let mut stack: Vec<&Atom> = vec![target];
    while let Some(a) = stack.pop() {
        if !reachable.insert(a) {
            continue;
        }
        for proof in proofs.get(a).into_iter().flatten() {
            for p in &proof.premises {
                if let Premise::Holds(b) = p {
                    if proofs.contains_key(b) && !reachable.contains(b) {
                        stack.push(b);
                    }
                }
            }
        }
    }
    let height = shortest_heights(&reachable, proofs);
    build(target, proofs, &height)
}

/// Height of each reachable atom's shortest derivation (a base fact is 0, a
/// rule firing is one more than its highest premise), by Knuth's generalisation
/// of Dijkstra's algorithm to hypergraphs: linear in proofs up to the heap.
fn shortest_heights<'a>(
    reachable: &HashSet<&'a Atom>,
    proofs: &'a HashMap<Atom, Vec<Proof>>,
) -> HashMap<&'a Atom, usize> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    // Every proof of a reachable atom, with how many derived premises are still unfinished.
    let mut heads: Vec<&Atom> = Vec::new();
    let mut waiting: Vec<usize> = Vec::new();
    let mut users: HashMap<&Atom, Vec<usize>> = HashMap::new();
    let mut queue: BinaryHeap<Reverse<(usize, &Atom)>> = BinaryHeap::new();
    for &head in reachable {
        for proof in &proofs[head] {
            let index = heads.len();
            let mut pending = 0;
            for p in &proof.premises {
                if let Premise::Holds(b) = p {
                    if let Some((key, _)) = proofs.get_key_value(b) {
                        pending += 1;
                        users.entry(key).or_default().push(index);
                    }
                }
            }
            heads.push(head);
            waiting.push(pending);
            if pending == 0 {
                queue.push(Reverse((1, head)));
            }
        }
    }
    let mut height: HashMap<&Atom, usize> = HashMap::new();
    while let Some(Reverse((h, atom))) = queue.pop() {
        if height.contains_key(atom) {
            continue;
        }
        height.insert(atom, h);
        for &index in users.get(atom).into_iter().flatten() {
            waiting[index] -= 1;
            if waiting[index] == 0 {
                // Atoms finish in height order, so this premise is the proof's highest.
                queue.push(Reverse((h + 1, heads[index])));
            }
        }
    }
    height
}

fn proof_height(proof: &Proof, proofs: &HashMap<Atom, Vec<Proof>>, height: &HashMap<&Atom, usize>) -> Option<usize> {
    let mut h = 0;
    for p in &proof.premises {
        if let Premise::Holds(b) = p {
            h = h.max(if proofs.contains_key(b) { *height.get(b)? } else { 0 });
        }
    }
    Some(h + 1)
}

fn build(atom: &Atom, proofs: &HashMap<Atom, Vec<Proof>>, height: &HashMap<&Atom, usize>) -> Option<Explanation> {
    let Some(candidates) = proofs.get(atom) else {
        return Some(Explanation::Fact(atom.clone()));
    };
    let own = *height.get(atom)?;
    // A proof whose height equals the atom's uses only strictly lower premises.
    let proof = candidates.iter().find(|p| proof_height(p, proofs, height) == Some(own))?;
    let mut premises = Vec::with_capacity(proof.premises.len());
    for p in &proof.premises {
        premises.push(match p {
            Premise::Holds(b) => ExplainedPremise::Holds(build(b, proofs, height)?),
            Premise::Absent(b) => ExplainedPremise::Absent(b.clone()),
            Premise::Check(c) => ExplainedPremise::Check(c.clone()),
        });
    }
    Some(Explanation::Derived { atom: atom.clone(), rule: proof.rule, premises })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::Term;

    fn a(p: &str, x: &str) -> Atom {
        Atom::new(p, vec![Term::Str(x.into())])
    }

    #[test]
    fn cyclic_proofs_pick_the_well_founded_one() {
        // reach(b) has a cyclic proof via reach(c) and a grounded one via seed(b).
        let mut proofs: HashMap<Atom, Vec<Proof>> = HashMap::new();
        proofs.insert(
            a("reach", "b"),
            vec![
                Proof { rule: "step", premises: vec![Premise::Holds(a("reach", "c"))] },
                Proof { rule: "seed", premises: vec![Premise::Holds(a("seed", "b"))] },
            ],
        );
        proofs.insert(a("reach", "c"), vec![Proof { rule: "step", premises: vec![Premise::Holds(a("reach", "b"))] }]);
        let facts = |x: &Atom| x == &a("seed", "b");
        let e = explain(&a("reach", "c"), &proofs, &facts).unwrap();
        assert_eq!(
            e.to_tree_string(),
            "reach(\"c\")  [rule step]\n└─ reach(\"b\")  [rule seed]\n   └─ seed(\"b\")  (fact)\n"
        );
    }

    #[test]
    fn unknown_atoms_are_not_explained() {
        let proofs = HashMap::new();
        assert_eq!(explain(&a("reach", "z"), &proofs, &|_| false), None);
        assert_eq!(explain(&a("seed", "z"), &proofs, &|_| true), Some(Explanation::Fact(a("seed", "z"))));
    }
}
