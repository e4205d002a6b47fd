//! Requests not written in English: whether a request is, and its category
//! and verb read from the cues of the languages people most often write to
//! coding agents in (Chinese, Japanese, Korean, Russian, Ukrainian, Bulgarian,
//! Spanish, Portuguese, German, French, Italian, Polish, Czech, Turkish,
//! Indonesian, Vietnamese).
//! Knows nothing of the English cues or of the second reader: it answers only
//! where one of its cues speaks, and the English rules read the rest.

use std::sync::OnceLock;

use regex::Regex;

/// One family of cues and what it reads as. `words` are cues of scripts that
/// put spaces between words (matched from a word's start; `\w*` lets a stem
/// take its endings), `marks` cues of scripts that do not (Chinese, Japanese,
/// and Korean, whose particles cling to the word: matched anywhere).
struct Family {
    category: &'static str,
    verb: &'static str,
    words: &'static str,
    marks: &'static str,
}

/// Question words and question particles: the request asks.
const QUESTION: Family = Family {
    category: "query",
    verb: "explain",
    words: r"^((en|a|de|por|para|em|no|na|auf|an|in|w|v|di|ke) )?(qu[ée]|c[óo]mo|por ?qu[ée]|d[óo]nde|dode|cu[áa]l|cuándo|hay alg[uú]n|o que|onde|qual|quando|porque|come|perch[ée]|dove|cosa|quale|wie|warum|wieso|weshalb|was|wo|welche[rsnm]?|gibt es|comment|pourquoi|où|quel(le)?s?|est-ce que|jak|dlaczego|czemu|gdzie|czy|kt[óo]ry|proč|kde|kter[ýá]|nasıl|neden|nerede|hangi|bagaimana|kenapa|mengapa|apa|apakah|di ?mana|как|почему|зачем|что( |$)|где|какой|какая|какие|можно ли|есть ли|про что|як|чому|що|де|чим|який|яка|яке)\b|\b(чи є|чи можна|як це)\b|\b(tengo una duda|sacarme la duda|d[úu]vidas?|je me demandais|quer[íi]a saber|gostaria de saber|me pregunto)\b|\b(ne|mı|mi|mu|mü)\s*$|\b(tại sao|thế nào|ở đâu|là gì)\b",
    marks: r"怎么|怎样|如何|为什么|为何|有没有|是不是|哪里|哪儿|哪个|哪些|哪种|能否|可否|请问|在做什么|是做什么|是什么|干什么|什么意思|有什么区别|什么区别|有什么用|推荐什么|是啥|[吗呢][?？。]?$|方法を教えて|やり方|방법|のでは$|のでは[?？]|ではないか|かな$|ですか|ますか|でしょうか|なぜ|どうして|どうやって|どう|どこ|どれ|何を|何が|何で|뭐|무엇|어떻게|왜|어디|나요|까요|니까|인가요|는지|嗎|為什麼|怎麼|有沒有|哪裡|^(ist|sind|gibt) (das|es|der|die|den|dem|ein|eine)\b",
};

/// Asking the agent to do something, politely: what it asks is an order.
const POLITE: Family = Family {
    category: "mutation",
    verb: "implement",
    words: r"^(puedes|podr[íi]as|pode|podes|poderia|voc[êe] pode|peux[- ]tu|pourrais[- ]tu|puoi|potresti|kannst du|k[öo]nntest du|peux-tu|pouvez-vous|pourriez-vous|mo[żz]esz|m[ůu][žz]e[šs]|bisakah|tolong|можешь|можете|помоги)\b",
    marks: r"建议(增加|添加|加入|支持)|希望(增加|添加|加入|支持|能)|帮我|帮忙|麻烦你|请你|してくれ|してもらえ|해줄래|해 줄래|해줄 수|해 줄 수|能否?(增加|添加|支持|加)|可以(增加|添加|支持|加)|能不能(增加|添加|支持|加)",
};

