//! Requests not in English, read by their own languages' cues.

use super::*;

/// A question in Chinese asks, by its question words or its closing particle.
#[test]
fn a_question_in_chinese_asks() {
    reads_as(&[
        ("代理怎么配置？", "query", "explain"),
        ("如何简单的使用http代理", "query", "explain"),
        ("配置文件中的代理有说明文档吗", "query", "explain"),
        ("附件存在哪里", "query", "search"),
        ("请修复 parse_config 的 bug", "mutation", "fix"),
    ]);
}

/// A request not in English is read by its own language's cues, the second reader
/// notwithstanding; an English one is not.
#[test]
fn requests_not_in_english_are_read_by_their_own_cues() {
    reads_as(&[
        ("禁止在组件中直接调用数据库", "instruction", "forbid"),
        ("更新后无法启动", "mutation", "fix"),
        ("怎么修改默认端口？", "query", "explain"),
        ("이 함수를 리팩토링해줘", "mutation", "refactor"),
        ("Не запускается после обновления", "mutation", "fix"),
        ("arregla el error del login", "mutation", "fix"),
        ("Botão de salvar não funciona", "mutation", "fix"),
        ("API-Endpunkt immer aus der Konfiguration, nie hardcoded", "instruction", "require"),
        ("请帮我初始化项目并创建基础代码", "mutation", "scaffold"),
        ("githubにwork_01というリポジトリ名でプッシュしてください", "mutation", "commit"),
        ("导出的Excel中文乱码", "mutation", "fix"),
        ("这个project在做什么", "query", "explain"),
        ("避免相对导入", "instruction", "forbid"),
        ("把此字幕的結尾改為下一個字幕的開頭避免重疊", "mutation", "implement"),
    ]);
}

/// Standing rules said in other languages' own forms: a Japanese plain negative (not a symptom's),
/// a French or Spanish infinitive, a Russian "must"; a feature added is added whatever it does.
#[test]
fn rules_and_features_in_other_languages() {
    reads_as(&[
        ("機密情報をコミットしない", "instruction", "forbid"),
        ("起動しない", "mutation", "fix"),
        ("設定をファイルとして書き出し、起動のたびに再設定しないで済むようにする", "mutation", "implement"),
        ("Ne pas partager des états entre les tests", "instruction", "forbid"),
        ("No crear migraciones de Django bajo ninguna circunstancia", "instruction", "forbid"),
        ("Utiliser des mocks pour isoler les dépendances", "instruction", "prefer"),
        ("Каждое число должно сопровождаться временем наблюдения", "instruction", "require"),
        ("각 과제의 삭제 기능을 추가하고 싶다", "mutation", "implement"),
        ("この関数のユニットテストを作成してください", "mutation", "test"),
        ("Je me demandais quel était le statut actuel du projet", "query", "status"),
        ("sería bueno agregar las instrucciones de como correr el proyecto", "mutation", "document"),
    ]);
}

/// public26's families: Ukrainian questions and orders; a summary asked explains whatever document
/// it names; compatibility asked is impact; "I can't find" searches; whether a change is safe is
/// the rules' reading, whatever the second reader says.
#[test]
fn ukrainian_summaries_compatibility_and_safety() {
    reads_as(&[
        ("Поясни що таке Entries", "query", "explain"),
        ("перевір код partner ledger", "query", "review"),
        ("як це зробити в streamlit", "query", "explain"),
        ("claudedocs/paper-enhancements.md 이 문서 내용 요약해서 보여줘", "query", "explain"),
        ("升级后的操作系统是否兼容centos7", "query", "impact"),
        ("any concerns with renaming the package?", "query", "impact"),
        ("Is it safe to use the same function in multiple threads?", "query", "review"),
    ]);
    rules_read_as(&[
        ("CNFGSetup is a function and I want to look at its source code, but I can't find it", "query", "search"),
        ("Cannot find module 'left-pad'", "mutation", "fix"),
        ("Please help me choose the topic that suits a 3-hour hackathon", "query", "explain"),
    ]);
}

/// Problems said in other languages: nothing happens, text cannot be seen, the build stopped
/// building; rules said with a universal subject or a condition and "must"; orders to test, fix
/// and extract code in Chinese. A condition's "cuando" is no question.
#[test]
fn requests_not_in_english_by_their_own_cues() {
    rules_read_as(&[
        ("点击按钮没有任何反应。", "mutation", "fix"),
        ("暗黑模式下看不清文字", "mutation", "fix"),
        ("Проект перестал собираться", "mutation", "fix"),
        ("Что-то у меня проект не собирается", "mutation", "fix"),
        ("Что делает эта функция?", "query", "explain"),
        ("새로고침하면 로그인이 풀리는 현상", "mutation", "fix"),
        ("帮我测试这个函数", "mutation", "test"),
        ("帮我修一下登录功能", "mutation", "fix"),
        ("server端将配置从代码中抽取出来", "mutation", "refactor"),
        ("Alle Antworten und Erklärungen müssen auf Deutsch verfasst werden", "instruction", "require"),
        ("Cuando se solicite un commit, se debe seguir la siguiente estructura", "instruction", "require"),
        ("¿Cuándo se ejecutan los tests?", "query", "explain"),
        ("Toute nouvelle fonctionnalité doit être documentée dans le README.md.", "instruction", "require"),
        ("Ne mentionne pas \"VS Code\" mais \"Visual Studio Code\"", "instruction", "forbid"),
        ("Aucun commentaire dans le code généré", "instruction", "forbid"),
        ("Privilégier les liens relatifs", "instruction", "prefer"),
        ("Não responda em inglês.", "instruction", "forbid"),
        ("Identifique potenciais gargalos no código atual.", "query", "review"),
    ]);
    // "doit être remplacée" asks for a change; "Se debe … borrar" too: no universal subject, no condition.
    rules_read_as(&[("L'icône bleue en haut doit être remplacée par l'icône de niveau", "mutation", "implement")]);
}

