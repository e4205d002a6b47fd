//! Families of requests in English, each with the readings that must not change.

use super::*;

/// A typo in a code name is fixed by renaming it; in prose or a docstring it is not a rename.
#[test]
fn a_typo_in_a_name_is_a_rename() {
    rules_read_as(&[
        ("Fix typo in variable name", "mutation", "rename"),
        ("fix: tiny typo in variable name", "mutation", "rename"),
        ("Fix variable typo", "mutation", "rename"),
        ("Correct the misspelled function name in parser.py", "mutation", "rename"),
        ("Fix typo in the README", "mutation", "document"),
        ("Fix typo in docstring of function parse", "mutation", "document"),
        ("Is that variable name a typo?", "query", "explain"),
    ]);
}

/// Asking for a release is asking for a tag: a commit-family change. Release notes and release builds are not.
#[test]
fn asking_for_a_release_is_a_commit() {
    rules_read_as(&[
        ("Could you release v1.03?", "mutation", "commit"),
        ("Please cut a new release from the current main", "mutation", "commit"),
        ("Can you create a version with the latest fix?", "mutation", "commit"),
        ("Please provide an up to date release.", "mutation", "commit"),
        ("Add release notes for 2.0", "mutation", "document"),
        ("make a release build of the cli", "mutation", "implement"),
        ("When is the next release?", "query", "explain"),
    ]);
}

/// A problem stated without a verb of change is a bug report; asked about, or with a change
/// named, it is read as before.
#[test]
fn a_stated_problem_is_a_fix() {
    rules_read_as(&[
        ("Docker image is too large", "mutation", "fix"),
        ("CI no longer runs tests on the main branch", "mutation", "fix"),
        ("Null values returned by the parser are ignored", "mutation", "fix"),
        ("Install failures on Windows since 2.0", "mutation", "fix"),
        ("an error pops up when I start the app", "mutation", "fix"),
        ("Why is the docker image so large?", "query", "explain"),
        ("Make the docker image smaller", "mutation", "implement"),
        ("Run the suite and highlight any failures", "query", "status"),
    ]);
    // Neither a fact to keep nor a question, whatever the second reader makes of it.
    reads_as(&[("docker image is too large", "mutation", "fix"), ("Docker image is huge (6.5 GB)", "mutation", "fix")]);
}

/// Asking how the work stands is a status question; an update asked for is a change.
#[test]
fn asking_for_news_is_status() {
    rules_read_as(&[
        ("any updates?", "query", "status"),
        ("Is there any update on the release?", "query", "status"),
        ("any chance of getting this merged soon?", "query", "status"),
        ("Bugfix release when?", "query", "status"),
        ("update the dependencies", "mutation", "implement"),
        ("Add a progress bar to the download", "mutation", "implement"),
    ]);
}

/// A rule for every time a condition holds, or for how answers are given, is standing; a
/// condition on a one-off task is not.
#[test]
fn a_rule_for_every_time_is_an_instruction() {
    rules_read_as(&[
        ("whenever you compare two libraries, use everyday examples", "instruction", "require"),
        ("When asked to remember something, update CLAUDE.md", "instruction", "require"),
        ("if you don't understand something, don't edit it", "instruction", "forbid"),
        ("respond in the user's language", "instruction", "prefer"),
        ("If the tests fail, fix them", "mutation", "fix"),
        ("respond with a 404 when the user is missing", "mutation", "implement"),
        ("When does the cache expire?", "query", "explain"),
        ("When triggering as cron, what input payload is there", "query", "explain"),
    ]);
}

/// The state of a project, an issue or a pull request, asked about, is status.
#[test]
fn the_state_of_a_project_or_an_issue_is_status() {
    reads_as(&[
        ("Is this project still maintained?", "query", "status"),
        ("Can this issue be closed?", "query", "status"),
        ("is this PR still in draft?", "query", "status"),
        ("Are there any new release plans?", "query", "status"),
        ("Explain how the release process works", "query", "explain"),
        ("Write the release plan into RELEASE.md", "mutation", "document"),
        ("do you have a status update about this project?", "query", "status"),
        ("Add a command that prints a status update", "mutation", "implement"),
    ]);
}

/// "I'd love to be able to …", "it would be nice to …": a wish asks for the change.
#[test]
fn a_wish_asks_for_the_change() {
    reads_as(&[
        ("It would be nice to see all the packages that depend on a package of your own.", "mutation", "implement"),
        ("it would be great to have a dark mode", "mutation", "implement"),
        ("It would be nice to add tests for parse_config", "mutation", "test"),
        ("I'd love it if someone could profile the startup time and share some insight", "query", "review"),
    ]);
    // A question about what would be nice is no wish (which question the second reader may tell).
    rules_read_as(&[("What would be nice to have in the next release?", "query", "explain")]);
}