/// Standing rules, each with its cue; the first cue said speaks.
const RULES: [Family; 3] = [
    Family {
        category: "instruction",
        verb: "forbid",
        words: r"(^no \w+(es|as)\b|^не \w+(й|и|ь|йте|ите)\b|^ne \w+ (pas|jamais|rien)|^aucun\w*|^(evite|evita|[ée]vite[rz]?)|^n[ãa]o (responda|fa[çc]a|crie|adicione|altere|modifique|remova|escreva|inclua|mude|execute|realize|realizar|fazer)|nunca|jam[áa]s|jamais|niemals|nie wolno|nigdy|zakaz\w*|verboten|interdit\w*|prohibido|proibido|asla|yasak\w*|nikdy|z[áa]kaz\w*|jangan|dilarang|никогда|нельзя|запрещ\w*|kh[ôo]ng (được )?(s[ửu]a|th[êe]m|d[ùu]ng|s[ửu] d[ụu]ng|x[óo]a|t[ạa]o|đổi)|^kh[ôo]ng\b|c[ấa]m|no (uses|utilices|hagas|modifiques|agregues|añadas|cambies)|n[ãa]o (use|utilize|fa[çc]a|altere|adicione|modifique|crie)|ne (jamais|pas utiliser)|^ne pas|^no [a-záéíóú]+(ar|er|ir)\b|^n[ãa]o [a-záéíóúãõç]+(ar|er|ir)\b|^no (crear|usar|utilizar|agregar|a[ñn]adir|modificar|hacer|generar|escribir|commitear|subir|borrar|cambiar)|no se debe|no debe|n[ãa]o deve|ne doit pas|darf nicht|bajo ninguna circunstancia|en ning[úu]n caso|em hip[óo]tese alguna|никаких|ни в коем случае|не (используй|добавляй|делай|меняй|трогай|коммить)\w*|mai|evita\w*|nicht (verwenden|benutzen|nutzen|[äa]ndern|hinzuf[üu]gen))\b",
        marks: r"^避免|[，,；;\s]\s*避免|不许|不准|不準|^不(在|要|用|使用|暴露|允许|得)|避ける|피하|禁止|不要|不得|严禁|嚴禁|切勿|请勿|請勿|不允许|不允許|不可以|절대|하지 않|하지 마|금지|않습니다|말 것|しないでください|しないこと|してはいけない|してはならない|禁止|ห้าม",
    },
    Family {
        category: "instruction",
        verb: "require",
        words: r"(^(tout|toute|tous|toutes|chaque|alle|jede[rsn]?|todas?|todos?|cada) [^.]* (doit|doivent|m[üu]ssen|muss|debe|deben|devem|deve)|^(cuando|siempre que|quando|lorsque|quand|wenn) [^,]*, [^.]*\b(se debe|deben|debe|doit|doivent|muss|m[üu]ssen|deve|devem)|siempre|sempre|toujours|immer|stets|zawsze|vždy|v[žz]dy|mutlaka|her zaman|lu[ôo]n|ph[ảa]i|selalu|harus|wajib|obligatori[oa]|obrigat[óo]ri[oa]|всегда|обязательно|должн\w*|^(toda|todo|todas|todos|cada|preservar|respetar|respeitar|conservar)|sebelum (menyatakan|selesai)|antes de (dar por|declarar))\b|^(les|la|le|l') [^.]* (doit|doivent) |^(s'assurer|assurez-vous|veillez|veiller) (que|à)\b|\b(apr[èe]s|[àa]) chaque (modification|changement|commit|fois)\b|\b(un )?m[áa]ximo de \d+ (l[íi]neas|caracteres|linhas) por\b",
        marks: r"常に|^すべての[^。]*(ください|すること)|^(加入|添加|新增)规则|每次|始终|总是|一律|모든[^.]*사용하|必须|必須|务必|務必|一定要|必ず|なければならない|すること$|こと。?$|반드시|항상|해야 합니다|해야 한다|(デプロイ|コミット|変更|更新|リリース|作業|実装)のたびに|ต้อง|เสมอ",
    },
    Family {
        category: "instruction",
        verb: "prefer",
        words: r"(\b(em|en) (portugu[êe]s|espa[ñn]ol|ingl[êe]s|fran[çc]ais|franc[êe]s|alem[ãa]o|italiano)( brasileiro| do brasil)?|(usa|use|utiliza|usar|verwende|nutze|u[żz]ywaj|d[ùu]ng|gunakan|kullan|используй|използвай)\b[^,;]*[,;—–-]\s*(no|n[ãa]o|nicht|nie|kh[ôo]ng|jangan|не|без)\b|prefi[ea]r\w*|privil[ée]gi\w*|preferible|prefer[íi]vel|de preferencia|de prefer[êe]ncia|cuando sea posible|quando poss[íi]vel|wenn m[öo]glich|bevorzug\w*|vorzugsweise|lieber|pr[ée]f[ée]r\w*|si possible|preferuj\w*|rad[ěe]ji|tercih\w*|[ưu]u ti[êe]n|n[êe]n d[ùu]ng|sebaiknya|предпочит\w*|по возможности|лучше|^(utiliser|usar|utilizar|usa|utiliza|verwenden|nutzen|использовать|mantener|manter|maintenir))\b",
        marks: r"以降|今後|从现在起|从今以后|앞으로는|^使用|^采用|^统一使用|^統一使用|优先|優先|尽量|盡量|推荐|推薦|最好|なるべく|できるだけ|可能な限り|推奨|가급적|가능하면|선호|请使用|사용할 것\.?$|を意識して|を心がけ|を心掛け|[はを]日本語で|기본으로 사용|기본적으로 사용",
    },
];

