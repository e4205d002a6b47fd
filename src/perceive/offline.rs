//! The offline transducer: deterministic rules that read a request into the
//! intent JSON a model would produce (category and controlled verb, target,
//! constraints, context hint, confidence, missing parameters). Identifiers
//! (`snake_case`, `Type.method`, paths, quoted or backticked names) are masked
//! before verbs are looked for, so "simplify resolve_file" is a refactor, not
//! a fix. A second reader, a classifier trained on labelled requests
//! (`reader.rs`), is heard where it disagrees by a clear margin, never to make
//! a question or a rule a change. Knows nothing about the repository.

use regex::Regex;
use serde_json::json;

use super::reader::Reading;

// Instructions: standing rules for the project, not one-off requests.
pattern!(
    instruction,
    r"[,;]\s*(never|always)\b|\b(we|you) should always\b|\b(should|must) always\b|\bunless (explicitly |specifically )?(asked|told|requested|instructed)\b|^(every|each|all) \S[^,;]* (must|should|ships?|has to|have to|needs? to|gets?|requires?)\b|^(please\s+)?(preserve|respect|follow|adhere to|stick to|honou?r) (all |the |our |existing |any )|^(please\s+)?include [^,;]* (for|in|on|with) (all|every|each|any)\b|^(from now on,?\s*)?(never|always|don'?t ever|do not ever|stop using|avoid|prefer|favou?r|we'?d rather|make sure (all|every|to always)|every \S.* must|all \S.* must)\b|\bfrom now on\b|^(i|we) (prefer|'d rather|would rather|like to keep|always want)\b|^(please\s+)?(use|indent with) (tabs|spaces|\d+ spaces)\b|^(please\s+)?keep (answers|replies|responses|functions|methods|commits|lines|diffs|patches|changes) \w+|^(it'?s (ok|okay|fine|alright) to|you (may|can always|are allowed to)|feel free to|no need to (ask|confirm))\b|^(please\s+)?use [^,;]*\b(for (all|every|any|each|different|new|git|commit|our)|over|instead of|rather than|everywhere|throughout|whenever|when (writing|naming|creating|adding|amending|committing))\b|^(please\s+)?use \S+( \S+)? (case|style|indentation|mood|quotes|naming|conventions?)\b|^(please\s+)?use [^,;]* for [^,;]*\bnames\b|^(please\s+)?use (id|[\w-]+case) for (all |new )?(variables|functions|classes|methods|files|constants|types|components|directories|folders|identifiers|tests|modules)\b|^(please\s+)?use [\w-]+ (commits?|commit messages|branch names)\b|^(please\s+)?(use|write|prefer|choose|return|raise|throw) [^,;]*\b(instead of|rather than|to avoid)\b|^(please\s+)?(make|keep) (the |your |all |every |each )?(\w+ )?(extremely |very |more |always )?(concise|brief|terse|succinct|short)\b|^(please\s+)?keep (all |every |each |the |your )?[\w-]+ (under|below|short|small|simple|focused|minimal)\b|^(concise|terse|brief|succinct)\b|^no [^,;]*\s[-–—:]\s|^no [^,;]* (without|unless)\b|^no ([\w-]+ ){0,3}[\w-]+( (or|and) [\w-]+( [\w-]+)?)?( in [^,;]+)?$|^(please\s+)?use [^,;]+, not \S+$|^only [\w\s]+ (when|if|where)\b|^([\w-]+ ){1,4}(must|must not|must never|should never|should always|shall|shall not) \w+|\b(for|to|in) (all|any|every|each) (new|future) \w+|\bfor new functionality\b|\bbefore (answering|considering|finishing|completing|declaring|marking|reporting|claiming|writing|pushing|committing|merging|making|changing|editing|starting|opening|submitting|creating|concluding|you|any|each|every)\b|\bafter (edits|editing|every|each|any|changes|changing|making|writing)\b|\b(if|when|whenever) (your|you|a|any) (change|changes|pr|commit|edit|code|patch)\w*\b|^(when|whenever|before|after|if) [^,;]+, (please\s+)?(never|always|don'?t|do not|avoid|prefer|make sure|ensure|be)\b|^(please\s+)?(be|stay) (more |very |always )?(concise|brief|terse|succinct|direct|explicit|thorough|careful|honest|precise|specific|polite|critical)\b|^(you|we) (should|must|need to|have to)( try to| always)? (use|prefer|avoid|write|keep|follow|run)\b|^(please\s+)?(include|add|put|mention) [^,;]* in (all |every |each |the |your )?(commit messages?|commits|pr (titles|descriptions)|pull requests)\b"
);
// "Verify claims; do not infer": an order, then a prohibition, is a standing rule, unless the order
// is a task of its own ("write tests for X; do not change null.go" asks for tests, with a constraint).
pattern!(then_forbid, r";\s*(do not|don'?t)\b");
// "Do not add dependencies" is a standing instruction; "don't touch the tests, fix the parser" is a
// mutation with a constraint, so a negated imperative counts only when it is the whole request.
pattern!(
    negated_imperative,
    r"^(please\s+)?(do not|don'?t|no more) [a-z][\w-]*\b([^,;]*$|[^,;]*\binstead\b[,;]?[^,;]*$|[^,;]*[,;] \w+[^,;]* instead$|[^,;]*[,;] \w+ (it|them|those|these)\b[^,;]*$)"
);
// "Don't crash on empty input" reports a symptom; "don't know why …" is no order at all.
pattern!(
    negated_symptom,
    r"^(please\s+)?(do not|don'?t) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak|work|know|understand|see|get|think)\b"
);
pattern!(
    clause_break,
    r"\b(and|but|then) (fix|rename|refactor|implement|add|write|update|change|make|run|delete|remove)\b"
);
pattern!(forbid, r"\b(never|don'?t|do not|stop using|avoid|must not|must never|no more)\b|^no\b");
pattern!(require, r"\b(must|always|required|has to|have to|needs? to|make sure|ensure|remember to|important)\b");
pattern!(
    prefer,
    r"\b(prefer|favou?r|rather|like to keep|indent with|over|instead of|concise|brief|terse|succinct)\b|^(please\s+)?(keep|use|be|stay|only)\b"
);

