//! The offline transducer's cues: the patterns that signal each category and
//! verb, in precedence order, and the words that frame a reference rather than
//! name code. Knows nothing about how a request is read with them.

use regex::Regex;

// Instructions: standing rules for the project, not one-off requests.
pattern!(
    pub(super) instruction,
    r"\bshould (always )?(be|come) (the )?(first|last) (argument|parameter|param|import|statement)\b|^no (\S+ ){1,4}(outside|except in|in) (of )?(tests|test code|production|library code)\b|^(please\s+)?use [^,;]*\(not [^)]+\)|^(please\s+)?(keep|ensure) (that )?(the |your |all |our )?[^,;]* (is |are )?up to date\b|^for (breaking changes|new features|bug fixes|every|each|all|any) [^,;]*, (append|add|use|include|write|prefix|mark|document|bump|run|update)\b|^(ensure|make sure) (that )?(your|all|every|each|any|no) [^,;]* (is|are) (not |never |always )|[,;]\s*(never|always)\b|\b(we|you) should always\b|\b(should|must) always\b|\bunless (explicitly |specifically )?(asked|told|requested|instructed)\b|^(every|each|all) \S[^,;]* (must|should|ships?|has to|have to|needs? to|gets?|requires?)\b|^(please\s+)?(preserve|respect|follow|adhere to|stick to|honou?r) (all |the |our |existing |any )|^(please\s+)?(include|pass) [^,;]* (for|in|on|with|to) (all|every|each|any)\b|^(please\s+)?(strictly |always )?(adhere to|comply with|conform to|follow) ([\w.-]+ ){0,3}(coding |code |style )?(standards?|conventions|guidelines|style guides?|principles)\b|^(from now on,?\s*)?(never|always|don'?t ever|do not ever|stop using|avoid|prefer|favou?r|we'?d rather|make sure (all|every|to always)|every \S.* must|all \S.* must)\b|\bfrom now on\b|^(i|we) (prefer|'d rather|would rather|like to keep|always want)\b|^(please\s+)?(use|indent with) (tabs|spaces|\d+ spaces)\b|^(please\s+)?keep (answers|replies|responses|functions|methods|commits|lines|diffs|patches|changes) \w+|^(it'?s (ok|okay|fine|alright) to|you (may|can always|are allowed to)|feel free to|no need to (ask|confirm))\b|^(please\s+)?use [^,;]*\b(for (all|every|any|each|different|new|git|commit|our)|over|instead of|rather than|everywhere|throughout|whenever|when (writing|naming|creating|adding|amending|committing))\b|^(please\s+)?use \S+( \S+)? (case|style|indentation|mood|quotes|naming|conventions?)\b|^(please\s+)?use [^,;]* for [^,;]*\bnames\b|^(please\s+)?use (id|[\w-]+case) for (all |new )?(variables|functions|classes|methods|files|constants|types|components|directories|folders|identifiers|tests|modules)\b|^(please\s+)?use [\w-]+ (commits?|commit messages|branch names)\b|^(please\s+)?(use|write|prefer|choose|return|raise|throw) [^,;]*\b(instead of|rather than|to avoid)\b|^(please\s+)?(make|keep) (the |your |all |every |each )?(\w+ )?(extremely |very |more |always )?(concise|brief|terse|succinct|short)\b|^(please\s+)?keep (all |every |each |the |your )?[\w-]+ ((strictly|very|always|as|really) )?(under|below|short|small|simple|focused|minimal|minimalist|concise|brief|lowercase|readable|clean|consistent|tidy)\b|^(concise|terse|brief|succinct)\b|^no [^,;]*\s[-–—:]\s|^no [^,;]* (without|unless)\b|^no ([\w-]+ ){0,3}[\w-]+( (or|and) [\w-]+( [\w-]+)?)?( in [^,;]+)?$|^(please\s+)?use [^,;]+, not \S+$|^only [\w\s]+ (when|if|where)\b|^([\w-]+ ){1,4}(must|must not|must never|should never|should always|shall|shall not) \w+|\b(for|to|in) (all|any|every|each) (new|future) \w+|\bfor new functionality\b|\bbefore (answering|considering|finishing|completing|declaring|marking|reporting|claiming|writing|pushing|committing|merging|making|changing|editing|starting|opening|submitting|creating|concluding|suggesting|proposing|implementing|modifying|deleting|applying|you|any|each|every)\b|\bafter (edits|editing|every|each|any|changes|changing|making|writing)\b|\b(if|when|whenever) (your|you|a|any) (change|changes|pr|commit|edit|code|patch)\w*\b|^(when|whenever|before|after|if) [^,;]+, (please\s+)?(never|always|don'?t|do not|avoid|prefer|make sure|ensure|be)\b|^(please\s+)?(be|stay) (more |very |always )?(concise|brief|terse|succinct|direct|explicit|thorough|careful|honest|precise|specific|polite|critical|conservative|cautious|mindful)\b|^(you|we) (should|must|need to|have to)( try to| always)? (use|prefer|avoid|write|keep|follow|run)\b|^(please\s+)?(include|add|put|mention) [^,;]* in (all |every |each |the |your )?(commit messages?|commits|pr (titles|descriptions)|pull requests)\b"
);
// "Verify claims; do not infer": an order, then a prohibition, is a standing rule, unless the order
// is a task of its own ("write tests for X; do not change null.go" asks for tests, with a constraint).
pattern!(pub(super) then_forbid, r";\s*(do not|don'?t)\b");
// "Do not add dependencies" is a standing instruction; "don't touch the tests, fix the parser" is a
// mutation with a constraint, so a negated imperative counts only when it is the whole request.
pattern!(
    pub(super) negated_imperative,
    r"^(please\s+)?(do not|don'?t|no more) [a-z][\w-]*\b([^,;]*$|[^,;]*\binstead\b[,;]?[^,;]*$|[^,;]*[,;] \w+[^,;]* instead$|[^,;]*[,;] \w+ (it|them|those|these)\b[^,;]*$)"
);
// "Don't crash on empty input" reports a symptom; "don't know why …" is no order at all.
pattern!(
    pub(super) negated_symptom,
    r"^(please\s+)?(do not|don'?t) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak|work|know|understand|see|get|think)\b"
);
pattern!(
    pub(super) clause_break,
    r"\b(and|but|then) (fix|rename|refactor|implement|add|write|update|change|make|run|delete|remove)\b"
);
pattern!(pub(super) forbid, r"\b(never|don'?t|do not|stop using|avoid|must not|must never|no more)\b|^no\b");
pattern!(
    pub(super) require,
    r"\b(must|always|required|has to|have to|needs? to|make sure|ensure|remember to|important)\b|^(please\s+)?keep [^,;]* up to date\b"
);
pattern!(
    pub(super) prefer,
    r"\b(prefer|favou?r|rather|like to keep|indent with|over|instead of|concise|brief|terse|succinct)\b|^(please\s+)?(keep|use|be|stay|only)\b"
);