/// A decision said in Korean's plain declarative ("인증은 JWT로 한다": "auth is done with JWT"), or as
/// what will be done ("… 구현할거야"): a fact about the project to keep.
const DECISION: Family = Family {
    category: "instruction",
    verb: "remember",
    words: "",
    marks: r"[은는] [^.?]*(사용한다|한다|이다|쓴다|할거야|할 거야|할 것이다)\.?$|^(这是|本项目是|该项目是|这个项目是)|^このプロジェクトでは[^。]*(使っています|使用しています|採用しています)",
};

/// A question of what a removal or a change would affect, or whether it is needed.
const IMPACT: Family = Family {
    category: "query",
    verb: "impact",
    words: r"([üu]berfl[üu]ssig|entfernt werden kann|se puede (eliminar|borrar|quitar)|es seguro (eliminar|borrar|quitar|cambiar)|pode ser removid[oa]|[ée] seguro (remover|apagar|mudar)|можно ли удалить|безопасно ли)\b",
    marks: r"是否兼容|兼容吗|能否兼容|互換性|호환|可以删除吗|能删除吗|是否可以删除|删除后会|影响哪些|削除しても|削除して大丈夫|影響範囲|삭제해도|영향을|影响范围",
};

/// "Dame el plan …, sin escribir código todavía", "不要写代码": nothing is to be written, so it asks.
const NO_CODE: Family = Family {
    category: "query",
    verb: "explain",
    words: r"(sin (escribir|tocar|cambiar) (el |ning[úu]n )?c[óo]digo|sem (escrever|mexer no|alterar o) c[óo]digo|n[ãa]o precisa mandar c[óo]digo|ohne (den )?code zu (schreiben|ändern)|sans (écrire|toucher|modifier) (de |le )?code|no hagas cambios|n[ãa]o fa[çc]a altera[çc][õo]es|не (пиши|меняй|трогай) код|без (написания )?кода|не делай правки)\b",
    marks: r"不要写代码|先不要写代码|不要修改代码|コードは書かないで|コードを書かずに|코드는 작성하지 말고|코드를 수정하지 말고",
};

/// "이 문서 내용 요약해서 보여줘": a summary asked for explains, whatever document it names.
const SUMMARY: Family = Family {
    category: "query",
    verb: "explain",
    words: r"(резюмируй|підсумуй|zusammenfass\w*)\b",
    marks: r"요약해|요약 해|要約して|总结一下|概括一下",
};