/// A symptom said without a verb of change is a bug report.
#[test]
fn more_symptoms_are_bug_reports() {
    reads_as(&[
        ("Partners page loads too slowly", "mutation", "fix"),
        ("the nextcloud pod won't start", "mutation", "fix"),
        ("the coredns pods keep restarting", "mutation", "fix"),
        ("memory consumption keeps going up", "mutation", "fix"),
        ("Sodium incompatibility", "mutation", "fix"),
        ("Does not seem to play well with evil-mode", "mutation", "fix"),
        ("Doesn't compile with the latest version of the ESP32 core", "mutation", "fix"),
        ("Virtual scrolling is much slower than a full load", "mutation", "fix"),
        ("I get the following warning when I run get_stats: SettingWithCopyWarning", "mutation", "fix"),
        ("Can not open a file whose path contains Unicode characters", "mutation", "fix"),
        ("Error when exporting the report", "mutation", "fix"),
        ("Sensors unavailable after a restart", "mutation", "fix"),
        ("Unable to enable the plugin", "mutation", "fix"),
        ("Why is the sensor unavailable after a restart?", "query", "explain"),
        ("When clicking on the Add button it does not work", "mutation", "fix"),
        ("When does the cache expire?", "query", "explain"),
        ("When triggering as cron, what input payload is there", "query", "explain"),
        ("Compile times have deteriorated significantly", "mutation", "fix"),
        ("SQL injection vulnerability in the event search API", "mutation", "fix"),
        ("Audit the search API for SQL injection", "query", "review"),
        ("Buttons don't work on Chrome or Safari on iOS", "mutation", "fix"),
        ("The settings page is slow to load after a reinstall", "mutation", "fix"),
        ("Redirect loop for client accounts", "mutation", "fix"),
        ("Dark mode toggle resets when the page is refreshed", "mutation", "fix"),
        ("Timezone offset counted twice in the scheduler", "mutation", "fix"),
        ("Why don't the buttons work on Safari?", "query", "explain"),
        ("Can't find the function definition for parse_config", "query", "search"),
        ("Why is the virtual list much slower than a full load?", "query", "explain"),
        ("How do I resolve a version conflict with serde?", "query", "explain"),
        ("Why does the page load too slowly?", "query", "explain"),
    ]);
    // An order in the imperative is no symptom, whatever the second reader makes of it.
    rules_read_as(&[("Reset the form when it is saved", "mutation", "implement")]);
}

/// "From now on, …": a rule for later work, which the second reader may not make a question.
#[test]
fn a_rule_from_now_on_asks_nothing() {
    reads_as(&[
        ("from now on, ignore the commit gate", "instruction", "require"),
        ("going forward, keep the changelog in docs/", "instruction", "require"),
        ("Going forward, what should we prioritise?", "query", "explain"),
    ]);
}

/// "What about renaming …", "would it be possible to …": a change suggested or asked for.
#[test]
fn a_suggested_change_is_asked_for() {
    rules_read_as(&[
        ("What about renaming the flag to `--old-flag`?", "mutation", "rename"),
        ("how about adding tests for parse_config?", "mutation", "test"),
        ("What about the tests?", "query", "explain"),
    ]);
    reads_as(&[
        ("Would it be possible to split up large files?", "mutation", "refactor"),
        ("Is it possible to disable telemetry?", "query", "explain"),
        ("Add a tool to find all callers of a function", "mutation", "implement"),
        ("find all callers of parse_config", "query", "search"),
    ]);
}

/// "Tell me …", "compare X and Y", a question after a framing clause, "… working or not":
/// asked, whatever change they mention; the same words inside an order are not.
#[test]
fn asking_to_be_told_is_a_question() {
    rules_read_as(&[
        ("tell me the commands to verify the install", "query", "explain"),
        ("read the http module and tell me how it differs from axios", "query", "explain"),
        ("Compare Cloudflare KV and Durable Objects for log ingestion", "query", "explain"),
        ("based on the readme, who is the primary audience for this project", "query", "explain"),
        ("can you test these changes are working or not", "query", "status"),
        ("tell the user when the upload is done", "mutation", "implement"),
        ("add a compare button to the diff view", "mutation", "implement"),
        ("Given an empty list, return None instead of raising", "mutation", "fix"),
    ]);
}

