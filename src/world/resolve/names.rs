//! Names a language's own library answers: builtins called bare, methods of
//! its standard types, types and globals that are never the project's. A
//! call to one of these binds to a project symbol only when name resolution
//! or a known receiver type says so, never by a bare-name guess.

use crate::world::lang::Lang;

/// Functions, constructors and conversions called bare without an import.
pub fn builtin_function(lang: Lang, name: &str) -> bool {
    let list: &[&str] = match lang {
        Lang::Python => &[
            "abs", "all", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes", "callable", "chr",
            "classmethod", "compile", "complex", "delattr", "dict", "dir", "divmod", "enumerate", "eval", "exec",
            "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr", "hash", "help", "hex", "id",
            "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview",
            "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr", "reversed",
            "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type",
            "vars", "zip",
        ],
        Lang::Rust => &["Some", "None", "Ok", "Err", "Box", "Vec", "String", "drop", "Default"],
        Lang::Go => &[
            "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max", "min",
            "new", "panic", "print", "println", "real", "recover", "string", "int", "int8", "int16", "int32",
            "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64", "byte", "rune",
            "bool", "error",
        ],
        Lang::TypeScript | Lang::Tsx => &[
            "Array", "BigInt", "Boolean", "Date", "Error", "Map", "Number", "Object", "Promise", "Proxy", "RangeError",
            "RegExp", "Set", "String", "Symbol", "TypeError", "WeakMap", "WeakSet", "clearInterval", "clearTimeout",
            "decodeURIComponent", "encodeURIComponent", "fetch", "isFinite", "isNaN", "parseFloat", "parseInt",
            "queueMicrotask", "require", "setImmediate", "setInterval", "setTimeout", "structuredClone",
            // Test framework globals.
            "describe", "it", "test", "expect", "beforeEach", "afterEach", "beforeAll", "afterAll",
        ],
    };
    list.contains(&name)
}

/// Methods the standard library's types answer (`d.get(k)`, `v.len()`,
/// `t.Helper()`, `xs.map(f)`): on a receiver of unknown type, more likely
/// theirs than the project's.
pub fn std_method(lang: Lang, name: &str) -> bool {
    let list: &[&str] = match lang {
        Lang::Python => &[
            "add", "append", "clear", "close", "copy", "count", "debug", "decode", "discard", "encode", "endswith",
            "error", "exception", "extend", "find", "format", "get", "group", "index", "info", "insert", "items",
            "join", "keys", "lower", "lstrip", "match", "pop", "popitem", "put", "read", "readline", "readlines",
            "remove", "replace", "reverse", "rstrip", "search", "seek", "send", "setdefault", "sort", "split",
            "splitlines", "start", "startswith", "strip", "sub", "update", "upper", "values", "wait", "warning",
            "write", "writelines", "tell", "flush", "acquire", "release", "fileno", "sleep",
        ],
        Lang::Rust => &[
            "and_then", "as_bytes", "as_mut", "as_ptr", "as_ref", "as_slice", "as_str", "borrow", "borrow_mut",
            "build", "bytes", "chars", "clear", "clone", "cloned", "cmp", "collect", "contains", "contains_key",
            "copied", "count", "default", "downcast", "downcast_mut", "downcast_ref", "drain", "ends_with", "entry",
            "enumerate", "eq", "err", "expect", "expect_err", "extend", "filter", "filter_map", "find", "flat_map",
            "flush", "fmt", "fold", "for_each", "from", "get", "get_mut", "hash", "insert", "into", "into_iter",
            "is_empty", "is_err", "is_none", "is_ok", "is_some", "iter", "iter_mut", "join", "keys", "last", "len",
            "lines", "lock", "map", "map_err", "max", "min", "ne", "new", "next", "nth", "ok", "ok_or", "ok_or_else",
            "parse", "partial_cmp", "peek", "pop", "position", "push", "push_str", "read", "remove", "rev", "run",
            "send", "skip", "sort", "sort_by", "source", "split", "starts_with", "sum", "take", "to_lowercase",
            "to_owned", "to_string", "to_uppercase", "to_vec", "trim", "try_into", "unwrap", "unwrap_err",
            "unwrap_or", "unwrap_or_default", "unwrap_or_else", "values", "write", "write_all", "write_fmt",
            "write_str", "zip",
        ],
        Lang::Go => &[
            "Add", "Close", "Cleanup", "Do", "Done", "Error", "Errorf", "Fail", "FailNow", "Fatal", "Fatalf", "Get",
            "Helper", "Len", "Load", "Lock", "Log", "Logf", "Name", "Parallel", "RLock", "RUnlock", "Read", "Reset",
            "Run", "Set", "Skip", "Skipf", "Store", "String", "Unlock", "Wait", "Write", "WriteByte", "WriteRune",
            "WriteString", "Bytes", "Err", "Value", "Deadline", "Scan", "Text", "Next",
        ],
        Lang::TypeScript | Lang::Tsx => &[
            "add", "apply", "at", "bind", "call", "catch", "charAt", "charCodeAt", "clear", "concat", "delete",
            "endsWith", "entries", "every", "exec", "fill", "filter", "finally", "find", "findIndex", "flat",
            "flatMap", "forEach", "get", "has", "includes", "indexOf", "join", "keys", "lastIndexOf", "log", "map",
            "match", "next", "padEnd", "padStart", "pop", "push", "reduce", "replace", "reverse", "set", "shift",
            "slice", "some", "sort", "splice", "split", "startsWith", "substring", "test", "then", "toLowerCase",
            "toString", "toUpperCase", "trim", "unshift", "valueOf", "values", "error", "warn", "info", "debug",
            "emit", "on", "once", "off", "resolve", "reject",
        ],
    };
    list.contains(&name)
}