/// Orders to change the repository, most specific first.
const ORDERS: [Family; 10] = [
    // A feature added, whatever it does ("삭제 기능을 추가": a delete feature added).
    Family {
        category: "mutation",
        verb: "implement",
        words: r"(agrega|a[ñn]ade|adicione|ajoute[rz]?|aggiungi|добавь) (\w+ ){0,2}(funcionalidad|funcionalidade|fonctionnalit[ée]|funzionalit[àa]|функци\w*)\b",
        marks: r"(処理|機能)を追加|기능(을|를)? 추가|(添加|增加)[^，。,]*功能|機能を追加|機能追加",
    },
    Family {
        category: "mutation",
        verb: "scaffold",
        words: r"((configurar|inicializar|initialiser|crear|criar|cr[ée]er) (el |o |le |un |um |une )?(nuevo |novo |nouveau )?(proyecto|projeto|projet)|inicializa\w* (el|o|um|un) (proyecto|projeto)|(crea|crie|cria) (un|um) (nuevo |novo )?(proyecto|projeto)|inizializza\w*|squelette|esqueleto|nuovo progetto|neues projekt|создай (новый )?проект|создай (\w+ )?[\w-]*приложение|kh[ởo]i t[ạa]o (project|d[ựu] [áa]n)|инициализ\w*)\b",
        marks: r"初期セットアップ|初期設定|프로젝트 초기 설정|초기화 해|초기화해|初始化项目|初始化專案|创建项目|新建项目|搭建|脚手架|(写|开发|做)一个[^，。,.]*(应用|網站|网站|项目|系统)|(アプリ|プロジェクト|サイト)を作成|(프로젝트|앱|백엔드|프론트엔드|서버|웹사이트|애플리케이션|플랫폼)[^.]*(를|을) 만들어|프로젝트 (스켈레톤|생성|초기)|초기 프로젝트|프로젝트를 (생성|만들)|스켈레톤",
    },
    Family {
        category: "mutation",
        verb: "fix",
        words: r"(correctif|corriger|correggi|risolvi|corrige|corrija|corrigir|corregir|arregla|arreglar|soluciona|solucionar|resuelve|resolve|resolver|conserta|conserte|consertar|behebe|beheben|repariere|reparieren|corrigez|r[ée]pare[rz]?|napraw|popraw|d[üu]zelt|[çc][öo]z|[çc][öo]z[üu]m bul\w*|oprav\w*|s[ửu]a (l[ỗo]i|lại)|perbaiki|memperbaiki|исправ\w*|почини\w*|пофикс\w*)\b",
        marks: r"调试|修一下|修下|修好|デバッグして|디버깅해|디버그해|修复|修正|修改错误|解决|直して|修正して|고쳐줘|고쳐 줘|고쳐주세요|수정해줘|수정해 줘|수정해주세요|해결해줘|해결해 줘",
    },
    Family {
        category: "mutation",
        verb: "delete",
        words: r"(удален\w*|enl[èe]ve\w*|enlever|rimuovi|cancella|elimina|eliminar|borra|borrar|quita|quitar|remova|remover|apague|apagar|l[öo]sche|entferne|supprime[rz]?|usu[ńn]|sil|kald[ıi]r|sma[žz]|odstra[ňn]|x[óo]a|hapus|удали\w*|убери\w*)\b|suppression",
        marks: r"删除|刪除|移除|删掉|去掉|清理|削除|消して|삭제|제거|지워",
    },
    Family {
        category: "mutation",
        verb: "rename",
        words: r"(renombra\w*|renomei?[ae]\w*|umbenenn\w*|benenne\w* um|renomme[rz]?|zmie[ńn] nazw[ęe]|yeniden adland[ıi]r|p[řr]ejmenuj|đổi tên|ganti nama|переименуй\w*)\b",
        marks: r"重命名|改名|名从|名字改|名称改|命名|名前を変更|リネーム|이름을 바꿔|이름 변경|이름을 변경",
    },
    Family {
        category: "mutation",
        verb: "refactor",
        words: r"(convertiss\w*|convertir|rifattorizz\w*|d[ée]pla[çc]ant|all[èe]gement|clarification du code|restructur\w*|r[ée]organis\w*|refactori[zs]a\w*|refator\w*|refaktor\w*|umstrukturier\w*|t[áa]i c[ấa]u tr[úu]c|рефактор\w*|отрефактор\w*|перепиши\w*)\b|reorganizar\b|обособ\w*",
        marks: r"重构|重構|抽取|提取出来|不写死|重写|リファクタ|리팩토링|리팩터|분리|중앙화|모듈화",
    },
    Family {
        category: "mutation",
        verb: "test",
        words: r"((escribe|escreva|crea|cria|agrega|agregar|adicione|adicionar|a[ñn]adir|ajouter|a[ñn]ade|écris|napisz|napi[šs]|vi[ếe]t|buat)( \w+)? (pruebas|testes|tests|testy|test)|pruebas unitarias|testes unit[áa]rios|tests? schreiben|test yaz\w*|tests? unitaires?|(добавь|напиши|создай)( \w+)? тест\w*|напиши тест\w*|тесты для|(fehlen|faltan|faltam|brakuje|chyb[íi]|не хватает|нет)\b[^.;]*\b(tests?|pruebas|testes|testy|тест\w*))\b",
        marks: r"테스트 코드 추가|テストを作成|帮我测试|测试一下|测试这个|テストを実装|ユニットテスト|写测试|添加测试|单元测试|測試用例|测试用例|テストを書|テストを追加|テストコードを|테스트를 작성|테스트 코드를 작성|테스트를 추가|테스트 추가|테스트 ?(코드 )?(작성|추가)",
    },
    Family {
        category: "mutation",
        verb: "document",
        words: r"((добав\w*|напиши\w*|созда\w*) (\w+ ){0,2}(пример|инструкци)\w*|documento|markdown file|manual(es)?|instrucciones|instru[çc][õo]es|passo-a-passo|paso a paso|documenta\w*|dokumentier\w*|dokumentac\w*|dokumentasi\w*|belgele\w*|t[àa]i li[ệe]u|документ\w*|комментари\w*)\b|passo a passo",
        marks: r"(?i:readme)|記載|的含义|记录为|记录到|记录下来|文档|文檔|注释|注釋|ドキュメント|コメントを|문서|주석",
    },
    Family {
        category: "mutation",
        verb: "commit",
        words: r"((haz|hagas|haga|realiza|realices|fa[çz]a|fazer|mache?) (un |um |einen )?commit|commit (y|e|und|et|con|com|и) push|committe\w*|закоммить\w*|запушь\w*)\b",
        marks: r"커밋[^.]*(해|줘)|推送|提交代码|提交到|コミットして|プッシュして|커밋해|푸시해|commitを作成|コミットを作成|pr ?올려|(pr|브랜치)[을를]? ?병합",
    },
    Family {
        category: "mutation",
        verb: "implement",
        words: r"(aggiungi|applica|a[ñn]ade|agrega|agregar|crea|crear|implementa\w*|permite|adicione|adiciona|adicionar|crie|cria|criar|fa[çc]a|f[üu]ge\w*|hinzuf[üu]gen|erstelle\w*|implementiere\w*|ajoute[rz]?|cr[ée]e[rz]?|impl[ée]mente[rz]?|permett\w*|dodaj|utw[óo]rz|zaimplementuj|ekle\w*|olu[şs]tur\w*|p[řr]idej|vytvo[řr]|ud[ěe]lej|dej|th[êe]m|t[ạa]o|buatkan|tambahkan|buat|добав\w*|доработай|настрой\w*|сделай\w*|создай\w*|реализуй\w*|напиши\w*)\b",
        marks: r"建议(增加|添加|加入|支持)|希望(增加|添加|加入|支持|能)|機能の強化|機能強化|機能を強化|改為|改为|改成|ようにする$|添加|增加|实现|實現|创建|建立|做一个|写一个|加一个|加个|加上|追加|実装|作成|作って|추가해|구현해|만들어줘|만들어 줘|만들어주세요|작성해|변경해|바꿔|^修改[^错]|升级|を変更|変更する$|實作|实作",
    },
];