/// More problems stated, questions about what to test or what is missing, facts about the
/// project said in rule files, and a task whose later sentences say what it must do.
#[test]
fn symptoms_test_questions_project_facts_and_a_task_with_its_requirements() {
    rules_read_as(&[
        ("Sensor becomes unavailable after reboot", "mutation", "fix"),
        ("Switchable impls are not thread-safe", "mutation", "fix"),
        ("Is this class thread-safe?", "query", "review"),
        ("What test cases should I consider for this function?", "query", "review"),
        ("Which remaining branches are worth testing?", "query", "review"),
        ("Should line 53 use defmodule instead?", "query", "review"),
        ("What should I name this function?", "query", "explain"),
        ("Project is using Expo and best practices.", "instruction", "remember"),
        ("`@/` is an alias for `src/react`", "instruction", "remember"),
        ("Bun is the package manager and runtime", "instruction", "remember"),
        ("Styling is done using Tailwind CSS.", "instruction", "remember"),
        ("Make Biome the linter and formatter", "mutation", "implement"),
        ("The project uses a deprecated API, replace it with the new one", "mutation", "refactor"),
        ("Implement a login code generator. The code must always have six digits.", "mutation", "implement"),
    ]);
    // A rule whose first word could open a task is still a rule.
    reads_as(&[("Build output should not be committed; only source files.", "instruction", "forbid")]);
}

/// public14's families: more problems stated, debugging, asking whether all is well or how
/// things stand, asking to be given an explanation, and rules for every time something is done.
#[test]
fn symptoms_news_explanations_and_orders_for_every_time() {
    rules_read_as(&[
        ("Server leaks memory under load", "mutation", "fix"),
        ("Count() method not thread safe", "mutation", "fix"),
        ("Wrong default setting of HTTP port in jetty.xml", "mutation", "fix"),
        ("Deprecated config options are not processed", "mutation", "fix"),
        ("Whoops, ff9900 should be 9fef00 instead", "mutation", "fix"),
        ("Continue debugging the scraper", "mutation", "fix"),
        ("It should be possible to run a single test instead of a whole file", "mutation", "implement"),
        ("Please confirm that everything is good now", "query", "status"),
        ("give me a summary of the current state of the project", "query", "status"),
        ("Give me a short explanation of how the parser works", "query", "explain"),
        ("Give the button a tooltip", "mutation", "implement"),
        ("from this point forward, record every prompt in PROMPTS.md", "instruction", "require"),
        ("Update tests when modifying existing logic", "instruction", "require"),
        ("Run the linter before committing", "instruction", "require"),
        ("Fix the crash when parsing dates", "mutation", "fix"),
        ("Add a check before saving the form", "mutation", "implement"),
    ]);
}

/// public15's questions read as changes: running the tests, profiling, asking for instructions.
#[test]
fn running_the_tests_profiling_and_asking_for_instructions_are_questions() {
    rules_read_as(&[
        ("Run all backend and frontend tests now.", "query", "status"),
        ("Need to profile start up process", "query", "review"),
        ("give me the instructions for the dns change", "query", "explain"),
        ("Run the migration script", "mutation", "implement"),
        ("Add a profile page for users", "mutation", "implement"),
        ("Lets create a plan for project setup.", "query", "explain"),
        ("Create a plan view in the dashboard", "mutation", "implement"),
    ]);
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
        let v = rules(text);
        assert_eq!(v["target"], target, "{text}: {v}");
    }
}

/// How the target behaves ("how Parse works", "what does it do") is not the target; a thing
/// named with "work" is.
#[test]
fn how_a_target_behaves_is_not_its_target() {
    for (text, target) in [
        ("explain how Parse works", "Parse"),
        ("how does the parser work?", "parser"),
        ("Explain how the retry logic works with the backoff", "retry logic"),
        ("what does Parse do?", "Parse"),
        ("explain the work queue", "work queue"),
        ("fix how the cache behaves on eviction", "cache"),
    ] {
        let v = read(text);
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
        let v = rules(text);
        assert_eq!(v["target"], target, "{text}: {v}");
        let constraints: Vec<&str> = v["constraints"].as_array().unwrap().iter().filter_map(|c| c.as_str()).collect();
        let found = constraints.iter().copied().find(|c| c.starts_with(LOCATED_IN));
        assert_eq!(found, placed, "{text}: {v}");
    }
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
        ("Evaluate the upgrade to Django 5", "query", "impact"),
        ("comment on my pull request description", "query", "review"),
        ("wait for CI to pass", "query", "status"),
    ]);
}