/// public29's families not in English: Japanese plain negatives of verbs with an object are
/// rules, their potential forms symptoms; Japanese checklist questions and leaks asked about are
/// reviews, leaks said are bugs; Spanish and Russian negative imperatives forbid; examples and
/// instructions added are documentation; tests added in Korean and Portuguese.
#[test]
fn rules_checklists_and_documents_in_other_languages() {
    rules_read_as(&[
        ("外部 API 連携処理をモデルへ書かない", "instruction", "forbid"),
        ("マジックナンバーを使っていないか？", "query", "review"),
        ("难道不会内存泄漏吗", "query", "review"),
        ("存在内存泄漏情况 ，内存在不断上升", "mutation", "fix"),
        ("No marques una tarea como terminada sin su test correspondiente.", "instruction", "forbid"),
        ("No funciona el login", "mutation", "fix"),
        ("Не ускладнюй рішення без вагомої причини.", "instruction", "forbid"),
        ("Проблема с отправкой фото", "mutation", "fix"),
        ("Добавить пример создания собственного плагина", "mutation", "document"),
        ("요구사항에 따른 테스트 코드 추가", "mutation", "test"),
        ("Adicionar testes de Unidade para Payment", "mutation", "test"),
        ("Pydantic v2与其他插件不兼容", "mutation", "fix"),
    ]);
    // A potential form ("cannot open the file") says what fails; it is no rule.
    assert_ne!(reading(&rules("ファイルを開けない")).0, "instruction");
}

/// public30's families not in English: "cannot" in Japanese, Spanish and Russian, problems in
/// German are bugs; features suggested in Chinese and enhanced in Japanese are asked for; a Russian
/// deletion and a French correction name their change; a Japanese procedure written down documents.
#[test]
fn problems_wishes_and_changes_named_in_other_languages() {
    rules_read_as(&[
        ("現在、起動ができません。", "mutation", "fix"),
        ("El instalador no me funciona", "mutation", "fix"),
        ("Невозможно запустить это приложение", "mutation", "fix"),
        ("Probleme mit Korrigieren-Button", "mutation", "fix"),
        ("建议增加推荐", "mutation", "implement"),
        ("サジェスト機能の強化", "mutation", "implement"),
        ("Удаление устаревшей функциональности", "mutation", "delete"),
        ("更新する手順をどっかに記載してほしい", "mutation", "document"),
    ]);
}

/// public31's misses in other languages: polite feature asks, upgrades and changes, rules said
/// with "must", "each time", limits per file, Korean rule endings and Japanese mindfulness, tests
/// and projects asked for in Korean, French deletions, the scope of a change's impact.
#[test]
fn asks_rules_and_orders_of_public31s_languages() {
    reads_as(&[
        ("能增加一个导出功能么？", "mutation", "implement"),
        ("升级依赖版本", "mutation", "implement"),
        ("修改默认端口", "mutation", "implement"),
        ("在服务中请使用`slog`记录日志，不要使用`fmt`", "instruction", "prefer"),
        ("Les tests doivent passer avant chaque commit", "instruction", "require"),
        ("S'assurer que le code compile.", "instruction", "require"),
        ("Máximo de 300 líneas por archivo", "instruction", "require"),
        ("변수 이름은 영어를 사용할 것", "instruction", "prefer"),
        ("可読性を意識してコードを書く", "instruction", "prefer"),
        ("로그인 화면 테스트 코드 작성", "mutation", "test"),
        ("초기 프로젝트를 생성하기", "mutation", "scaffold"),
        ("Suppression des imports inutiles", "mutation", "delete"),
        ("分析修改这个函数的影响范围", "query", "impact"),
    ]);
    reads_as(&[
        ("修改错别字", "mutation", "document"),
        ("阅读程序代码，你认为有什么需要修改的地方。", "query", "review"),
    ]);
}

/// public32's misses in other languages: Traditional Chinese questions, confirmations and
/// reviews asked, weekly reports; Japanese languages of writing, rules for every deployment and
/// facts of the project; Korean defaults and pull requests merged; Thai rules; reorganising and
/// isolating code in Spanish and Russian.
#[test]
fn public32s_languages_by_their_own_cues() {
    reads_as(&[
        ("有辦法加快建置速度嗎", "query", "explain"),
        ("請確認這個頁面的資料來源", "query", "review"),
        ("幫我生成本周的周报", "query", "status"),
        ("幫我實作登入功能", "mutation", "implement"),
        ("ドキュメントは日本語で書いてください。", "instruction", "prefer"),
        ("リリースのたびにバージョン番号を上げる。", "instruction", "require"),
        ("このプロジェクトでは pnpm を使っています", "instruction", "remember"),
        ("함수형 컴포넌트를 기본으로 사용", "instruction", "prefer"),
        ("브랜치 병합까지 해버려", "mutation", "commit"),
        ("ห้ามใช้ any ใน TypeScript", "instruction", "forbid"),
        ("Reorganizar el código del parser", "mutation", "refactor"),
        ("Обособить логику кэша в отдельный модуль", "mutation", "refactor"),
        ("ist das noch aktuell oder gibt es eine neue Version", "query", "explain"),
    ]);
    reads_as(&[
        ("데이터를 병합하는 함수를 만들어줘", "mutation", "implement"),
        ("起動のたびに再設定しないで済むようにする", "mutation", "implement"),
    ]);
}