/// Questions and orders that only ask: to explain, review, run, or find.
const ASKS: [Family; 4] = [
    Family {
        category: "query",
        verb: "status",
        words: r"(ejecuta|execute|executa|f[üu]hre \S+ aus|uruchom|[çc]al[ıi][şs]t[ıi]r|spus[ťt]|ch[ạa]y|jalankan|запусти|запустите|versi[óo]n actual|vers[ãa]o atual|aktuelle version|statut|(siguiente|pr[óo]xim[oa]) (release|versi[óo]n|vers[ãa]o)|est(-t)?-il mort|abandonad[oa]|abandonn[ée]|провер\w* (запуск|работу|статус|состояние|сборку|тесты|размер))\b",
        marks: r"로그 확인|로그를 확인|ログを確認|最近[^，。]{0,16}提交|提交记录|コミット履歴|커밋 내역|커밋 기록|커버리지 확인|커버리지를 확인|カバレッジを確認|覆盖率|当前的状态|当前状态|現在の状態|현재 상태|运行测试|跑测试|执行测试|テストを実行|実行して|실행해|현재 버전|当前版本|周报|週報|日报|日報",
    },
    Family {
        category: "query",
        verb: "review",
        words: r"((identifique|identifica|encuentra|encontre) (\w+ ){0,3}(gargalos|cuellos de botella|problemas|riscos|riesgos|vulnerabilidades)|перевір\w*|чим поганий|qu[ée] falta|o que falta|lo que falta|cumple con|corresponde a lo pedido|revisa\w*|revise|controlla|eficiencia|efici[êe]ncia|calidad del c[óo]digo|qualidade do c[óo]digo|уязвимост\w*|(haz|fa[çz]a|fais) (un|uma|une) (an[áa]lisis|an[áa]lise|analyse|revisi[óo]n|revis[ãa]o)|auditor[íi]a|verifica|verifique|[üu]berpr[üu]fe|pr[üu]fe|audite|sprawd[źz]|kontrol et|incele|zkontroluj|ki[ểe]m tra|cek|periksa|проверь\w*|ревью)\b",
        marks: r"ていないか|ってないか|是否合理|合理吗|需要修改的地方|有什么问题|有没有问题|评估一下|检查|檢查|审查|審查|审核|代码审查|レビュー|確認して|チェックして|확인해|리뷰|검토|점검|評估|確認一下|确认一下|請確認|请确认",
    },
    Family {
        category: "query",
        verb: "search",
        words: r"(d[óo]nde|dode|onde|wo (ist|sind|wird|werden)|gdzie|nerede|kde|[ởo] đâu|di ?mana|где|busca|encuentra|procure|encontre|suche|znajd[źz]|bul|najdi|t[ìi]m|cari|найди\w*)\b",
        marks: r"在哪|哪里|哪儿|找到|查找|搜索|どこ|探して|検索|어디|찾아줘|찾아 줘",
    },
    Family {
        category: "query",
        verb: "explain",
        words: r"(поясни\w*|ph[âa]n t[íi]ch|spiega\w*|analizz\w*|consigli\w*|dimmi|explica\w*|explique\w*|analiza\w*|analisa\w*|resumen|resumo|resume|erkl[äa]r\w*|beschreib\w*|wyja[śs]nij|a[çc][ıi]kla\w*|vysv[ěe]tli|gi[ảa]i th[íi]ch|jelaskan|объясни\w*|расскажи\w*|проанализируй\w*|plan de|plano de|no entiendo|n[ãa]o entendo|verstehe nicht)\b",
        marks: r"让我[^，。]*理解|解释|解釋|说明一下|說明一下|介绍一下|介紹一下|讲解|分析|説明して|教えて|解説|설명|알려줘|분석|제안해|추천해",
    },
];