/// Failing tests are a bug to fix; tests asked for are tests to write.
#[test]
fn failing_tests_are_a_fix() {
    rules_read_as(&[
        ("test suite fails", "mutation", "fix"),
        ("Tests fail on Windows since the last release", "mutation", "fix"),
        ("Integration tests are failing after the upgrade", "mutation", "fix"),
        ("write tests for the failing parser", "mutation", "test"),
        ("Add unit tests for the scheduler", "mutation", "test"),
        ("Why do the tests fail?", "query", "explain"),
    ]);
}

/// A problem told, then advice asked for, asks; a problem told alone is a bug report.
#[test]
fn advice_asked_after_a_problem_asks() {
    rules_read_as(&[
        ("The list renders slowly with 6000 items. Any idea?", "query", "explain"),
        ("The service starts on port 8080 and I need another port. What should I do?", "query", "explain"),
        ("Login fails after the upgrade. How can I fix this?", "query", "explain"),
        ("The list crashes with 6000 items", "mutation", "fix"),
        ("Add a way to pick the port; any port above 1024 works", "mutation", "implement"),
    ]);
}

/// Which version is running, asked, is the state of what is deployed.
#[test]
fn the_running_version_asked_is_status() {
    reads_as(&[
        ("How do I know which version is running?", "query", "status"),
        ("Which release is deployed right now?", "query", "status"),
    ]);
    rules_read_as(&[("Add the running version to the admin panel", "mutation", "implement")]);
}

/// Accepting changes merges them; keeping comments a certain way is a standing preference.
#[test]
fn accepting_changes_commits_and_keeping_a_style_prefers() {
    rules_read_as(&[
        ("please accept the changes", "mutation", "commit"),
        ("accept the pull request once CI is green", "mutation", "commit"),
        ("Keep comments strictly minimalist and lowercase", "instruction", "prefer"),
        ("keep functions very small", "instruction", "prefer"),
        ("Accepted values should include negative numbers", "mutation", "implement"),
    ]);
}

/// Questions with a specific subject: whether the tests pass, what a change would reach, where a
/// thing lives; a change suggested or a way asked for is a change; what happens when a person
/// acts is behaviour, not a standing rule; how the project is deployed is a fact to keep.
#[test]
fn specific_questions_suggestions_and_facts() {
    rules_read_as(&[
        ("Check whether the current master branch passes all the tests", "query", "status"),
        ("Check whether the parser handles empty input", "query", "review"),
        ("Which tests executed this line of code?", "query", "impact"),
        ("Will this method get rid of existing data?", "query", "impact"),
        ("In which file are the strings to translate?", "query", "search"),
        ("what endpoints are we currently using", "query", "search"),
        ("I would suggest we remove the default key bindings", "mutation", "delete"),
        ("Have some way to redefine keys in the config file", "mutation", "implement"),
        ("Whenever I click on like, the login pop-up should appear", "mutation", "implement"),
        ("Whenever you change the schema, regenerate the types", "instruction", "require"),
        ("The project is deployed exclusively via Docker containers", "instruction", "remember"),
        ("Ensure that your .env file is not committed to version control", "instruction", "require"),
    ]);
}

/// What a change would do, asked as a title, is impact; making sure nothing is wrong is a review.
#[test]
fn effects_of_a_change_and_ensuring_nothing_is_wrong_ask() {
    rules_read_as(&[
        ("Rails: Effects of changing the data type of an existing column with existing data", "query", "impact"),
        ("Implications of upgrading to Django 5", "query", "impact"),
        ("Make sure there are no security breaches in the login flow", "query", "review"),
        ("Change the data type of the price column", "mutation", "implement"),
        ("Make sure the login flow rejects expired tokens", "mutation", "implement"),
    ]);
}

/// English: keeping a file up to date is a standing rule; the state of a project asked is status;
/// squashing commits commits; code that is not used and should go is deleted; a drop-down is no
/// removal; writing tests instead of others is a test task, not a rule.
#[test]
fn more_families_in_english() {
    rules_read_as(&[
        ("Keep `postman_collection.json` in the repo root up to date.", "instruction", "require"),
        ("Ensure the README is up to date when features change", "instruction", "require"),
        ("How alive is the project, and at what stage of development?", "query", "status"),
        ("Can some of these commits be squashed?", "query", "explain"),
        ("squash the last three commits", "mutation", "commit"),
        ("The following functions aren't used anywhere and should be removed.", "mutation", "delete"),
        ("add a drop down menu for the language", "mutation", "implement"),
        ("Write tests for the parser instead of the end-to-end ones", "mutation", "test"),
        ("Backend: Go, Frontend: SvelteKit", "instruction", "remember"),
        ("what is the file name containing the definition of getpage?", "query", "search"),
    ]);
}

