//! Cues of standing rules and memories: never, always, prefer, a rule for every time a condition
//! holds, how answers are given, a fact to keep. Knows nothing about how a request is read with them.

// Instructions: standing rules for the project, not one-off requests.
pattern!(
    pub(in crate::perceive::offline) instruction,
    r"\bshould (always )?(be|come) (the )?(first|last) (argument|parameter|param|import|statement)\b|^no (\S+ ){1,4}(outside|except in|in) (of )?(tests|test code|production|library code)\b|^(please\s+)?use [^,;]*\(not [^)]+\)|^(please\s+)?(keep|ensure) (that )?(the |your |all |our )?[^,;]* (is |are )?up to date\b|^for (breaking changes|new features|bug fixes|every|each|all|any) [^,;]*, (append|add|use|include|write|prefix|mark|document|bump|run|update)\b|^(ensure|make sure) (that )?(your|all|every|each|any|no) [^,;]* (is|are) (not |never |always )|[,;]\s*(never|always)\b|\b(we|you) should always\b|\b(should|must) always\b|\bunless (explicitly |specifically )?(asked|told|requested|instructed)\b|^(every|each|all) \S[^,;]* (must|should|ships?|has to|have to|needs? to|gets?|requires?)\b|^(please\s+)?(preserve|respect|follow|adhere to|stick to|honou?r) (all |the |our |existing |any )|^(please\s+)?(include|pass) [^,;]* (for|in|on|with|to) (all|every|each|any)\b|^(please\s+)?(strictly |always )?(adhere to|comply with|conform to|follow) ([\w.-]+ ){0,3}(coding |code |style )?(standards?|conventions|guidelines|style guides?|principles)\b|^(from now on,?\s*)?(never|always|don'?t ever|do not ever|stop using|avoid|prefer|favou?r|we'?d rather|make sure (all|every|to always)|every \S.* must|all \S.* must)\b|\bfrom now on\b|^(i|we) (prefer|'d rather|would rather|like to keep|always want)\b|^(please\s+)?(use|indent with) (tabs|spaces|\d+ spaces)\b|^(please\s+)?keep (answers|replies|responses|functions|methods|commits|lines|diffs|patches|changes) \w+|^(it'?s (ok|okay|fine|alright) to|you (may|can always|are allowed to)|feel free to|no need to (ask|confirm))\b|^(please\s+)?use [^,;]*\b(for (all|every|any|each|different|new|git|commit|our)|over|instead of|rather than|everywhere|throughout|whenever|when (writing|naming|creating|adding|amending|committing))\b|^(please\s+)?use \S+( \S+)? (case|style|indentation|mood|quotes|naming|conventions?)\b|^(please\s+)?use [^,;]* for [^,;]*\bnames\b|^(please\s+)?use (id|[\w-]+case) for (all |new )?(variables|functions|classes|methods|files|constants|types|components|directories|folders|identifiers|tests|modules)\b|^(please\s+)?use [\w-]+ (commits?|commit messages|branch names)\b|^(please\s+)?(use|write|prefer|choose|return|raise|throw) [^,;]*\b(instead of|rather than|to avoid)\b|^(please\s+)?(make|keep) (the |your |all |every |each )?(\w+ )?(extremely |very |more |always )?(concise|brief|terse|succinct|short)\b|^(please\s+)?keep (all |every |each |the |your )?[\w-]+ ((strictly|very|always|as|really) )?(under|below|short|small|simple|focused|minimal|minimalist|concise|brief|lowercase|readable|clean|consistent|tidy)\b|^(concise|terse|brief|succinct)\b|^no [^,;]*\s[-–—:]\s|^no [^,;]* (without|unless)\b|^no ([\w-]+ ){0,3}[\w-]+( (or|and) [\w-]+( [\w-]+)?)?( in [^,;]+)?$|^(please\s+)?use [^,;]+, not \S+$|^only [\w\s]+ (when|if|where)\b|^([\w-]+ ){1,4}(must|must not|must never|should never|should always|shall|shall not) \w+|\b(for|to|in) (all|any|every|each) (new|future) \w+|\bfor new functionality\b|\bbefore (answering|considering|finishing|completing|declaring|marking|reporting|claiming|writing|pushing|committing|merging|making|changing|editing|starting|opening|submitting|creating|concluding|suggesting|proposing|implementing|modifying|deleting|applying|you|any|each|every)\b|\bafter (edits|editing|every|each|any|changes|changing|making|writing)\b|\b(if|when|whenever) (your|you|a|any) (change|changes|pr|commit|edit|code|patch)\w*\b|^(when|whenever|before|after|if) [^,;]+, (please\s+)?(never|always|don'?t|do not|avoid|prefer|make sure|ensure|be)\b|^(please\s+)?(be|stay) (more |very |always )?(concise|brief|terse|succinct|direct|explicit|thorough|careful|honest|precise|specific|polite|critical|conservative|cautious|mindful)\b|^(you|we) (should|must|need to|have to)( try to| always)? (use|prefer|avoid|write|keep|follow|run)\b|^(please\s+)?(include|add|put|mention) [^,;]* in (all |every |each |the |your )?(commit messages?|commits|pr (titles|descriptions)|pull requests)\b|\b(max(imum)?( of)?|at most|no more than|fewer than|less than) \d+ (lines|characters|chars|columns) (per|in (each|a|any)|for (each|a|any)) (file|function|method|line|class|module|component)\b|^(use|show|write|give|return|output|prefer) [^,;]+, not [\w -]{1,30}[.!]?$|\b(is|are) required for (all|every|each|any)\b|\b(is|are) not (critical|important|a priority|a concern)\b|^(when|whenever|if) you [^,]*,? you (can|should|may) use\b|^(let'?s|lets) (skip|not do|hold off on|leave out|avoid)\b"
);
// "Verify claims; do not infer": an order, then a prohibition, is a standing rule, unless the order
// is a task of its own ("write tests for X; do not change null.go" asks for tests, with a constraint).
pattern!(pub(in crate::perceive::offline) then_forbid, r";\s*(do not|don'?t)\b");
// "Do not add dependencies" is a standing instruction; "don't touch the tests, fix the parser" is a
// mutation with a constraint, so a negated imperative counts only when it is the whole request.
pattern!(
    pub(in crate::perceive::offline) negated_imperative,
    r"^(please\s+)?(do not|don'?t|no more) [a-z][\w-]*\b([^,;]*$|[^,;]*\binstead\b[,;]?[^,;]*$|[^,;]*[,;] \w+[^,;]* instead$|[^,;]*[,;] \w+ (it|them|those|these)\b[^,;]*$)"
);
// "Don't crash on empty input" reports a symptom; "don't know why …" is no order at all.
pattern!(
    pub(in crate::perceive::offline) negated_symptom,
    r"^(please\s+)?(do not|don'?t) (crash|fail|panic|error|hang|break|throw|exit|freeze|leak|work|know|understand|see|get|think)\b"
);
pattern!(
    pub(in crate::perceive::offline) clause_break,
    r"\b(and|but|then) (fix|rename|refactor|implement|add|write|update|change|make|run|delete|remove)\b"
);
pattern!(pub(in crate::perceive::offline) forbid, r"\b(never|don'?t|do not|stop using|avoid|must not|must never|no more)\b|^no\b|\b(is|are) (strictly )?(prohibited|forbidden|not allowed|banned)\b|^(let'?s|lets) (skip|not do|hold off on|leave out|avoid)\b");
pattern!(
    pub(in crate::perceive::offline) require,
    r"\b(must|always|required|has to|have to|needs? to|make sure|ensure|remember to|important)\b|^(please\s+)?keep [^,;]* up to date\b"
);
pattern!(
    pub(in crate::perceive::offline) prefer,
    r"\b(prefer|favou?r|rather|like to keep|indent with|over|instead of|concise|brief|terse|succinct)\b|^(please\s+)?(keep|use|be|stay|only)\b|^(show|write|give|return|output) [^,;]+, not\b|\bprioriti[sz]e\b|\byou (can|may) use\b|\b(is|are) not (critical|important|a priority|a concern)\b"
);
// Memory: what to keep across sessions, or let go of (the memory text is what follows).
pattern!(
    pub(in crate::perceive::offline) remember,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(remember|note|keep in mind|bear in mind|don'?t forget|do not forget|memori[sz]e)\b(\s+that\b)?\s*:?\s*"
);
pattern!(
    pub(in crate::perceive::offline) forget,
    r"(?i)^(please\s+|(can|could|would|will) you (please\s+)?)?(forget|stop remembering|disregard what i said|(delete|remove|clear|drop|erase|wipe) (the |all |your |any )?(memor(y|ies)|notes?)( (about|of|on))?)\b(\s+(that|about)\b)?\s*:?\s*"
);
// "Save it to memory", "my database port is 5432": a fact to keep, said without "remember".
pattern!(
    pub(in crate::perceive::offline) keep_fact,
    r"(?i)^(please\s+)?(save|store|record|keep) the fact that\b|\b(save|store|record|add|put|keep|write) (it|this|that)( \w+)? (to|in|into) (your |the )?([\w-]+ ){0,2}memory\b|^(please\s+)?(save|store|record|note) (this|that)\s*:|^(we|our (team|project|app|codebase|repo)|this (project|repo|codebase)) (use|uses)\b[^,;.!?]*, not \S+$|^(my|our) [\w\s-]{1,30} (is|are|lives|runs) (at|on|in)?\s*\S+$|^(my|our) [\w\s-]{1,30} (uses?|goes through|go through|relies on|rely on|(is|are) (built|written) (with|in)|(is|are) (hosted|deployed) (on|to|at))\b[^?]*$|\b(update|add to) (my|your|the) memory\b|^(this|it) is an? [\w\s.-]*\b(project|app|application|library|service|repo|repository|monorepo|website|cli|tool)\b[^?]*$|^my name is\b|^(hosted|deployed|built|written) (on|with|in|to)\b|^(this|the|our) (project|repo|repository|codebase|app|application|library|service|monorepo|package|crate|module) (uses|contains|is written in|is built (with|on)|runs on|targets|depends on|relies on)\b[^?]*$|^(the )?(project|app|codebase|repo|repository) (is using|uses|is built with|is written in) [^,;!?]*$|\bis an alias for\b|^[\w.@/-]+( [\w.@/-]+)? (is|are) (the|our) ([\w-]+ )?(package manager|linter|formatter|runtime|framework|database|test runner|bundler|build tool|orm|type checker|web server|cache)s?\b( and (the |our )?([\w-]+ )?(package manager|linter|formatter|runtime|framework|database|test runner|bundler|build tool|orm|type checker|web server|cache)s?)?[^?]*$|^styling is done (using|with|in)\b|^(backend|frontend|database|db|language|stack|tech stack|framework|hosting|orm|styling|auth|api)\s*:\s*[\w.+# -]+(,\s*(backend|frontend|database|db|language|stack|framework|hosting|orm|styling|auth|api)\s*:\s*[\w.+# -]+)+$|^[^:]{1,30}:\s*[\w.-]+( \+ [\w.-]+)+\.?$|^(the )?([\w.-]+ ){1,3}(is|are) (deployed|generated|built|hosted|stored|kept|managed|bundled|compiled|published) (exclusively |only |automatically )?(by|from|via|with|in|on|to|using)\b[^?]*$|^(the )?([\w-]+ )?(testing |test )?(framework|library|database|language|package manager|test runner|orm|stack|build tool|linter|formatter) (is|are) [\w.-]+$"
);
// A first clause that sets a condition or states a fact, not an order of its own.
pattern!(pub(in crate::perceive::offline) conditional, r"^(when|whenever|if|before|after|for|in|unless|from now on|we|i|you|our|this|the|it)\b");
// "From now on, …", "going forward …": a rule for later work, said as one; nothing is asked.
pattern!(pub(in crate::perceive::offline) standing_from_now, r"\b(from now on|from this point (forward|on)|going forward|henceforth|from here on)\b");
// "Whenever I click on like, the login pop-up should appear": what happens when a person acts is
// behaviour asked for, not a rule for the agent.
pattern!(pub(in crate::perceive::offline) person_acts, r"^(whenever|every time|each time|any ?time|when) (i|we|a user|the user|users|someone|people) ");
// A rule for every time a condition holds, not a task: "whenever you compare …", "when asked to …",
// "if you don't understand something, …".
pattern!(
    pub(in crate::perceive::offline) habitual,
    r"^(whenever|every time|each time|any ?time|when(ever)? (you'?re |you are )?asked (to|for|about)|when(ever)? (in doubt|unsure|uncertain)|if (you'?re |you are )?(unsure|uncertain|in doubt)|from (this point|now) (on|forward)|going forward|(so |also,? )?for (every|each|all|any) (prompt|request|task|change|commit|response|answer|question|development task)s?|if you (don'?t|do not|dont|can'?t|cannot) (understand|know))\b"
);
// "All components written with the Option API should be converted to …": a one-time change said in
// the passive, not a rule for later work.
pattern!(
    pub(in crate::perceive::offline) change_in_passive,
    r"\b(should|must|need to|needs to) be (converted|migrated|moved|rewritten|refactored|replaced|renamed|removed|deleted|split|merged|extracted)\b"
);
// Words that make a sentence a rule rather than a task.
pattern!(pub(in crate::perceive::offline) modal, r"\b(should|must|never|always|do not|don'?t|avoid)\b");
// "Update tests when modifying existing logic", "run the linter before committing": an order for
// every time something is done is a standing rule.
pattern!(
    pub(in crate::perceive::offline) order_each_time,
    r"^(please\s+)?(always\s+)?(update|run|rerun|re-run|ask|check|verify|lint|format|test|document|review|commit)\b[^,;.]*\b(when(ever)?|before|after) [a-z]+ing\b"
);
// How the agent answers: "respond in the user's language", "always reply in English".
pattern!(
    pub(in crate::perceive::offline) answer_style,
    r"^(max(imum)?|at most|no more than) \d+ (lines|words|sentences|paragraphs) (per|in|for|of) (each |a |every )?(response|reply|answer)|^(please\s+)?(always\s+)?(respond|reply|answer|communicate|talk|speak|write (your )?(answers|responses|replies))( to (me|the user|users))?( only| exclusively)? in\b|\b(is|are) (strictly )?(prohibited|forbidden|not allowed|banned)$"
);