// Memory: what to keep across sessions, or let go of (the memory text is what follows).
pattern!(
    pub(super) remember,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(remember|note|keep in mind|bear in mind|don'?t forget|do not forget|memori[sz]e)\b(\s+that\b)?\s*:?\s*"
);
pattern!(
    pub(super) forget,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(forget|stop remembering|disregard what i said|(delete|remove|clear|drop|erase|wipe) (the |all |your |any )?(memor(y|ies)|notes?)( (about|of|on))?)\b(\s+(that|about)\b)?\s*:?\s*"
);
// "Save it to memory", "my database port is 5432": a fact to keep, said without "remember".
pattern!(
    pub(super) keep_fact,
    r"(?i)^(please\s+)?(save|store|record|keep) the fact that\b|\b(save|store|record|add|put|keep|write) (it|this|that)( \w+)? (to|in|into) (your |the )?([\w-]+ ){0,2}memory\b|^(please\s+)?(save|store|record|note) (this|that)\s*:|^(we|our (team|project|app|codebase|repo)|this (project|repo|codebase)) (use|uses)\b[^,;.!?]*, not \S+$|^(my|our) [\w\s-]{1,30} (is|are|lives|runs) (at|on|in)?\s*\S+$|^(my|our) [\w\s-]{1,30} (uses?|goes through|go through|relies on|rely on|(is|are) (built|written) (with|in)|(is|are) (hosted|deployed) (on|to|at))\b[^?]*$|\b(update|add to) (my|your|the) memory\b|^(this|it) is an? [\w\s.-]*\b(project|app|application|library|service|repo|repository|monorepo|website|cli|tool)\b[^?]*$|^my name is\b|^(hosted|deployed|built|written) (on|with|in|to)\b|^(this|the|our) (project|repo|repository|codebase|app|application|library|service|monorepo|package|crate|module) (uses|contains|is written in|is built (with|on)|runs on|targets|depends on|relies on)\b[^?]*$|^(the )?(project|app|codebase|repo|repository) (is using|uses|is built with|is written in) [^,;!?]*$|\bis an alias for\b|^[\w.@/-]+( [\w.@/-]+)? (is|are) (the|our) ([\w-]+ )?(package manager|linter|formatter|runtime|framework|database|test runner|bundler|build tool|orm|type checker|web server|cache)s?\b( and (the |our )?([\w-]+ )?(package manager|linter|formatter|runtime|framework|database|test runner|bundler|build tool|orm|type checker|web server|cache)s?)?[^?]*$|^styling is done (using|with|in)\b|^(backend|frontend|database|db|language|stack|tech stack|framework|hosting|orm|styling|auth|api)\s*:\s*[\w.+# -]+(,\s*(backend|frontend|database|db|language|stack|framework|hosting|orm|styling|auth|api)\s*:\s*[\w.+# -]+)+$|^[^:]{1,30}:\s*[\w.-]+( \+ [\w.-]+)+\.?$|^(the )?([\w.-]+ ){1,3}(is|are) (deployed|generated|built|hosted|stored|kept|managed|bundled|compiled|published) (exclusively |only |automatically )?(by|from|via|with|in|on|to|using)\b[^?]*$"
);

// Queries, in precedence order.
pattern!(
    pub(super) q_impact,
    r"\bwhat (are|were) the tests (for|of|covering)\b|\bit('?s| is) (still |now |really )?safe to\b|\bdownstream (repos|repositories|projects|users|packages|crates|consumers|dependents)\b|\bforeseeable (problems|hardships|issues)\b|\blead to any (issues|problems|breakage)\b|\b(any )?other places\b[^?]*\b(using|use|uses|calling|call|calls|depend|depends|depending)\b|\bwhere would (the |it )?(damage|breakage|break|failures?) (surface|show up|appear)\b|^(the )?(effects?|impacts?|consequences?|implications?|side effects?) of (changing|removing|renaming|upgrading|dropping|switching|moving|deleting|updating|migrating|replacing)\b|\bwhich tests (cover|exercise|execute|executed|run|ran|hit|reach|touch|trigger|triggers)\b|\b(unit )?tests that (will )?(potentially )?(execute|cover|run|hit|reach|exercise|trigger)\b|\b(when|after|before) (upgrading|updating|migrating)\b|^will (this|it|that) [^?]*\b(get rid of|delete|remove|break|affect|lose|wipe|overwrite)\b|\b(is|are) (this|it|these|that) (part of )?(our |the )?public (api|interface)\b|\b(warrants?|requires?|needs?) a major( version| bump| release)?\b|\bwhy is (it|this|that) (even |still )?(needed|necessary|required)\b|^(please\s+)?(evaluate|assess|research|investigate|analy[sz]e)\b[^,;]*\b(upgrad\w*|migrat\w*|switch\w*|moving) to\b|\bfeasibility\b|\b(really|still|even) (needed|necessary|required)\b|\bneeded any ?more\b|^(can|could|should) (i|we) (just |safely |simply )?(delete|remove|drop|rename|upgrade|bump)\b|^why (can'?t|cannot|shouldn'?t) (i|we) (just |simply )?(delete|remove|drop|rename|upgrade)\b|\b(concerns?|objections?|reasons? not|anything (that )?speaks? against) (with|about|to|against)? ?(renaming|removing|deleting|dropping|upgrading|changing|moving)\b|\b(what (would )?breaks?|would break|impact of|affected|depends on|blast radius|(is it|is that|is this|would it be|it'?s) (safe|ok|okay) to( (remove|delete|drop|change|rename|refactor|move|modify|upgrade|touch|edit))?|safe to (remove|delete|drop|change|rename|refactor|move|modify|upgrade)|what (happens|would happen|will happen|could happen) if (we|i|you|someone|they) (\w+ )?(delete|remove|drop|change|rename|upgrade|bump|update|modify|move|replace|refactor|merge|revert|disable)|breaking changes?|^breaking\b|analy[sz]e (the )?impact|scope of (this|the|my|that|our) (change|pr|commit|refactor\w*)|what (will |could |might |would )?breaks?|(problems?|issues?|risks?|harm|downsides?) (with|in|of) (deleting|removing|changing|renaming|dropping|upgrading|moving|replacing)|need to (be )?(updated|changed|modified)\b|can (it|this|that|they|these|those) be (safely )?(deleted|removed|dropped)|depends? on|depending on|(is|are|be|get|gets|been) impacted|impacts? (of|on)|affects?|undesirable effects?|unintended (effects?|consequences)|side[- ]effects? (of|from)|upgrade (issues|problems|risks)|(issues|problems|risks) (when |with |in )?upgrading|look out for if|watch out for if|compatible with|compatibility (with|of)|if (i|we) (upgrade|were upgrading|bump|update|remove|delete|drop)|which tests (cover|exercise|hit|test|touch|reach)|what tests (cover|exercise|hit|test|touch|reach)|tests? (that|which) (cover|exercise|hit|reach)|tests? covers?|tests? (already )?exercis\w*|what (could|might|would|will|does) (this|it|that|the change|my change|this change) break|(will|would|could|does|might) (this|it|that|my changes?|the changes?|this change|anything) break|(does|do|would|will|could|might) [^,;?]* break( |$)|break (anything|things|stuff|backwards?[- ]compat\w*|compat\w*|existing|callers|the api|clients)|still used|safely (remove|delete|drop|change|rename)\w*|(can|could) (it|we|i|this|that) (be )?safely)\b"
);
// "Why is CI failing?", "is this PR green?": asked, the state of a build, a check or a pull request
// ("CI is failing on main", said, reports a bug).
pub(super) const CI_STATE: &str = r"\b(ci|the build|builds?|pipelines?|checks|workflows?|(this|the|my|our|that) (pr|pull request|branch))( \w+)? (is |are |was )?(failing|broken|red|green|passing)\b|\bfail(s|ing|ed)? (in|on) (ci|the pipeline|github actions)\b|\bchecks? (didn'?t|did not|doesn'?t|does not|don'?t|do not|failed to|fail to) pass\b|\b(didn'?t|did not|don'?t|do not|doesn'?t|does not) (the |all |my |our )?(ci )?checks? pass\b";
// "Which version is running?": the state of what is deployed.
pub(super) const RUNNING_VERSION: &str = r"\b(which|what) ([\w-]+ )?(version|release|build)( [\w-]+)? (is|are|am|was) (running|installed|deployed|in use)\b|\b(current(ly)?|actually) running version\b|\bversion (that )?(one is|i am|i'm|we are|we're|it is|is) running\b|\bwhich [\w-]+ is running\b";
// "Is this committed yet?", "what's outstanding?", "where do things stand?": the state of the work.
pub(super) const WORK_STATE: &str = r"^what (was|were) (i|we) (doing|working on)\b|^(did|have) (you|we) (already )?(set ?up|setup|finish|finished|complete|completed|push|pushed|commit|committed)\b|\bwhat (did|have) (we|you) (do|done) so far\b|\b(until |up to )?(where|how far) (we|i) (reached|got|left off|stopped)\b|^(is|are|has|have) (this|it|that|these|everything|we|you|the \w+)( \w+)? (committed|pushed|merged|finished|done|complete|completed|deployed|released)( yet| now)?\b|\bwhat'?s (still )?(outstanding|left|remaining|pending)\b|\bwhere (do|does) (things|we|it|this) stand\b|^(please\s+)?wait (for|until) (the )?(ci|build|tests?|checks|pipeline|workflow|pr)\b";
// "Is this project still maintained?", "can this issue be closed?", "why is it in draft?": the
// state of a project, an issue or a pull request.
pub(super) const PROJECT_STATE: &str = r"\bwill there be (a |an )?(new )?([\w.]+ )?release\b|\b(is there )?(any|an) updates? (on|about|regarding|for)\b|^(is|are) (it|this|that|there|they) (still )?planned\b|\bstatus (snapshot|report|summary|overview)\b|\bwhat'?s the (current )?status (of|for)\b|\bhow alive\b|\bat what stage\b|^any [\w-]+ progress\b|\bstate of (the|this) [\w-]+ as of\b|\bwhy (is )?nobody (is )?working on\b|\bis (the|this) project (dead|abandoned|alive)\b|\bstill (actively |being )?(maintained|developed|supported|alive)\b|\bunder active development\b|\b(any |new |next )?release plans?\b|\b(a|any) status update\b|\b(can|could|should) (this|it|that|the)( (issue|pr|pull request|ticket|one))? be (closed|merged|reopened)\b|\bthis can be (closed|merged)\b|\bin draft\b";
pattern!(pub(super) ci_state, &format!("{CI_STATE}|{RUNNING_VERSION}"));
pattern!(pub(super) project_state, &format!("{PROJECT_STATE}|{RUNNING_VERSION}"));
pattern!(
    pub(super) q_status,
    &format!(
        "{}|{WORK_STATE}|{PROJECT_STATE}",
        r"^when (did|was|were|has|have) (we|you|they|it|this|that|the|[\w-]+)\b|^run (the )?([\w-]+ )?(type ?check(ing|s)?|linters?|lint|test suite)\b|^(measure|report|show) (the )?(current )?(code |test )?coverage\b|^check (if|whether) [^,;]*\b(pass(es|ing)?|fail(s|ing)?|green|red|broken)\b|\b(test|build|ci) (logs?|results?|output|report)\b|\b(staged|unstaged|stashed) (changes|files)\b|^(list|show)( me)? (all |the |my )?(local |remote )?branches\b|^compare (the )?branch(es)?\b|\bwhat (happened|changed) (on|in) (this|the|my) branch\b|\bwhat (am i|are we) (currently |now )?working on\b|\babout to commit\b|^(please\s+)?(confirm|verify|check|make sure|ensure)( that)? (nothing|none of (it|this|them|my changes)|my changes? (did not|didn'?t|do not|don'?t)|the changes? (did not|didn'?t|do not|don'?t)|no tests?)\b|\b(tests? (are |is )?(passing|failing|green|red)|(latest|most recent|last) (release|version|tag|commit|merged pr)|the status)\b|^are the tests\b|^is (the )?ci\b|^check(ing)? on\b|(latest|last|recent|failed|failing) (pipeline|workflow run|ci run|job)s?\b|(recent|new) [\w-]* ?(errors|exceptions|alerts|incidents)\b|issues (are )?open\b|(prs|pull requests) (that )?(need|needing|awaiting|waiting for) reviews?|\brecently\b|\bhappening\b|(any|new|latest|recent) (releases?|tags)\b|\bany (news|updates?|progress)\b|\btest (whether |if |that )?(these|the|my|our|this|it|they)( \w+)? (is|are) (working|broken)\b|\b(release|fix|merge|update) when$|\bany chance (of|to) (get(ting)? )?(it|this|them|that) (finished|released|merged|done|fixed)\b|who (last )?(modified|changed|edited|touched|wrote)|^when (was|were|did) [^?]*\b(updated|modified|changed|released|committed|merged)|\bwhat (does|did) (pr|pull request) #?\d+|differences? between [^,;]*\b(branch|branches|main|master|commits?|tags?|versions|head)\b|\bcheck [^,;]* for (\w+ )?(errors|warnings)\b|\b(ci (is |was )?down|which (commit|change|pr) (caused|introduced|broke)|(passes|pass) (all )?(the )?(existing )?tests|(prs?|pull requests?|issues|commits) (merged|closed|opened|assigned)|(overnight|today'?s|yesterday'?s|last week'?s|recent) (activity|commits|changes)|standup|which tests are failing|does (it|the project|the code) (still )?(build|compile|pass)|^(do|does|did) (all |the |our |my |your )*(unit |integration |e2e )?(tests?|checks?|builds?|ci|linters?|lint|everything) (still )?(pass|passing|compile|build|succeed|run green)|ci (is )?green|status of|build status|is the build|diagnostics|git status|uncommitted changes|current branch|which branch|what branch)\b|^(show|list|what|which|how many|who|are there|any)\b.*\b((compiler|lint|linter|type|build) (errors|warnings)|commits|changes made|changed|(my|open|recent|merged) (prs|pull requests)|(open|closed|recent|new|my|github|gitlab|jira|all( the)?( open)?) issues|issues (in|on) (the |this )?(repo|repository|tracker|project|github)|issues (assigned|opened|closed|labell?ed|tagged)|diff|alerts|git log|history|blame)\b|^summari[sz]e\b[^.;]*\b(changes|diff|commits|prs?|pull requests|issues|activity|releases)\b|^(please\s+)?(re-?run|run) (pytest|cargo|go test|npm|yarn|pnpm|make|tox|jest|vitest|mocha|rspec|git)\b|^(please\s+)?(re-?run|run) (again )?(the |that |this |those |these |all (the )?|my |our |every )?(\S+ )?(tests?|suite|specs?|checks?|linters?|build|test suite)\b|^(please\s+)?(confirm|verify|check)( that)? (everything|it|all|things) (is|are|works?|looks?) (good|fine|ok|okay|working|correct)\b|\bsummary of the (current )?(state|status|progress)\b|^(please\s+)?(re-?run|run) (all |the |every )?(([\w-]+|and|&) ){0,4}(tests|test suite|suites?|specs|checks)( now| again)?$"
    )
);
pattern!(
    pub(super) q_review,
    r"^(please\s+)?comment on (my|the|this|our|these)\b|^(please\s+)?find (\w+ ){0,2}(issues|problems|bugs|mistakes|smells|vulnerabilities|risks) (in|with)\b|^profile\b|\bperformance profiling\b|\bbottlenecks?\b|\bwhat takes so long\b|\beasy wins\b|\bstatic analy[sz](e|is)\b|\bidentify (the )?(modules|files|functions|classes|code|places|parts|areas) (that|which)\b|\b(list|find|report) (anything|everything|all|what) (that )?differs\b|\bdiscrepanc(y|ies)\b|\b(do|run) (some |a )?(basic |quick )?profiling\b|\bidentify (the )?slow (parts|spots|paths|code)\b|\bwhere the (slow|hot) (parts|spots|paths) are\b|\b(get )?(your |some )?eyes on\b|\bmake sure (they'?re|it'?s|these are|this is) (all )?(reasonable|ok|okay|fine|correct|sane)\b|\b(make|give|write|produce) (me )?a list of ([\w-]+ )?(suggestions|recommendations|improvements|issues|problems)\b|^(please\s+)?(evaluate|assess|judge) (if|whether|how well)\b|\b(ensure|make sure|check) (that )?there (are|is) no (\w+ ){0,2}(bugs?|errors?|issues?|problems?|breaches|vulnerabilit(y|ies)|regressions?)\b|\bprofil(e|ing) (the |a |this |our |its )?([\w-]+ ){0,2}(startup|performance|time|quer(y|ies)|code|functions?|endpoints?|app|application|build)\b|^(does|do|is|are|did|will) [^?]*\b(sufficiently|adequately|properly|clearly|correctly|thoroughly) (explains?|describes?|documents?|covers?|tests?)\b|\b(review|critique|look over|check my changes|audit|security (problems?|issues?|holes?|flaws?|vulnerabilit(y|ies)|risks?|concerns?)|vulnerabilit(y|ies)|check (if|whether)|report (any|all)|any( \w+){0,2} (problems|issues|bugs|mistakes|errors)|^check ([a-hj-z]|i[a-mo-z]|in\w)|(optimi[sz]ed|efficient|performant|secure|idiomatic)$|code (quality|smells?)|missing tests|test gaps?|feedback (for|on)|^(identify|flag|spot|point out|highlight|detect|catch) [^,;]*\b(risky|risks?|bugs?|issues|problems|smells|unclear|mistakes|errors|vulnerabilit\w+|potential|leaks?|race conditions?)\b|duplicat(ion|ed code)|technical debt|tech debt|hotspots|bottlenecks?|tested (sufficiently|enough|adequately|properly|well)|(have|has|were|are) (the |all )?(callers|usages|call sites|references|tests|docs) (been )?updated|how (would|could|can|should) (you|i|we) improve|(suggest|propose) (improvements|changes)|look at (the |my |these |this )?(changes|diff|pr|code)|check (the|my|this|these) (\w+ )?(module|code|file|changes|diff|pr|function|class)|race conditions?|deadlocks?|memory leaks?|thread[- ]safe|analy[sz]e [^,;]* for\b)|^(validate|verify) (my|the|this|our)\b|^check (the |my |this |these |before |for |that )|\bwhat (test cases|tests|edge cases) should (i|we)\b|\bworth testing\b|\bwhat should (i|we) test\b|\bwhat('s| is) (the project|the code|the implementation|it|this) missing\b|^should (line|this|that|the|it)\b[^?]* (be|use) [^?]* instead\b|^(we |i )?(need to |should |please )?profile (the |its |\w+\W?s )?(start ?up|startup|performance|memory|boot)\b"
);
pattern!(
    pub(super) q_search,
    r"\bi (can'?t|cannot|can not|couldn'?t|cant) find\b|\bwhat('s| is|’s) the entry ?point (for|of|to|in)\b|^is (this|that|the|it)( [\w-]+){0,2} (still )?(in use|used anywhere|used somewhere|being used|referenced anywhere)\b|^is there (a|an|any) (symbol|function|method|class|helper|utility|interface|api|module|component|file|setting|option|config)s? (for|that|which|to|where)\b|\b(more|other) (cases|places|instances|occurrences|usages) like (this|that)\b|\blocate where\b|\bfind (out )?where\b|^in which (path|file|folder|directory|module|package|class)\b|\bwhich files? (do|does|should|would) (i|we|you) (need to )?(modify|change|edit|touch|update)\b|\b(is|was) (this|that) the only file\b|^(what|which) (tables|files|classes|functions|modules|endpoints|components|services|models) (are |is )?(related to|involved in|used (by|in)|part of)\b|\b(file|module|class)( name)? (that )?(contains|containing|defines|defining|holds|holding)\b|\b(is|are) (already|now) (added|implemented|present|in place|supported)\b|^(what|which) [\w\s-]+ (are|is) (we|you|it) (currently |still )?using\b|^(search|find|locate|where (is|are|does|do|did)|where's|grep|list|show me where|look for|any references|show me (all )?(the )?(code|files|functions|places|usages|uses|classes))\b|^(what|which) (are (the )?)?([\w-]+ ){0,2}(components|files|functions|classes|modules|packages|methods|places|lines|endpoints|routes|services|types)\b|^which ([\w-]+ ){0,2}(component|file|function|class|module|package|method|place|line|endpoint|route|service|type)\b|^(is|are) there (a|an|any|already) ([\w-]+ ){0,2}(code|implementation|method|function|class|file|test|module|endpoint|helper|utility|util|script)s?\b|^show me (all|every|each)\b|\b(can'?t|cannot|couldn'?t|unable to) (find|locate) (where|which|the (definition|code|file|function|class|place|module|source))\b|\b(everyone|everything|anything|all (classes|types|structs)|who|which \w+) (that |which )?(extends?|implements|inherits?( from)?|subclass\w*|overrides?)\b|\banywhere\b|\blocation\b|^who (uses|calls|imports|references)\b|\b(uses of|usages of|references to|callers of|who calls|what calls|where is|where are|what (\w+ )?(does|do) (ID|\w+)( \w+){0,2} (call|invoke|use)|(functions|methods|what) (ID|\w+) calls)\b"
);
// "Create a plan for the project setup": a plan asked for is advice, not a change.
pub(super) const PLAN: &str = r"(create|make|write|draft|come up with) (a |an )(plan|roadmap|strategy) (for|to)\b";
pattern!(
    pub(super) q_explain,
    &format!("{}|^(let'?s |lets |please )?{PLAN}", r"\bshed (some )?light on\b|\bhelp me (think|reason|work) (through|about|out)\b|\b(i'?m|i am) not sure (how|what|why|where|whether|if)\b|\bhelp me (choose|decide|pick|understand)\b|\b(share )?(your|any) (thoughts|opinions?) (on|about)\b|^(restate|recap)\b|^(understanding|how does|how do|how is|how are|how to|what does|what is|what's|why does|why is|why do|describe|walk me through|give me an overview|tell me about|tell me (how|why|what)|trace|analy[sz]e|show me how|show how|explore|break (down|it down)|summari[sz]e|rephrase|paraphrase|(tips|hints|advice|ideas) (on|for|about)|investigate (what|how|why|whether|if)|(provide|give me|list|suggest|show me) (\d+|some|a few|several|two|three|four|five) (ways|options|approaches|alternatives|ideas|examples)|(i'?d like|i would like|i want|i need) to (know|understand|find out|learn))\b|\b(explain|overview|architecture|suggest(ions?)?|advice|recommend\w*)\b|^(please\s+)?tell ?me\b|^(please\s+)?compare\b|\band tell ?me\b|^(please\s+)?give (me |us )?(your |a |an |the |some )?(best |short |simple |quick |brief |detailed |couple[- ]sentence[- ]long )*(advi[cs]e|explanation|summary|overview|recommendations?|opinion|thoughts|instructions|steps)\b")
);
pattern!(pub(super) sentence_break, r"[?.!;]\s+");
pattern!(pub(super) conventional_commit, r"^(feat|fix|docs|refactor|test|chore|perf|ci|build|style)(\([^)]*\))?!?:\s*");
// "[BUG] Pause at layer pauses twice?", "Bug: export drops a row": a title tagged as a bug reports one.
pattern!(pub(super) bug_tag, r"^\[?bug( report)?\]?\s*[:\]-]");
// "… in multiple threads", "concurrently", "safe to store the token in localStorage": the safety of a
// practice, judged; what a change would break is asked otherwise.
pattern!(
    pub(super) concurrency,
    r"\bsafe to (use|store|keep|save|put|expose|call|share|access|send|log|cache|trust|embed|hardcode|hard-code)\b|\b(multiple|several|many|different|other|concurrent) threads\b|\bconcurrently\b|\bin parallel\b|\bthread[- ]safe(ty)?\b|\bfrom (multiple|several|many) (goroutines|processes|workers)\b"
);
// "Identify memory leaks in …", "check for race conditions": an order to look for problems.
pattern!(
    pub(super) review_order,
    r"^(please\s+)?(help )?(identify|find|check|check for|look for|audit|review|analy[sz]e|detect|spot|flag|inspect) "
);
pattern!(pub(super) topic_prefix, r"^[a-z][\w-]*( [a-z][\w-]*){0,2}:\s+");
pattern!(pub(super) clause_end, r"[,;:]");
// A first clause that sets a condition or states a fact, not an order of its own.
pattern!(pub(super) conditional, r"^(when|whenever|if|before|after|for|in|unless|from now on|we|i|you|our|this|the|it)\b");
// "From now on, …", "going forward …": a rule for later work, said as one; nothing is asked.
pattern!(pub(super) standing_from_now, r"\b(from now on|from this point (forward|on)|going forward|henceforth|from here on)\b");
pattern!(pub(super) template_words, r"\b(an? |the )?(pull request|pr|issue|bug report|feature request) templates?\b");
// "Explain this error and how to fix it": a change after "how to" is asked about, not asked for.
pattern!(pub(super) how_to_end, r"\bhow (to|(i|we|you) (can|could|should|would)|(can|could|should|would|do) (i|we|you))\s*$");
// "How can I avoid race conditions?": asking how to do something is asking for an explanation.
pattern!(pub(super) how_question, r"^how (to|(can|could|should|would|do|does|might) (i|we|you|one))\b");
pattern!(pub(super) then_change, r"\b(and|then)\b");
pattern!(pub(super) conjunct, r",? (and|then|and then) ");
// Chat front ends' prefixes: "@workspace how …", "#file:auth.js explain …", "/fix …".
pattern!(pub(super) mention, r"^((@[\w/.-]+|#\w+:\S+)[\s:,]+)+");
pattern!(pub(super) slash_command, r"^/(\w+)\b\s*");
pattern!(pub(super) run_verb, r"^(please\s+)?(re-?run|run)\b");
// "Run test_parse", "rerun TestParse again", "run rect_area": a test named by its name (a
// word with "test" in it, or an identifier) is run, not implemented.
pattern!(
    pub(super) run_named_test,
    r"(?i)^(please\s+)?(re-?run|run) (the )?(`[^`]+`|[\w.:/#-]*(test|spec)[\w.:/#-]*|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|\w+(::|#|\.)\w+)( test)?( again)?$"
);
pattern!(pub(super) callees, r"\bwhat (?:\w+ )?(?:does|do) (\S+(?: \S+){0,2}) (?:call|invoke|use)\b");
// "Do not fail on …", "does not seem to work with …": an order or a symptom, where "doesn't it
// …" asks.
pattern!(pub(super) negated_statement, r"^(do not|does not|doesn'?t) ");
pattern!(
    pub(super) negated_question,
    r"^(do not|does not|doesn'?t) (it|this|that|these|those|there|the|they|you|we|i|he|she|your|our|my|any)\b"
);
pattern!(pub(super) question_start, r"^(what|where|which|who|why|how|is|are|does|do|can|could|show|list|any)\b");
// A question asks; it changes nothing, whatever verb it mentions ("how would I delete a user?").
pattern!(
    pub(super) interrogative,
    r"^(what|where|which|who|whom|whose|why|how|when (does|do|did|is|are|was|were|will|would|should|shall|can|could|has|have)|is|are|was|were|does|do|did|(has|have) (you|we|i|they|he|she|it|this|that|these|those|there|anyone|anybody|someone|somebody|any|the|all|your|our|my)\b|am i|can (i|we|one)|could (i|we|one)|should|shall (i|we)|would (it|that|this|there|i|we)|will (it|that|this|there)|isn'?t|aren'?t|doesn'?t|won'?t it)\b|^(if|once|when|whenever|suppose|supposing|assuming|say) .*\b(what|which|who|how)\b|^(based on|given|looking at|according to) [^,]*, (what|where|which|who|why|how|is|are|does|do|can|should)\b|\b(works?|working|passe?s?|passing) or not$"
);
// Saying one wants to know is asking, wherever in the sentence it is said.
pattern!(
    pub(super) wants_to_know,
    r"\b(want|wants|wanted|need|needs|would like|'d like) to (know|understand|find out|learn)\b|\b(i'?m|i am|we'?re|we are) (wondering|curious)\b|\bi wonder\b"
);
// A question opens with a question word or ends with a question mark; "when you change X, …" opens
// a rule as often as a question, so it is no question word here.
pattern!(pub(super) question_word, r"^(what|where|which|who|whom|whose|why|how)\b");
// A request put politely as a question is still a request ("can you fix the test?").
pattern!(
    pub(super) polite,
    r"(^|[,;:]\s*)(please|pls|kindly|(can|could|would|will|won'?t) (you|u|ya)|(i'?d|i would) like( you)? to|i (want|need) you to|let'?s|lets|help me|go ahead and|(can|could) (we|i) (have|get)|(do you think )?you could|i ask that you|would it be possible (for you )?to)\b|\bwould you mind\b"
);

// "Can we add tests for this?", "could we first commit this?": a proposal to change something is a
// request ("can we safely remove …", "can we just delete …" still ask whether it is safe).
pattern!(
    pub(super) proposal,
    r"(^|[?.!;,]\s+)(?:so |and |but |ok,? |okay,? |now,? )?(?:(?:can|could|shall) we|perhaps|maybe|i(?:'d| would)? (?:like to )?suggest (?:that )?(?:we|you)(?: to)?) (?:also |first |now |then |maybe |perhaps |just )?(fix|add|make|tag|put|combine|unify|mark|turn|break|remove|delete|rename|commit|update|change|refactor|write|move|implement|create|split|extract|replace|clean|bump|upgrade|push|merge|simplify|convert|improve|drop|introduce|switch|revert|get rid of)\b"
);

// "I'd love to be able to …", "it would be nice to see …": a feature wished for is asked for.
pattern!(
    pub(super) wished,
    r"^(i'?d|i would|we'?d|we would) (really )?love (to|it if (we|you|i|it|this|there|nerd))\b|^(it )?would be (really |very )?(nice|great|good|helpful|useful|awesome) (to|if)\b|^it'?d be (really )?(nice|great|good|helpful|useful) (to|if)\b|^(the )?ability to\b"
);
// "代理怎么配置": a question in Chinese, by its question words or its closing particle.
pattern!(pub(super) cjk_question, r"(怎么|怎样|如何|为什么|为何|有没有|是不是|哪(儿|里|个|些))|[吗呢][?？。]?$");
// "What about renaming the flag?", "how about adding a test?": a change suggested, which asks for it.
pattern!(pub(super) suggestion, r"^(what|how) about \w+ing\b");
// "Docker image is too large", "CI no longer runs tests", "Null values … are ignored": what goes
// wrong, stated without a verb of change, is a bug report.
pattern!(
    pub(super) symptom,
    r"\b(too (large|big|slow|long|heavy|small)|(is|are|seems?|looks?|gets?|got) (huge|enormous|bloated|massive)|huge \(|no longer (works?|runs?|builds?|compiles?|loads?|starts?|shows?|appears?)|(stopped|stops) (working|running)|(is|are) not (starting|loading|showing|displaying|rendering|updating|responding|saving)|(id|build|test|ci|compile|compilation|runtime|startup|install|installation|deploy|deployment)(/\w+)? failures?\b|(is|are|gets?|get|got) (silently )?(ignored|swallowed|dropped|lost)|nothing (changed|happens|happened|shows)|(an? |the )?(error|exception|warning)s? (pops?|appears?|occurs?|shows? up|is thrown)|(is|are) vulnerable to|memory leaks?|\b(is|are|was|were) never (defined|called|used|set|initiali[sz]ed|reached|triggered|closed|released|freed|shown|saved|updated|executed|run)\b|(really |very |extremely |highly |terribly )?inefficient\b|\bhigh (memory|cpu|ram|disk|gpu) (usage|consumption)|\bstill referenced\b|^(some |several |many |multiple |possible |potential )?security (flaws|holes)\b|\bfails? to (build|compile|start|load|run|install|open|connect|launch)\b|\b(ci|build|test) (check|job|run|pipeline|step) failures?\b|^[\w-]+( [\w-]+){0,3} (ignores|is ignoring) |out of sync|\bsync(hroni[sz]ation)? (issues?|problems?|errors?)|(clock|timing|tempo|pulse|time) drift|(has|have|having) (some |a lot of |serious |many )?(trouble|problems|issues)\b|becomes? (unavailable|unresponsive|stuck|corrupted|empty|blank)|not thread[- ]safe|spurious|leaks? memory|runs? (too |very |really )?slow(ly)?|^wrong|wrong (default|value|values|result|results|output|order|port|setting|behaviou?r)|(is|are|was|were) not (processed|handled|applied|respected|honou?red|called|triggered|updated|rendered|saved|loaded|shown|displayed|centered|centralized)|in (the )?(wrong|reverse) order|seems? to be (off|offset|broken|wrong|missing|cut off)|stopped (working|running|responding|with)|should (be|say|read|return) \S+ instead|crashloopbackoff|won'?t (successfully )?(start|load|build|compile|run|open|boot)|incompatib\w*|(mod |version )?conflicts? with|(does not|doesn'?t) (seem to )?(play|work) (well|nicely) with|not compatible with|(doesn'?t|does not|won'?t|can'?t|cannot|can not|not|fails? to) compil\w*|errors? (while|when) compiling|breaks? [\w./ -]*compil\w*|(much|way|far|significantly|\d+x) slower|slow as hell|loads? slowly|(is|are) slow to (load|start|open|respond|build|render)|(don'?t|do not|doesn'?t|does not) (work|load|render|show|start|open|respond|save|update|appear|display|redirect)|(redirect|infinite|endless) loop|(linker|link|linking) (command )?(failure|error)s?|(resets|loses|disappears|breaks|flickers|freezes|jumps|crashes) (\w+ ){0,3}(when|after|on|if|every)|(counted|called|triggered|fired|sent|applied|rendered|added|executed|charged) twice|(have|has) (\w+ )?(deteriorated|regressed|degraded)|^((security|bug|vulnerability): |\[security\] )?(possible |potential )?(sql injection|xss|csrf|ssrf|path traversal|command injection|open redirect|race conditions?|deadlocks?|buffer overflow)( vulnerabilit(y|ies))? (in|on|when|via|during)|^(an? )?errors? (when|while|during|on|opening|loading|saving|exporting|importing|running|building)|(is|are|becomes?|became|shows?|showing|saying|remains?|stays?) (\w+ )?unavailable|unavailable (in|after|since|on|when)|^(cannot|can'?t|can not|unable to) (open|load|save|start|run|enable|install|build|compile|connect|import|export|login|log in)|(loads?|runs?|starts?|opens?|is|are) (too|very|extremely) slow(ly)?|keeps? (going up|growing|increasing|climbing|crashing|restarting)|perpetual diff|\b(gives|throws|raises) (a |an )?\w*(error|exception)\b|\b(gives|throws|raises) (a |an )?id (after|when|on|while|during|if|in)\b|\b(does|do) fail\b|\boverflows?\b|interfere with each other|(is|are) (showing|throwing|reporting|giving) (\w+ ){0,2}(errors?|warnings?)|\bnot (starting|loading|working|responding|opening|launching|booting) (after|since|on|when|with))\b"
);
// "Whenever I click on like, the login pop-up should appear": what happens when a person acts is
// behaviour asked for, not a rule for the agent.
pattern!(pub(super) person_acts, r"^(whenever|every time|each time|any ?time|when) (i|we|a user|the user|users|someone|people) ");
// A rule for every time a condition holds, not a task: "whenever you compare …", "when asked to …",
// "if you don't understand something, …".
pattern!(
    pub(super) habitual,
    r"^(whenever|every time|each time|any ?time|when(ever)? (you'?re |you are )?asked (to|for|about)|when(ever)? (in doubt|unsure|uncertain)|if (you'?re |you are )?(unsure|uncertain|in doubt)|from (this point|now) (on|forward)|going forward|(so |also,? )?for (every|each|all|any) (prompt|request|task|change|commit|response|answer|question|development task)s?|if you (don'?t|do not|dont|can'?t|cannot) (understand|know))\b"
);
// "Add a tool to find all callers", "create a CI check to find …": what a made thing is to do is
// no question.
pattern!(
    pub(super) makes_a_tool,
    r"^(please\s+)?(add|create|implement|build|write|introduce|provide)( an?| the| new| some)*( [\w-]+)? (tool|command|subcommand|check|option|flag|feature|endpoint|button|script|api|action|workflow|job|hook)s? (to|that|which|for)\b"
);
// "Would it be possible to split up large files?": a change asked for, not how one is done.
pattern!(pub(super) possible_to, r"^would it be possible (for you )?to\b");
// "All components written with the Option API should be converted to …": a one-time change said in
// the passive, not a rule for later work.
pattern!(
    pub(super) change_in_passive,
    r"\b(should|must|need to|needs to) be (converted|migrated|moved|rewritten|refactored|replaced|renamed|removed|deleted|split|merged|extracted)\b"
);
// Words that make a sentence a rule rather than a task.
pattern!(pub(super) modal, r"\b(should|must|never|always|do not|don'?t|avoid)\b");
// "Update tests when modifying existing logic", "run the linter before committing": an order for
// every time something is done is a standing rule.
pattern!(
    pub(super) order_each_time,
    r"^(please\s+)?(always\s+)?(update|run|rerun|re-run|ask|check|verify|lint|format|test|document|review|commit)\b[^,;.]*\b(when(ever)?|before|after) [a-z]+ing\b"
);
// How the agent answers: "respond in the user's language", "always reply in English".
pattern!(
    pub(super) answer_style,
    r"^(max(imum)?|at most|no more than) \d+ (lines|words|sentences|paragraphs) (per|in|for|of) (each |a |every )?(response|reply|answer)|^(please\s+)?(always\s+)?(respond|reply|answer|communicate|talk|speak|write (your )?(answers|responses|replies))( to (me|the user|users))?( only)? in\b"
);

pattern!(pub(super) what_opening, r"^(what is|what's|what are|what does|what do)\b");
// Where a masked request places its target: "… in ID".
pattern!(pub(super) place, r"\s(in|from|inside|of) (the )?(file )?id\b");
// What a change should achieve, after what it changes.
pattern!(
    pub(super) purpose,
    r"\b(to be|to make (it|them|this|that|the code|things)|so (that|it|they|the|we)|in order to|for (better )?(readability|clarity|performance|speed|maintainability|testability|simplicity)|because|since)\b"
);
// A plan asked for at the start of a request (`PLAN`).
pattern!(pub(super) plan_asked, &format!("^{PLAN}"));
// A request that opens by making something: "add …", "write …", "create …" ("make sure" checks).
pattern!(
    pub(super) imperative_make,
    r"^(add|implement|create|build|write|introduce|port|generate|expand|extend)\b|^have (a|an|some) (way|option|setting|means|possibility) to\b"
);

// "Test suite fails", "tests fail on local": failing tests are a bug to fix, not tests to write.
pattern!(
    pub(super) m_tests_failing,
    r"^(the |our |all |some |many |several |most )?([\w-]+ )?(unit |integration |e2e |end-to-end )?tests?( suite| suites| run| runs| cases)? ((are|is) )?(consistently |always |still |now )?(fail|fails|failing|failed|keep failing|broke|broken|break|did not (succeed|pass)|didn'?t (succeed|pass)|do not pass|don'?t pass)\b"
);
// "Large list is slow in production. Any idea?": a problem told, then advice asked for, asks.
pattern!(
    pub(super) advice_asked,
    r"(\bany (idea|ideas|suggestions?|advice|hints?|pointers|thoughts|help)|\bwhat should (i|we) do|\bhow (can|do|should|could) (i|we) (fix|solve|resolve|handle|deal with|get around|work around) (this|it|that|these)|\bwhat am i (doing )?(missing|wrong)|\bam i (missing|doing) something)\W*$"
);

// "Compare X against Y and list what differs. Do not change code": a report asked for, changing nothing.
pattern!(
    pub(super) no_change_wanted,
    r"\b(do not|don'?t|no need to|without) (change|changing|modify|modifying|edit|editing|touch|touching) (any |the )?(code|files?|anything)\b"
);
pattern!(pub(super) writes_a_document, r"\b(write|create|produce|generate|update|make|add)\b[^.;]*\bmarkdown file\b");
pattern!(pub(super) report_asked, r"\b(list|report|produce the list|tell me|show me|summari[sz]e|describe)\b");

// "Remove performance bottlenecks", "get rid of the compiler warnings": a problem taken away is fixed,
// nothing is deleted.
pattern!(
    pub(super) m_problem_removed,
    r"^(please\s+)?(remove|eliminate|get rid of|resolve) (the |any |all |those |these )?(\w+ )?(bottlenecks?|memory leaks?|race conditions?|deadlocks?|flakiness|(compiler |build |lint |clippy |deprecation )?warnings)\b"
);
// "Clean this up", "clean up the login code", "merge a couple of near-identical helper functions":
// code restructured, not deleted or committed.
pattern!(
    pub(super) m_restructure,
    r"^(please\s+)?clean (this|it|that|things|everything|(the |this |my |our )?([\w-]+ )?code) up\b|^(please\s+)?clean up (the |this |my |our )?([\w-]+ )?code\b|^(please\s+)?(merge|combine|unify|consolidate) (a couple of |two |the |these |those |some |all |duplicate |duplicated |near-identical |similar |redundant )*([\w-]+ )?(functions|helpers|methods|classes|modules|components|hooks|utilities|utils)\b"
);
// "Remove the defaults from the playbook and place them in the role": what is taken out and put
// elsewhere moves.
pattern!(
    pub(super) m_relocate,
    r"^(please\s+)?(remove|take|pull|move) [^,;]* (and |to )?(place|put|move) (them|it) (in|into|to)\b|\bpull out (groups of )?[^,;]* (into|to) (their|its) own\b"
);

// Whether a change is safe, asked: "any concerns with renaming …", "is it safe to remove …".
pattern!(
    pub(super) safety_asked,
    r"\b(concerns? (with|about)|safe to (remove|delete|drop|rename|upgrade|change|update|bump|merge|deploy|migrate|move)|what (would |might |will )?breaks?|break anything|side effects? of)\b"
);

// Mutations, in precedence order.
pattern!(
    pub(super) m_test,
    r"\b(write|add|create|generate|implement|cover \S+( \S+)? with)( [\w'-]+){0,3} (unit |integration |regression |e2e |end-to-end |property |snapshot )?(tests?|test cases?|specs?|testing)\b|\btest coverage\b|\b(more|better|thorough|more thorough) testing\b|\bhas no tests\b|\b(lacks|without) (unit )?tests\b|\bunit ?tests?\b|\b(increase|improve|raise|boost|extend) (the )?(code |test |unit test )?coverage\b|\bunit tests?\b|\bregression tests?\b|^cover\b|\buntested\b|\b((is|are|was|were) )?never (executed|exercised|covered|run|called|tested) by (a |any )?tests?\b|\bnot covered by (any )?tests?\b|^(please\s+)?test (the |that |whether |if |for |all |each |every |our |this |these |\w+ \w+)"
);
pattern!(
    pub(super) m_document,
    r"\b(document|docstrings?|doc comments?|documentation|readme|docs?|jsdoc|javadoc|rustdoc|godoc|tsdoc|changelog|tutorials?|guides?|how-?tos?|vignettes?|wiki|faq|(upgrade|migration|install(ation)?|setup|usage) (instructions|notes)|instructions (for|on) (upgrading|installing|running|using|setting up|building|deploying)|glossary|needs? (a )?definition|instructions (for|on|to) how|\w+ section|release notes|paragraph|notes file|(high[- ]level |an? )explanations? (of|for|about|on))\b|^(please\s+)?clarify\b|\b(markdown|md) (file|doc|document|page)\b|\b[\w/-]+\.(md|rst|adoc)\b|\b(a|the|new) section (about|on|for|to|in|with)\b|\b(documents|the manual|user manual)\b|^elaborate\b|\b(page|section|chapter|guide|tutorial|docs?) [^,;]*\bto (talk about|discuss|explain|cover|describe)\b|\broadmap\b|\bfeature list\b|^(please\s+)?mention\b|\b(add|write) (a |an |the )?([\w-]+ ){0,2}tips?\b|\b(add|write|insert) (a |an |some |more )?(brief |short |inline |code |small |explanatory |clarifying )?(notes?|comments?) (to|for|about|on|explaining|describing|that)\b"
);
// "Add the ability to delete users" adds a feature, whatever the feature does.
pattern!(
    pub(super) m_feature,
    r"^(have|provide|need) (a|some|an) (way|option|setting|means) to\b|^(please\s+)?(add|implement|introduce|provide|expose)( an?| the| new)? (ability|option|way|possibility) to\b|^(please\s+)?(add|implement|introduce)( an?| the| new)? [\w-]+ (command|subcommand|flag|option|endpoint|button|setting|hook)\b|^allow (users? |people |me )?to\b|^(please\s+)?(fail|warn|abort|exit|error out|reject|block|retry) [^,;]*\b(if|when|whenever|on)\b"
);
pattern!(
    pub(super) m_rename,
    r"\bchange (the )?(\w+ )?--[\w-]+ to --[\w-]+|\brename\b|\bchange (the )?(\w+ )?name\b|\bcall (the )?\S+( \S+)? \S+ instead\b|\b(standardi[sz]e|normali[sz]e|unify) [\w\s]*names?\b|\breplace [^,;]*\b(the old name|old names|prefix|namespace)\b|\b((fix(es)?|correct(s|ed)?):?\s+)?((a|an|the|tiny|small|minor)\s+)*(typos?|misspell(ed|ings?)?|spelling)\b[^,;.]{0,30}\b((variable|identifier)s?|(function|method|field|parameter|property|class|constant|attribute|argument)s? names?)\b|\b((fix(es|ed)?|correct(s|ed)?):?\s+)?((a|an|the)\s+)?((variable|identifier)|(function|method|field|parameter|property|class|constant|attribute|argument) names?)\s+(typos?|misspellings?|spelling)\b|\b(update|correct|fix|change)( the| a)? (misspell(ing|ed)?|typo|spelling)s?( of)? id to id\b|^id (is|was) (a |an )?(typo|misspell(ing|ed))\b"
);
pattern!(
    pub(super) m_commit,
    r"\badd (a |the )?(v?\d[\w.-]* )?tag (for|to)\b|\b(get|cut|make|publish|ship|do|push) (a |the )?(new |next |fresh |patch |minor |major )?(release|tag)( (for|of|with|containing|including|up|to|now|soon|asap|v?\d[\w.-]*)\b|$)|^release (containing|with|including)\b|\bno tag for\b|\b(need|needs|ready) (to )?merge\b|\brebase\b|\b(commit|check in|squash(ed)?|accept (the |these |this |my |all |your )?(changes|pr|pull request|patch|merge request)s?|push (the |my |these |this |all )?(changes|commits?|branch|to (origin|main|master|remote))|^(please\s+)?(git )?push\b|^(please\s+)?merge\b|\bcreate (git )?commits?\b|open (a |the )?(pr|pull request)|tag (a |the |this )?(\S+ )?(releases?|versions?)|(cut|make|publish|create|do|ship|provide|prepare)( a| an)?( new| fresh| up[- ]to[- ]date)? (release|version)(\s*$|[.!?,;:]| (of|from|with|for|on|that|which|now|soon|asap|including|containing)\b)|\brelease\s+(a\s+)?(new\s+)?(version|v?\d+(\.\d+)*|id|ID)\b|push (the |a )?(\S+ )?tags?\b|^tag v?\d|releases? with tags|create (a |the )?(pr|pull request|tag)|merge\b[^,;]*\b(prs?|pull requests?|branch(es)?))\b"
);
pattern!(
    pub(super) m_scaffold,
    r"\b(scaffold|bootstrap|set up a new|create a new ([\w-]+ ){0,3}(project|package|library|crate|app|application|service|website|site)|skeleton)\b|\bnew \w+ project\b|^(init|initiali[sz]e) (a |an |the |new )*(\w+ )?(project|workspace|repo|repository|package|app|module)\b|^(create|make|build) (a |an |the )?([\w-]+ ){0,3}(app|application|website|game)\b|boilerplate|cookiecutter|starter template|project scaffolding|scaffold(ing)? (the |a |an )?(new )?(project|app)|\binitial [\w\s.-]*setup\b|\bproject setup\b|project structure|^create [^,;]* setup\b|^set ?up [\w.-]+ (backend|frontend|server|api|app)\b|^(set ?up|setup|init|initiali[sz]e|bootstrap|start) (a |an |the |new |initial |basic |minimal |fresh )*([\w.-]+ ){0,3}(workspace|project|repo|monorepo|package|app|application|website|site)\b"
);
pattern!(
    pub(super) m_delete,
    r"\b(delete|remove|drop|get rid of|eliminate|removal of|deletion of)\b|\b(let'?s|lets) clear\b|^(please\s+)?clear (out )?(the|all|our|my)\b|\b(is|are|isn'?t|aren'?t) (not |never |no longer )?used (anywhere|in|by)\b|^unused\b|\b(should|must|needs? to|can safely) be (removed|deleted|dropped)\b"
);
pattern!(
    pub(super) m_fix,
    r"(->|=>) ?(404|500|502|503)\b|\b(returns?|gives?|shows?) (a |an )?(404|500|502|503)\b|^(please\s+)?correct\b|\b(allow|let|get|make) the (unit |integration )?tests (to )?pass\b|^make [^,;]*\b(allow|let|get|make) the (unit |integration )?tests (to )?pass\b|\b(add|put|bring) (it|them|this|that) back\b|\b(fix|repair|debug|debugging|resolve|make the tests pass|broken|crash(es)?|throws|bug|(get|make) (ci|the build|the tests?|tests|build|it) (to )?(pass|passing|green|work|working|compile|compiling)|(type|compile|compilation|build|lint|syntax) errors?|(is|are) (failing|broken|red|erroring|crashing|hanging|flaky)|restore (green|passing|the build|ci|the tests)|(getting|got|seeing|see|get) (this |an |the |a |the following |these |following )?(error|exception|traceback|failure|warning)|error:|\w+error:|traceback)\b|^(please\s+)?(do not|don'?t|never) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak)\b|\b(panics?|crash(es|ed|ing)?|hangs|freezes|fails|failed|doesn'?t|does not|can'?t be|cannot be|isn'?t|is not|not (working|found)|returns? (a |an )?(\d{3}|wrong|incorrect|empty|null|nil|none|undefined|nan)|at random|intermittently|flaky|even if|even though|should not|shouldn'?t|^make [^,;]* thread[- ]safe\b|^(cannot|can'?t|can not|unable to) \w+|cannot read propert\w+|undefined is not|segmentation fault|segfault|null pointer|nil pointer)\b|\b(is|are|was|were|gets?|got) never (\w+ed|\w+en|run|shown|freed|closed|sent|set|found|hit|reached)\b|\bnever (actually |really )?(goes|go|gets|works|happens|fires|runs|returns|stops|ends|finishes|loads|shows|appears|completes|terminates|exits)\b"
);
pattern!(
    pub(super) m_refactor,
    r"^(please\s+)?re-?write [^,;]* (in|to be|to use|with|using) (idiomatic|cleaner|simpler|modern|more idiomatic)\b|^simpler [\w-]+( [\w-]+)?$|^(please\s+)?adopt (the |an? )?([\w-]+ ){0,3}(design )?(pattern|architecture)\b|\bbreak (up|(it|this|them|these|the [\w-]+( [\w-]+)?) up|apart)\b|^(please\s+)?(change|switch|migrate|move) from \S+( \S+)? to\b|^migrate [^,;]* (to|from)\b|\b(should|must|needs? to|could) be (moved|extracted|split|merged|consolidated|centrali[sz]ed|converted|migrated|rewritten)\b|\bshould be (located|placed|kept) in a (common|shared|single)\b|\bto avoid duplication\b|\bseparate (methods|functions|classes|files|modules|components)\b|\b(refactor|clean up|cleaning up|cleanup|simplify|extract|restructure|reorgani[sz]e|split|deduplicate|dedupe|inline|tidy|signatures?|rework|move|rewrite|convert|unify|moderni[sz]e|consolidate|decouple)\b|\breplace (all |every |the )?[^,;]*\bwith\b|\b(centrali[sz]e|(in|into) (a )?single|in one (place|file|module|\w+)|into one)\b|^(please\s+)?(add|introduce) (a |an |the )?(new |extra |optional )?(parameter|argument|param)s? (to|for)\b|\b(address|reduce|clean) [^,;]*(code smells?|duplication|tech(nical)? debt)\b|\b(refactor(ing|ed|s)?|organi[sz]e|reuse|co-?locate|^separate)\b|into (its|their) own (file|module|class|function|package|crate)\b|\bmigrate (calls|usages|callers|code) (to|from|off)\b"
);
pattern!(
    pub(super) m_implement,
    r"\b(add|implement|create|build|support|introduce|write|make|port|migrate|upgrade|bump|optimi[sz]e|speed up)\b"
);

pattern!(
    pub(super) broad,
    r"\b(architecture|overview|overall|whole (project|codebase|repo)|project structure|big picture|codebase)\b"
);
pattern!(
    pub(super) constraint,
    r"\b(without (?:[^,.;]|\.\w)+|but (don'?t|do not) (?:[^,.;]|\.\w)+|don'?t touch (?:[^,.;]|\.\w)+|(do not|don'?t|never) (change|modify|edit|alter) (?:[^,.;]|\.\w)+|only (in|for|inside|within|under|touch|change|edit|modify) (?:[^,.;]|\.\w)+|keep(ing)? (?:[^,.;]|\.\w)+ (unchanged|intact|as is)|keep(ing)? the public (api|interface)|everywhere)"
);
// A single-quoted name is quoted only where no letter touches either quote: "don't … what's" quotes nothing.
pattern!(
    pub(super) constraint_start,
    r"\b(without|but (don'?t|do not)|don'?t touch|(do not|don'?t|never) (change|modify|edit|alter) |only (in|for|inside|within|under|touch|change|edit|modify)|keep(ing)? )"
);
pattern!(pub(super) code_span, r#"`([^`]+)`|"([^"]+)"|(^|[^\w])'([^'\s][^']*[^'\s])'([^\w]|$)"#);
// A name in code: ASCII letters, digits and underscores (a name never runs on into the Chinese or
// Japanese words written right after it, which `\w` would take in).
pattern!(
    pub(super) identifier,
    r"[A-Za-z_][0-9A-Za-z_]*(?:(?:::|\.|/)[0-9A-Za-z_\-]+)+(?:\(\))?|[A-Za-z]*_[0-9A-Za-z_]+(?:\(\))?|[a-z]+[A-Z][0-9A-Za-z_]*|[A-Z][a-z]+[A-Z][0-9A-Za-z_]*|\b[0-9A-Za-z_]+\(\)"
);
pattern!(pub(super) rename_to, r"\bto `?([A-Za-z_][\w.:]*)`?");

/// A verb and the pattern that signals it, in precedence order.
pub(super) type VerbCue = (&'static str, fn() -> &'static Regex);

pub(super) const STOPWORDS: &[&str] = &[
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
pub(super) const GENERIC: &[&str] = &[
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

pub(super) const QUERIES: [VerbCue; 5] =
    [("impact", q_impact), ("status", q_status), ("review", q_review), ("search", q_search), ("explain", q_explain)];
pub(super) const MUTATIONS: [VerbCue; 13] = [
    ("fix", m_tests_failing),
    ("fix", m_problem_removed),
    ("refactor", m_relocate),
    ("refactor", m_restructure),
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
pub(super) const GENERIC_CHANGE: VerbCue = ("implement", m_implement);