/// A problem only described speaks after the question it leads to; an order in a sentence of
/// its own still speaks before a question.
#[test]
fn a_closing_question_outranks_a_description_not_an_order() {
    rules_read_as(&[
        (
            "Its footprint is already in the library. However, the symbol for it does not seem to exist. Where is the symbol defined?",
            "query",
            "search",
        ),
        ("The parser crashes on empty input. Fix it. Why does that happen?", "mutation", "fix"),
        ("I can't find the setting in your config. Could you shed some light on that one?", "query", "explain"),
        ("can we check until where we reached", "query", "status"),
    ]);
}

/// A report asked for with nothing to change is a question; a change with a constraint on what
/// it may touch stays a change. Profiling, a second pair of eyes and a list of suggestions review.
#[test]
fn reports_reviews_and_decisions() {
    rules_read_as(&[
        (
            "Compare dotnet/ and go/ against the mapping. List anything that differs. Do not change code; produce the list only.",
            "query",
            "review",
        ),
        ("Fix the parser without changing any code outside src/parser", "mutation", "fix"),
        ("We should do some basic profiling of this to see where the slow parts are.", "query", "review"),
        ("I'd love to get your eyes on the changes just to make sure they're all reasonable", "query", "review"),
        ("Checking if the tests are really broken on master.", "query", "status"),
        ("Max 5 lines per response unless I ask for details.", "instruction", "prefer"),
        ("Please make the smallest changes that allow the unit tests to pass.", "mutation", "fix"),
    ]);
    reads_as(&[
        ("인증은 JWT로 한다.", "instruction", "remember"),
        ("로그아웃이 안되고 있어", "mutation", "fix"),
        ("현재 작성된 테스트 코드의 커버리지 확인해줘", "query", "status"),
        ("O projeto não compila", "mutation", "fix"),
        ("Inicializar projeto React com Vite", "mutation", "scaffold"),
        ("これが原因だったらinmemoryにしなくても良かったのでは", "query", "explain"),
    ]);
}

/// The state of the work asked ("what did we do so far?"), what else a change reaches, test logs,
/// and what is related to a thing, each by its own cue; a feature wished for stays a feature.
#[test]
fn the_state_of_the_work_and_what_a_change_reaches() {
    rules_read_as(&[
        ("What did we do so far?", "query", "status"),
        ("did you setup github actions and everything?", "query", "status"),
        ("Were there any other places in the code using the old API that we now need to fix?", "query", "impact"),
        ("If a shared behavior changed silently, where would the damage surface first?", "query", "impact"),
        ("What tables are related to the admissions pipeline?", "query", "search"),
        ("The ability to review and revert to old versions of the config", "mutation", "implement"),
        ("Review the webinar code and make a list of refactoring suggestions", "query", "review"),
    ]);
}

/// public24's families: a document named in a code span or as a plain-text prose file; which tests
/// reach a line; what a release or a pull request stands at; rebasing and merging; errors given;
/// a passive one-time change is no standing rule; markdown emphasis is no word.
#[test]
fn documents_in_spans_tests_that_reach_a_line_and_passive_changes() {
    rules_read_as(&[
        ("create `PROMPT_LOG.md` in the root", "mutation", "document"),
        ("Add INSTALL.txt", "mutation", "document"),
        ("Add install.sh", "mutation", "implement"),
        (
            "Is there a way to determine the set of unit tests that will potentially execute a given line?",
            "query",
            "impact",
        ),
        ("Will there be a 1.0.16 release soon?", "query", "status"),
        ("Rebase master with stable to straighten out conflicts", "mutation", "commit"),
        ("Python package gives ModuleNotFoundError after installed", "mutation", "fix"),
        (
            "All the components written with the Option API should be converted into the Composition API",
            "mutation",
            "refactor",
        ),
        ("All components should use the Composition API", "instruction", "require"),
        ("Context should be the first argument", "instruction", "require"),
        ("Profiling points queries is *very* slow", "mutation", "fix"),
        ("Is this the only file necessary to add the Swedish language?", "query", "search"),
    ]);
    reads_as(&[
        (
            "Lee CLAUDE.md y PRD.md. Dame el plan de construcción, en pasos, sin escribir código todavía.",
            "query",
            "explain",
        ),
        ("检查已有能力的实现是否满足上述规则", "query", "review"),
        ("把整个项目名从光影弹幕改成CORTIS安利墙", "mutation", "rename"),
        ("始终使用英文生成代码", "instruction", "require"),
        ("No inventar datos ni relajar validaciones de seguridad", "instruction", "forbid"),
        ("Agrega drag and drop entre columnas con dnd-kit.", "mutation", "implement"),
    ]);
}