/// A problem said: an error, a crash, something that does not work.
const SYMPTOM: Family = Family {
    category: "mutation",
    verb: "fix",
    words: r"(^bug\b|no (cambia|carga|muestra|abre|guarda|aparece|responde)\w*|no funciona|no puede|no se puede|falla|fallo|error(es)?|n[ãa]o (funciona|mostra|grava|salva|carrega|abre|aparece|inicia|compila|roda|executa)|no compila|non funziona|n[ãa]o consigo|erro|falha|bloqueando|funktioniert nicht|startet nicht|geht nicht|st[üu]rzt|absturz|fehler|kaputt|ne fonctionne pas|erreur|plante|nie dzia[łl]a|b[łl][ąa]d|nie mo[żz]na|hata\w*|[çc][öo]kt[üu]|[çc]al[ıi][şs]m[ıi]yor|sorun|nefunguje|chyba|h[áa][žz]e|l[ỗo]i|kh[ôo]ng (ho[ạa]t đ[ộo]ng|ch[ạa]y)|tidak bisa|gagal|rusak|ошибк\w*|не работает|не запускается|невозможно|no me (deja|funciona|carga|abre|permite|arranca|instala)\w*|probleme? mit|проблем\w* с|пада\w*|gak bisa|nggak bisa|не собира\w+|перестал\w* (собираться|работать|запускаться|компилироваться|открываться)|не компилиру\w+|не могу|не удается|падает|вылетает|сломал\w*)\b",
    marks: r"されず|连不上|连接不上|打不开|用不了|안되|안 되|乱码|文字化け|깨짐|깨져|报错|錯誤|错误|失败|失敗|无法|無法|不能|崩溃|崩潰|异常|異常|泄漏|不生效|不工作|不兼容|没反应|できません|出来ません|没有任何反应|无反应|没有反应|看不清|看不到|見えない|見えなく|反応しない|^\[バグ\]|현상$|卡死|エラー|不具合|できない|動かない|起動しない|表示されない|出ない|落ちる|コケ|問題|에러|오류|안 돼|안돼|안됨|실패|작동하지|안 나와|안나와",
};

pattern!(leak_or_race, r"内存泄漏|内存泄露|线程安全|線程安全|メモリリーク|スレッドセーフ|메모리 누수");

// The plain negative of a verb that takes an object ("…をモデルへ書かない", "…を昇格させない");
// a potential form ("ファイルを開けない": cannot open) is a symptom, not a rule.
pattern!(
    japanese_negative_rule,
    r"[\p{Hiragana}\p{Katakana}\p{Han}](しない|わない|ないこと)。?$|を[^、。]*[\p{Han}]([かさたなまらがば]ない|させない)。?$"
);

pattern!(
    how_or_why,
    r"(?i)\b(c[óo]mo|por ?qu[ée]|wie|warum|comment|pourquoi|jak|dlaczego|proč|nasıl|neden|bagaimana|kenapa|mengapa|как|почему|як|чому)\b|怎么|怎样|如何|为什么|どう|なぜ|어떻게|왜|방법|方法|やり方|相談|するとよい|したらいい|すべき"
);

/// The compiled cues of a family: one pattern for words and marks together.
fn compiled(family: &Family) -> Regex {
    let source = match family.words {
        "" => format!("(?:{})", family.marks),
        words => format!(r"(?i)(?:\b(?:{words}))|(?:{})", family.marks),
    };
    Regex::new(&source).unwrap_or_else(|e| panic!("built-in foreign cue {}: {e}", family.verb))
}

/// Every family in the order it is read, compiled once.
fn families() -> &'static Families {
    static CELL: OnceLock<Families> = OnceLock::new();
    CELL.get_or_init(|| Families {
        question: compiled(&QUESTION),
        polite: compiled(&POLITE),
        rules: RULES.iter().map(|f| (f.verb, compiled(f))).collect(),
        impact: compiled(&IMPACT),
        no_code: compiled(&NO_CODE),
        summary: compiled(&SUMMARY),
        decision: compiled(&DECISION),
        orders: ORDERS.iter().map(|f| ((f.category, f.verb), compiled(f))).collect(),
        asks: ASKS.iter().map(|f| ((f.category, f.verb), compiled(f))).collect(),
        symptom: compiled(&SYMPTOM),
    })
}

