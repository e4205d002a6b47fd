//! Cues of a request's shape rather than its verb: questions, politeness, proposals and wishes,
//! clauses and conjunctions, chat front ends' prefixes, constraints, code spans and names, and the
//! words that frame a reference rather than name code. Knows nothing about how a request is read.

pattern!(pub(in crate::perceive::offline) sentence_break, r"[?.!;]\s+");
pattern!(pub(in crate::perceive::offline) kind_tag, r"^\[(refactor|refactoring|docs?|documentation|tests?)\]\s*");
pattern!(pub(in crate::perceive::offline) question_tag, r"^\[(question|q|q&a|help|how ?to|support)\]");
pattern!(pub(in crate::perceive::offline) conventional_commit, r"^(feat|fix|docs|refactor|test|chore|perf|ci|build|style)(\([^)]*\))?!?:\s*");
pattern!(pub(in crate::perceive::offline) topic_prefix, r"^[a-z][\w-]*( [a-z][\w-]*){0,2}:\s+");
pattern!(pub(in crate::perceive::offline) clause_end, r"[,;:]");
pattern!(pub(in crate::perceive::offline) template_words, r"\b(an? |the )?(pull request|pr|issue|bug report|feature request) templates?\b");
// "Explain this error and how to fix it": a change after "how to" is asked about, not asked for.
pattern!(pub(in crate::perceive::offline) how_to_end, r"\bhow (to|(i|we|you) (can|could|should|would)|(can|could|should|would|do) (i|we|you))\s*$");
// "How can I avoid race conditions?": asking how to do something is asking for an explanation.
pattern!(pub(in crate::perceive::offline) how_question, r"^how (to|(can|could|should|would|do|does|might) (i|we|you|one))\b");
pattern!(pub(in crate::perceive::offline) then_change, r"\b(and|then)\b");
pattern!(pub(in crate::perceive::offline) conjunct, r",? (and|then|and then) ");
// Chat front ends' prefixes: "@workspace how …", "#file:auth.js explain …", "/fix …".
pattern!(pub(in crate::perceive::offline) mention, r"^((@[\w/.-]+|#\w+:\S+)[\s:,]+)+");
pattern!(pub(in crate::perceive::offline) slash_command, r"^/(\w+)\b\s*");
// "Do not fail on …", "does not seem to work with …": an order or a symptom, where "doesn't it
// …" asks.
pattern!(pub(in crate::perceive::offline) negated_statement, r"^(do not|does not|doesn'?t) ");
pattern!(
    pub(in crate::perceive::offline) negated_question,
    r"^(do not|does not|doesn'?t) (it|this|that|these|those|there|the|they|you|we|i|he|she|your|our|my|any)\b"
);
pattern!(pub(in crate::perceive::offline) question_start, r"^(what|where|which|who|why|how|is|are|does|do|can|could|show|list|any)\b");
// A question asks; it changes nothing, whatever verb it mentions ("how would I delete a user?").
pattern!(
    pub(in crate::perceive::offline) interrogative,
    r"^(what|where|which|who|whom|whose|why|how|when (does|do|did|is|are|was|were|will|would|should|shall|can|could|has|have)|is|are|was|were|does|do|did|(has|have) (you|we|i|they|he|she|it|this|that|these|those|there|anyone|anybody|someone|somebody|any|the|all|your|our|my)\b|am i|can (i|we|one)|could (i|we|one)|should|shall (i|we)|would (it|that|this|there|i|we)|will (it|that|this|there)|isn'?t|aren'?t|doesn'?t|won'?t it)\b|^(if|once|when|whenever|suppose|supposing|assuming|say) .*\b(what|which|who|how)\b|^(based on|given|looking at|according to) [^,]*, (what|where|which|who|why|how|is|are|does|do|can|should)\b|\b(works?|working|passe?s?|passing) or not$"
);
// Saying one wants to know is asking, wherever in the sentence it is said.
pattern!(
    pub(in crate::perceive::offline) wants_to_know,
    r"\b(want|wants|wanted|need|needs|would like|'d like) to (know|understand|find out|learn)\b|\b(i'?m|i am|we'?re|we are) (wondering|curious)\b|\bi wonder\b"
);
// A question opens with a question word or ends with a question mark; "when you change X, …" opens
// a rule as often as a question, so it is no question word here.
pattern!(pub(in crate::perceive::offline) question_word, r"^(what|where|which|who|whom|whose|why|how)\b");
// A request put politely as a question is still a request ("can you fix the test?").
pattern!(
    pub(in crate::perceive::offline) polite,
    r"(^|[,;:]\s*)(please|pls|kindly|(can|could|would|will|won'?t) (you|u|ya)|(i'?d|i would) like( you)? to|i (want|need) you to|let'?s|lets|help me|go ahead and|(can|could) (we|i) (have|get)|(do you think )?you could|i ask that you|would it be possible (for you )?to)\b|\bwould you mind\b"
);
// "Can we add tests for this?", "could we first commit this?": a proposal to change something is a
// request ("can we safely remove …", "can we just delete …" still ask whether it is safe).
pattern!(
    pub(in crate::perceive::offline) proposal,
    r"(^|[?.!;,]\s+)(?:so |and |but |ok,? |okay,? |now,? )?(?:(?:can|could|shall) we|perhaps|maybe|i(?:'d| would)? (?:like to )?suggest (?:that )?(?:we|you)(?: to)?) (?:also |first |now |then |maybe |perhaps |just )?(fix|add|make|tag|put|combine|unify|mark|turn|break|remove|delete|rename|commit|update|change|refactor|write|move|implement|create|split|extract|replace|clean|bump|upgrade|push|merge|simplify|convert|improve|drop|introduce|switch|revert|get rid of)\b"
);
// "I'd love to be able to …", "it would be nice to see …": a feature wished for is asked for.
pattern!(
    pub(in crate::perceive::offline) wished,
    r"^(i'?d|i would|we'?d|we would) (really )?love (to|it if (we|you|i|it|this|there|nerd))\b|^(it )?would be (really |very )?(nice|great|good|helpful|useful|awesome) (to|if)\b|^it'?d be (really )?(nice|great|good|helpful|useful) (to|if)\b|^(the )?ability to\b"
);
// "代理怎么配置": a question in Chinese, by its question words or its closing particle.
pattern!(pub(in crate::perceive::offline) cjk_question, r"(怎么|怎样|如何|为什么|为何|有没有|是不是|哪(儿|里|个|些))|[吗呢][?？。]?$|想问|想请问|请教一下");
// "What about renaming the flag?", "how about adding a test?": a change suggested, which asks for it.
pattern!(pub(in crate::perceive::offline) suggestion, r"^(what|how) about \w+ing\b");
pattern!(pub(in crate::perceive::offline) what_opening, r"^(what is|what's|what are|what does|what do)\b");
// Where a masked request places its target: "… in ID".
pattern!(pub(in crate::perceive::offline) place, r"\s(in|from|inside|of) (the )?(file )?id\b");
// What a change should achieve, after what it changes.
pattern!(
    pub(in crate::perceive::offline) purpose,
    r"\b(to be|to make (it|them|this|that|the code|things)|so (that|it|they|the|we)|in order to|for (better )?(readability|clarity|performance|speed|maintainability|testability|simplicity)|because|since)\b"
);
// How the target behaves, after it: "explain how Parse works", "how does the parser work?",
// "what does Parse do?". "The work queue" names a thing: "work" ends the target only at the
// end or before a preposition.
pattern!(
    pub(in crate::perceive::offline) manner,
    r"\s(works|working|behaves?|operates?)\b|\s(work|does|do)(\s+(with|in|on|for|when|under|together|internally|exactly|here|at|after|before)\b|\s*[?.!]*\s*$)"
);
pattern!(
    pub(in crate::perceive::offline) broad,
    r"\b(architecture|overview|overall|whole (project|codebase|repo)|project structure|big picture|codebase)\b"
);
pattern!(
    pub(in crate::perceive::offline) constraint,
    r"\b(without (?:[^,.;]|\.\w)+|but (don'?t|do not) (?:[^,.;]|\.\w)+|don'?t touch (?:[^,.;]|\.\w)+|(do not|don'?t|never) (change|modify|edit|alter) (?:[^,.;]|\.\w)+|only (in|for|inside|within|under|touch|change|edit|modify) (?:[^,.;]|\.\w)+|keep(ing)? (?:[^,.;]|\.\w)+ (unchanged|intact|as is)|keep(ing)? the public (api|interface)|everywhere)"
);
// A single-quoted name is quoted only where no letter touches either quote: "don't … what's" quotes nothing.
pattern!(
    pub(in crate::perceive::offline) constraint_start,
    r"\b(without|but (don'?t|do not)|don'?t touch|(do not|don'?t|never) (change|modify|edit|alter) |only (in|for|inside|within|under|touch|change|edit|modify)|keep(ing)? )"
);
pattern!(pub(in crate::perceive::offline) code_span, r#"`([^`]+)`|"([^"]+)"|(^|[^\w])'([^'\s][^']*[^'\s])'([^\w]|$)"#);
// A name in code: ASCII letters, digits and underscores (a name never runs on into the Chinese or
// Japanese words written right after it, which `\w` would take in).
pattern!(
    pub(in crate::perceive::offline) identifier,
    r"[A-Za-z_][0-9A-Za-z_]*(?:(?:::|\.|/)[0-9A-Za-z_\-]+)+(?:\(\))?|[A-Za-z]*_[0-9A-Za-z_]+(?:\(\))?|[a-z]+[A-Z][0-9A-Za-z_]*|[A-Z][a-z]+[A-Z][0-9A-Za-z_]*|\b[0-9A-Za-z_]+\(\)"
);
// "SQL injection vulnerability fixed": a short title that reports a fix.
pattern!(pub(in crate::perceive::offline) fixed_title, r"^([\w./-]+( [\w./-]+){0,5}) (fixed|resolved)$");
/// Words that make "… fixed" a statement or a question rather than a title.
pub(in crate::perceive::offline) const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "get", "got", "gets", "has", "have", "had", "it", "this", "that",
];