/// public25's families: tests failing whatever runs them; implementing tests; moving by taking out
/// and putting back; a flag renamed; bottlenecks, thoughts asked, downstream effects; running a
/// check; HTTP errors; French and Portuguese orders and language rules.
#[test]
fn nightly_failures_relocations_bottlenecks_and_languages_of_writing() {
    rules_read_as(&[
        ("Nightly tests failing consistently on master", "mutation", "fix"),
        ("Nightly tests did not succeed", "mutation", "fix"),
        ("Lets implement RSpec tests. We'll do it in two stages.", "mutation", "test"),
        ("remove default variables from the playbook and place them in the role defaults", "mutation", "refactor"),
        ("remove default variables from the playbook", "mutation", "delete"),
        ("Change --debug to --verbose", "mutation", "rename"),
        ("what's the bottleneck? Loading the data, rendering, or handling the state?", "query", "review"),
        ("Can you share your thoughts on the best place for helper classes?", "query", "explain"),
        ("Any foreseeable hardships due to this change in downstream repos?", "query", "impact"),
        ("Run TypeScript type checking to ensure all types are correct", "query", "status"),
        ("http://localhost:8080 -> 404", "mutation", "fix"),
        ("Provide a cookiecutter template for creating new plugins", "mutation", "scaffold"),
    ]);
    reads_as(&[
        ("Peux tu me corriger mailer() ?", "mutation", "fix"),
        ("Finalement, en administrateur, enlève le bouton Quizz", "mutation", "delete"),
        ("Escreva todas as mensagens de commit em português brasileiro", "instruction", "prefer"),
        ("コミットは常に許可を求めろや", "instruction", "require"),
        ("分析最近 N 条 git 提交，总结项目变化", "query", "status"),
    ]);
}

/// Things out of sync, drifting or in trouble are bugs; an order to look for a leak is a review.
#[test]
fn a_problem_stated_is_a_fix_and_an_order_to_find_one_a_review() {
    rules_read_as(&[
        ("Clock: out of sync after MIDI continue event", "mutation", "fix"),
        ("midi clock pulse drift", "mutation", "fix"),
        ("Synchronization issues with Subtitle (.SRT) file", "mutation", "fix"),
        ("macOS runner has some trouble", "mutation", "fix"),
        ("Memory leak in the worker pool", "mutation", "fix"),
        ("identify memory leak in long-running map with random transitions", "query", "review"),
        ("Check for race conditions in the scheduler", "query", "review"),
        ("feat: support drift detection", "mutation", "implement"),
    ]);
}

/// A title tagged as a bug reports one, even put as a question; a question about bugs asks.
#[test]
fn a_title_tagged_as_a_bug_reports_one() {
    rules_read_as(&[
        ("[BUG] - Pause at layer pauses before and after the layer?", "mutation", "fix"),
        ("Bug: does the export drop the last row?", "mutation", "fix"),
        ("How do I report a bug?", "query", "explain"),
    ]);
}

/// Adhering to a standard and passing an option to every command are standing rules; adopting a
/// design pattern restructures.
#[test]
fn standards_to_follow_are_rules_and_a_pattern_adopted_is_a_refactor() {
    rules_read_as(&[
        ("Strictly adhere to PSR-12 coding standards.", "instruction", "require"),
        ("Pass `--no-interaction` to all Artisan commands.", "instruction", "require"),
        ("Pass the config to the loader", "mutation", "implement"),
        ("Adopt ECS Design Pattern (Part I)", "mutation", "refactor"),
        ("没有我的许可 不许随意新建文件", "instruction", "forbid"),
        ("すべてのやり取りを日本語で行ってください", "instruction", "require"),
    ]);
}

/// A problem taken away is fixed; code cleaned up or helpers merged is restructured; a release
/// or a tag asked for is a commit.
#[test]
fn problems_removed_code_restructured_and_releases_asked_for() {
    rules_read_as(&[
        ("Remove performance bottlenecks", "mutation", "fix"),
        ("get rid of the compiler warnings", "mutation", "fix"),
        ("Remove the unused option", "mutation", "delete"),
        ("clean this up", "mutation", "refactor"),
        ("Clean up the login code", "mutation", "refactor"),
        ("Merge a couple of near-identical helper functions.", "mutation", "refactor"),
        ("Merge the pull request", "mutation", "commit"),
        ("Release containing last fixes", "mutation", "commit"),
        ("There's no tag for the latest release, 1.1.0", "mutation", "commit"),
        ("this entire implementation is really inefficient", "mutation", "fix"),
        ("Extremely High Memory Usage (2GB+)", "mutation", "fix"),
        ("show_post2() still referenced", "mutation", "fix"),
        ("CI check failure", "mutation", "fix"),
        ("Helm chart ignores ingress: true", "mutation", "fix"),
        ("Add a flag so that the linter ignores generated files", "mutation", "implement"),
        ("some security flaws", "mutation", "fix"),
    ]);
}