// Memory: what to keep across sessions, or let go of (the memory text is what follows).
pattern!(
    remember,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(remember|note|keep in mind|bear in mind|don'?t forget|do not forget|memori[sz]e)\b(\s+that\b)?\s*:?\s*"
);
pattern!(
    forget,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(forget|stop remembering|disregard what i said|(delete|remove|clear|drop|erase|wipe) (the |all |your |any )?(memor(y|ies)|notes?)( (about|of|on))?)\b(\s+(that|about)\b)?\s*:?\s*"
);
// "Save it to memory", "my database port is 5432": a fact to keep, said without "remember".
pattern!(
    keep_fact,
    r"(?i)^(please\s+)?(save|store|record|keep) the fact that\b|\b(save|store|record|add|put|keep|write) (it|this|that)( \w+)? (to|in|into) (your |the )?([\w-]+ ){0,2}memory\b|^(please\s+)?(save|store|record|note) (this|that)\s*:|^(we|our (team|project|app|codebase|repo)|this (project|repo|codebase)) (use|uses)\b[^,;.!?]*, not \S+$|^(my|our) [\w\s-]{1,30} (is|are|lives|runs) (at|on|in)?\s*\S+$|^(my|our) [\w\s-]{1,30} (uses?|goes through|go through|relies on|rely on|(is|are) (built|written) (with|in)|(is|are) (hosted|deployed) (on|to|at))\b[^?]*$|\b(update|add to) (my|your|the) memory\b|^(this|it) is an? [\w\s.-]*\b(project|app|application|library|service|repo|repository|monorepo|website|cli|tool)\b[^?]*$|^my name is\b|^(hosted|deployed|built|written) (on|with|in|to)\b|^(this|the|our) (project|repo|repository|codebase|app|application|library|service|monorepo|package|crate|module) (uses|contains|is written in|is built (with|on)|runs on|targets|depends on|relies on)\b[^?]*$"
);

// Queries, in precedence order.
pattern!(
    q_impact,
    r"\b(really|still|even) (needed|necessary|required)\b|\bneeded any ?more\b|^(can|could|should) (i|we) (just |safely |simply )?(delete|remove|drop|rename|upgrade|bump)\b|^why (can'?t|cannot|shouldn'?t) (i|we) (just |simply )?(delete|remove|drop|rename|upgrade)\b|\b(concerns?|objections?|reasons? not|anything (that )?speaks? against) (with|about|to|against)? ?(renaming|removing|deleting|dropping|upgrading|changing|moving)\b|\b(what (would )?breaks?|would break|impact of|affected|depends on|blast radius|(is it|is that|is this|would it be|it'?s) (safe|ok|okay) to( (remove|delete|drop|change|rename|refactor|move|modify|upgrade|touch|edit))?|safe to (remove|delete|drop|change|rename|refactor|move|modify|upgrade)|what (happens|would happen|will happen|could happen) if (we|i|you|someone|they) (\w+ )?(delete|remove|drop|change|rename|upgrade|bump|update|modify|move|replace|refactor|merge|revert|disable)|breaking changes?|^breaking\b|analy[sz]e (the )?impact|scope of (this|the|my|that|our) (change|pr|commit|refactor\w*)|what (will |could |might |would )?breaks?|(problems?|issues?|risks?|harm|downsides?) (with|in|of) (deleting|removing|changing|renaming|dropping|upgrading|moving|replacing)|need to (be )?(updated|changed|modified)\b|can (it|this|that|they|these|those) be (safely )?(deleted|removed|dropped)|depends? on|depending on|(is|are|be|get|gets|been) impacted|impacts? (of|on)|affects?|undesirable effects?|unintended (effects?|consequences)|side[- ]effects? (of|from)|upgrade (issues|problems|risks)|(issues|problems|risks) (when |with |in )?upgrading|look out for if|watch out for if|compatible with|compatibility (with|of)|if (i|we) (upgrade|were upgrading|bump|update|remove|delete|drop)|which tests (cover|exercise|hit|test|touch|reach)|what tests (cover|exercise|hit|test|touch|reach)|tests? (that|which) (cover|exercise|hit|reach)|tests? covers?|tests? (already )?exercis\w*|what (could|might|would|will|does) (this|it|that|the change|my change|this change) break|(will|would|could|does|might) (this|it|that|my changes?|the changes?|this change|anything) break|(does|do|would|will|could|might) [^,;?]* break( |$)|break (anything|things|stuff|backwards?[- ]compat\w*|compat\w*|existing|callers|the api|clients)|still used|safely (remove|delete|drop|change|rename)\w*|(can|could) (it|we|i|this|that) (be )?safely)\b"
);
// "Why is CI failing?", "is this PR green?": asked, the state of a build, a check or a pull request
// ("CI is failing on main", said, reports a bug).
const CI_STATE: &str = r"\b(ci|the build|builds?|pipelines?|checks|workflows?|(this|the|my|our|that) (pr|pull request|branch))( \w+)? (is |are |was )?(failing|broken|red|green|passing)\b|\bfail(s|ing|ed)? (in|on) (ci|the pipeline|github actions)\b";
// "Is this committed yet?", "what's outstanding?", "where do things stand?": the state of the work.
const WORK_STATE: &str = r"^(is|are|has|have) (this|it|that|these|everything|we|you|the \w+)( \w+)? (committed|pushed|merged|finished|done|complete|completed|deployed|released)( yet| now)?\b|\bwhat'?s (still )?(outstanding|left|remaining|pending)\b|\bwhere (do|does) (things|we|it|this) stand\b";
pattern!(ci_state, CI_STATE);
pattern!(
    q_status,
    &format!(
        "{}|{WORK_STATE}",
        r"\b(staged|unstaged|stashed) (changes|files)\b|^(list|show)( me)? (all |the |my )?(local |remote )?branches\b|^compare (the )?branch(es)?\b|\bwhat (happened|changed) (on|in) (this|the|my) branch\b|\bwhat (am i|are we) (currently |now )?working on\b|\babout to commit\b|^(please\s+)?(confirm|verify|check|make sure|ensure)( that)? (nothing|none of (it|this|them|my changes)|my changes? (did not|didn'?t|do not|don'?t)|the changes? (did not|didn'?t|do not|don'?t)|no tests?)\b|\b(tests? (are |is )?(passing|failing|green|red)|(latest|most recent|last) (release|version|tag|commit|merged pr)|the status)\b|^are the tests\b|^is (the )?ci\b|^check(ing)? on\b|(latest|last|recent|failed|failing) (pipeline|workflow run|ci run|job)s?\b|(recent|new) [\w-]* ?(errors|exceptions|alerts|incidents)\b|issues (are )?open\b|(prs|pull requests) (that )?(need|needing|awaiting|waiting for) reviews?|\brecently\b|\bhappening\b|(any|new|latest|recent) (releases?|tags)\b|who (last )?(modified|changed|edited|touched|wrote)|^when (was|were|did) [^?]*\b(updated|modified|changed|released|committed|merged)|\bwhat (does|did) (pr|pull request) #?\d+|differences? between [^,;]*\b(branch|branches|main|master|commits?|tags?|versions|head)\b|\bcheck [^,;]* for (\w+ )?(errors|warnings)\b|\b(ci (is |was )?down|which (commit|change|pr) (caused|introduced|broke)|(passes|pass) (all )?(the )?(existing )?tests|(prs?|pull requests?|issues|commits) (merged|closed|opened|assigned)|(overnight|today'?s|yesterday'?s|last week'?s|recent) (activity|commits|changes)|standup|which tests are failing|does (it|the project|the code) (still )?(build|compile|pass)|^(do|does|did) (all |the |our |my |your )*(unit |integration |e2e )?(tests?|checks?|builds?|ci|linters?|lint|everything) (still )?(pass|passing|compile|build|succeed|run green)|ci (is )?green|status of|build status|is the build|diagnostics|git status|uncommitted changes|current branch|which branch|what branch)\b|^(show|list|what|which|how many|who|are there|any)\b.*\b((compiler|lint|linter|type|build) (errors|warnings)|commits|changes made|changed|(my|open|recent|merged) (prs|pull requests)|(open|closed|recent|new|my|github|gitlab|jira|all( the)?( open)?) issues|issues (in|on) (the |this )?(repo|repository|tracker|project|github)|issues (assigned|opened|closed|labell?ed|tagged)|diff|alerts|git log|history|blame)\b|^summari[sz]e\b[^.;]*\b(changes|diff|commits|prs?|pull requests|issues|activity|releases)\b|^(please\s+)?(re-?run|run) (pytest|cargo|go test|npm|yarn|pnpm|make|tox|jest|vitest|mocha|rspec|git)\b|^(please\s+)?(re-?run|run) (again )?(the |that |this |those |these |all (the )?|my |our |every )?(\S+ )?(tests?|suite|specs?|checks?|linters?|build|test suite)\b"
    )
);
pattern!(
    q_review,
    r"\b(review|critique|look over|check my changes|audit|security (problems|issues|holes|flaws|vulnerabilities)|vulnerabilit(y|ies)|check (if|whether)|report (any|all)|any( \w+){0,2} (problems|issues|bugs|mistakes|errors)|^check ([a-hj-z]|i[a-mo-z]|in\w)|(optimi[sz]ed|efficient|performant|secure|idiomatic)$|code (quality|smells?)|missing tests|test gaps?|feedback (for|on)|^(identify|flag|spot|point out|highlight|detect|catch) [^,;]*\b(risky|risks?|bugs?|issues|problems|smells|unclear|mistakes|errors|vulnerabilit\w+|potential)\b|duplicat(ion|ed code)|technical debt|tech debt|hotspots|bottlenecks?|tested (sufficiently|enough|adequately|properly|well)|(have|has|were|are) (the |all )?(callers|usages|call sites|references|tests|docs) (been )?updated|how (would|could|can|should) (you|i|we) improve|(suggest|propose) (improvements|changes)|look at (the |my |these |this )?(changes|diff|pr|code)|check (the|my|this|these) (\w+ )?(module|code|file|changes|diff|pr|function|class)|race conditions?|deadlocks?|memory leaks?|thread[- ]safe|analy[sz]e [^,;]* for\b)|^(validate|verify) (my|the|this|our)\b|^check (the |my |this |these |before |for |that )"
);
pattern!(
    q_search,
    r"^(search|find|locate|where (is|are|does|do|did)|where's|grep|list|show me where|look for|any references|show me (all )?(the )?(code|files|functions|places|usages|uses|classes))\b|^(what|which) (are (the )?)?([\w-]+ ){0,2}(components|files|functions|classes|modules|packages|methods|places|lines|endpoints|routes|services|types)\b|^which ([\w-]+ ){0,2}(component|file|function|class|module|package|method|place|line|endpoint|route|service|type)\b|^(is|are) there (a|an|any|already) ([\w-]+ ){0,2}(code|implementation|method|function|class|file|test|module|endpoint|helper|utility|util|script)s?\b|^show me (all|every|each)\b|\b(can'?t|cannot|couldn'?t|unable to) (find|locate) (where|which|the (definition|code|file|function|class|place|module|source))\b|\b(everyone|everything|anything|all (classes|types|structs)|who|which \w+) (that |which )?(extends?|implements|inherits?( from)?|subclass\w*|overrides?)\b|\banywhere\b|\blocation\b|^who (uses|calls|imports|references)\b|\b(uses of|usages of|references to|callers of|who calls|what calls|where is|where are|what (\w+ )?(does|do) (ID|\w+)( \w+){0,2} (call|invoke|use)|(functions|methods|what) (ID|\w+) calls)\b"
);
pattern!(
    q_explain,
    r"^(how does|how do|how is|how are|how to|what does|what is|what's|why does|why is|why do|describe|walk me through|give me an overview|tell me about|tell me (how|why|what)|trace|analy[sz]e|show me how|show how|explore|break (down|it down)|summari[sz]e|rephrase|paraphrase|(tips|hints|advice|ideas) (on|for|about)|investigate (what|how|why|whether|if)|(provide|give me|list|suggest|show me) (\d+|some|a few|several|two|three|four|five) (ways|options|approaches|alternatives|ideas|examples)|(i'?d like|i would like|i want|i need) to (know|understand|find out|learn))\b|\b(explain|overview|architecture|suggest(ions?)?|advice|recommend\w*)\b"
);
pattern!(sentence_break, r"[?.!;]\s+");
pattern!(conventional_commit, r"^(feat|fix|docs|refactor|test|chore|perf|ci|build|style)(\([^)]*\))?!?:\s*");
pattern!(topic_prefix, r"^[a-z][\w-]*( [a-z][\w-]*){0,2}:\s+");
pattern!(clause_end, r"[,;:]");
// A first clause that sets a condition or states a fact, not an order of its own.
pattern!(conditional, r"^(when|whenever|if|before|after|for|in|unless|from now on|we|i|you|our|this|the|it)\b");
pattern!(template_words, r"\b(an? |the )?(pull request|pr|issue|bug report|feature request) templates?\b");
// "Explain this error and how to fix it": a change after "how to" is asked about, not asked for.
pattern!(how_to_end, r"\bhow (to|(i|we|you) (can|could|should|would)|(can|could|should|would|do) (i|we|you))\s*$");
// "How can I avoid race conditions?": asking how to do something is asking for an explanation.
pattern!(how_question, r"^how (to|(can|could|should|would|do|does|might) (i|we|you|one))\b");
pattern!(then_change, r"\b(and|then)\b");
pattern!(conjunct, r",? (and|then|and then) ");
// Chat front ends' prefixes: "@workspace how …", "#file:auth.js explain …", "/fix …".
pattern!(mention, r"^((@[\w/.-]+|#\w+:\S+)[\s:,]+)+");
pattern!(slash_command, r"^/(\w+)\b\s*");
pattern!(run_verb, r"^(please\s+)?(re-?run|run)\b");
// "Run test_parse", "rerun TestParse again", "run rect_area": a test named by its name (a
// word with "test" in it, or an identifier) is run, not implemented.
pattern!(
    run_named_test,
    r"(?i)^(please\s+)?(re-?run|run) (the )?(`[^`]+`|[\w.:/#-]*(test|spec)[\w.:/#-]*|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|\w+(::|#|\.)\w+)( test)?( again)?$"
);
pattern!(callees, r"\bwhat (?:\w+ )?(?:does|do) (\S+(?: \S+){0,2}) (?:call|invoke|use)\b");
pattern!(question_start, r"^(what|where|which|who|why|how|is|are|does|do|can|could|show|list|any)\b");
// A question asks; it changes nothing, whatever verb it mentions ("how would I delete a user?").
pattern!(
    interrogative,
    r"^(what|where|which|who|whom|whose|why|how|when|is|are|was|were|does|do|did|has|have|am i|can (i|we|one)|could (i|we|one)|should|shall (i|we)|would (it|that|this|there|i|we)|will (it|that|this|there)|isn'?t|aren'?t|doesn'?t|won'?t it)\b|^(if|once|suppose|supposing|assuming|say) .*\b(what|which|who|how)\b"
);
// Saying one wants to know is asking, wherever in the sentence it is said.
pattern!(
    wants_to_know,
    r"\b(want|wants|wanted|need|needs|would like|'d like) to (know|understand|find out|learn)\b|\b(i'?m|i am|we'?re|we are) (wondering|curious)\b|\bi wonder\b"
);
// A question opens with a question word or ends with a question mark; "when you change X, …" opens
// a rule as often as a question, so it is no question word here.
pattern!(question_word, r"^(what|where|which|who|whom|whose|why|how)\b");
// A request put politely as a question is still a request ("can you fix the test?").
pattern!(
    polite,
    r"(^|[,;:]\s*)(please|pls|kindly|(can|could|would|will|won'?t) (you|u|ya)|(i'?d|i would) like( you)? to|i (want|need) you to|let'?s|lets|help me|go ahead and|(can|could) (we|i) (have|get)|(do you think )?you could|i ask that you)\b|\bwould you mind\b"
);

// "Can we add tests for this?", "could we first commit this?": a proposal to change something is a
// request ("can we safely remove …", "can we just delete …" still ask whether it is safe).
pattern!(
    proposal,
    r"(^|[?.!;,]\s+)(?:so |and |but |ok,? |okay,? |now,? )?(?:(?:can|could|shall) we|perhaps|maybe) (?:also |first |now |then |maybe |perhaps |just )?(fix|add|make|tag|put|combine|unify|mark|turn|break|remove|delete|rename|commit|update|change|refactor|write|move|implement|create|split|extract|replace|clean|bump|upgrade|push|merge|simplify|convert|improve|drop|introduce|switch|revert|get rid of)\b"
);

pattern!(what_opening, r"^(what is|what's|what are|what does|what do)\b");
// Where a masked request places its target: "… in ID".
pattern!(place, r"\s(in|from|inside|of) (the )?(file )?id\b");
// What a change should achieve, after what it changes.
pattern!(
    purpose,
    r"\b(to be|to make (it|them|this|that|the code|things)|so (that|it|they|the|we)|in order to|for (better )?(readability|clarity|performance|speed|maintainability|testability|simplicity)|because|since)\b"
);
// A request that opens by making something: "add …", "write …", "create …" ("make sure" checks).
pattern!(imperative_make, r"^(add|implement|create|build|write|introduce|port|generate|expand|extend)\b");

// Mutations, in precedence order.
pattern!(
    m_test,
    r"\b(write|add|create|generate|cover \S+( \S+)? with)( [\w'-]+){0,3} (unit |integration |regression |e2e |end-to-end |property |snapshot )?(tests?|test cases?|specs?)\b|\btest coverage\b|\b(more|better|thorough|more thorough) testing\b|\bhas no tests\b|\b(lacks|without) (unit )?tests\b|\bunit ?tests?\b|\b(increase|improve|raise|boost|extend) (the )?(code |test |unit test )?coverage\b|\bunit tests?\b|\bregression tests?\b|^cover\b|\buntested\b|\b((is|are|was|were) )?never (executed|exercised|covered|run|called|tested) by (a |any )?tests?\b|\bnot covered by (any )?tests?\b|^(please\s+)?test (the |that |whether |if |for |all |each |every |our |this |these |\w+ \w+)"
);
pattern!(
    m_document,
    r"\b(document|docstrings?|doc comments?|documentation|readme|docs?|jsdoc|javadoc|rustdoc|godoc|tsdoc|changelog|tutorials?|guides?|how-?tos?|vignettes?|wiki|faq|(upgrade|migration|install(ation)?|setup|usage) (instructions|notes)|instructions (for|on|to) how|\w+ section|release notes|paragraph|notes file|(high[- ]level |an? )explanations? (of|for|about|on))\b|^(please\s+)?clarify\b|\b(markdown|md) (file|doc|document|page)\b|\b[\w/-]+\.(md|rst|adoc)\b|\b(a|the|new) section (about|on|for|to|in|with)\b|\b(documents|the manual|user manual)\b|^elaborate\b|\b(add|write|insert) (a |an |some |more )?(brief |short |inline |code |small |explanatory |clarifying )?(notes?|comments?) (to|for|about|on|explaining|describing|that)\b"
);
// "Add the ability to delete users" adds a feature, whatever the feature does.
pattern!(
    m_feature,
    r"^(please\s+)?(add|implement|introduce|provide|expose)( an?| the| new)? (ability|option|way|possibility) to\b|^(please\s+)?(add|implement|introduce)( an?| the| new)? [\w-]+ (command|subcommand|flag|option|endpoint|button|setting|hook)\b|^allow (users? |people |me )?to\b|^(please\s+)?(fail|warn|abort|exit|error out|reject|block|retry) [^,;]*\b(if|when|whenever|on)\b"
);
pattern!(
    m_rename,
    r"\brename\b|\bchange (the )?(\w+ )?name\b|\bcall (the )?\S+( \S+)? \S+ instead\b|\b(standardi[sz]e|normali[sz]e|unify) [\w\s]*names?\b|\breplace [^,;]*\b(the old name|old names|prefix|namespace)\b"
);
pattern!(
    m_commit,
    r"\b(commit|check in|push (the |my |these |this |all )?(changes|commits?|branch|to (origin|main|master|remote))|^(please\s+)?(git )?push\b|^(please\s+)?merge\b|\bcreate (git )?commits?\b|open (a |the )?(pr|pull request)|tag (a |the |this )?(\S+ )?(releases?|versions?)|push (the |a )?(\S+ )?tags?\b|^tag v?\d|releases? with tags|create (a |the )?(pr|pull request|tag)|merge\b[^,;]*\b(prs?|pull requests?|branch(es)?))\b"
);
pattern!(
    m_scaffold,
    r"\b(scaffold|bootstrap|set up a new|create a new ([\w-]+ ){0,3}(project|package|library|crate|app|application|service|website|site)|skeleton)\b|\bnew \w+ project\b|^(init|initiali[sz]e) (a |an |the |new )*(\w+ )?(project|workspace|repo|repository|package|app|module)\b|^(create|make|build) (a |an |the )?([\w-]+ ){0,3}(app|application|website|game)\b|boilerplate|project scaffolding|scaffold(ing)? (the |a |an )?(new )?(project|app)|\binitial [\w\s.-]*setup\b|\bproject setup\b|project structure|^create [^,;]* setup\b|^set ?up [\w.-]+ (backend|frontend|server|api|app)\b|^(set ?up|setup|init|initiali[sz]e|bootstrap|start) (a |an |the |new |initial |basic |minimal |fresh )*([\w.-]+ ){0,3}(workspace|project|repo|monorepo|package|app|application|website|site)\b"
);
pattern!(m_delete, r"\b(delete|remove|drop|get rid of|eliminate|removal of|deletion of)\b");
pattern!(
    m_fix,
    r"\b(fix|repair|debug|resolve|make the tests pass|broken|crash(es)?|throws|bug|(get|make) (ci|the build|the tests?|tests|build|it) (to )?(pass|passing|green|work|working|compile|compiling)|(type|compile|compilation|build|lint|syntax) errors?|(is|are) (failing|broken|red|erroring|crashing|hanging|flaky)|restore (green|passing|the build|ci|the tests)|(getting|got|seeing|see|get) (this |an |the |a )?(error|exception|traceback|failure|warning)|error:|\w+error:|traceback)\b|^(please\s+)?(do not|don'?t|never) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak)\b|\b(panics?|crash(es|ed|ing)?|hangs|freezes|fails|failed|doesn'?t|does not|can'?t be|cannot be|isn'?t|is not|not (working|found)|returns? (a |an )?(\d{3}|wrong|incorrect|empty|null|nil|none|undefined|nan)|at random|intermittently|flaky|even if|even though|should not|shouldn'?t|^make [^,;]* thread[- ]safe\b|^(cannot|can'?t|unable to) \w+|cannot read propert\w+|undefined is not|segmentation fault|segfault|null pointer|nil pointer)\b|\b(is|are|was|were|gets?|got) never (\w+ed|\w+en|run|shown|freed|closed|sent|set|found|hit|reached)\b|\bnever (actually |really )?(goes|go|gets|works|happens|fires|runs|returns|stops|ends|finishes|loads|shows|appears|completes|terminates|exits)\b"
);
pattern!(
    m_refactor,
    r"\bbreak (up|(it|this|them|these|the [\w-]+( [\w-]+)?) up|apart)\b|\b(refactor|clean up|cleanup|simplify|extract|restructure|reorgani[sz]e|split|deduplicate|dedupe|inline|tidy|signatures?|rework|move|rewrite|convert|unify|moderni[sz]e|consolidate|decouple)\b|\breplace (all |every |the )?[^,;]*\bwith\b|\b(centrali[sz]e|(in|into) (a )?single|in one (place|file|module|\w+)|into one)\b|^(please\s+)?(add|introduce) (a |an |the )?(new |extra |optional )?(parameter|argument|param)s? (to|for)\b|\b(address|reduce|clean) [^,;]*(code smells?|duplication|tech(nical)? debt)\b|\b(refactor(ing|ed|s)?|organi[sz]e|reuse|co-?locate|^separate)\b|into (its|their) own (file|module|class|function|package|crate)\b|\bmigrate (calls|usages|callers|code) (to|from|off)\b"
);
pattern!(
    m_implement,
    r"\b(add|implement|create|build|support|introduce|write|make|port|migrate|upgrade|bump|optimi[sz]e|speed up)\b"
);

pattern!(
    broad,
    r"\b(architecture|overview|overall|whole (project|codebase|repo)|project structure|big picture|codebase)\b"
);
pattern!(
    constraint,
    r"\b(without (?:[^,.;]|\.\w)+|but (don'?t|do not) (?:[^,.;]|\.\w)+|don'?t touch (?:[^,.;]|\.\w)+|(do not|don'?t|never) (change|modify|edit|alter) (?:[^,.;]|\.\w)+|only (in|for|inside|within|under|touch|change|edit|modify) (?:[^,.;]|\.\w)+|keep(ing)? (?:[^,.;]|\.\w)+ (unchanged|intact|as is)|keep(ing)? the public (api|interface)|everywhere)"
);
// A single-quoted name is quoted only where no letter touches either quote: "don't … what's" quotes nothing.
pattern!(
    constraint_start,
    r"\b(without|but (don'?t|do not)|don'?t touch|(do not|don'?t|never) (change|modify|edit|alter) |only (in|for|inside|within|under|touch|change|edit|modify)|keep(ing)? )"
);
pattern!(code_span, r#"`([^`]+)`|"([^"]+)"|(^|[^\w])'([^'\s][^']*[^'\s])'([^\w]|$)"#);
pattern!(
    identifier,
    r"[A-Za-z_][\w]*(?:(?:::|\.|/)[\w\-]+)+(?:\(\))?|[A-Za-z]*_[\w]+(?:\(\))?|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*|\b\w+\(\)"
);
pattern!(rename_to, r"\bto `?([A-Za-z_][\w.:]*)`?");

/// A verb and the pattern that signals it, in precedence order.
type VerbCue = (&'static str, fn() -> &'static Regex);

const STOPWORDS: &[&str] = &[
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

/// Masks identifiers, returning the masked text and the identifiers in order.
fn mask(text: &str) -> (String, Vec<String>) {
    let mut ids = Vec::new();
    let after_spans = code_span().replace_all(text, |c: &regex::Captures| {
        let inner = c.get(1).or(c.get(2)).or(c.get(4)).map_or("", |m| m.as_str());
        ids.push(inner.to_string());
        let around = |i| c.get(i).map_or("", |m| m.as_str());
        format!("{} ID {}", around(3), around(5))
    });
    let masked = identifier().replace_all(&after_spans, |c: &regex::Captures| {
        let id = c[0].trim_end_matches("()");
        ids.push(id.to_string());
        // A document named by its file ("create NOTES.md") still reads as a document.
        let document = [".md", ".mdx", ".rst", ".adoc"].iter().any(|e| id.to_ascii_lowercase().ends_with(e));
        if document {
            " ID markdown file ".to_string()
        } else {
            " ID ".to_string()
        }
    });
    // In the order the request says them, quoted or not: "explain load_config from `config.py`".
    ids.sort_by_key(|id| text.find(id.as_str()).unwrap_or(usize::MAX));
    (masked.into_owned(), ids)
}

/// Words after the first match of `cue`, without stopwords: a fallback
/// target. A reference to earlier work ("that function again", "the last
/// change") is kept as written: its small words are what it says.
fn words_after(masked: &str, cue: &Regex) -> String {
    let start = cue.find(masked).map_or(0, |m| m.end());
    // "Refactor parse to be simpler", "split the loader so that it streams": what the change
    // should achieve is not what it changes.
    let end = purpose().find_at(masked, start).map_or(masked.len(), |m| m.start());
    let masked = &masked[..end.max(start)];
    let rest = masked[start..].trim().trim_end_matches(['?', '.', '!']).trim();
    if !rest.split_whitespace().any(|w| w == "ID") && super::focus::refers_back(rest) {
        return rest.to_string();
    }
    masked[start..]
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty() && w != &"ID" && !STOPWORDS.contains(&w.to_ascii_lowercase().as_str()))
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that describe the situation rather than name code: "fix the failing
/// tests" has no target, the failures are the focus.
const GENERIC: &[&str] = &[
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

/// `lowered` as it was written in `original` (targets are found in lowercased text).
fn recase(original: &str, lowered: &str) -> String {
    let haystack = original.to_lowercase();
    match haystack.find(lowered) {
        // Lowercasing can change byte lengths outside ASCII; only map back when it did not.
        Some(at) if haystack.len() == original.len() => original[at..at + lowered.len()].to_string(),
        _ => lowered.to_string(),
    }
}

const QUERIES: [VerbCue; 5] =
    [("impact", q_impact), ("status", q_status), ("review", q_review), ("search", q_search), ("explain", q_explain)];
const MUTATIONS: [VerbCue; 9] = [
    ("implement", m_feature),
    ("test", m_test),
    ("document", m_document),
    ("rename", m_rename),
    ("commit", m_commit),
    ("scaffold", m_scaffold),
    ("delete", m_delete),
    ("fix", m_fix),
    ("refactor", m_refactor),
];
/// A change named by a generic verb ("add", "make"): read only when no specific cue is there.
const GENERIC_CHANGE: VerbCue = ("implement", m_implement);

/// Whether a sentence opens like a question ("do not fail on …" is an order, not "do …?"), or
/// says it wants to know ("… and want to know what breaks before I start").
fn asks(sentence: &str) -> bool {
    (interrogative().is_match(sentence) && !sentence.starts_with("do not ")) || wants_to_know().is_match(sentence)
}

/// The sentences of a request, each with whether it was asked (it ends with a
/// question mark or opens like a question).
fn sentences(lower: &str, question_mark: bool) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in sentence_break().find_iter(lower) {
        let piece = lower[start..m.start()].trim();
        if !piece.is_empty() {
            out.push((piece, m.as_str().starts_with('?') || asks(piece)));
        }
        start = m.end();
    }
    let piece = lower[start..].trim();
    if !piece.is_empty() {
        out.push((piece, question_mark || asks(piece)));
    }
    out
}

/// The earliest place any of `cues` matches `text`, and the first cue (in precedence order) that matches.
fn earliest(cues: &[VerbCue], text: &str) -> Option<(usize, VerbCue)> {
    let at = cues.iter().filter_map(|(_, re)| re().find(text).map(|m| m.start())).min()?;
    let cue = cues.iter().find(|(_, re)| re().is_match(text))?;
    Some((at, *cue))
}

/// The change a text asks for: the earliest specific cue ("add docstrings" is
/// documentation, "rename the document class" a rename; on a tie the first in
/// precedence), else a generic one ("add", "make": implement).
fn change(text: &str) -> Option<(usize, VerbCue, bool)> {
    // "Add the Delete User API doc", "add a fix-it button": after a generic verb, only what
    // names the thing made (tests, docs, an app, a pull request) says more than "implement".
    let generic_first = m_implement().find(text).is_some_and(|m| m.start() == 0);
    let specific = MUTATIONS
        .iter()
        .enumerate()
        .filter_map(|(rank, cue)| cue.1().find(text).map(|m| (m.start(), rank, *cue)))
        .filter(|(at, _, (verb, _))| {
            *at == 0 || !generic_first || matches!(*verb, "test" | "document" | "scaffold" | "commit")
        })
        .min_by_key(|(at, rank, _)| (*at, *rank));
    // Documents are what "fix the docs" and "rewrite the readme" change.
    let specific = match specific {
        Some((at, rank, (verb, _))) if matches!(verb, "fix" | "refactor") && m_document().is_match(text) => {
            Some((at, rank, ("document", m_document as fn() -> &'static Regex)))
        }
        other => other,
    };
    match specific {
        Some((at, _, cue)) => Some((at, cue, true)),
        None => m_implement().find(text).map(|m| (m.start(), GENERIC_CHANGE, false)),
    }
}

/// Category and verb of a task (not a standing instruction), the cue that
/// decided it, and how many mutation cues agreed. A question is a query
/// whatever it mentions: "how would I delete a user?" asks how. A request put
/// as a question ("can you fix the test?") is a request, and an imperative is
/// read by its first verb: "fix what breaks" is a fix, "explain how to fix
/// it" an explanation, "add rate limiting and add tests" an implementation;
/// but "run the tests and fix what fails" is a fix: the change is the goal.
/// Of several sentences the first that is not a question speaks ("why does
/// parse fail? fix it").
fn read_task(lower: &str, question_mark: bool) -> (&'static str, &'static str, &'static Regex, usize) {
    let all = sentences(lower, question_mark);
    let has_cue = |text: &str| earliest(&QUERIES, text).is_some() || change(text).is_some();
    let order = all
        .iter()
        .filter(|(text, _)| polite().is_match(text))
        .chain(all.iter().filter(|(text, asked)| !asked && !polite().is_match(text)))
        .chain(all.iter().rev().filter(|(text, asked)| *asked && !polite().is_match(text)));
    let (sentence, asked) = order
        .clone()
        .find(|(text, _)| has_cue(&polite().replace_all(text, "$1")))
        .copied()
        // With no cue anywhere, a question asked speaks before an instruction to answer it.
        .or_else(|| all.iter().find(|(_, asked)| *asked).copied())
        .or_else(|| all.last().copied())
        .unwrap_or((lower, question_mark));
    let body = polite().replace_all(sentence, "$1");
    let text = body.trim();
    // A sentence put politely asks for what it names, wherever in the request it stands.
    let asks = asked && !polite().is_match(lower) && !polite().is_match(sentence);
    let query = match earliest(&QUERIES, text) {
        // "What is the current status of this PR?", "what does parse call?": "what is" says that it
        // asks; a specific cue anywhere in the question says what about.
        Some((at, ("explain", _))) if what_opening().is_match(text) => {
            QUERIES.iter().find(|(verb, re)| *verb != "explain" && re().is_match(text)).map(|cue| (at, *cue))
        }
        _ => None,
    }
    .or_else(|| earliest(&QUERIES, text));
    let mutation = change(text);
    let agreeing = MUTATIONS.iter().filter(|(_, re)| re().is_match(text)).count().max(1);
    // "Add rate limiting to this endpoint and add tests": the first conjunct's change is the task.
    let first = conjunct().split(text).next().unwrap_or(text);
    let first_change =
        if first.len() < text.len() && earliest(&QUERIES, first).is_none() { change(first) } else { None };
    if let (false, Some((_, (verb, re), _))) = (asks, first_change) {
        return ("mutation", verb, re(), agreeing);
    }
    // "Add breaking changes from major versions to the docs": a request that opens with a verb
    // that makes something asks for it, whatever the thing is about.
    let makes = !asks && imperative_make().is_match(text);
    match (query, mutation) {
        _ if asks && ci_state().is_match(text) => ("query", "status", q_status(), 1),
        (_, Some((_, (verb, re), _))) if makes => ("mutation", verb, re(), agreeing),
        // "Why is this test failing?" asks for a reason, not for the status.
        (Some((_, (verb, re))), _) if asks => {
            let how =
                how_question().is_match(text) && (verb == "search" || (verb == "review" && !text.contains("improve")));
            if how || (verb != "impact" && text.starts_with("why ")) {
                ("query", "explain", q_explain(), 1)
            } else {
                ("query", verb, re(), 1)
            }
        }
        // A question about a change: how to make it, whether to.
        (None, Some((_, (_, re), _))) if asks => ("query", "explain", re(), 1),
        (Some((q, (verb, re))), Some((m, _, specific)))
            if q <= m && !(specific && then_change().is_match(&text[q..m]) && !how_to_end().is_match(&text[..m])) =>
        {
            ("query", verb, re(), 1)
        }
        (Some((_, (verb, re))), None) => ("query", verb, re(), 1),
        (_, Some((_, (verb, re), _))) => ("mutation", verb, re(), agreeing),
        (None, None) if asks || question_start().is_match(text) => ("query", "explain", q_explain(), 0),
        (None, None) => ("mutation", "implement", m_implement(), 0),
    }
}

/// A request without what chat front ends put before it: mentions
/// ("@terminal", "#file:x.js", whose file stays as the name it is) and slash
/// commands, read as the words they stand for ("/ask" marks a question).
fn without_front_end(text: &str) -> (bool, String) {
    let files = |m: &str| {
        m.split_whitespace().filter_map(|w| w.split_once(':').map(|(_, f)| f.to_string())).collect::<Vec<_>>().join(" ")
    };
    let text = match mention().find(text) {
        Some(m) => format!("{} {}", &text[m.end()..], files(m.as_str())).trim().to_string(),
        None => text.to_string(),
    };
    let Some(c) = slash_command().captures(&text) else { return (false, text) };
    let rest = &text[c[0].len()..];
    let command = c[1].to_ascii_lowercase();
    let words = match command.as_str() {
        "ask" => return (true, rest.to_string()),
        "remember" | "memory" => "remember",
        "forget" => "forget",
        "explain" => "explain",
        "fix" => "fix",
        "tests" | "test" => "write tests for",
        "doc" | "docs" => "document",
        "review" => "review",
        "new" => "create a new",
        other => other,
    };
    (false, format!("{words} {rest}").trim().to_string())
}

/// Whether `topic` (the words before a colon) only names what the request is about: no
/// identifier, no verb of its own ("avoid magic numbers: …" is the rule itself).
fn plain_topic(topic: &str) -> bool {
    let cued = [forbid(), require(), prefer(), m_implement()].iter().any(|re| re.is_match(topic))
        || MUTATIONS.iter().any(|(_, re)| re().is_match(topic))
        || QUERIES.iter().any(|(_, re)| re().is_match(topic));
    !cued && !topic.split_whitespace().any(|w| w == "id")
}

/// A pull-request title in the third person or as a gerund ("removes the unused option",
/// "removing the unused option") read as the imperative it stands for.
fn imperative_title(lower: &str) -> String {
    const VERBS: &[(&str, &str)] = &[
        ("adds", "add"),
        ("removes", "remove"),
        ("deletes", "delete"),
        ("drops", "drop"),
        ("fixes", "fix"),
        ("renames", "rename"),
        ("refactors", "refactor"),
        ("implements", "implement"),
        ("introduces", "introduce"),
        ("updates", "update"),
        ("documents", "document"),
        ("moves", "move"),
        ("replaces", "replace"),
        ("simplifies", "simplify"),
        ("extracts", "extract"),
        ("adding", "add"),
        ("removing", "remove"),
        ("deleting", "delete"),
        ("dropping", "drop"),
        ("fixing", "fix"),
        ("renaming", "rename"),
        ("refactoring", "refactor"),
        ("implementing", "implement"),
        ("updating", "update"),
        ("documenting", "document"),
        ("moving", "move"),
        ("replacing", "replace"),
        ("merges", "merge"),
        ("merging", "merge"),
        ("added", "add"),
        ("created", "create"),
    ];
    // A conventional-commit type says what kind of change follows ("docs: …", "fix(parser): …").
    // A title that opens with its own verb keeps it ("refactor: remove the option" removes).
    let lower = match conventional_commit().captures(lower) {
        Some(c) => {
            let rest = &lower[c[0].len()..];
            let own_verb = MUTATIONS.iter().any(|(_, re)| re().find(rest).is_some_and(|m| m.start() == 0));
            match &c[1] {
                "refactor" | "test" if own_verb => rest.to_string(),
                "fix" => format!("fix {rest}"),
                "docs" => format!("document {rest}"),
                "refactor" => format!("refactor {rest}"),
                "test" => format!("write tests: {rest}"),
                _ => rest.to_string(),
            }
        }
        // "Error handling: use try/catch", "API: allow users to …": the topic is not the request.
        None => match topic_prefix().find(lower) {
            Some(m) if m.end() < lower.len() && plain_topic(m.as_str().trim_end_matches([':', ' '])) => {
                lower[m.end()..].to_string()
            }
            _ => lower.to_string(),
        },
    };
    // Templates for pull requests and issues are files to write, not pull requests or bugs.
    let lower = template_words().replace_all(&lower, "$1template").replace("bug report", "bugreport");
    let lower = lower.as_str();
    let (first, rest) = lower.split_once(' ').unwrap_or((lower, ""));
    match VERBS.iter().find(|(third, _)| *third == first) {
        Some((_, imperative)) if !rest.is_empty() => format!("{imperative} {rest}"),
        _ => lower.to_string(),
    }
}

/// How far the second reader's best label must score above its next to overrule the rules
/// (chosen on `public5.tsv` before `public6.tsv` was first scored).
const SECOND_READER_MARGIN: f64 = 0.2;
/// The confidence of a reading the two readers disagree on.
const DISPUTED: f64 = 0.8;

/// What the second reader makes of a request as written: names masked as the rules mask them,
/// as it was trained (`scripts/train_perception.py` masks with the same two patterns).
fn second_reading(text: &str) -> Option<Reading> {
    super::reader::read(&mask(text).0)
}

/// The second reader's reading where it overrules the rules' `category`/`verb`: it disagrees by
/// more than the margin, and it may read a change as a question or a rule, never a question or a
/// rule as a change (acting on a request that only asked is the mistake that costs).
fn overruling<'r>(reading: &'r Option<Reading>, category: &str, verb: &str) -> Option<&'r Reading> {
    reading.as_ref().filter(|r| {
        (r.category(), r.verb()) != (category, verb)
            && r.margin > SECOND_READER_MARGIN
            && (r.category() != "mutation" || category == "mutation")
    })
}

/// The cue of a verb, where its target is looked for when the second reader chose it.
fn cue_of(category: &str, verb: &str) -> &'static Regex {
    let cue = match category {
        "instruction" => return instruction(),
        "query" => QUERIES.iter().find(|(v, _)| *v == verb),
        _ => MUTATIONS.iter().find(|(v, _)| *v == verb),
    };
    cue.map_or_else(m_implement, |(_, re)| re())
}

/// The intent JSON of a memory to keep or drop: `target` is the memory's text, as written.
fn memory_intent(verb: &str, target: &str, confidence: f64) -> String {
    json!({
        "category": "instruction", "verb": verb, "target": target, "constraints": [],
        "context": "narrow", "confidence": confidence, "missing": [],
    })
    .to_string()
}

/// How a constraint says which file the target lies in ("in: null.go").
pub const LOCATED_IN: &str = "in: ";

/// Whether the request places its target in `name`, a file: "… in null.go", "… from
/// `config/loader.py`" (a name with a dot or a slash, after "in", "from", "inside" or "of").
fn placed_in(original: &str, name: &str) -> bool {
    (name.contains('.') || name.contains('/'))
        && Regex::new(&format!(r"(?i)\b(in|from|inside|of)\s+(the\s+)?(file\s+)?`?{}\b", regex::escape(name)))
            .is_ok_and(|re| re.is_match(original))
}

/// Reads one request into intent JSON.
pub fn transduce(text: &str) -> String {
    // The second reader reads the request as it was written, as it was trained to.
    transduce_with(text, second_reading(text.trim()))
}

/// Reads one request into intent JSON, with the second reader's `reading` of it (none: the
/// rules alone).
fn transduce_with(text: &str, reading: Option<Reading>) -> String {
    let (asked, text) = without_front_end(text.trim());
    let original = text.as_str();
    let (masked_raw, ids) = mask(original);
    let masked = masked_raw.to_lowercase().trim_end_matches(['?', '.', '!', ' ']).to_string();
    // Masking leaves runs of spaces; patterns count words by single spaces.
    // "pre-commit hooks" configure a tool; they commit nothing.
    // A contraction split by a stray space ("can' t") is still the contraction.
    let lower = masked
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("pre-commit", "precommit")
        .replace("' t ", "'t ");
    let lower = imperative_title(&lower);
    let proposed = proposal().is_match(&lower);
    let lower = proposal().replace_all(&lower, "${1}please ${2}").into_owned();

    // "Remember that …" / "forget …": the rest of the request, as written, is the memory.
    for (verb, cue) in [("remember", remember()), ("forget", forget())] {
        if let Some(m) = cue.find(original) {
            let text = original[m.end()..].trim().trim_end_matches('.').to_string();
            // "Don't forget to run the tests" is an instruction to act, not something to keep.
            let to_act = verb == "remember" && text.to_lowercase().starts_with("to ");
            if !text.is_empty() && !to_act {
                // "/memory:forget": where the readers disagree, the second tells keeping from dropping.
                return match overruling(&reading, "instruction", verb) {
                    Some(r) if matches!(r.verb(), "remember" | "forget") => memory_intent(r.verb(), &text, DISPUTED),
                    _ => memory_intent(verb, &text, 0.95),
                };
            }
        }
    }

    if keep_fact().is_match(original) {
        return memory_intent("remember", original.trim_end_matches('.'), 0.8);
    }
    // "Run test_parse": a test named by its name is run; the second reader does not read names.
    let named_test = run_named_test().is_match(original.trim_end_matches(['.', '!']));
    // A question is never a standing rule: "what breaks if you change X?" asks.
    let questioned = (original.ends_with('?') || question_word().is_match(&lower)) && !polite().is_match(&lower);
    let first_clause = lower.split(';').next().unwrap_or(&lower);
    let task_first = change(first_clause).is_some_and(|(_, _, specific)| specific);
    // "Write tests for X, and do not change null.go": a task said with a constraint on it.
    let task_with_constraint =
        change(&lower).is_some_and(|(_, _, specific)| specific) && constraint().is_match(&original.to_lowercase());
    let standing = (!questioned && instruction().is_match(&lower))
        || (!questioned && then_forbid().is_match(&lower) && !task_first)
        || (!original.ends_with('?')
            && negated_imperative().is_match(&lower)
            && !negated_symptom().is_match(&lower)
            && !clause_break().is_match(&lower));
    let (category, verb, cue, cues): (&str, &str, &Regex, usize) = if standing {
        // The first cue speaks: "always handle errors, never assign to _" requires.
        let verb = [("forbid", forbid()), ("require", require()), ("prefer", prefer())]
            .iter()
            .enumerate()
            .filter_map(|(rank, (verb, re))| re.find(&lower).map(|m| ((m.start(), rank), *verb)))
            .min();
        // An order first and a prohibition after it ("verify claims; do not infer") requires.
        let first_clause = clause_end().find(&lower).map_or(lower.len(), |m| m.start());
        let verb = match verb {
            Some(((at, _), _)) if at > first_clause && !conditional().is_match(&lower) => "require",
            Some((_, verb)) => verb,
            None => "require",
        };
        let cue =
            [instruction(), then_forbid()].into_iter().find(|c| c.is_match(&lower)).unwrap_or(negated_imperative());
        ("instruction", verb, cue, 1)
    } else if named_test {
        ("query", "status", run_verb(), 1)
    } else {
        read_task(&lower, asked || original.ends_with('?'))
    };
    // The second reader (a classifier trained on labelled requests, `reader.rs`) speaks where it
    // disagrees with the rules by a clear margin: the rules read the phrasings they were written
    // for, the classifier generalises further on the ones they were not (tests/fixtures/perception).
    let disputed = !named_test && reading.as_ref().is_some_and(|r| (r.category(), r.verb()) != (category, verb));
    // "Can we also rename X?": a proposed change stays a change; the second reader may still tell which.
    let overruled = match overruling(&reading, category, verb) {
        _ if named_test => None,
        Some(r) if proposed && category == "mutation" && r.category() != "mutation" => None,
        // "Write tests for X; do not change Y": a task said first stays a task, whatever rule follows it.
        Some(r) if task_with_constraint && category == "mutation" && r.category() == "instruction" => None,
        other => other,
    };
    let (category, verb, cue, cues) = match overruled {
        Some(r) => {
            // "Keep in mind we deploy on Fridays": a memory said without the rules' cue is the whole request.
            if r.category() == "instruction" && matches!(r.verb(), "remember" | "forget") {
                return memory_intent(r.verb(), original.trim_end_matches('.'), DISPUTED);
            }
            (r.category(), r.verb(), cue_of(r.category(), r.verb()), 1)
        }
        None => (category, verb, cue, cues),
    };
    // "Run that test again": the target is what follows "run", not what the cue swallowed.
    let cue = if verb == "status" && run_verb().is_match(&lower) { run_verb() } else { cue };
    // "What does parse call": the target sits inside the cue.
    let inside = if verb == "search" { callees().captures(&lower).map(|c| c[1].to_string()) } else { None };

    let mut constraints: Vec<String> =
        constraint().find_iter(&original.to_lowercase()).map(|m| m.as_str().trim().to_string()).collect();
    // What a constraint names ("only in calc/ops.py") is not the target; the target is said before it.
    // Where a move or an extraction puts code ("move mul into calc/products.py") is not what it moves.
    let original_lower = original.to_lowercase();
    let destination = |i: &String| {
        let i = i.to_lowercase();
        verb == "refactor"
            && ["into ", "to ", "in a new file ", "into a new file "]
                .iter()
                .any(|p| original_lower.contains(&format!("{p}{i}")))
    };
    let moved_to = ids.iter().any(destination);
    let placed = ids.iter().find(|i| placed_in(original, i)).cloned();
    let ids: Vec<String> = ids
        .into_iter()
        .filter(|i| !constraints.iter().any(|c| c.contains(&i.to_lowercase())) && !destination(i))
        .collect();
    let lower = match constraint_start().find(&lower) {
        Some(m) if m.start() > 0 => lower[..m.start()].trim_end_matches([',', ' ']).to_string(),
        _ => lower,
    };
    // The words that name what moves come before where it goes.
    let lower = match moved_to.then(|| lower.rfind(" into ").or_else(|| lower.rfind(" to "))).flatten() {
        Some(at) => lower[..at].to_string(),
        None => lower,
    };
    // A rename names the new name after "to"; the target is the other name.
    let new_name = if verb == "rename" { rename_to().captures(original).map(|c| c[1].to_string()) } else { None };
    // "UnmarshalText in null.go", "explain add in calc/more.py": a file named after "in" places the
    // target, which is what is said before it when anything is.
    let said_before_place = placed.as_ref().and_then(|_| {
        let before = &lower[..place().find(&lower)?.start()];
        let words = recase(original, &words_after(before, cue));
        let generic = words.split_whitespace().all(|w| GENERIC.contains(&w.to_lowercase().as_str()));
        (!generic).then_some(words)
    });
    let target = match &new_name {
        Some(new) => ids.iter().find(|i| *i != new).cloned().unwrap_or_else(|| {
            let before_to = lower.split(" to ").next().unwrap_or(&lower);
            words_after(before_to, cue)
        }),
        None => ids
            .iter()
            .find(|i| Some(*i) != placed.as_ref())
            .cloned()
            .or(said_before_place)
            .or_else(|| placed.clone())
            .unwrap_or_else(|| match &inside {
                Some(name) => recase(original, name),
                None => recase(original, &words_after(&lower, cue)),
            }),
    };
    let generic = !target.is_empty()
        && ids.is_empty()
        && target.split_whitespace().all(|w| GENERIC.contains(&w.to_lowercase().as_str()));
    let target =
        if generic && matches!(verb, "fix" | "test" | "status" | "review" | "commit") { String::new() } else { target };
    if let Some(new) = new_name.or_else(|| if verb == "rename" { ids.get(1).cloned() } else { None }) {
        constraints.push(format!("new name: {new}"));
    }
    if let Some(file) = placed.filter(|file| *file != target) {
        constraints.push(format!("{LOCATED_IN}{file}"));
    }
    constraints.truncate(8);
    let confidence = match cues {
        0 => 0.5,
        _ if disputed => DISPUTED,
        1 => 0.95,
        _ => 0.8,
    };
    let mut missing = Vec::new();
    // A fix targets the failures and a scaffold the new project, so neither needs a named target.
    if target.is_empty() && category == "mutation" && !matches!(verb, "commit" | "fix" | "scaffold") {
        missing.push(json!({"param": "target", "clue": original, "hypothesis": ""}));
    }
    if verb == "rename" && !constraints.iter().any(|c| c.starts_with("new name")) {
        missing.push(json!({"param": "new_name", "clue": original, "hypothesis": ""}));
    }
    let context = if broad().is_match(&lower) { "broad" } else { "narrow" };
    json!({
        "category": category,
        "verb": verb,
        "target": target,
        "constraints": constraints,
        "context": context,
        "confidence": confidence,
        "missing": missing,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> serde_json::Value {
        serde_json::from_str(&transduce(text)).expect("intent JSON")
    }

    /// How the rules alone read each case, without the trained second reader.
    fn rules_read_as(cases: &[(&str, &str, &str)]) {
        for (text, category, verb) in cases {
            let v: serde_json::Value = serde_json::from_str(&transduce_with(text, None)).expect("intent JSON");
            assert_eq!((reading(&v).0, reading(&v).1), (*category, *verb), "{text}: {v}");
        }
    }

    fn reading(v: &serde_json::Value) -> (&str, &str, f64) {
        (
            v["category"].as_str().unwrap_or(""),
            v["verb"].as_str().unwrap_or(""),
            v["confidence"].as_f64().unwrap_or(0.0),
        )
    }

    /// Each request reads as its category and verb.
    fn reads_as(cases: &[(&str, &str, &str)]) {
        for (text, category, verb) in cases {
            let v = read(text);
            assert_eq!((reading(&v).0, reading(&v).1), (*category, *verb), "{text}: {v}");
        }
    }

    /// The training script wrote what its model decides on a sample of the training rows; masking
    /// names here and computing the features in `reader.rs` must give the same label and margin.
    #[test]
    fn the_second_reader_decides_as_the_trained_model_does() {
        let check = include_str!("../../tests/fixtures/perception/reader_check.tsv");
        let mut rows = 0;
        for line in check.lines().filter(|l| !l.starts_with('#')) {
            let mut cols = line.splitn(3, '\t');
            let (label, margin, text) = (cols.next().unwrap(), cols.next().unwrap(), cols.next().unwrap());
            let margin: f64 = margin.parse().unwrap();
            let reading = second_reading(text).unwrap();
            assert_eq!(reading.label, label, "{text:?}");
            assert!((reading.margin - margin).abs() < 1e-3, "{text:?}: margin {} against {margin}", reading.margin);
            rows += 1;
        }
        assert!(rows > 300, "{rows} rows checked");
    }

    #[test]
    fn a_question_is_never_a_rule_and_wanting_to_know_is_asking() {
        reads_as(&[
            // "If you change …" opens a rule, but a question asks.
            ("What breaks if you change parse_config?", "query", "impact"),
            ("When you change the schema, update the docs", "instruction", "require"),
            ("I'm planning to change a function signature and want to know what breaks first.", "query", "impact"),
            ("I'd like to know how to delete a user", "query", "explain"),
            ("we're wondering how the cache module picks what to evict", "query", "explain"),
            ("locate the config loader", "query", "search"),
            ("confirm nothing regressed", "query", "status"),
            ("check that no tests fail after the merge", "query", "status"),
        ]);
    }

    #[test]
    fn git_state_project_facts_and_whether_a_removal_is_safe() {
        reads_as(&[
            ("list all branches", "query", "status"),
            ("show me staged changes", "query", "status"),
            ("what happened on this branch", "query", "status"),
            ("This project uses Vitest for testing.", "instruction", "remember"),
            ("Is the lodash dependency really needed?", "query", "impact"),
            ("can I just delete node_modules?", "query", "impact"),
            ("any concerns with renaming the package?", "query", "impact"),
            ("how can I delete a user with this API?", "query", "explain"),
            ("Can you tag the new releases?", "mutation", "commit"),
            ("Would you mind adding a CONTRIBUTING guide?", "mutation", "document"),
        ]);
    }

    #[test]
    fn a_proposal_asks_for_the_change_and_the_state_of_a_build_is_asked_or_reported() {
        rules_read_as(&[
            ("can we fix the flaky login test?", "mutation", "fix"),
            ("could we first commit these changes?", "mutation", "commit"),
            ("Looks good. Can we also rename fetch_all to load_all?", "mutation", "rename"),
            ("can we safely remove the legacy folder?", "query", "impact"),
            ("can I just remove the legacy folder?", "query", "impact"),
            ("why is the pipeline failing?", "query", "status"),
            ("why are the checks failing on this PR?", "query", "status"),
            ("is this branch green?", "query", "status"),
            ("The nightly build is failing on Windows", "mutation", "fix"),
            ("is this merged yet?", "query", "status"),
            ("has this been pushed yet?", "query", "status"),
            ("what's still outstanding?", "query", "status"),
            ("where do things stand?", "query", "status"),
            ("why is this function returning None?", "query", "explain"),
        ]);
    }

    #[test]
    fn what_a_change_should_achieve_is_not_its_target() {
        for (text, target) in [
            ("refactor f to be simpler", "f"),
            ("split the loader so that it streams", "loader"),
            ("simplify parse_header for readability", "parse_header"),
            ("rewrite the config module to make it testable", "config module"),
            ("refactor the retry logic", "retry logic"),
        ] {
            let v: serde_json::Value = serde_json::from_str(&transduce_with(text, None)).unwrap();
            assert_eq!(v["target"], target, "{text}: {v}");
        }
    }

    #[test]
    fn a_target_placed_in_a_file_says_which_file() {
        for (text, target, placed) in [
            ("write tests for UnmarshalText in null.go; do not change null.go", "UnmarshalText", Some("in: null.go")),
            ("fix parse_header in src/http/headers.py", "parse_header", Some("in: src/http/headers.py")),
            ("explain load_config from `config/loader.py`", "load_config", Some("in: config/loader.py")),
            ("refactor fetch_all in the client", "fetch_all", None),
            ("rename parse_header to parse_headers", "parse_header", None),
        ] {
            let v: serde_json::Value = serde_json::from_str(&transduce_with(text, None)).unwrap();
            assert_eq!(v["target"], target, "{text}: {v}");
            let constraints: Vec<&str> =
                v["constraints"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
            let found = constraints.iter().copied().find(|c| c.starts_with(LOCATED_IN));
            assert_eq!(found, placed, "{text}: {v}");
        }
    }

    #[test]
    fn a_proposed_change_is_never_overruled_into_a_question() {
        let sure = |text: &str, label: &'static str| -> (String, String) {
            let v: serde_json::Value = serde_json::from_str(&transduce_with(text, second(label, 5.0))).unwrap();
            (v["category"].as_str().unwrap().to_string(), v["verb"].as_str().unwrap().to_string())
        };
        let text = "Looks good. Can we also rename fetch_all to load_all?";
        assert_eq!(sure(text, "query/explain"), ("mutation".into(), "rename".into()), "not into a question");
        assert_eq!(sure(text, "mutation/refactor"), ("mutation".into(), "refactor".into()), "the change may differ");
        // Without the proposal, a question stays open to the second reader.
        assert_eq!(sure("Is there a rename helper here?", "query/search"), ("query".into(), "search".into()));
    }

    #[test]
    fn what_a_request_makes_names_its_verb_and_a_symptom_with_never_is_a_bug() {
        rules_read_as(&[
            ("Add the breaking changes of v3 to the upgrade guide", "mutation", "document"),
            ("Write migration notes for the 2.0 release", "mutation", "document"),
            ("add a usage example to docs/cli.md", "mutation", "document"),
            ("what breaks if I upgrade to v3?", "query", "impact"),
            ("Maybe add a retry to the fetch helper?", "mutation", "implement"),
            ("is parse_header used anywhere?", "query", "search"),
            ("is the legacy module still used, or can it be removed safely?", "query", "impact"),
            ("Worker threads are never joined on shutdown", "mutation", "fix"),
            ("Never commit secrets", "instruction", "forbid"),
            ("the export command is never executed by a test", "mutation", "test"),
            ("Replace the old name in all package names", "mutation", "rename"),
            ("write tests for parse in util.go; put them in a new file and do not change util.go", "mutation", "test"),
            ("verify claims; do not infer", "instruction", "require"),
            ("What is the current status of this pull request?", "query", "status"),
            ("what does parse_header call?", "query", "search"),
            ("what is the difference between load and loads?", "query", "explain"),
            ("do all the tests pass now?", "query", "status"),
            ("The windows build keeps failing, can we fix it?", "mutation", "fix"),
            ("so can we tag the release as v1.2.0?", "mutation", "commit"),
        ]);
    }

    #[test]
    fn the_second_reader_speaks_where_the_rules_find_no_cue() {
        // A fact stated as a rule file's line: no verb the rules know, a memory to the classifier,
        // kept as written.
        let v = read("Uses VS Code with vim keybindings");
        assert_eq!(reading(&v), ("instruction", "remember", DISPUTED));
        assert_eq!(v["target"], "Uses VS Code with vim keybindings");
        // "Enhance … coverage": the rules' generic change, the classifier's test writing.
        let v = read("Enhance testing coverage for the parser module");
        assert_eq!(reading(&v), ("mutation", "test", DISPUTED));
    }

    #[test]
    fn where_the_readers_agree_the_rules_stand_as_sure_as_before() {
        for (text, category, verb) in [
            ("fix the failing tests", "mutation", "fix"),
            ("rename parse to parse_input", "mutation", "rename"),
            ("who calls login", "query", "search"),
            ("explain the architecture", "query", "explain"),
        ] {
            let r = second_reading(text).expect("the embedded model");
            assert_eq!((r.category(), r.verb()), (category, verb), "{text}: the classifier");
            assert_eq!(reading(&read(text)), (category, verb, 0.95), "{text}");
        }
    }

    fn second(label: &'static str, margin: f64) -> Option<Reading> {
        Some(Reading { label, margin })
    }

    #[test]
    fn the_second_reader_overrules_by_a_clear_margin_and_never_towards_a_change() {
        let over = SECOND_READER_MARGIN + 0.01;
        let under = SECOND_READER_MARGIN - 0.01;
        // Within a category, and from a change to a question or a rule: by a clear margin only.
        assert!(overruling(&second("mutation/test", over), "mutation", "implement").is_some());
        assert!(overruling(&second("mutation/test", under), "mutation", "implement").is_none());
        assert!(overruling(&second("query/status", over), "mutation", "implement").is_some());
        assert!(overruling(&second("instruction/remember", over), "mutation", "implement").is_some());
        assert!(overruling(&second("query/explain", over), "instruction", "require").is_some());
        // Never a question or a rule made a change, however sure the classifier is.
        assert!(overruling(&second("mutation/delete", 5.0), "query", "impact").is_none());
        assert!(overruling(&second("mutation/implement", 5.0), "instruction", "require").is_none());
        // Agreement, or no model, is no overruling.
        assert!(overruling(&second("query/search", 5.0), "query", "search").is_none());
        assert!(overruling(&None, "query", "search").is_none());
    }
}