pub(in crate::perceive::offline) const STOPWORDS: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "this",
    "that",
    "it",
    "please",
    "in",
    "of",
    "to",
    "for",
    "with",
    "again",
    "right",
    "now",
    "all",
    "every",
    "some",
    "our",
    "its",
    "and",
    "me",
    "can",
    "you",
    "is",
    "be",
    "so",
    "just",
    "on",
    "from",
    "into",
    // Query connectives: they frame the reference, they are not it.
    "uses",
    "usages",
    "references",
    "callers",
    "if",
    "i",
    "change",
    "edit",
    "modify",
    "would",
    "does",
    "do",
    "defined",
    "calls",
    "called",
    "where",
    "what",
    "which",
    "who",
    "how",
    "why",
    "break",
    "breaks",
    "affected",
    "depends",
    "used",
    "gets",
    "are",
    "was",
    "were",
    "any",
    "there",
    "covering",
    "cover",
    "covers",
];
/// Words that describe the situation rather than name code: "fix the failing
/// tests" has no target, the failures are the focus.
pub(in crate::perceive::offline) const GENERIC: &[&str] = &[
    "failing",
    "failed",
    "test",
    "tests",
    "build",
    "broken",
    "error",
    "errors",
    "passing",
    "pass",
    "green",
    "red",
    "ci",
    "suite",
    "compile",
    "compiles",
    "compilation",
    "code",
    "project",
    "repo",
    "repository",
];