/// Questions by what they ask: when something changed is history, an entry point or whether code
/// is used is found, a security issue is judged, thinking through or not knowing how is explained.
#[test]
fn questions_of_history_use_and_security() {
    rules_read_as(&[
        ("When did we switch from REST endpoints to GraphQL?", "query", "status"),
        ("When should I use a context manager?", "query", "explain"),
        ("What's the entry point for the API server?", "query", "search"),
        ("Is this function in use?", "query", "search"),
        ("Is using `eval()` in callback a security issue?", "query", "review"),
        ("find portability issues in my script", "query", "review"),
        ("find the config loader", "query", "search"),
        ("Can you help me think through corner cases I may need to test here?", "query", "explain"),
        ("I'm not sure how to add Slovak language.", "query", "explain"),
        ("Be very conservative when adding comments to test files.", "instruction", "prefer"),
        ("Explain what and why before suggesting code changes.", "instruction", "require"),
    ]);
}

/// public29's families: updates and plans asked for are the state; a status snapshot, what I was
/// doing and checks that did not pass too; the tests of a function are impact; the safety of a
/// practice is judged; a name never defined is a bug; code rewritten idiomatically is refactored.
#[test]
fn updates_asked_practices_judged_and_names_never_defined() {
    rules_read_as(&[
        ("is there any update on arm64 support?", "query", "status"),
        ("Is it planned to update this script for the new OS version?", "query", "status"),
        ("Provide a quick status snapshot of the repository.", "query", "status"),
        ("What was I doing?", "query", "status"),
        ("why didn't the checks pass?", "query", "status"),
        ("what are the tests for this function?", "query", "impact"),
        ("is it safe to store jwt token to localStorage?", "query", "review"),
        ("is it safe to remove the cache module?", "query", "impact"),
        ("this function is never defined", "mutation", "fix"),
        ("Never use unwrap in library code", "instruction", "forbid"),
        ("Re-write error handling in idiomatic Rust", "mutation", "refactor"),
        ("Simpler error handling", "mutation", "refactor"),
        ("Could you please help check all the cpp codes in terms of memory leaks?", "query", "review"),
    ]);
}

/// public30's families: a rename said as a title or between two names; a check that ends in fixing;
/// code quality improved is a refactor; a title reporting a fix asks for it; tests updated are
/// tests; rules that prohibit, answers in one language; impact, search and review questions by
/// their own words.
#[test]
fn renames_as_titles_checks_that_fix_and_questions_by_their_words() {
    rules_read_as(&[
        ("Unit test file rename", "mutation", "rename"),
        ("renamed unit tests", "mutation", "rename"),
        ("change test.sh back to tests.sh", "mutation", "rename"),
        ("Write unit tests for the parser", "mutation", "test"),
        ("Check the code for security issue and do the fixing", "mutation", "fix"),
        ("Check the code for security issues", "query", "review"),
        ("Improve Code Quality based on Codacy", "mutation", "refactor"),
        ("SQL Injection vulnerability fixed", "mutation", "fix"),
        ("Update testing to check callFunction", "mutation", "test"),
        ("Code snippets or examples are strictly prohibited.", "instruction", "forbid"),
        ("Is there a safe way to update from 1.6.1 to 1.6.2?", "query", "impact"),
        ("How to know which unit test calls a specific method", "query", "impact"),
        ("I want to jump to all uses of this component.", "query", "search"),
        ("Insure we are not using the old API in any place", "query", "search"),
        ("Please let me know whether I did correct or not.", "query", "review"),
    ]);
    // How answers are given is a standing rule.
    assert_eq!(reading(&rules("Reply exclusively in Korean.")).0, "instruction");
    // Asked whether it is fixed, nothing is to be fixed.
    assert_eq!(reading(&rules("Is the login bug fixed?")).0, "query");
}