/// Types a language provides: a receiver of one of these is never the project's.
pub fn builtin_type(lang: Lang, name: &str) -> bool {
    let list: &[&str] = match lang {
        Lang::Python => &[
            "str", "int", "float", "bool", "bytes", "bytearray", "dict", "list", "set", "frozenset", "tuple", "object",
            "Any", "Dict", "List", "Set", "Tuple", "Mapping", "MutableMapping", "Sequence", "Iterable", "Iterator",
            "Callable", "IO", "TextIO", "BinaryIO", "Path", "Pattern", "Match", "Logger", "datetime", "timedelta",
        ],
        Lang::Rust => &[
            "Option", "Result", "Vec", "VecDeque", "String", "str", "HashMap", "HashSet", "BTreeMap", "BTreeSet",
            "Path", "PathBuf", "OsStr", "OsString", "NonNull", "NonZeroUsize", "NonZeroU64", "Formatter", "Duration",
            "Instant", "File", "Ordering", "Cell", "PhantomData", "AtomicUsize", "AtomicBool", "u8", "u16", "u32",
            "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char",
        ],
        Lang::Go => &[
            "string", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
            "uintptr", "float32", "float64", "byte", "rune", "bool", "error", "any", "map", "chan", "func",
            "interface", "struct",
        ],
        Lang::TypeScript | Lang::Tsx => &[
            "string", "number", "boolean", "bigint", "symbol", "any", "unknown", "never", "object", "Array",
            "ReadonlyArray", "Map", "Set", "WeakMap", "Record", "Partial", "Required", "Pick", "Omit", "Date",
            "RegExp", "Error", "Function", "Object", "String", "Number", "Boolean", "Uint8Array", "ArrayBuffer",
        ],
    };
    list.contains(&name)
}

/// Globals a receiver may name that are the runtime's, never the project's.
pub fn builtin_global(lang: Lang, name: &str) -> bool {
    let list: &[&str] = match lang {
        Lang::Python => &["self.assert", "__builtins__"],
        Lang::Rust => &["std", "core", "alloc"],
        Lang::Go => &[],
        Lang::TypeScript | Lang::Tsx => &[
            "console", "Math", "JSON", "Object", "Array", "Promise", "Number", "String", "Reflect", "Date",
            "process", "window", "document", "Symbol", "globalThis", "Buffer", "Intl", "BigInt", "Error",
        ],
    };
    list.contains(&name)
}
