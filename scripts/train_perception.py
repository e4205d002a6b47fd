"""Trains the offline transducer's second reader; see scripts/train-perception.

Two steps: an L1-regularised linear SVM chooses the few n-grams that decide (word
unigrams and bigrams, and character 2- to 5-grams within words, each block tf-idf
weighted, sublinear, L2-normalised), then an L2-regularised linear SVM is fitted on
those alone, one-vs-rest over `category/verb` labels. src/perceive/reader.rs computes
the same features and the same decision function from the written model.
"""

import os, re, sys
import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.pipeline import make_pipeline, make_union
from sklearn.svm import LinearSVC

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(TOP, "tests", "fixtures", "perception")
# Sets whose first held-out score is recorded (tests/fixtures/perception/README.md).
TRAIN = ["intents.tsv", "public.tsv", "public2.tsv", "public3.tsv", "public4.tsv", "public5.tsv", "public6.tsv", "public7.tsv", "public8.tsv", "public9.tsv", "public10.tsv", "public11.tsv", "public12.tsv", "public13.tsv", "public14.tsv", "public15.tsv", "public16.tsv", "public17.tsv", "public18.tsv", "public19.tsv", "public20.tsv", "public21.tsv", "public22.tsv", "public23.tsv", "public24.tsv", "public25.tsv", "public26.tsv", "public27.tsv", "public28.tsv", "public29.tsv", "public30.tsv", "public31.tsv", "public32.tsv"]
OUT = os.path.join(TOP, "src", "perceive", "reader.model")
# What the trained model decides on every fourth training row: src/perceive/reader.rs must agree.
CHECK = os.path.join(DATA, "reader_check.tsv")
SELECT_C, FIT_C = 0.5, 0.5


# Identifiers masked as src/perceive/offline/mod.rs::mask masks them (the same two patterns): the
# classifier learns the words around a name, not the name.
CODE_SPAN = re.compile(r"""`([^`]+)`|"([^"]+)"|(^|[^\w])'([^'\s][^']*[^'\s])'([^\w]|$)""")
IDENTIFIER = re.compile(
    r"[A-Za-z_][0-9A-Za-z_]*(?:(?:::|\.|/)[0-9A-Za-z_\-]+)+(?:\(\))?|[A-Za-z]*_[0-9A-Za-z_]+(?:\(\))?|[a-z]+[A-Z][0-9A-Za-z_]*|[A-Z][a-z]+[A-Z][0-9A-Za-z_]*|\b[0-9A-Za-z_]+\(\)")


def names_a_document(name):
    """As src/perceive/offline/mod.rs::names_a_document."""
    file = name.lower().rsplit("/", 1)[-1]
    stem = file.split(".", 1)[0]
    return file.endswith((".md", ".mdx", ".rst", ".adoc")) or (
        file.endswith(".txt") and stem in ("readme", "install", "changelog", "contributing", "license", "authors", "changes", "history"))


def mask(text):
    def span(m):
        inner = m.group(1) or m.group(2) or m.group(4) or ""
        marker = " markdown file" if names_a_document(inner) else ""
        return f"{m.group(3) or ''} ID{marker} {m.group(5) or ''}"

    text = CODE_SPAN.sub(span, text)

    def name(m):
        found = m.group(0)[:-2] if m.group(0).endswith("()") else m.group(0)
        return " ID markdown file " if names_a_document(found) else " ID "

    return IDENTIFIER.sub(name, text)


def load(name):
    rows = []
    path = name if os.sep in name else os.path.join(DATA, name)
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        cols = line.rstrip("\n").split("\t")
        rows.append((f"{cols[1]}/{cols[2]}", mask(cols[-1].strip()), cols[-1].strip()))
    return rows


def vectorizers(words=None, chars=None):
    return (TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, vocabulary=words),
            TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 5), sublinear_tf=True, vocabulary=chars))


def train(rows):
    texts, labels = [r[1] for r in rows], [r[0] for r in rows]
    w, c = vectorizers()
    select = make_pipeline(make_union(w, c),
                           LinearSVC(C=SELECT_C, penalty="l1", dual=False, max_iter=20000, random_state=0))
    select.fit(texts, labels)
    used = np.abs(select[-1].coef_).max(0) > 1e-6
    n = len(w.vocabulary_)
    words = sorted(f for f, i in w.vocabulary_.items() if used[i])
    chars = sorted(f for f, i in c.vocabulary_.items() if used[n + i])
    w, c = vectorizers(words, chars)
    model = make_pipeline(make_union(w, c), LinearSVC(C=FIT_C, max_iter=20000, random_state=0))
    model.fit(texts, labels)
    return model, w, c


def write(model, w, c, path):
    svm = model[-1]
    labels = list(svm.classes_)
    coef = svm.coef_
    with open(path, "w", encoding="utf-8") as out:
        out.write("# The offline transducer's second reader: a linear classifier over n-grams, written by\n")
        out.write("# scripts/train-perception from " + ", ".join(TRAIN) + ". Do not edit.\n")
        out.write("# labels, intercepts, then one row per feature: block (w: word n-gram, c: character\n")
        out.write("# n-gram), the n-gram, its idf, its weight for each label.\n")
        out.write("labels\t" + "\t".join(labels) + "\n")
        out.write("intercept\t" + "\t".join(f"{x:.5f}" for x in svm.intercept_) + "\n")
        offset = 0
        for block, vec in (("w", w), ("c", c)):
            vocab = sorted(vec.vocabulary_.items(), key=lambda kv: kv[1])
            for feature, i in vocab:
                weights = "\t".join(f"{x:.5f}" for x in coef[:, offset + i])
                out.write(f"{block}\t{feature}\t{vec.idf_[i]:.6f}\t{weights}\n")
            offset += len(vocab)


def score(model, rows):
    predicted = model.predict([r[1] for r in rows])
    n = len(rows)
    category = sum(p.split("/")[0] == r[0].split("/")[0] for p, r in zip(predicted, rows))
    both = sum(p == r[0] for p, r in zip(predicted, rows))
    asked = sum(r[0].startswith("query/") and p.startswith("mutation/") for p, r in zip(predicted, rows))
    print(f"{n} rows: category {100 * category / n:.1f}%, category and verb {100 * both / n:.1f}%, "
          f"{asked} questions read as mutations")


def main():
    rows = [r for name in TRAIN for r in load(name)]
    model, w, c = train(rows)
    if sys.argv[1:2] == ["--score"]:
        held_out = sys.argv[2]
        assert os.path.basename(held_out) not in TRAIN, f"{held_out} is a training set"
        score(model, load(held_out))
        return
    write(model, w, c, OUT)
    sample = rows[::4]
    decisions = model.decision_function([r[1] for r in sample])
    with open(CHECK, "w", encoding="utf-8") as out:
        out.write("# What scripts/train-perception's model decides on every fourth training row (label, margin,\n")
        out.write("# request as written); src/perceive/offline/mod.rs, masking names and reading with reader.rs, must\n")
        out.write("# decide the same. Written with reader.model; do not edit.\n")
        for (_, _, text), scores in zip(sample, decisions):
            order = np.argsort(-scores)
            out.write(f"{model[-1].classes_[order[0]]}\t{scores[order[0]] - scores[order[1]]:.5f}\t{text}\n")
    print(f"wrote {OUT}: {len(w.vocabulary_) + len(c.vocabulary_)} features, {len(model[-1].classes_)} labels "
          f"from {len(rows)} rows")


if __name__ == "__main__":
    main()
