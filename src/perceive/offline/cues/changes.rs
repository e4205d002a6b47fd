//! Cues of changes, by verb in precedence order, and of problems stated (symptoms): what a
//! request asks to be changed. Knows nothing about how a request is read with them.

use super::VerbCue;

// "[BUG] Pause at layer pauses twice?", "Bug: export drops a row": a title tagged as a bug reports one.
pattern!(pub(in crate::perceive::offline) bug_tag, r"^\[?bug( report)?\]?\s*[:\]-]");
pattern!(pub(in crate::perceive::offline) run_verb, r"^(please\s+)?(re-?run|run)\b");
// "Run test_parse", "rerun TestParse again", "run rect_area": a test named by its name (a
// word with "test" in it, or an identifier) is run, not implemented.
pattern!(
    pub(in crate::perceive::offline) run_named_test,
    r"(?i)^(please\s+)?(re-?run|run) (the )?(`[^`]+`|[\w.:/#-]*(test|spec)[\w.:/#-]*|[a-z]\w*_\w+|[a-z]+[A-Z]\w*|\w+(::|#|\.)\w+)( test)?( again)?$"
);
// "Docker image is too large", "CI no longer runs tests", "Null values … are ignored": what goes
// wrong, stated without a verb of change, is a bug report.
pattern!(
    pub(in crate::perceive::offline) symptom,
    r"\b(too (large|big|slow|long|heavy|small)|(is|are|seems?|looks?|gets?|got) (huge|enormous|bloated|massive)|huge \(|no longer (works?|runs?|builds?|compiles?|loads?|starts?|shows?|appears?)|(stopped|stops) (working|running)|(is|are) not (starting|loading|showing|displaying|rendering|updating|responding|saving)|(id|build|test|ci|compile|compilation|runtime|startup|install|installation|deploy|deployment)(/\w+)? failures?\b|(is|are|gets?|get|got) (silently )?(ignored|swallowed|dropped|lost)|nothing (changed|happens|happened|shows)|(an? |the )?(error|exception|warning)s? (pops?|appears?|occurs?|shows? up|is thrown)|(is|are) vulnerable to|memory leaks?|\b(is|are|was|were) never (defined|called|used|set|initiali[sz]ed|reached|triggered|closed|released|freed|shown|saved|updated|executed|run)\b|(really |very |extremely |highly |terribly )?inefficient\b|\bhigh (memory|cpu|ram|disk|gpu) (usage|consumption)|\bstill referenced\b|^(some |several |many |multiple |possible |potential )?security (flaws|holes)\b|\bfails? to (build|compile|start|load|run|install|open|connect|launch)\b|\b(ci|build|test) (check|job|run|pipeline|step) failures?\b|^[\w-]+( [\w-]+){0,3} (ignores|is ignoring) |out of sync|\bsync(hroni[sz]ation)? (issues?|problems?|errors?)|(clock|timing|tempo|pulse|time) drift|(has|have|having) (some |a lot of |serious |many )?(trouble|problems|issues)\b|becomes? (unavailable|unresponsive|stuck|corrupted|empty|blank)|not thread[- ]safe|spurious|leaks? memory|runs? (too |very |really )?slow(ly)?|^wrong|wrong (default|value|values|result|results|output|order|port|setting|behaviou?r)|(is|are|was|were) not (processed|handled|applied|respected|honou?red|called|triggered|updated|rendered|saved|loaded|shown|displayed|centered|centralized)|in (the )?(wrong|reverse) order|seems? to be (off|offset|broken|wrong|missing|cut off)|stopped (working|running|responding|with)|should (be|say|read|return) \S+ instead|crashloopbackoff|won'?t (successfully )?(start|load|build|compile|run|open|boot)|incompatib\w*|(mod |version )?conflicts? with|(does not|doesn'?t) (seem to )?(play|work) (well|nicely) with|not compatible with|(doesn'?t|does not|won'?t|can'?t|cannot|can not|not|fails? to) compil\w*|errors? (while|when) compiling|breaks? [\w./ -]*compil\w*|(much|way|far|significantly|\d+x) slower|slow as hell|loads? slowly|(is|are) slow to (load|start|open|respond|build|render)|(don'?t|do not|doesn'?t|does not) (work|load|render|show|start|open|respond|save|update|appear|display|redirect)|(redirect|infinite|endless) loop|(linker|link|linking) (command )?(failure|error)s?|(resets|loses|disappears|breaks|flickers|freezes|jumps|crashes) (\w+ ){0,3}(when|after|on|if|every)|(counted|called|triggered|fired|sent|applied|rendered|added|executed|charged) twice|(have|has) (\w+ )?(deteriorated|regressed|degraded)|^((security|bug|vulnerability): |\[security\] )?(possible |potential )?(sql injection|xss|csrf|ssrf|path traversal|command injection|open redirect|race conditions?|deadlocks?|buffer overflow)( vulnerabilit(y|ies))? (in|on|when|via|during)|^(an? )?errors? (when|while|during|on|opening|loading|saving|exporting|importing|running|building)|(is|are|becomes?|became|shows?|showing|saying|remains?|stays?) (\w+ )?unavailable|unavailable (in|after|since|on|when)|^(cannot|can'?t|can not|unable to) (open|load|save|start|run|enable|install|build|compile|connect|import|export|login|log in)|(loads?|runs?|starts?|opens?|is|are) (too|very|extremely) slow(ly)?|keeps? (going up|growing|increasing|climbing|crashing|restarting)|perpetual diff|\b(gives|throws|raises) (a |an )?\w*(error|exception)\b|\b(gives|throws|raises) (a |an )?id (after|when|on|while|during|if|in)\b|\b(does|do) fail\b|\boverflows?\b|interfere with each other|(is|are) (showing|throwing|reporting|giving) (\w+ ){0,2}(errors?|warnings?)|\bnot (starting|loading|working|responding|opening|launching|booting) (after|since|on|when|with))\b|\bout of order\b|\b(is |are )?not available (in case of|when|after|on)\b|\b(was|were) broken\b"
);
// "Add a tool to find all callers", "create a CI check to find …": what a made thing is to do is
// no question.
pattern!(
    pub(in crate::perceive::offline) makes_a_tool,
    r"^(please\s+)?(add|create|implement|build|write|introduce|provide)( an?| the| new| some)*( [\w-]+)? (tool|command|subcommand|check|option|flag|feature|endpoint|button|script|api|action|workflow|job|hook)s? (to|that|which|for)\b"
);
// "Add profiling to monitor performance issues", "display the checks when listing PRs": an order
// that opens with its verb of change, whatever it names after.
pattern!(
    pub(in crate::perceive::offline) opens_with_change,
    r"^(please\s+)?(add|implement|build|introduce|port|expand|extend|enable|disable|display|allow|expose|support|update|upgrade|migrate|replace|convert|move|remove|delete|rename|refactor|fix|debug|document)\b"
);
// "Would it be possible to split up large files?": a change asked for, not how one is done.
pattern!(pub(in crate::perceive::offline) possible_to, r"^would it be possible (for you )?to\b");
// A request that opens by making something: "add …", "write …", "create …" ("make sure" checks).
pattern!(
    pub(in crate::perceive::offline) imperative_make,
    r"^(add|implement|create|build|write|introduce|port|generate|expand|extend)\b|^have (a|an|some) (way|option|setting|means|possibility) to\b"
);
// "Test suite fails", "tests fail on local": failing tests are a bug to fix, not tests to write.
pattern!(
    pub(in crate::perceive::offline) m_tests_failing,
    r"^(the |our |all |some |many |several |most )?([\w-]+ )?(unit |integration |e2e |end-to-end )?tests?( suite| suites| run| runs| cases)? ((are|is) )?(consistently |always |still |now )?(fail|fails|failing|failed|keep failing|broke|broken|break|did not (succeed|pass)|didn'?t (succeed|pass)|do not pass|don'?t pass)\b"
);
// "Remove performance bottlenecks", "get rid of the compiler warnings": a problem taken away is fixed,
// nothing is deleted.
pattern!(
    pub(in crate::perceive::offline) m_problem_removed,
    r"^(please\s+)?(remove|eliminate|get rid of|resolve) (the |any |all |those |these )?(\w+ )?(bottlenecks?|memory leaks?|race conditions?|deadlocks?|flakiness|(compiler |build |lint |clippy |deprecation )?warnings)\b"
);
// "Clean this up", "clean up the login code", "merge a couple of near-identical helper functions":
// code restructured, not deleted or committed.
pattern!(
    pub(in crate::perceive::offline) m_restructure,
    r"^(please\s+)?improve (the )?(overall )?code quality\b|^(please\s+)?clean (this|it|that|things|everything|(the |this |my |our )?([\w-]+ )?code) up\b|^(please\s+)?clean up (the |this |my |our )?([\w-]+ )?code\b|^(please\s+)?(merge|combine|unify|consolidate) (a couple of |two |the |these |those |some |all |duplicate |duplicated |near-identical |similar |redundant )*([\w-]+ )?(functions|helpers|methods|classes|modules|components|hooks|utilities|utils)\b"
);
// "Unit test file rename", "renamed unit tests", "change test.sh back to tests.sh": a rename said as
// a title or between two names.
pattern!(
    pub(in crate::perceive::offline) m_renamed,
    r"^([\w-]+ ){1,3}renam(e|ing)$|^renamed\b|^(please\s+)?change id (back )?to id$"
);
// "Check the code for security issues and do the fixing": a check that ends in fixing what it finds.
pattern!(
    pub(in crate::perceive::offline) m_then_fix,
    r"\b(do the fixing|fix (it|them|those|these|any|all|the issues?|the problems?|what)\b)"
);
// "Remove the defaults from the playbook and place them in the role": what is taken out and put
// elsewhere moves.
pattern!(
    pub(in crate::perceive::offline) m_relocate,
    r"^(please\s+)?(remove|take|pull|move) [^,;]* (and |to )?(place|put|move) (them|it) (in|into|to)\b|\bpull out (groups of )?[^,;]* (into|to) (their|its) own\b"
);
// "Unused imports in the server module", "redundant line in the check": code left over, named
// as a title, is to be removed.
pub(in crate::perceive::offline) const LEFTOVER: &str = r"^(redundant|unused|dead|obsolete|unnecessary|superfluous|leftover) (\w+ ){0,2}(lines?|code|imports?|functions?|files?|methods?|classes|variables?|checks?|dependenc(y|ies)|parameters?|arguments?)\b";
pattern!(pub(in crate::perceive::offline) leftover, LEFTOVER);
// Mutations, in precedence order.
pattern!(
    pub(in crate::perceive::offline) m_test,
    r"\b(write|add|create|generate|implement|cover \S+( \S+)? with)( [\w'-]+){0,3} (unit |integration |regression |e2e |end-to-end |property |snapshot )?(tests?|test cases?|specs?|testing)\b|\btest coverage\b|\b(more|better|thorough|more thorough) testing\b|\bhas no tests\b|\b(lacks|without) (unit )?tests\b|\bunit ?tests?\b|\b(increase|improve|raise|boost|extend) (the )?(code |test |unit test )?coverage\b|\bunit tests?\b|\bregression tests?\b|^cover\b|\buntested\b|\b((is|are|was|were) )?never (executed|exercised|covered|run|called|tested) by (a |any )?tests?\b|\bnot covered by (any )?tests?\b|^(please\s+)?test (the |that |whether |if |for |all |each |every |our |this |these |\w+ \w+)|^(please\s+)?update (the )?(unit |integration )?(tests?|testing)\b|\btest ?code\b"
);
pattern!(
    pub(in crate::perceive::offline) m_document,
    r"\b(document|docstrings?|doc comments?|documentation|readme|docs?|jsdoc|javadoc|rustdoc|godoc|tsdoc|changelog|tutorials?|guides?|how-?tos?|vignettes?|wiki|faq|(upgrade|migration|install(ation)?|setup|usage) (instructions|notes)|instructions (for|on) (upgrading|installing|running|using|setting up|building|deploying)|glossary|needs? (a )?definition|instructions (for|on|to) how|\w+ section|release notes|paragraph|notes file|(high[- ]level |an? )explanations? (of|for|about|on))\b|^(please\s+)?clarify\b|\b(markdown|md) (file|doc|document|page)\b|\b[\w/-]+\.(md|rst|adoc)\b|\b(a|the|new) section (about|on|for|to|in|with)\b|\b(documents|the manual|user manual)\b|^elaborate\b|\b(page|section|chapter|guide|tutorial|docs?) [^,;]*\bto (talk about|discuss|explain|cover|describe)\b|\broadmap\b|\bfeature list\b|^(please\s+)?mention\b|\b(add|write) (a |an |the )?([\w-]+ ){0,2}tips?\b|\b(add|write|insert) (a |an |some |more )?(brief |short |inline |code |small |explanatory |clarifying )?(notes?|comments?) (to|for|about|on|explaining|describing|that)\b|^commented\b|\b(change ?log|readme|docs|documentation)\b[^.;]* (is |are )?(out of date|outdated|stale)\b|\bdoccomments?\b|\b(add|write|provide|include) (the )?(build|install(ation)?|setup|usage|deployment)? ?(steps|instructions) (to|for|on|about)\b"
);
// "Add the ability to delete users" adds a feature, whatever the feature does.
pattern!(
    pub(in crate::perceive::offline) m_feature,
    r"^(have|provide|need) (a|some|an) (way|option|setting|means) to\b|^(please\s+)?(add|implement|introduce|provide|expose)( an?| the| new)? (ability|option|way|possibility) to\b|^(please\s+)?(add|implement|introduce)( an?| the| new)? [\w-]+ (command|subcommand|flag|option|endpoint|button|setting|hook)\b|^allow (users? |people |me )?to\b|^(please\s+)?(fail|warn|abort|exit|error out|reject|block|retry) [^,;]*\b(if|when|whenever|on)\b"
);
pattern!(
    pub(in crate::perceive::offline) m_rename,
    r"\bchange (the )?(\w+ )?--[\w-]+ to --[\w-]+|\brename\b|\bchange (the )?(\w+ )?name\b|\bcall (the )?\S+( \S+)? \S+ instead\b|\b(standardi[sz]e|normali[sz]e|unify) [\w\s]*names?\b|\breplace [^,;]*\b(the old name|old names|prefix|namespace)\b|\b((fix(es)?|correct(s|ed)?):?\s+)?((a|an|the|tiny|small|minor)\s+)*(typos?|misspell(ed|ings?)?|spelling)\b[^,;.]{0,30}\b((variable|identifier)s?|(function|method|field|parameter|property|class|constant|attribute|argument)s? names?)\b|\b((fix(es|ed)?|correct(s|ed)?):?\s+)?((a|an|the)\s+)?((variable|identifier)|(function|method|field|parameter|property|class|constant|attribute|argument) names?)\s+(typos?|misspellings?|spelling)\b|\b(update|correct|fix|change)( the| a)? (misspell(ing|ed)?|typo|spelling)s?( of)? id to id\b|^id (is|was) (a |an )?(typo|misspell(ing|ed))\b|\b(fix|correct) (the )?(\w+ )?(names|naming)\b"
);
pattern!(
    pub(in crate::perceive::offline) m_commit,
    r"\badd (a |the )?(v?\d[\w.-]* )?tag (for|to)\b|\b(get|cut|make|publish|ship|do|push) (a |the )?(new |next |fresh |patch |minor |major )?(release|tag)( (for|of|with|containing|including|up|to|now|soon|asap|v?\d[\w.-]*)\b|$)|^release (containing|with|including)\b|\bno tag for\b|\b(need|needs|ready) (to )?merge\b|\brebase\b|\b(commit|check in|squash(ed)?|accept (the |these |this |my |all |your )?(changes|pr|pull request|patch|merge request)s?|push (the |my |these |this |all )?(changes|commits?|branch|to (origin|main|master|remote))|^(please\s+)?(git )?push\b|^(please\s+)?merge\b|\bcreate (git )?commits?\b|open (a |the )?(pr|pull request)|tag (a |the |this )?(\S+ )?(releases?|versions?)|(cut|make|publish|create|do|ship|provide|prepare)( a| an)?( new| fresh| up[- ]to[- ]date)? (release|version)(\s*$|[.!?,;:]| (of|from|with|for|on|that|which|now|soon|asap|including|containing)\b)|\brelease\s+(a\s+)?(new\s+)?(version|v?\d+(\.\d+)*|id|ID)\b|push (the |a )?(\S+ )?tags?\b|^tag v?\d|releases? with tags|create (a |the )?(pr|pull request|tag)|merge\b[^,;]*\b(prs?|pull requests?|branch(es)?))\b|\bplease (pull|merge)( it| this| them)?[.!]?$|\b(create|make|open|cut|start|switch to|check ?out) (a |the |new |separate )*branch\b|\bopen (a |the )?(pull request|pr)\b"
);
pattern!(
    pub(in crate::perceive::offline) m_scaffold,
    r"\b(scaffold|bootstrap|set up a new|create a new ([\w-]+ ){0,3}(project|package|library|crate|app|application|service|website|site)|skeleton)\b|\bnew \w+ project\b|^(init|initiali[sz]e) (a |an |the |new )*(\w+ )?(project|workspace|repo|repository|package|app|module)\b|^(create|make|build) (a |an |the )?([\w-]+ ){0,3}(app|application|website|game)\b|boilerplate|cookiecutter|starter template|project scaffolding|scaffold(ing)? (the |a |an )?(new )?(project|app)|\binitial [\w\s.-]*setup\b|\bproject setup\b|project structure|^create [^,;]* setup\b|^set ?up [\w.-]+ (backend|frontend|server|api|app)\b|^(set ?up|setup|init|initiali[sz]e|bootstrap|start) (a |an |the |new |initial |basic |minimal |fresh )*([\w.-]+ ){0,3}(workspace|project|repo|monorepo|package|app|application|website|site)\b|\bboiler[- ]plate\b"
);
pattern!(
    pub(in crate::perceive::offline) m_delete,
    &format!("{}|{LEFTOVER}", r"\b(delete|remove|drop|get rid of|eliminate|removal of|deletion of)\b|\b(let'?s|lets) clear\b|^(please\s+)?clear (out )?(the|all|our|my)\b|\b(is|are|isn'?t|aren'?t) (not |never |no longer )?used (anywhere|in|by)\b|^unused\b|\b(should|must|needs? to|can safely) be (removed|deleted|dropped)\b|\btear down\b")
);
pattern!(
    pub(in crate::perceive::offline) m_fix,
    r"(->|=>) ?(404|500|502|503)\b|\b(returns?|gives?|shows?) (a |an )?(404|500|502|503)\b|^(please\s+)?correct\b|\b(allow|let|get|make) the (unit |integration )?tests (to )?pass\b|^make [^,;]*\b(allow|let|get|make) the (unit |integration )?tests (to )?pass\b|\b(add|put|bring) (it|them|this|that) back\b|\b(fix|repair|debug|debugging|resolve|make the tests pass|broken|crash(es)?|throws|bug|(get|make) (ci|the build|the tests?|tests|build|it) (to )?(pass|passing|green|work|working|compile|compiling)|(type|compile|compilation|build|lint|syntax) errors?|(is|are) (failing|broken|red|erroring|crashing|hanging|flaky)|restore (green|passing|the build|ci|the tests)|(getting|got|seeing|see|get) (this |an |the |a |the following |these |following )?(error|exception|traceback|failure|warning)|error:|\w+error:|traceback)\b|^(please\s+)?(do not|don'?t|never) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak)\b|\b(panics?|crash(es|ed|ing)?|hangs|freezes|fails|failed|doesn'?t|does not|can'?t be|cannot be|isn'?t|is not|not (working|found)|returns? (a |an )?(\d{3}|wrong|incorrect|empty|null|nil|none|undefined|nan)|at random|intermittently|flaky|even if|even though|should not|shouldn'?t|^make [^,;]* thread[- ]safe\b|^(cannot|can'?t|can not|unable to) \w+|cannot read propert\w+|undefined is not|segmentation fault|segfault|null pointer|nil pointer)\b|\b(is|are|was|were|gets?|got) never (\w+ed|\w+en|run|shown|freed|closed|sent|set|found|hit|reached)\b|\bnever (actually |really )?(goes|go|gets|works|happens|fires|runs|returns|stops|ends|finishes|loads|shows|appears|completes|terminates|exits)\b|^fixed\b|^debug\b|\b(being |are |is |get |gets )?(called|executed|run|fired|applied|processed) (in the wrong order|out of order)\b"
);
pattern!(
    pub(in crate::perceive::offline) m_refactor,
    r"^(please\s+)?re-?write [^,;]* (in|to be|to use|with|using) (idiomatic|cleaner|simpler|modern|more idiomatic)\b|^simpler [\w-]+( [\w-]+)?$|^(please\s+)?adopt (the |an? )?([\w-]+ ){0,3}(design )?(pattern|architecture)\b|\bbreak (up|(it|this|them|these|the [\w-]+( [\w-]+)?) up|apart)\b|^(please\s+)?(change|switch|migrate|move) from \S+( \S+)? to\b|^migrate [^,;]* (to|from)\b|\b(should|must|needs? to|could) be (moved|extracted|split|merged|consolidated|centrali[sz]ed|converted|migrated|rewritten)\b|\bshould be (located|placed|kept) in a (common|shared|single)\b|\bto avoid duplication\b|\bseparate (methods|functions|classes|files|modules|components)\b|\b(refactor|clean up|cleaning up|cleanup|simplify|extract|restructure|reorgani[sz]e|split|deduplicate|dedupe|inline|tidy|signatures?|rework|move|rewrite|convert|unify|moderni[sz]e|consolidate|decouple)\b|\breplace (all |every |the )?[^,;]*\bwith\b|\b(centrali[sz]e|(in|into) (a )?single|in one (place|file|module|\w+)|into one)\b|^(please\s+)?(add|introduce) (a |an |the )?(new |extra |optional )?(parameter|argument|param)s? (to|for)\b|\b(address|reduce|clean) [^,;]*(code smells?|duplication|tech(nical)? debt)\b|\b(refactor(ing|ed|s)?|organi[sz]e|reuse|co-?locate|^separate)\b|into (its|their) own (file|module|class|function|package|crate)\b|\bmigrate (calls|usages|callers|code) (to|from|off)\b"
);
pattern!(
    pub(in crate::perceive::offline) m_implement,
    r"\b(add|implement|create|build|support|introduce|write|make|port|migrate|upgrade|bump|optimi[sz]e|speed up)\b"
);
pattern!(pub(in crate::perceive::offline) rename_to, r"\bto `?([A-Za-z_][\w.:]*)`?");
pub(in crate::perceive::offline) const MUTATIONS: [VerbCue; 15] = [
    ("fix", m_tests_failing),
    ("fix", m_problem_removed),
    ("rename", m_renamed),
    ("fix", m_then_fix),
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
pub(in crate::perceive::offline) const GENERIC_CHANGE: VerbCue = ("implement", m_implement);