struct Families {
    question: Regex,
    polite: Regex,
    rules: Vec<(&'static str, Regex)>,
    impact: Regex,
    no_code: Regex,
    summary: Regex,
    decision: Regex,
    orders: Vec<((&'static str, &'static str), Regex)>,
    asks: Vec<((&'static str, &'static str), Regex)>,
    symptom: Regex,
}

/// Common words of the languages read here that English does not use.
const FOREIGN_WORDS: &[&str] = &[
    "el",
    "la",
    "los",
    "las",
    "del",
    "que",
    "en",
    "y",
    "para",
    "por",
    "con",
    "una",
    "es",
    "se",
    "lo",
    "al",
    "como",
    "pero",
    "este",
    "esta",
    "ese",
    "esa",
    "hay",
    "puede",
    "cuando",
    "donde",
    "porque",
    "muy",
    "todo",
    "sin",
    "mi",
    "os",
    "um",
    "em",
    "da",
    "dos",
    "das",
    "com",
    "na",
    "ao",
    "mas",
    "pra",
    "esse",
    "essa",
    "isso",
    "fazer",
    "tem",
    "der",
    "das",
    "und",
    "ist",
    "nicht",
    "mit",
    "auf",
    "ein",
    "eine",
    "den",
    "dem",
    "zu",
    "von",
    "wird",
    "bei",
    "mir",
    "ich",
    "du",
    "sich",
    "auch",
    "nur",
    "noch",
    "mehr",
    "kann",
    "sollte",
    "wenn",
    "oder",
    "aber",
    "wie",
    "ob",
    "diese",
    "immer",
    "le",
    "les",
    "des",
    "du",
    "est",
    "et",
    "pour",
    "dans",
    "pas",
    "une",
    "sur",
    "avec",
    "ce",
    "qui",
    "ne",
    "je",
    "vous",
    "il",
    "di",
    "che",
    "per",
    "non",
    "sono",
    "della",
    "nie",
    "jest",
    "na",
    "w",
    "z",
    "czy",
    "je",
    "aby",
    "ale",
    "pro",
    "jen",
    "ve",
    "bir",
    "bu",
    "ile",
    "gibi",
    "yang",
    "dan",
    "ini",
    "itu",
    "ke",
    "dari",
    "saya",
    "o",
    "zawsze",
    "nigdy",
    "siempre",
    "nunca",
    "sempre",
    "immer",
    "niemals",
    "toujours",
    "jamais",
    "uno",
    "il",
    "gli",
    "della",
    "delle",
    "dei",
    "questo",
    "questa",
    "anche",
    "tutto",
    "tutta",
    "fare",
    "grazie",
    "bisogna",
    "quali",
    "cosa",
    "nikdy",
    "selalu",
    "jangan",
    "harus",
    "asla",
    "mutlaka",
    "bitte",
    "por favor",
    "favor",
    "tu",
    "mon",
    "ma",
    "mes",
    "au",
    "aux",
    "de",
    "ni",
    "entre",
    "quiero",
    "necesito",
    "ahora",
    "también",
    "más",
    "sobre",
    "desde",
    "hasta",
    "agrega",
    "preciso",
    "quero",
    "agora",
    "mais",
    "apakah",
    "ada",
    "untuk",
    "dengan",
    "tidak",
    "coba",
    "tolong",
];

/// Common English words: a request that says more of them than of the others is English.
const ENGLISH_WORDS: &[&str] = &[
    "the", "a", "an", "to", "of", "and", "in", "is", "for", "with", "on", "it", "this", "that", "be", "not", "i",
    "you", "we", "my", "when", "from", "are", "can", "should", "do", "does", "how", "what", "why", "where", "if", "by",
    "at", "or", "but", "all", "use", "add", "fix", "make", "please",
];

/// Whether a letter is of the Latin script (Vietnamese's included).
fn latin(c: char) -> bool {
    c <= '\u{24F}' || ('\u{1E00}'..='\u{1EFF}').contains(&c)
}

/// Whether `masked` (names already masked) is written in a language other than English:
/// letters of another script, or more common words of the languages read here than of
/// English, accented words counting as the others'.
pub(super) fn not_english(masked: &str) -> bool {
    if masked.chars().any(|c| c.is_alphabetic() && !latin(c)) {
        return true;
    }
    let lower = masked.to_lowercase();
    let words: Vec<&str> = lower.split(|c: char| !(c.is_alphabetic() || c == '-')).filter(|w| !w.is_empty()).collect();
    let other = words.iter().filter(|w| FOREIGN_WORDS.contains(w) || !w.is_ascii()).count();
    let english = words.iter().filter(|w| ENGLISH_WORDS.contains(w)).count();
    other > english
}

/// The category and verb of a request not written in English, where one of the cues speaks:
/// a question asks (what about, by its cues; explaining where none says), unless it asks
/// the agent politely to make a change; a standing rule forbids, requires or prefers (the
/// first cue said speaks); an order changes, explains, reviews, runs or finds; a problem
/// said is a bug to fix. `masked` has its names masked.
pub(super) fn reading(masked: &str) -> Option<(&'static str, &'static str)> {
    let f = families();
    let text = masked.trim().trim_start_matches(['¿', '¡']);
    let asked = text.ends_with(['?', '？']) || f.question.is_match(text);
    let order = || f.orders.iter().find(|(_, re)| re.is_match(text)).map(|(reading, _)| *reading);
    let asking = || f.asks.iter().find(|(_, re)| re.is_match(text)).map(|(reading, _)| *reading);
    if asked {
        if f.polite.is_match(text) {
            if let Some(reading) = order() {
                return Some(reading);
            }
        }
        if f.impact.is_match(text) {
            return Some(("query", "impact"));
        }
        // How and why ask for an explanation, whatever else the question names.
        if how_or_why().is_match(text) {
            return Some(("query", "explain"));
        }
        // "难道不会内存泄漏吗": a leak or thread safety asked about is judged; said, it is a bug.
        if leak_or_race().is_match(text) {
            return Some(("query", "review"));
        }
        return Some(asking().unwrap_or(("query", "explain")));
    }
    // An order asked politely ("tolong buat …", "帮我 …") or said as Korean orders end ("…해줘",
    // "do it for me") is no standing rule, whatever "must" it says.
    let ordered = text.contains('줘') || text.contains("주세요") || f.polite.is_match(text);
    if !ordered {
        // "機密情報をコミットしない": a Japanese rule line ends in the plain negative; a symptom
        // ("起動しない", "表示されない") ends so too, and is told by its own cues.
        if japanese_negative_rule().is_match(text) && !f.symptom.is_match(text) {
            return Some(("instruction", "forbid"));
        }
        let rule =
            f.rules.iter().filter_map(|(verb, re)| re.find(text).map(|m| (m.start(), *verb))).min_by_key(|(at, _)| *at);
        if let Some((_, verb)) = rule {
            return Some(("instruction", verb));
        }
    }
    if f.summary.is_match(text) {
        return Some(("query", "explain"));
    }
    if f.no_code.is_match(text) {
        return Some(asking().unwrap_or(("query", "explain")));
    }
    if !ordered && f.decision.is_match(text) {
        return Some(("instruction", "remember"));
    }
    if f.impact.is_match(text) {
        return Some(("query", "impact"));
    }
    // "检查已有能力的实现是否满足…": a request that opens by asking to review or explain asks, whatever
    // noun of change it names after ("实现", an implementation); a specific order still speaks.
    let ordered_to = order();
    let opens_by_asking = f.asks.iter().any(|(_, re)| re.find(text).is_some_and(|m| m.start() == 0));
    if opens_by_asking && matches!(ordered_to, None | Some(("mutation", "implement"))) {
        return asking();
    }
    ordered_to.or_else(asking).or_else(|| f.symptom.is_match(text).then_some(("mutation", "fix")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests in other languages, each as a person would label it, and English ones
    /// that must be left to the English rules.
    #[test]
    fn requests_in_other_languages_read_by_their_own_cues() {
        let cases = [
            ("怎么修改默认端口？", Some(("query", "explain"))),
            ("这个函数在哪里被调用", Some(("query", "search"))),
            ("禁止在组件中直接调用数据库", Some(("instruction", "forbid"))),
            ("必须使用别名，禁止相对路径", Some(("instruction", "require"))),
            ("更新后无法启动", Some(("mutation", "fix"))),
            ("帮我添加一个登录页面", Some(("mutation", "implement"))),
            ("コード変更前に必ずテストを追加", Some(("instruction", "require"))),
            ("起動時にエラーが出る不具合", Some(("mutation", "fix"))),
            ("이 함수를 리팩토링해줘", Some(("mutation", "refactor"))),
            ("코드에 하드코딩하지 않습니다", Some(("instruction", "forbid"))),
            ("Не запускается после обновления", Some(("mutation", "fix"))),
            ("Объясни, как работает кэш", Some(("query", "explain"))),
            ("que funcion tiene este directorio", Some(("query", "explain"))),
            ("arregla el error del login", Some(("mutation", "fix"))),
            ("realiza una auditoría completa del proyecto", Some(("query", "review"))),
            ("Botão de salvar não funciona", Some(("mutation", "fix"))),
            ("Execute o benchmark completo", Some(("query", "status"))),
            ("API-Endpunkt immer aus der Konfiguration, nie hardcoded", Some(("instruction", "require"))),
            ("man sollte prüfen ob diese Funktion überflüssig ist", Some(("query", "impact"))),
            ("ZAWSZE weryfikuj typ odpowiedzi", Some(("instruction", "require"))),
            ("KHÔNG sửa file nếu không được yêu cầu", Some(("instruction", "forbid"))),
            ("tolong buatkan saya navbar yang bagus", Some(("mutation", "implement"))),
            ("coba cek semua file apakah ada yang salah", Some(("query", "review"))),
        ];
        for (text, want) in cases {
            assert!(not_english(text), "{text}");
            assert_eq!(reading(text), want, "{text}");
        }
        for english in [
            "Fix the crash when the config is empty",
            "Where is parse_config defined?",
            "Never use unwrap in library code",
            "de-duplicate the entries in the cache",
            "Add a cafe menu to the app",
        ] {
            assert!(!not_english(english), "{english}");
        }
    }
}