/// The state of the repository asked (its branch, its changes, its commits) is status, whatever
/// the second reader says; the same words in a change stay a change.
#[test]
fn the_branch_changes_and_commits_asked_are_status() {
    reads_as(&[
        ("which branch am I on?", "query", "status"),
        ("what is the current branch?", "query", "status"),
        ("what did I change?", "query", "status"),
        ("show me the recent commits", "query", "status"),
        ("git status", "query", "status"),
        ("switch to a new branch called release", "mutation", "commit"),
        ("explain what a branch is in git", "query", "explain"),
    ]);
}

/// public31's misses: bot commands to run the tests, questions tagged or said as confusion, work
/// asked about by its state, a change's reach and whether one did it right; orders that open with
/// their verb stay orders; limits and "X, not Y" are rules; titles that report a fix or a comment.
#[test]
fn commands_tags_states_and_orders_that_open_with_their_verb() {
    reads_as(&[
        ("/test", "query", "status"),
        ("retest this please", "query", "status"),
        ("/test parse_config", "mutation", "test"),
        ("[Question] Export the report as CSV", "query", "explain"),
        ("[Refactor] split the loader into modules", "mutation", "refactor"),
        ("[Docs] installation on Windows", "mutation", "document"),
        ("Confused about the plugin loading order.", "query", "explain"),
        ("Have you finished the migration yet?", "query", "status"),
        ("is this PR ready to be merged?", "query", "status"),
        ("which tests should I run after this change?", "query", "impact"),
        ("Can these updates break existing deployments?", "query", "impact"),
        ("Could you check my function and tell me if I got it wrong.", "query", "review"),
        ("Where to configure the log level", "query", "search"),
        ("add metrics to monitor slow queries", "mutation", "implement"),
        ("Display the author when listing pull requests", "mutation", "implement"),
        ("Use exact numbers, not estimates", "instruction", "prefer"),
        ("Fixed all flaky assertions in the parser tests", "mutation", "fix"),
        ("Commented the public functions in utils.c", "mutation", "document"),
        ("the changelog is out of date", "mutation", "document"),
        ("Unused imports in the server module", "mutation", "delete"),
        ("event handlers being called out of order", "mutation", "fix"),
        ("debug the failing integration tests", "mutation", "fix"),
        ("generate a boiler plate flask app", "mutation", "scaffold"),
    ]);
    // A limit is a rule; the rules read it as required, the second reader may say it is preferred.
    rules_read_as(&[("A maximum of 300 lines per file.", "instruction", "require")]);
    assert_eq!(read("A maximum of 300 lines per file.")["category"], "instruction");
    // What must not move: a plan or a roadmap written is an explanation; a bare test named is run.
    reads_as(&[
        ("Write the implementation plan for the approach we picked.", "query", "explain"),
        ("Where is the log level configured?", "query", "search"),
        ("Show me how the cache is used", "query", "explain"),
    ]);
}

/// public32's misses: explanations and comparisons asked to be provided, a change's reach and
/// reasons against a removal, approving and adhering judged, running something to make sure it
/// works, a project ready; branches and pull requests opened, build steps documented; facts of the
/// stack kept; rules said as requirements for all, priorities, skips and "you can use".
#[test]
fn provided_explanations_judgements_and_rules_of_the_stack() {
    reads_as(&[
        ("Provide a detailed explanation of the caching layer.", "query", "explain"),
        ("Give me a comparison between the two serializers", "query", "explain"),
        ("Do you see any reason not to remove the legacy client?", "query", "impact"),
        ("what tests should I run?", "query", "impact"),
        ("should I approve this PR?", "query", "review"),
        ("I'm not sure whether this is correct, can you look?", "query", "review"),
        ("run the build to make sure nothing is broken", "query", "status"),
        ("is our release ready", "query", "status"),
        ("Please add steps to install this on Windows", "mutation", "document"),
        ("The test runner is pytest", "instruction", "remember"),
        ("Type hints are required for all public functions", "instruction", "require"),
        ("Readability is not critical here; prioritize speed", "instruction", "prefer"),
        ("Let's skip the docker setup for now", "instruction", "forbid"),
        ("The cache was broken, we were never invalidating it.", "mutation", "fix"),
    ]);
    // A branch made is a commit to the rules; the second reader, which has seen few, may say which change.
    rules_read_as(&[("create a branch for the login work", "mutation", "commit")]);
    // What must not move: documents written into the repository, a plan, a failing build to fix.
    reads_as(&[
        ("Provide documentation for the config module in the README", "mutation", "document"),
        ("Write the implementation plan for the approach we picked.", "query", "explain"),
        ("Prioritize the crash on startup and fix it", "mutation", "fix"),
    ]);
}
